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
