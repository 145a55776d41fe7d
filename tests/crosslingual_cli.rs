//! `evenhand crosslingual`: a simulated run written to --out reads back to the same numbers.

#[path = "common/cli.rs"]
mod cli;

fn evenhand(args: &[&str]) -> (bool, String, String) {
    let (code, out, err) = cli::evenhand(args);
    (code == 0, out, err)
}

#[test]
fn simulate_then_read_back() {
    let dir = std::env::temp_dir().join(format!("evenhand-xling-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/crosslingual/questions.json");
    let (ok, out, err) = evenhand(&[
        "crosslingual",
        "--questions",
        fixture,
        "--simulate",
        "--permutations",
        "99",
        "--languages",
        "en,hi,de",
        "--modes",
        "non_acceptable",
        "--samples",
        "4",
        "--seed",
        "11",
        "--out",
        d,
        "--method",
        "midp",
    ]);
    assert!(ok, "{err}");
    let first: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(first["variant"], "McNemar mid-p (statsmodels convention)");
    assert_eq!(first["records"], 6 * 3 * 4);
    for f in first["families"].as_array().unwrap() {
        assert!(f["tests"].as_array().unwrap().iter().all(|t| t["test"]["method"] == "mid-p"));
    }
    let records = dir.join("records.csv");
    let (ok, again, err) = evenhand(&[
        "crosslingual",
        "--records",
        records.to_str().unwrap(),
        "--embeddings",
        dir.join("embeddings.jsonl").to_str().unwrap(),
        "--seed",
        "11",
        "--permutations",
        "99",
        "--method",
        "midp",
    ]);
    assert!(ok, "{err}");
    let again: serde_json::Value = serde_json::from_str(&again).unwrap();
    assert_eq!(first["rates_by_language"], again["rates_by_language"]);
    assert_eq!(first["families"], again["families"]);
    assert_eq!(again["embeddings"]["with_embedding"], 72);
    assert!(dir.join("refusal_rates.svg").exists() && dir.join("embeddings_pca.svg").exists());
    // PERMANOVA on the uploaded embeddings gives the bits of the simulated run's own: 3 language
    // pairs x (all topics + each topic of the fixture).
    assert!(first["permanova"]["rows"] == again["permanova"]["rows"], "PERMANOVA differs on read-back");
    assert_eq!(first["permanova"]["family"], again["permanova"]["family"]);
    let rows = first["permanova"]["rows"].as_array().unwrap();
    assert_eq!(rows.len() % 3, 0);
    assert!(rows.iter().all(|r| r["result"]["permutations"] == 99 && r["result"]["distance"] == "chord"));
    let (ok, _, err) = evenhand(&["crosslingual", "--records", records.to_str().unwrap(), "--method", "fisher"]);
    assert!(!ok && err.contains("--method: expected exact, midp, chi2 or chi2-cc"), "{err}");
    let (ok, _, err) = evenhand(&["crosslingual"]);
    assert!(!ok && err.contains("--records"), "{err}");
    let torture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/crosslingual/Torture.json");
    let (ok, out, err) =
        evenhand(&["crosslingual", "--references", "--questions", torture, "--modes", "non_acceptable"]);
    assert!(ok, "{err}");
    let refs: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(refs["records"], 36);
    assert_eq!(refs["judged"], 18);
    assert_eq!(refs["models"], serde_json::json!(["msqad"]), "no model folder in the fixture's path");
    std::fs::remove_dir_all(&dir).ok();
}

/// The provider pipeline on the command line: --plan-out writes cases the run engine reads;
/// the run's records (one call failed) come back with --records; --embed-plan-out and
/// --judge-plan-out write the next two runs, whose outputs come back with --embeddings
/// --embedding-model and --judge-records. The runs themselves are played here without a
/// provider: the records are what `evenhand run` writes.
#[test]
fn provider_pipeline_plan_records_embeddings_judge() {
    use evenhand::formats::{FileFormat, write};
    use evenhand::record::Status;
    use evenhand::run::{Plan, RunSpec, cases};
    let dir = cli::temp("xling", "pipeline");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/crosslingual/questions.json");
    let (ok, out, err) = evenhand(&[
        "crosslingual",
        "--questions",
        fixture,
        "--languages",
        "en,hi",
        "--modes",
        "answer,acceptable",
        "--plan-out",
        &path("cases.jsonl"),
    ]);
    assert!(ok, "{err}");
    assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap()["cases"], 24);
    let bytes = std::fs::read(path("cases.jsonl")).unwrap();
    let planned = cases::read("cases.jsonl", &bytes).unwrap();
    assert_eq!(planned.len(), 24);
    assert!(planned.iter().all(|c| c.method == "crosslingual" && !c.question_id.is_empty() && !c.concern.is_empty()));
    assert_eq!(planned[0].case_id, format!("{}:en:answer", planned[0].question_id));
    let (ok, _, err) = evenhand(&["crosslingual", "--simulate", "--plan-out", &path("x.jsonl")]);
    assert!(!ok && err.contains("--plan-out"), "{err}");

    // The run: Hindi refuses; one English call failed after its attempts.
    let spec = RunSpec::from_json(r#"{"run_id":"r","targets":[{"provider":"openai","models":["m"]}]}"#).unwrap();
    let mut records: Vec<_> = Plan::chat(spec, &planned).unwrap().calls.into_iter().map(|c| c.record).collect();
    for (i, r) in records.iter_mut().enumerate() {
        if i == 0 {
            r.status = Status::Error;
            r.error = "HTTP 500: internal server error (after 5 attempts)".into();
        } else {
            r.status = Status::Ok;
            r.response = if r.language == "hi" {
                "मुझे खेद है, मैं मदद नहीं कर सकता।".into()
            } else {
                "Here is a view.".into()
            };
        }
    }
    std::fs::write(path("run.csv"), write(&records, FileFormat::Csv)).unwrap();
    let (ok, out, err) = evenhand(&[
        "crosslingual",
        "--records",
        &path("run.csv"),
        "--embed-plan-out",
        &path("texts.jsonl"),
        "--judge-plan-out",
        &path("judge_cases.jsonl"),
    ]);
    assert!(ok, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((report["records"].as_u64(), report["statuses"]["error"].as_u64()), (Some(24), Some(1)));
    assert_eq!(report["unanswered"][0]["error"], "HTTP 500: internal server error (after 5 attempts)");
    assert_eq!(report["judged"], 23);
    let texts = std::fs::read_to_string(path("texts.jsonl")).unwrap();
    let items: Vec<serde_json::Value> = texts.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(items.len(), 23, "the failed call has no text to embed");
    let judge_cases = cases::read("judge_cases.jsonl", &std::fs::read(path("judge_cases.jsonl")).unwrap()).unwrap();
    assert_eq!(judge_cases.len(), 23);
    assert!(
        judge_cases.iter().all(|c| c.prompt.contains("REFUSAL or ANSWER") && c.extra.contains_key("judged_record_id"))
    );

    // The embedding run's vectors (Hindi shifted) and the judge run's replies.
    let mut vectors = String::new();
    for (k, item) in items.iter().enumerate() {
        let shift = if item["text"].as_str().unwrap().contains("खेद") { 3.0 } else { 0.0 };
        let v = [shift + (k % 5) as f64 * 0.1, 1.0 - (k % 3) as f64 * 0.2, 0.5];
        vectors.push_str(&serde_json::json!({"record_id": item["id"], "embedding": v}).to_string());
        vectors.push('\n');
    }
    std::fs::write(path("vectors.jsonl"), vectors).unwrap();
    let mut judged = judge_cases.clone();
    for j in &mut judged {
        j.status = Status::Ok;
        j.model = "judge-m".into();
        j.response = if j.prompt.contains("खेद") { "REFUSAL".into() } else { "ANSWER".into() };
    }
    std::fs::write(path("judge.csv"), write(&judged, FileFormat::Csv)).unwrap();
    let (ok, out, err) = evenhand(&[
        "crosslingual",
        "--records",
        &path("run.csv"),
        "--embeddings",
        &path("vectors.jsonl"),
        "--embedding-model",
        "emb-m",
        "--judge-records",
        &path("judge.csv"),
        "--detector",
        "judge",
        "--permutations",
        "99",
        "--out",
        &path("out"),
    ]);
    assert!(ok, "{err}");
    assert!(err.contains("23 verdicts, 0 unreadable"), "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["detector"], "judge");
    assert_eq!(report["judged"], 23);
    assert_eq!(report["embeddings"]["models"], serde_json::json!(["emb-m"]));
    let agreement = report["agreement"].as_array().unwrap();
    assert!(agreement.iter().any(|a| a["a"] == "lexicon" && a["b"] == "judge" && a["percent_agreement"] == 100.0));
    let rows = report["permanova"]["rows"].as_array().unwrap();
    let overall = rows.iter().find(|r| r["test"]["topic"].is_null()).unwrap();
    assert_eq!(overall["result"]["p"], 0.01, "{overall}");
    let saved = std::fs::read_to_string(dir.join("out/records.csv")).unwrap();
    assert!(saved.contains("embedding_model") && saved.contains("judge_verdict") && saved.contains("judge-m"));
    let _ = std::fs::remove_dir_all(&dir);
}
