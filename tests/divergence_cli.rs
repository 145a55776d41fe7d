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
