//! The `evenhand` binary: JSON on stdout, located errors on stderr, exit codes that scripts can use.

#[path = "common/cli.rs"]
mod cli;
use cli::evenhand;

fn temp(name: &str) -> std::path::PathBuf {
    cli::temp("cli", name)
}

#[test]
fn demo_writes_a_bundle_that_analyze_reproduces() {
    let dir = temp("demo");
    let (code, stdout, _) = evenhand(&["demo", "--out", dir.to_str().unwrap(), "--samples", "3", "--seed", "11"]);
    assert_eq!(code, 0);
    let done: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(done["records"], 216);
    for f in ["bundle.json", "records.csv", "records.jsonl", "analysis.json", "pass_rates.svg"] {
        assert!(dir.join(f).exists(), "{f} missing");
    }
    let (code, stdout, stderr) = evenhand(&["analyze", dir.join("bundle.json").to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let again: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(again, done["analysis"]);
    let (_, from_csv, _) = evenhand(&["analyze", dir.join("records.csv").to_str().unwrap()]);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&from_csv).unwrap()["groups"], done["analysis"]["groups"]);
}

#[test]
fn validate_lists_bad_rows_on_stderr_and_exits_1() {
    let dir = temp("validate");
    let file = dir.join("bad.csv");
    std::fs::write(&file, "response,sample_index\nfine,1\nbad,x\n").unwrap();
    let (code, stdout, stderr) = evenhand(&["validate", file.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("bad.csv:3:2: field sample_index: expected a non-negative integer"), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["records"], 1);
    assert_eq!(report["errors"][0]["line"], 3);
}

#[test]
fn unreadable_or_unmappable_files_exit_2_with_a_reason() {
    let (code, _, stderr) = evenhand(&["validate", "/nonexistent/file.csv"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("/nonexistent/file.csv: cannot read"), "{stderr}");
    let dir = temp("mapping");
    let file = dir.join("other.csv");
    std::fs::write(&file, "Model Output,lang\nhola,es\n").unwrap();
    let (code, _, stderr) = evenhand(&["validate", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--mapping"), "{stderr}");
    let (code, stdout, _) =
        evenhand(&["validate", file.to_str().unwrap(), "--mapping", r#"{"response":"Model Output"}"#]);
    assert_eq!(code, 0);
    assert!(stdout.contains("\"records\": 1"));
}

#[test]
fn power_refuses_bad_numbers() {
    let (code, _, stderr) = evenhand(&["power", "--rate-a", "0.1", "--rate-b", "1.5"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("rate_b"), "{stderr}");
    let (code, stdout, _) =
        evenhand(&["power", "--rate-a", "0.1", "--rate-b", "0.4", "--sizes", "50", "--repetitions", "500"]);
    assert_eq!(code, 0);
    let points: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(points[0]["power"].as_f64().unwrap() > 0.9);
}

/// Runs `evenhand ARGS` with stdout a pipe nobody reads (its read end closed before the start):
/// (exit code, stderr).
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_evenhand")).args(args).stdout(writer).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn a_reader_that_went_away_ends_the_command_quietly() {
    let dir = temp("closed-stdout");
    // Big enough that no pipe buffer could have taken it all before the reader left.
    let bad_rows: String = (0..3000).map(|i| format!("r{i},x\n")).collect();
    std::fs::write(dir.join("bad.csv"), format!("response,sample_index\n{bad_rows}")).unwrap();
    let bad = dir.join("bad.csv").display().to_string();
    let out = dir.join("demo").display().to_string();
    let commands: [&[&str]; 5] = [
        &["mcnemar", "--table", "1,2,3,4"],
        &["validate", &bad],
        &["demo", "--out", &out, "--samples", "1"],
        &["divergence", "--simulate", "scoring", "--replicates", "50"],
        &["--help"],
    ];
    for args in commands {
        let (code, stderr) = with_closed_stdout(args);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_ne!(code, Some(101), "{args:?}: {stderr}");
        if args[0] != "--help" {
            // clap's own help ends with 0 whatever happened to its output.
            assert_eq!(code, Some(141), "{args:?}: a cut-off output is not a success: {stderr}");
            assert!(!stderr.contains("evenhand:"), "{args:?}: no message for a closed pipe: {stderr}");
        }
    }
}

#[test]
fn a_full_disk_behind_stdout_is_an_error() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        println!("skipped: /dev/full is not available here");
        return;
    };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_evenhand"))
        .args(["mcnemar", "--table", "1,2,3,4"])
        .stdout(full)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("evenhand: stdout: cannot write"), "{stderr}");
}

#[test]
fn validate_warns_of_a_quoted_cell_over_many_lines_and_counts_without_loading() {
    let dir = temp("long-quote");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("r.csv");
    // Line 3 opens a quote that closes 150 lines below: loaded, but said.
    let long = "a\n".repeat(150);
    std::fs::write(&file, format!("record_id,response\nr1,yes\nr2,\"{long}\"\nr3,no\nr1,dup\n")).unwrap();
    let (code, stdout, stderr) = evenhand(&["validate", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["records"], 4);
    let warnings = report["warnings"].as_array().unwrap();
    assert_eq!(warnings[0]["line"], 3, "{warnings:?}");
    assert!(warnings[0]["message"].as_str().unwrap().contains("runs over 151 lines"), "{warnings:?}");
    assert!(warnings[1]["message"].as_str().unwrap().contains("duplicate record_id \"r1\""), "{warnings:?}");
    assert!(stderr.contains("r.csv:3"), "{stderr}");
}
