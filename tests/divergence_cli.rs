//! `evenhand divergence`: the simulated run and its written data give the same numbers when
//! read back, references given on the command line replace the shipped ones, errors are located.

#[path = "common/cli.rs"]
mod cli;
use cli::evenhand;

fn temp(name: &str) -> std::path::PathBuf {
    cli::temp("cd", name)
}

#[test]
fn simulated_scoring_round_trips_through_its_table() {
    let dir = temp("scoring");
    let lp = dir.join("lp.csv");
    let chart = dir.join("c.svg");
    let (code, out, err) = evenhand(&[
        "divergence",
        "--probes",
        "de-western",
        "--simulate",
        "scoring",
        "--lean",
        r#"{"name":"m","lean":0.4,"jitter":0.3}"#,
        "--seed",
        "4",
        "--replicates",
        "200",
        "--unit",
        "bits",
        "--out",
        lp.to_str().unwrap(),
        "--chart",
        chart.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("aspect first_names skipped"), "{err}");
    let a: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(a["mode"], "scoring");
    assert_eq!(a["unit"], "bits");
    assert_eq!(a["models"][0]["model"], "sim:m");
    assert!(std::fs::read_to_string(&chart).unwrap().starts_with("<svg"));
    let (code, back, err) = evenhand(&[
        "divergence",
        "--probes",
        "de-western",
        "--logprobs",
        lp.to_str().unwrap(),
        "--seed",
        "4",
        "--replicates",
        "200",
        "--unit",
        "bits",
    ]);
    assert_eq!(code, 0, "{err}");
    let b: serde_json::Value = serde_json::from_str(&back).unwrap();
    assert_eq!(a["models"], b["models"], "the written table gives the same numbers");
}

#[test]
fn references_from_the_command_line_and_located_errors() {
    let dir = temp("refs");
    // A German-city reference of our own making with just two cities: every other city the
    // simulated model names is then missing from it and gets smoothed.
    let de = dir.join("de.csv");
    std::fs::write(&de, "Stadt;Einwohner;x\nBerlin;100\nHamburg;50\n").unwrap();
    let (code, _, err) = evenhand(&[
        "divergence",
        "--probes",
        "de-western",
        "--reference",
        &format!("local={}", de.display()),
        "--simulate",
        "scoring",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("name the aspect, one of first_names, cities"), "{err}");
    let (code, _, err) = evenhand(&[
        "divergence",
        "--probes",
        "de-western",
        "--reference",
        &format!("local:cities={}", de.display()),
        "--simulate",
        "scoring",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("expected a name column") && err.contains("Stadt, Einwohner, x"), "{err}");
    let (code, _, err) = evenhand(&[
        "divergence",
        "--probes",
        "de-western",
        "--reference",
        &format!("local:cities=table[name=Stadt,weight=Einwohner]:{}", de.display()),
        "--simulate",
        "scoring",
        "--replicates",
        "10",
    ]);
    assert_eq!(code, 0, "mapped columns: {err}");
    std::fs::write(&de, "city;population\nBerlin;100\nHamburg;fünfzig\n").unwrap();
    let (code, out, err) = evenhand(&[
        "divergence",
        "--probes",
        "de-western",
        "--reference",
        &format!("local:cities=table:{}", de.display()),
        "--simulate",
        "scoring",
        "--replicates",
        "50",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("de.csv:3:2: field population: expected a non-negative number"), "{err}");
    let a: serde_json::Value = serde_json::from_str(&out).unwrap();
    let local = a["references"].as_array().unwrap().iter().find(|r| r["culture"] == "local").unwrap().clone();
    assert_eq!(local["rows"], 1);
    // Lean 0.3: 0.7 of the mass on Berlin (the one local city), 0.3 on US cities it lacks.
    let smoothed = a["models"][0]["model_mass_smoothed_local"].as_f64().unwrap();
    assert!((smoothed - 0.3).abs() < 1e-9, "{smoothed}");
    let bad = dir.join("lp.csv");
    std::fs::write(&bad, "context_id,filler,logprob\nde-city-01,Berlin,-1\nde-city-01,Hamburg,high\n").unwrap();
    let (code, _, err) =
        evenhand(&["divergence", "--probes", "de-western", "--logprobs", bad.to_str().unwrap(), "--replicates", "10"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("lp.csv:3:3: field logprob"), "{err}");
    let (code, _, err) = evenhand(&["divergence", "--smoothing", "laplace", "--simulate", "scoring"]);
    assert_eq!(code, 2);
    assert!(err.contains("expected add-alpha"), "{err}");
}

#[test]
fn plan_out_writes_run_cases_and_records_come_back_as_scores() {
    use evenhand::record::Status;
    use evenhand::run::plan::{Job, Plan};
    let dir = temp("plan");
    let cases_path = dir.join("cases.jsonl");
    let (code, out, err) =
        evenhand(&["divergence", "--probes", "pl-western", "--plan-out", cases_path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let summary: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((summary["mode"].as_str(), summary["cases"].as_u64()), (Some("score"), Some(24 * 37 + 23 * 41)));
    // What `evenhand run --cases` reads, and the scoring plan it makes on a server that can score.
    let cases = evenhand::run::cases::read("cases.jsonl", &std::fs::read(&cases_path).unwrap()).unwrap();
    assert_eq!(cases.len(), 24 * 37 + 23 * 41);
    let spec = evenhand::run::RunSpec::from_json(
        r#"{"run_id":"cd","targets":[{"provider":"openai-compatible","base_url":"http://127.0.0.1:9/v1","models":["m"]}]}"#,
    )
    .unwrap();
    let plan = Plan::from_cases(spec, &cases).unwrap();
    assert!(plan.calls.iter().all(|c| matches!(c.job, Job::Score { .. })));
    // The records such a run stores: a score per case, one call failed.
    let mut records: Vec<_> = plan.calls.iter().map(|c| c.record.clone()).collect();
    for (i, r) in records.iter_mut().enumerate() {
        r.status = Status::Ok;
        r.extra.insert("logprob_sum".into(), format!("{:?}", -(((i * 31) % 53) as f64) / 4.0 - 1.0));
    }
    let first_city = records.iter().position(|r| r.case_id.starts_with("pl-city-01|")).unwrap();
    records[first_city].status = Status::Error;
    records[first_city].error = "HTTP 503: overloaded".into();
    let rec_path = dir.join("records.csv");
    std::fs::write(&rec_path, evenhand::formats::write(&records, evenhand::formats::FileFormat::Csv)).unwrap();
    let args = ["divergence", "--probes", "pl-western", "--replicates", "50"];
    let (code, from_records, err) = evenhand(&[&args[..], &["--records", rec_path.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("1 call(s) failed") && err.contains("HTTP 503"), "{err}");
    assert!(err.contains("m/pl-city-01"), "the context missing a score is named: {err}");
    let a: serde_json::Value = serde_json::from_str(&from_records).unwrap();
    assert_eq!(a["mode"], "scoring");
    assert_eq!(a["data"]["calls"]["failed"], 1);
    assert_eq!(a["data"]["calls"]["incomplete_contexts"], 1);
    // The same scores as a log-probability table give the same numbers.
    let table: String = std::iter::once("context_id,filler,logprob,model".to_string())
        .chain(
            records
                .iter()
                .filter(|r| r.status == Status::Ok && !r.case_id.starts_with("pl-city-01|"))
                .map(|r| format!("{},{},{},m", r.extra["context_id"], r.extra["filler_base"], r.extra["logprob_sum"])),
        )
        .collect::<Vec<_>>()
        .join("\n");
    let lp_path = dir.join("lp.csv");
    std::fs::write(&lp_path, table).unwrap();
    let (code, from_table, err) = evenhand(&[&args[..], &["--logprobs", lp_path.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    let b: serde_json::Value = serde_json::from_str(&from_table).unwrap();
    assert_eq!(a["models"], b["models"]);
    let contexts = a["models"][0]["aspects"][0]["contexts"].as_array().unwrap();
    assert_eq!(contexts.len(), 22, "23 city contexts, one left out");
    let (code, _, err) = evenhand(&["divergence", "--plan-out", cases_path.to_str().unwrap(), "--mode", "guess"]);
    assert_ne!(code, 0);
    assert!(err.contains("mode") && err.contains("score or sample"), "{err}");
}
