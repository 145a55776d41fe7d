//! The Cross-lingual tab's page-side runs, natively: the texts to embed go out as the Run tab's
//! JSONL and plan as embedding calls; an embedding run's vectors replace the earlier ones with
//! their model; the judge's cases plan as chat calls; and an uploaded distance matrix gives the
//! same PERMANOVA family as the vectors it was computed from, with located errors otherwise.

#[path = "common/crosslingual_session.rs"]
mod crosslingual_session;

use crosslingual_session::simulated;
use evenhand::crosslingual::permanova;
use evenhand::crosslingual::runs::EmbeddingBatch;
use evenhand::crosslingual::session::{Session, SessionError};
use evenhand::run::{Plan, RunSpec, cases, embed_texts};
use evenhand::stats::distance::Distance;
use serde_json::json;

fn spec(models: &[&str]) -> RunSpec {
    let t = json!({"run_id": "r", "targets": [{"id": "t", "provider": "openai-compatible",
        "base_url": "http://127.0.0.1:9/v1", "models": models}]});
    RunSpec::from_json(&t.to_string()).unwrap()
}

#[test]
fn texts_to_embed_and_judge_cases_plan_in_the_run_engine() {
    let mut s = simulated();
    let n = s.dataset().records.len();
    assert!(s.embed_texts_jsonl(false).is_err(), "simulated records have vectors already");
    let jsonl = s.embed_texts_jsonl(true).unwrap();
    let texts = embed_texts::read("texts.jsonl", jsonl.as_bytes()).unwrap();
    assert_eq!(texts.len(), n, "every simulated response has its own record id");
    let plan = Plan::embed(spec(&["emb"]), &texts, 10).unwrap();
    assert_eq!(plan.calls.len(), n.div_ceil(10));

    // The vectors come back and replace the simulated ones, with the model recorded.
    let ids: Vec<String> = texts.iter().map(|(id, _)| id.clone()).collect();
    let vectors: Vec<Vec<f64>> = (0..n).map(|i| vec![i as f64, 1.0, (i % 3) as f64]).collect();
    let bad = EmbeddingBatch { model: "emb".into(), ids: ids.clone(), vectors: vectors[1..].to_vec() };
    assert!(s.replace_embeddings(&bad).is_err());
    assert_eq!(
        s.view().unwrap().report.embeddings.models,
        Vec::<String>::new(),
        "a refused batch keeps the old vectors"
    );
    let dim_before = s.view().unwrap().report.embeddings.dimension;
    assert_ne!(dim_before, Some(3));
    assert_eq!(s.replace_embeddings(&EmbeddingBatch { model: "emb".into(), ids, vectors }).unwrap(), n);
    let e = s.view().unwrap().report.embeddings;
    assert_eq!((e.with_embedding, e.dimension, e.models), (n, Some(3), vec!["emb".to_string()]));

    // The judge's cases are a cases file the Run tab plans as chat calls.
    let judge = evenhand::formats::write(&s.judge_cases().unwrap(), evenhand::formats::FileFormat::Jsonl);
    let cases = cases::read("judge.jsonl", judge.as_bytes()).unwrap();
    let plan = Plan::chat(spec(&["judge"]), &cases).unwrap();
    assert_eq!(plan.calls.len(), n);
    assert!(
        plan.calls
            .iter()
            .all(|c| c.record.method == "crosslingual-judge" && c.record.extra.contains_key("judged_record_id"))
    );
}

/// The euclidean distance matrix of the session's vectors as the CSV the page uploads.
fn matrix_csv(s: &Session, edit: impl Fn(usize, usize, f64) -> String) -> String {
    let d = s.dataset();
    let ids: Vec<&str> = d.records.iter().map(|r| r.record_id.as_str()).collect();
    let mut out = format!("id,{}\n", ids.join(","));
    for (i, a) in d.embeddings.iter().enumerate() {
        let a = a.as_ref().unwrap();
        let row: Vec<String> = d
            .embeddings
            .iter()
            .enumerate()
            .map(|(j, b)| {
                let b = b.as_ref().unwrap();
                edit(i, j, a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt())
            })
            .collect();
        out.push_str(&format!("{},{}\n", ids[i], row.join(",")));
    }
    out
}

fn family(s: &mut Session, matrix: bool) -> permanova::Section {
    let settings =
        permanova::Settings { permutations: 199, distance: Distance::Euclidean, seed: 9, modes: vec![], matrix };
    let total = s.permanova_plan(settings).unwrap().total;
    while s.permanova_step(3).unwrap().done < total {}
    s.view().unwrap().report.permanova.unwrap()
}

