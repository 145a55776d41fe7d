//! The Cross-lingual session's PERMANOVA through the page's pool, natively: each test's request
//! handed out (`permanova_next`), its permutations counted in two ranges by jobs built from the
//! request alone, as the pool's workers build them, and its report taken back
//! (`permanova_take`). The family equals the one `permanova_step` runs, for embeddings and for
//! an uploaded matrix with skipped tests; reports of another test are refused.

#[path = "common/crosslingual_session.rs"]
mod crosslingual_session;

use crosslingual_session::simulated;
use evenhand::crosslingual::permanova::{Section, Settings};
use evenhand::crosslingual::session::{Outcome, Session, SessionError};
use evenhand::stats::distance::Distance;

fn settings(matrix: bool) -> Settings {
    Settings { permutations: 199, distance: Distance::Chord, seed: 3, modes: vec![], matrix }
}

/// The family run a whole test at a time in the session.
fn stepped(s: &mut Session, matrix: bool) -> Section {
    let total = s.permanova_plan(settings(matrix)).unwrap().total;
    while s.permanova_step(2).unwrap().done < total {}
    s.view().unwrap().report.permanova.unwrap()
}

/// One test's report as the pool makes it: two ranges counted by jobs of their own, absorbed
/// into a third, all built from the handed-out request.
fn pooled_report(query: &evenhand::stats::permanova_query::PermanovaQuery, values: &[f64]) -> serde_json::Value {
    let total = query.permutations.unwrap();
    let mut job = query.job(values.to_vec()).unwrap();
    for (first, end) in [(0, total / 3), (total / 3, total)] {
        job.absorb(query.job(values.to_vec()).unwrap().count(first, end).unwrap()).unwrap();
    }
    serde_json::to_value(job.result().unwrap()).unwrap()
}

fn outcome(report: serde_json::Value) -> Outcome {
    serde_json::from_value(report).unwrap()
}

/// The family run through the pool's route.
fn pooled(s: &mut Session, matrix: bool) -> Section {
    let total = s.permanova_plan(settings(matrix)).unwrap().total;
    let mut done = 0;
    while done < total {
        let h = s.permanova_next().unwrap();
        assert_eq!(h.total, total);
        let Some(query) = h.query else {
            assert_eq!(h.done, total, "no test left means every test is in");
            break;
        };
        assert!(h.test.is_some() && !h.values.is_empty());
        done = s.permanova_take(outcome(pooled_report(&query, &h.values))).unwrap().done;
        assert_eq!(done, h.done + 1);
    }
    s.view().unwrap().report.permanova.unwrap()
}

/// The distance matrix (Euclidean on the vectors) of the records `keep` admits, as the CSV the
/// page uploads.
fn matrix_csv(s: &Session, keep: impl Fn(&evenhand::record::Record) -> bool) -> String {
    let d = s.dataset();
    let kept: Vec<usize> = (0..d.records.len()).filter(|&i| keep(&d.records[i])).collect();
    let ids: Vec<&str> = kept.iter().map(|&i| d.records[i].record_id.as_str()).collect();
    let mut out = format!("id,{}\n", ids.join(","));
    for &i in &kept {
        let a = d.embeddings[i].as_ref().unwrap();
        let row: Vec<String> = kept
            .iter()
            .map(|&j| {
                let b = d.embeddings[j].as_ref().unwrap();
                format!("{:?}", a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt())
            })
            .collect();
        out.push_str(&format!("{},{}\n", d.records[i].record_id, row.join(",")));
    }
    out
}

#[test]
fn the_pool_route_gives_the_family_of_the_steps() {
    let mut s = simulated();
    let by_steps = stepped(&mut s, false);
    let by_pool = pooled(&mut s, false);
    assert_eq!(by_pool, by_steps, "embeddings");
    assert!(by_pool.rows.iter().all(|r| r.result.is_some()));

    // Hindi only in the first topic: the pairs with Hindi skip the other topics, and the
    // skipped rows come out of `permanova_next` as they come out of a step.
    let first_topic = s.dataset().records[0].concern.clone();
    let csv = matrix_csv(&s, |r| r.language != "hi" || r.concern == first_topic);
    s.load_distances("d.csv", csv.as_bytes()).unwrap();
    let by_steps = stepped(&mut s, true);
    let by_pool = pooled(&mut s, true);
    assert_eq!(by_pool, by_steps, "uploaded matrix");
    assert_eq!(by_pool.source, "uploaded distance matrix d.csv");
    let skipped = by_pool.rows.iter().filter(|r| r.skipped.is_some()).count();
    assert!(skipped > 0 && skipped < by_pool.rows.len(), "{skipped} of {} skipped", by_pool.rows.len());
}

#[test]
fn a_report_of_another_test_is_refused() {
    let mut s = simulated();
    assert!(matches!(s.permanova_next(), Err(SessionError::NoRun)));
    s.permanova_plan(settings(false)).unwrap();
    let first = s.permanova_next().unwrap();
    let again = s.permanova_next().unwrap();
    assert_eq!((again.test, again.done, &again.values), (first.test.clone(), 0, &first.values), "handed out again");
    let query = first.query.unwrap();
    let good = pooled_report(&query, &first.values);

    // The wrong permutation count, seed or F: refused, and the run is cancelled.
    for (field, value) in [("permutations", 99.into()), ("seed", 1.into()), ("f", 0.5.into())] {
        s.permanova_plan(settings(false)).unwrap();
        s.permanova_next().unwrap();
        let mut bad = good.clone();
        bad[field] = value;
        assert!(s.permanova_take(outcome(bad)).is_err(), "{field}");
        assert!(matches!(s.permanova_next(), Err(SessionError::NoRun)), "{field}: the run is cancelled");
    }
    // More exceedances than permutations: the job's own refusal.
    s.permanova_plan(settings(false)).unwrap();
    s.permanova_next().unwrap();
    let mut bad = good.clone();
    bad["exceedances"] = 500.into();
    assert!(matches!(s.permanova_take(outcome(bad)), Err(SessionError::Permanova(_))));

    // Nothing out: refused. A test out and then stepped runs here.
    s.permanova_plan(settings(false)).unwrap();
    assert!(s.permanova_take(outcome(good.clone())).is_err(), "no test handed out");
    s.permanova_next().unwrap();
    assert_eq!(s.permanova_step(1).unwrap().done, 1);
    let second = s.permanova_next().unwrap();
    assert_eq!(second.done, 1);
    assert_ne!(second.test, first.test);
    assert!(s.permanova_take(outcome(good)).is_err(), "the first test's report for the second");
}
