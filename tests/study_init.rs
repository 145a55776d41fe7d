//! `evenhand study init`: the file a new user starts from is the shipped example
//! (datasets/studies/example.json), optionally with their own targets, and it plans.

#[path = "common/cli.rs"]
mod cli;

#[test]
fn init_writes_the_shipped_example_and_refuses_to_overwrite() {
    let dir = cli::temp("study-init", "example");
    let path = dir.join("study.json");
    let p = path.to_str().unwrap();
    let (code, stdout, stderr) = cli::evenhand(&["study", "init", "--out", p]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("evenhand study plan --study"), "{stdout}");
    let shipped =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/studies/example.json")).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), shipped);
    assert_eq!(shipped, evenhand::study::example::TEXT, "the page's example is the shipped file");

    // A second init does not replace the user's file without --force.
    std::fs::write(&path, "{\"mine\": true}").unwrap();
    let (code, _, stderr) = cli::evenhand(&["study", "init", "--out", p]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"mine\": true}");
    let (code, _, stderr) = cli::evenhand(&["study", "init", "--out", p, "--force"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), shipped);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn init_with_targets_gives_a_study_whose_plan_calls_the_provider() {
    let dir = cli::temp("study-init", "targets");
    let path = dir.join("mine.json");
    let p = path.to_str().unwrap();
    let (code, stdout, stderr) =
        cli::evenhand(&["study", "init", "--out", p, "--targets", "openai:gpt-4o-mini,simulated:fair"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("openai:gpt-4o-mini"), "{stdout}");
    let (code, stdout, stderr) = cli::evenhand(&["study", "plan", "--study", p]);
    assert_eq!(code, 0, "{stderr}");
    let plan: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(plan["calls"].as_u64().unwrap() > 0, "{stdout}");

    // A target that is not provider:model is refused, and no file is left behind.
    let bad = dir.join("bad.json");
    let (code, _, stderr) = cli::evenhand(&["study", "init", "--out", bad.to_str().unwrap(), "--targets", "gpt-4o"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("targets"), "{stderr}");
    assert!(!bad.exists());
    std::fs::remove_dir_all(&dir).ok();
}