#[test]
fn an_uploaded_matrix_gives_the_family_of_its_vectors() {
    let mut s = simulated();
    let csv = matrix_csv(&s, |_, _, x| format!("{x:?}"));
    let summary = s.load_distances("d.csv", csv.as_bytes()).unwrap();
    let n = 6 * 3 * 3 * 3; // questions x languages x modes x samples
    assert_eq!((summary.ids, summary.records_matched, summary.records_without), (n, n, 0));
    let from_vectors = family(&mut s, false);
    let from_matrix = family(&mut s, true);
    assert_eq!(from_matrix.source, "uploaded distance matrix d.csv");
    assert_eq!(from_vectors.source, "response embeddings, euclidean distance");
    assert_eq!(from_matrix.rows.len(), from_vectors.rows.len());
    assert_eq!(from_matrix.rows.len(), 3 * 4, "3 pairs x (overall + 3 topics)");
    for (m, v) in from_matrix.rows.iter().zip(&from_vectors.rows) {
        assert_eq!((&m.test, m.n_a, m.n_b), (&v.test, v.n_a, v.n_b));
        let (m, v) = (m.result.as_ref().unwrap(), v.result.as_ref().unwrap());
        assert!((m.f - v.f).abs() <= 1e-9 * v.f.abs().max(1.0), "F {} vs {}", m.f, v.f);
        assert_eq!((m.p, m.seed), (v.p, v.seed), "same permutations, same p");
    }
}

#[test]
fn bad_matrices_are_refused_with_their_place() {
    let mut s = simulated();
    let err = |s: &mut Session, text: &str| match s.load_distances("d.csv", text.as_bytes()) {
        Err(SessionError::Distances(p)) => p,
        other => panic!("expected a located problem, found {other:?}"),
    };
    // Asymmetric: row 2 (line 4), column 5 (file column 7) disagrees with its mirror.
    let asymmetric = matrix_csv(&s, |i, j, x| if (i, j) == (2, 5) { format!("{}", x + 1.0) } else { format!("{x:?}") });
    let p = err(&mut s, &asymmetric);
    assert_eq!((p.line, p.column), (Some(4), Some(7)), "{p}");
    assert!(p.message.contains("symmetric"), "{p}");
    // Not square: a row with a cell missing.
    let short = "id,a,b\na,0,1\nb,1\n";
    let p = err(&mut s, short);
    assert_eq!(p.line, Some(3), "{p}");
    // An id that is no loaded record: line 1, its header column.
    let first = s.dataset().records[0].record_id.clone();
    let p = err(&mut s, &format!("id,{first},ghost\n{first},0,1\nghost,1,0\n"));
    assert_eq!((p.line, p.column), (Some(1), Some(3)), "{p}");
    assert!(p.message.contains("ghost"), "{p}");
    // A cell that is no number.
    let p = err(&mut s, &format!("id,{first}\n{first},zero\n"));
    assert_eq!((p.line, p.column), (Some(2), Some(2)), "{p}");
    // A negative distance, and a failed upload keeps nothing half-read.
    let negative = matrix_csv(&s, |i, j, x| if i + j == 1 { "-1".into() } else { format!("{x:?}") });
    let p = err(&mut s, &negative);
    assert_eq!((p.line, p.column), (Some(2), Some(3)), "{p}");
    let settings = permanova::Settings { matrix: true, ..Default::default() };
    assert!(s.permanova_plan(settings).unwrap_err().to_string().contains("upload a distance matrix"));
}

#[test]
fn an_uploaded_matrix_draws_the_principal_coordinates_of_its_vectors() {
    let mut s = simulated();
    let n = s.dataset().records.len();
    let csv = matrix_csv(&s, |_, _, x| format!("{x:?}"));
    // A Euclidean matrix's principal coordinates are its vectors' PCA, axis by axis up to sign.
    let pca = permanova::projection(s.dataset(), &[]).unwrap();
    let m = evenhand::crosslingual::distances::read("d.csv", csv.as_bytes(), s.dataset()).unwrap();
    let (pcoa, negative) = m.projection.as_ref().unwrap();
    assert_eq!((*negative, &pcoa.languages), (0, &pca.languages));
    let scale = pca.projection.points.iter().map(|q| q[0].abs()).fold(0.0, f64::max);
    for k in 0..2 {
        assert!((pca.projection.explained[k] - pcoa.projection.explained[k]).abs() < 1e-9);
        let close = |sign: f64| {
            pca.projection
                .points
                .iter()
                .zip(&pcoa.projection.points)
                .all(|(a, b)| (a[k] - sign * b[k]).abs() < 1e-7 * scale)
        };
        assert!(close(1.0) || close(-1.0), "axis {k} differs");
    }
    // Without vectors, the page's scatter is the matrix's.
    assert!(s.view().unwrap().projection_svg.unwrap().contains("2-D PCA"));
    s.clear_embeddings();
    assert!(s.view().unwrap().projection_svg.is_none());
    s.load_distances("d.csv", csv.as_bytes()).unwrap();
    let svg = s.view().unwrap().projection_svg.unwrap();
    assert!(svg.contains("Distance matrix, 2-D principal coordinates") && svg.contains("from d.csv"), "{svg}");
    assert!(svg.contains("PCo1 ("), "{svg}");
    assert_eq!(svg.matches("<circle").count(), n + 3, "every response and a legend dot per language");
}
