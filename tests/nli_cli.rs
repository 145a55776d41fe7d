//! `evenhand crosslingual --nli-model-dir`: the zero-shot NLI detector (a tiny random-weight
//! XLM-R classifier the test writes) fills every answer's `nli_p_refuse`, its verdicts are the
//! evenhand-models crate's, `--detector nli` makes it decide, and the report names it (model,
//! sha256, rule). An answer in a language without labels is refused naming it and its record.

#![cfg(not(target_arch = "wasm32"))]

#[path = "common/cli.rs"]
mod cli;
use cli::evenhand;
use evenhand_models::nli::NliDetector;
use evenhand_models::tiny::{self, Head};
use evenhand_models::zeroshot::Rule;

fn rows(csv_path: &std::path::Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(csv_path).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records().map(|row| header.iter().cloned().zip(row.unwrap().iter().map(String::from)).collect()).collect()
}

/// A test folder with a tiny random classifier in `tiny-nli` (architecture `head`, seed) and
/// the simulated model's answers to the fixture's questions in `languages` in `sim/records.csv`.
fn setup(name: &str, head: Head, seed: u64, languages: &str) -> std::path::PathBuf {
    let dir = cli::temp("nli", name);
    tiny::write_classifier(&dir.join("tiny-nli"), head, seed).unwrap();
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/crosslingual/questions.json");
    let out = dir.join("sim").to_str().unwrap().to_string();
    let sim = ["crosslingual", "--questions", fixture, "--simulate", "--languages", languages, "--samples", "1"];
    let (code, _, err) = evenhand(&[&sim[..], &["--permutations", "0", "--out", &out]].concat());
    assert_eq!(code, 0, "{err}");
    dir
}

