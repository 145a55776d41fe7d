//! The study end to end, natively: located errors from the CLI, the report JSON of a fixed
//! study and records (the golden the wasm test compares the page's report with), the HTML's
//! self-containment, and the example study's methods text (a snapshot).
//! After an intended change: EVENHAND_BLESS=1 cargo test --test study

#[path = "common/cli.rs"]
mod cli;
#[path = "common/study.rs"]
mod fixture;

use evenhand::study;

fn bless() -> bool {
    std::env::var_os("EVENHAND_BLESS").is_some()
}

fn golden(path: &str, got: &str) {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    if bless() {
        std::fs::write(&full, got).unwrap();
    }
    let want = std::fs::read_to_string(&full).unwrap();
    assert!(want == got, "{path} differs; if intended, rerun with EVENHAND_BLESS=1\n--- got:\n{got}");
}

/// The uploaded records of the parity fixture, written to `dir`.
fn upload_records(dir: &std::path::Path) -> std::path::PathBuf {
    let mut s = study::Session::open("upload.json", fixture::UPLOAD).unwrap();
    s.simulate().unwrap();
    let jsonl = evenhand::formats::write(&s.records, evenhand::formats::FileFormat::Jsonl);
    let path = dir.join("records.jsonl");
    std::fs::write(&path, fixture::relabel(&jsonl)).unwrap();
    path
}

#[test]
fn the_cli_report_equals_the_golden_and_is_self_contained() {
    let dir = cli::temp("study", "parity");
    let records = upload_records(&dir);
    let study_path = dir.join("parity.json");
    std::fs::write(&study_path, fixture::PARITY).unwrap();
    let out = dir.join("out");
    let (code, stdout, stderr) = cli::evenhand(&[
        "study",
        "report",
        "--study",
        study_path.to_str().unwrap(),
        "--records",
        records.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--generated-at",
        fixture::GENERATED_AT,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("report.html"), "{stdout}");
    let json = std::fs::read_to_string(out.join("report.json")).unwrap();
    golden("tests/golden/study_report.json", &json);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let models: Vec<&str> = report["models"].as_array().unwrap().iter().map(|m| m["model"].as_str().unwrap()).collect();
    assert_eq!(models, ["sim:fair", "gpt-4o-mini"]);
    assert_eq!(report["sections"].as_array().unwrap().len(), 4);
    // The uploaded model is the skewed profile: BBQ diff-bias must come out different.
    let differs = report["sections"][1]["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["figure"] == "diff-bias · ambiguous" && c["significant"] == true);
    assert!(differs, "the skewed upload should differ from the fair model in ambiguous diff-bias");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let lower = html.to_lowercase();
    assert!(!lower.contains("<script"));
    for bad in ["src=\"http", "href=\"http", "src='http", "href='http", "url(", "@import", "<link", "<iframe"] {
        assert!(!lower.contains(bad), "report.html holds {bad}");
    }
    // Every comparison's adjusted p-value shown in the HTML is the JSON's, rounded.
    for c in report["sections"].as_array().unwrap().iter().flat_map(|s| s["comparisons"].as_array().unwrap()) {
        let p = c["p_adjusted"].as_f64().unwrap();
        let shown = if p < 0.0001 { "&lt; 0.0001".to_string() } else { format!("{p:.4}") };
        assert!(html.contains(&shown), "p {p} not in the HTML");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_study_is_refused_with_file_line_and_field() {
    let dir = cli::temp("study", "bad");
    let path = dir.join("bad.json");
    let text = fixture::PARITY.replace("\"samples\": 1", "\"samples\": 1, \"sampels\": 2");
    std::fs::write(&path, text).unwrap();
    let (code, _, stderr) = cli::evenhand(&["study", "plan", "--study", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("bad.json:13:"), "{stderr}");
    assert!(stderr.contains("sampels"), "{stderr}");
    let text = fixture::PARITY.replace("\"completions\": 5", "\"completions\": \"5\"");
    std::fs::write(&path, text).unwrap();
    let (code, _, stderr) = cli::evenhand(&["study", "plan", "--study", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("methods.divergence.completions"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_plan_counts_calls_for_provider_targets_only() {
    let s = study::Session::open("parity.json", fixture::PARITY).unwrap();
    let plan = s.plan().unwrap();
    let cases = s.run_cases().unwrap();
    assert_eq!(plan.calls as usize, cases.len(), "one call per run case for the one provider target");
    for row in &plan.rows {
        assert_eq!(row.simulated, row.target.starts_with("simulated:"));
        assert_eq!(row.calls == 0, row.simulated);
        if !row.simulated {
            assert!(row.cost.is_some_and(|c| c > 0.0), "gpt-4o-mini is priced: {row:?}");
        }
    }
    let ids: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.case_id.as_str()).collect();
    assert_eq!(ids.len(), cases.len(), "case ids are unique across methods and samples");
}

#[test]
fn run_records_come_back_to_their_method_and_sample() {
    // A run's records as the engine writes them: the case's columns, its own record id.
    let mut s = study::Session::open("parity.json", fixture::PARITY).unwrap();
    let mut answered = s.run_cases().unwrap();
    for (i, r) in answered.iter_mut().enumerate() {
        r.provider = "openai".into();
        r.model = "gpt-4o-mini".into();
        r.record_id = format!("run:{i}");
        r.status = evenhand::record::Status::Ok;
        r.response = "A".into();
    }
    let text = evenhand::formats::write(&answered, evenhand::formats::FileFormat::Jsonl);
    let summary = s.add_records("run.jsonl", text.as_bytes(), None).unwrap();
    assert_eq!(summary.by_method.len(), 4, "{summary:?}");
    let div = s.records_of("divergence");
    assert!(div.iter().all(|r| !r.case_id.contains('#')), "the sample suffix is removed");
    assert_eq!(div.iter().map(|r| r.sample_index).max(), Some(4), "five completions per context");
}

#[test]
fn the_example_report_is_deterministic_and_its_methods_text_is_pinned() {
    let a = study::example::session().unwrap().report("T").unwrap();
    let b = study::example::session().unwrap().report("T").unwrap();
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    let mut text = a.methods_text.join("\n\n");
    text.push('\n');
    // The version changes with every release; the snapshot should not.
    let text = text.replace(evenhand::VERSION, "VERSION");
    golden("tests/golden/study_methods.txt", &text);
    assert!(a.references.iter().any(|c| c.text.contains("BBQ")));
}