#[test]
fn the_nli_column_is_filled_by_the_crates_detector_and_decides() {
    let dir = setup("pipeline", Head::XlmRoberta, 23, "en,de,fr");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();

    for (rule, name) in [("argmax", "argmax"), ("paper", "threshold:0.8")] {
        let out_dir = path(&format!("out-{rule}"));
        let (code, out, err) = evenhand(&[
            "crosslingual",
            "--records",
            &path("sim/records.csv"),
            "--nli-model-dir",
            &path("tiny-nli"),
            "--nli-rule",
            rule,
            "--detector",
            "nli",
            "--permutations",
            "0",
            "--out",
            &out_dir,
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("records got an NLI verdict") && err.contains("unverified"), "{err}");
        let report: serde_json::Value = serde_json::from_str(&out).unwrap();

        // Every answered record has a probability, the rule and the model, and its verdict is
        // the crate's on the same (answer, language).
        let records = rows(&dir.join(format!("out-{rule}/records.csv")));
        let answered: Vec<_> = records.iter().filter(|r| !r["response"].trim().is_empty()).collect();
        assert!(answered.len() >= 12, "{} answered", answered.len());
        let detector = NliDetector::load(
            evenhand_models::ModelFiles::read_dir(&dir.join("tiny-nli"), None).unwrap(),
            Rule::parse(rule).unwrap(),
        )
        .unwrap();
        let pairs: Vec<(&str, &str)> =
            answered.iter().map(|r| (r["response"].as_str(), r["language"].as_str())).collect();
        let expected = detector.detect(&pairs, |_| {}).unwrap();
        let mut refusals = 0;
        for (r, v) in answered.iter().zip(&expected) {
            let p: f64 = r["nli_p_refuse"].parse().unwrap();
            assert!((p - v.p_refuse).abs() < 1e-12, "{}: {p} vs {}", r["record_id"], v.p_refuse);
            assert_eq!(r["nli_rule"], name);
            assert!(
                r["nli_model"].starts_with("local:tiny-nli") && r["nli_model"].contains("sha256"),
                "{}",
                r["nli_model"]
            );
            refusals += u64::from(v.refusal);
        }
        // The NLI detector decided the figures: its refusals are the report's.
        assert_eq!(report["detector"], "nli");
        assert_eq!(report["judged"], answered.len());
        let rated: u64 =
            report["rates_by_language"].as_array().unwrap().iter().map(|r| r["refused"].as_u64().unwrap()).sum();
        assert_eq!(rated, refusals, "{rule}");
        let trust = &report["trust"];
        assert_eq!(trust["decides"], "NLI model");
        assert!(trust["detectors"].as_array().unwrap().contains(&"NLI model".into()), "{trust}");
        let about = trust["about"][0].as_str().unwrap();
        assert!(about.contains("local:tiny-nli") && about.contains("sha256") && about.contains(name), "{about}");
        assert!(report["agreement"].as_array().unwrap().iter().any(|a| a["a"] == "lexicon" && a["b"] == "nli"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_language_without_labels_and_a_bad_rule_are_refused() {
    let dir = setup("refusals", Head::Bert, 4, "en,de");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let csv = std::fs::read_to_string(path("sim/records.csv")).unwrap();
    std::fs::write(path("pt.csv"), csv.replacen(",acceptable,de,", ",acceptable,pt,", 1)).unwrap();
    let (code, _, err) =
        evenhand(&["crosslingual", "--records", &path("pt.csv"), "--nli-model-dir", &path("tiny-nli")]);
    assert_ne!(code, 0);
    assert!(err.contains("\"pt\"") && err.contains("record \"sim:"), "{err}");

    let (code, _, err) = evenhand(&[
        "crosslingual",
        "--records",
        &path("sim/records.csv"),
        "--nli-model-dir",
        &path("tiny-nli"),
        "--nli-rule",
        "max",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("--nli-rule") && err.contains("\"max\""), "{err}");

    let (code, out, err) = evenhand(&["crosslingual", "--records", &path("sim/records.csv"), "--detector", "nli"]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["judged"], 0, "no NLI column: nothing judged by it");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_cascade_spares_the_model_the_lexicons_answers_and_decides_by_both() {
    let dir = setup("cascade", Head::XlmRoberta, 7, "en,de");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let lexicon = evenhand::text::refusal::Lexicon::builtin();
    let run = |out: &str, more: &[&str]| {
        let base = ["crosslingual", "--records", &path("sim/records.csv"), "--nli-model-dir", &path("tiny-nli")];
        let tail = ["--nli-cascade", "--detector", "nli", "--permutations", "0", "--out", out];
        let (code, stdout, err) = evenhand(&[&base[..], &tail[..], more].concat());
        assert_eq!(code, 0, "{err}");
        (serde_json::from_str::<serde_json::Value>(&stdout).unwrap(), err)
    };
    let (report, err) = run(&path("out"), &[]);
    let records = rows(&dir.join("out/records.csv"));
    let answered: Vec<_> = records.iter().filter(|r| !r["response"].trim().is_empty()).collect();
    // The lexicon's hits, decided by our lexicon here, independently of the CLI.
    let hit = |r: &std::collections::HashMap<String, String>| {
        r["status"] == "refused" || lexicon.find(&r["response"], &r["language"]).is_some()
    };
    let hits = answered.iter().filter(|r| hit(r)).count();
    let rest: Vec<_> = answered.iter().filter(|r| !hit(r)).collect();
    assert!(hits >= 3 && rest.len() >= 3, "{hits} hits, {} others: the fixture needs both", rest.len());
    // The model ran on the rest only: their probability is filled, the hits' is empty.
    assert!(
        err.contains(&format!(
            "the lexicon decided {hits} answers, so the model was spared them; it ran on {}",
            rest.len()
        )),
        "{err}"
    );
    for r in &answered {
        assert_eq!(r["nli_p_refuse"].is_empty(), hit(r), "{}", r["record_id"]);
        assert_eq!(r["nli_rule"], "cascade:argmax");
    }
    // Verdicts: a refusal on every hit; the model's verdict elsewhere.
    let detector =
        NliDetector::load(evenhand_models::ModelFiles::read_dir(&dir.join("tiny-nli"), None).unwrap(), Rule::Argmax)
            .unwrap();
    let model = |rs: &[&&std::collections::HashMap<String, String>]| {
        let pairs: Vec<(&str, &str)> = rs.iter().map(|r| (r["response"].as_str(), r["language"].as_str())).collect();
        detector.detect(&pairs, |_| {}).unwrap()
    };
    let on_rest = model(&rest);
    let model_refusals = on_rest.iter().filter(|v| v.refusal).count();
    let rated: u64 =
        report["rates_by_language"].as_array().unwrap().iter().map(|r| r["refused"].as_u64().unwrap()).sum();
    assert_eq!(rated as usize, hits + model_refusals);
    assert_eq!(report["judged"], answered.len());
    let about = report["trust"]["about"][0].as_str().unwrap();
    assert!(about.contains("cascade:argmax") && about.contains("lexicon-first cascade"), "{about}");

    // The check: the model also runs on the hits, and the cascade's 2x2 against it is printed.
    let (_, err) = run(&path("check"), &["--nli-cascade-check"]);
    let checked = rows(&dir.join("check/records.csv"));
    assert!(checked.iter().filter(|r| !r["response"].trim().is_empty()).all(|r| !r["nli_p_refuse"].is_empty()));
    let hit_rows: Vec<_> = answered.iter().filter(|r| hit(r)).collect();
    let on_hits = model(&hit_rows);
    let both = on_hits.iter().filter(|v| v.refusal).count() + model_refusals;
    let only_cascade = on_hits.iter().filter(|v| !v.refusal).count();
    let neither = rest.len() - model_refusals;
    let line = format!(
        "{both} refusals by both, {only_cascade} by the cascade only, 0 by the model only, {neither} by neither"
    );
    assert!(err.contains(&line), "{line}\n{err}");
    assert!(err.contains("kappa") && err.contains(&format!("would have spared the model {hits} answers")), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_study_report_runs_the_nli_detector_over_its_refusal_methods() {
    let dir = cli::temp("nli", "study");
    tiny::write_classifier(&dir.join("tiny-nli"), Head::Bert, 5).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (code, _, err) = evenhand(&["study", "init", "--out", &path("study.json")]);
    assert_eq!(code, 0, "{err}");
    let report = |out: &str, nli: &[&str]| {
        let (study, out_dir) = (path("study.json"), path(out));
        let args = [&["study", "report", "--study", &study, "--out", &out_dir][..], nli].concat();
        let (code, _, err) = evenhand(&args);
        assert_eq!(code, 0, "{err}");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(out).join("report.json")).unwrap()).unwrap();
        (json, err)
    };
    // The detectors each section's table compares.
    let tables = |r: &serde_json::Value| -> Vec<(String, Vec<String>)> {
        r["sections"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| !s["detectors"].is_null())
            .map(|s| {
                let names = s["detectors"]["detectors"].as_array().unwrap();
                (
                    s["method"].as_str().unwrap_or("").to_string(),
                    names.iter().map(|d| d.as_str().unwrap().into()).collect(),
                )
            })
            .collect()
    };
    let (plain, _) = report("plain", &[]);
    assert!(!tables(&plain).is_empty());
    assert!(tables(&plain).iter().all(|(_, d)| !d.contains(&"NLI model".to_string())), "{:?}", tables(&plain));

    let (judged, err) = report("nli", &["--nli-model-dir", &path("tiny-nli")]);
    assert!(err.contains("NLI detector: P(refuse) for "), "{err}");
    let t = tables(&judged);
    assert_eq!(t.len(), tables(&plain).len());
    for (method, detectors) in &t {
        assert!(detectors.contains(&"NLI model".to_string()), "{method}: {detectors:?}");
    }
    // The lexicon still decides the study's figures: the headline comparisons are unchanged.
    assert_eq!(judged["family"], plain["family"]);
    assert!(judged.to_string().contains("rule argmax"), "the report names the NLI rule");
}
