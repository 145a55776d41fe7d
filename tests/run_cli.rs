//! `evenhand run` and `evenhand batch` against the local mock provider (no internet): faults
//! retried to the end, Retry-After honoured, resume without paying twice, keys kept out of
//! everything written, nothing sent before confirmation, and the batch route's round trip.

// The mock is read with ureq, which exists for native targets only.
#![cfg(not(target_arch = "wasm32"))]

#[path = "common/cli.rs"]
mod cli;
#[path = "common/mock.rs"]
mod mock;

use evenhand::record::{Record, Status};
use mock::{Mock, case_keys};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const KEY_VAR: &str = "EVENHAND_RUN_CLI_TEST_KEY";
const FAKE_KEY: &str = "sk-evenhand-FAKE-0123456789abcdef";

/// Runs `evenhand ARGS` with the fake key in KEY_VAR: (exit code, stdout, stderr).
fn evenhand(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_evenhand")).args(args).env(KEY_VAR, FAKE_KEY).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A folder with a cases file of `n` prompts and a spec for one OpenAI-format target on the mock.
fn setup(name: &str, mock: &Mock, n: usize, target: Value, extra: Value) -> PathBuf {
    let dir = cli::temp("run", name);
    let mut cases = String::from("case_id,prompt,language\n");
    for i in 0..n {
        cases.push_str(&format!("q{i},\"Case {i}: who was late, A, B or C?\",en\n"));
    }
    std::fs::write(dir.join("cases.csv"), cases).unwrap();
    let mut t = json!({"provider": "openai", "base_url": format!("{}/v1", mock.base()), "key_env": KEY_VAR});
    t.as_object_mut().unwrap().extend(target.as_object().unwrap().clone());
    let mut spec = json!({"run_id": name, "targets": [t], "cases": "cases.csv",
        "retry": {"backoff_base_s": 0.05, "backoff_max_s": 0.5, "max_attempts": 5}});
    spec.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    std::fs::write(dir.join("spec.json"), serde_json::to_string_pretty(&spec).unwrap()).unwrap();
    dir
}

fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn records(path: &Path) -> Vec<Record> {
    let loaded = evenhand::formats::load(arg(path), &std::fs::read(path).unwrap(), None).unwrap();
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    loaded.records
}

fn summary(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn a_run_with_injected_faults_settles_every_case_and_records_the_exact_params() {
    let Some(mock) = Mock::start(&["--fault-rate", "0.05", "--seed", "11"]) else { return };
    let dir = setup(
        "faults",
        &mock,
        300,
        json!({"models": ["mock-a"], "concurrency": 16}),
        json!({"params": {"temperature": 0, "max_tokens": 5, "seed": 42}}),
    );
    let out = dir.join("r.csv");
    let (code, stdout, stderr) = evenhand(&["run", "--scenario", arg(&dir.join("spec.json")), "--out", arg(&out)]);
    assert_eq!(code, 0, "{stderr}");
    let s = summary(&stdout);
    let stats = mock.stats();
    assert_eq!((s["total"].as_u64(), s["pending"].as_u64()), (Some(300), Some(0)), "{s}");
    assert_eq!(s["answered"].as_u64().unwrap() + s["failed"].as_u64().unwrap(), 300, "{s}");
    assert!(stats["faults"].as_u64().unwrap() >= 5, "a 5% fault rate over 300 cases: {stats}");
    assert_eq!(
        s["retries"].as_u64().unwrap() + 300,
        stats["total"].as_u64().unwrap(),
        "every request the mock saw is a first attempt or a retry the run counted: {s} {stats}"
    );
    assert_eq!(stats["cases"].as_object().unwrap().len(), 300);

    let recs = records(&out);
    assert_eq!(recs.len(), 300);
    for r in &recs {
        assert!(matches!(r.status, Status::Ok | Status::Error), "{r:?}");
        assert_eq!(r.params["temperature"], json!(0.0), "temperature 0 is sent and recorded: {r:?}");
        // OpenAI itself takes max_completion_tokens (its reasoning models refuse max_tokens).
        assert_eq!((r.params["max_completion_tokens"].clone(), r.params["seed"].clone()), (json!(5), json!(42)));
        assert_eq!((r.language.as_str(), r.run_id.as_str(), r.provider.as_str()), ("en", "faults", "openai"));
        if r.status == Status::Ok {
            assert!(["A", "B", "C"].contains(&r.response.as_str()) && r.latency_ms.is_some(), "{r:?}");
        } else {
            assert!(!r.error.is_empty(), "{r:?}");
        }
    }
    let journal = std::fs::read_to_string(dir.join("r.csv.journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 300, "one journal line per settled call");
}

#[test]
fn a_rate_limit_is_retried_after_its_retry_after_and_then_fails_with_the_reason() {
    let Some(mock) = Mock::start(&[]) else { return };
    let dir = setup(
        "ratelimit",
        &mock,
        2,
        json!({"models": ["mock-429"]}),
        json!({"retry": {"backoff_base_s": 0.05, "max_attempts": 3}}),
    );
    let out = dir.join("r.jsonl");
    let started = Instant::now();
    let (code, stdout, stderr) = evenhand(&["run", "--scenario", arg(&dir.join("spec.json")), "--out", arg(&out)]);
    let elapsed = started.elapsed().as_secs_f64();
    assert_eq!(code, 3, "every call failed: {stdout} {stderr}");
    // Three attempts with the mock's Retry-After: 1 between them: at least two seconds.
    assert!(elapsed >= 2.0, "Retry-After was not honoured: {elapsed} s");
    let stats = mock.stats();
    let counts: Vec<u64> = stats["cases"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(counts, vec![3, 3], "max_attempts = 3 per case: {stats}");
    let s = summary(&stdout);
    assert_eq!((s["failed"].as_u64(), s["retries"].as_u64()), (Some(2), Some(4)), "{s}");
    for r in records(&out) {
        assert_eq!(r.status, Status::Error);
        assert!(r.error.contains("HTTP 429") && r.error.contains("retry after 1 s"), "{}", r.error);
    }

    // A rerun keeps the journal's failures as they are; --retry-failed sends them again.
    mock.reset();
    let spec = dir.join("spec.json");
    let (code, stdout, _) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out)]);
    assert_eq!((code, summary(&stdout)["restored"].as_u64()), (3, Some(2)));
    assert_eq!(mock.stats()["total"].as_u64(), Some(0));
    let (code, stdout, _) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out), "--retry-failed"]);
    assert_eq!((code, summary(&stdout)["settled_now"].as_u64()), (3, Some(2)));
    assert_eq!(mock.stats()["total"].as_u64(), Some(6), "a fresh set of 3 attempts per failed call");
}

#[test]
fn an_interrupted_run_resumes_and_never_requests_a_stored_case_again() {
    let Some(mock) = Mock::start(&[]) else { return };
    let dir = setup("resume", &mock, 200, json!({"models": ["mock-a"], "concurrency": 8}), json!({}));
    let (spec, out) = (dir.join("spec.json"), dir.join("r.csv"));
    let (code, _, stderr) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out)]);
    assert_eq!(code, 0, "{stderr}");
    let journal = dir.join("r.csv.journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 200);
    // As after a crash: the first half kept, then a line cut off mid-write.
    let kept = &lines[..100];
    let torn = &lines[100][..lines[100].len() / 2];
    std::fs::write(&journal, format!("{}\n{torn}", kept.join("\n"))).unwrap();
    let kept_recs: Vec<Record> = kept.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    mock.reset();

    let (code, stdout, stderr) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("cut off"), "the torn line is reported: {stderr}");
    let s = summary(&stdout);
    assert_eq!(
        (s["restored"].as_u64(), s["settled_now"].as_u64(), s["answered"].as_u64()),
        (Some(100), Some(100), Some(200))
    );
    let stats = mock.stats();
    assert_eq!(stats["total"].as_u64(), Some(100), "{stats}");
    let asked = stats["cases"].as_object().unwrap();
    let kept_keys = case_keys(&kept_recs.iter().map(|r| (r.model.clone(), r.prompt.clone())).collect::<Vec<_>>());
    assert_eq!(kept_keys.len(), 100);
    for k in &kept_keys {
        assert!(!asked.contains_key(k), "stored case {k} was requested again");
    }
    let all = records(&out);
    assert_eq!(all.iter().filter(|r| r.status == Status::Ok).count(), 200);
    let rest_keys = case_keys(
        &all.iter()
            .filter(|r| !kept_recs.iter().any(|k| k.record_id == r.record_id))
            .map(|r| (r.model.clone(), r.prompt.clone()))
            .collect::<Vec<_>>(),
    );
    assert!(rest_keys.iter().all(|k| asked[k] == 1), "each missing case asked once: {stats}");
    // The kept answers are the ones stored the first time, not new ones.
    for k in &kept_recs {
        let now = all.iter().find(|r| r.record_id == k.record_id).unwrap();
        assert_eq!((&now.timestamp, &now.response), (&k.timestamp, &k.response));
    }

    // Issue 15, defect 2: the first rerun used to append onto the cut line, and the second
    // then refused the journal. Now the cut line is dropped and a second rerun succeeds too,
    // sends nothing, and the journal holds every case once per settled call.
    let journal_text = std::fs::read_to_string(&journal).unwrap();
    for (n, line) in journal_text.lines().enumerate() {
        assert!(serde_json::from_str::<Record>(line).is_ok(), "journal line {} is not one record: {line}", n + 1);
    }
    mock.reset();
    let (code, stdout, stderr) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out)]);
    assert_eq!(code, 0, "second rerun: {stderr}");
    assert_eq!((summary(&stdout)["restored"].as_u64(), mock.stats()["total"].as_u64()), (Some(200), Some(0)));

    // --fresh starts over: every case is asked again.
    mock.reset();
    let (code, _, stderr) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out), "--fresh"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(mock.stats()["total"].as_u64(), Some(200));
}

#[test]
fn a_slow_answer_is_abandoned_at_the_timeout_and_retried() {
    let Some(mock) = Mock::start(&["--timeout-s", "5"]) else { return };
    let dir = setup(
        "timeout",
        &mock,
        2,
        json!({"models": ["mock-timeout"]}),
        json!({"retry": {"timeout_s": 0.3, "max_attempts": 2, "backoff_base_s": 0.05}}),
    );
    let out = dir.join("r.csv");
    let started = Instant::now();
    let (code, stdout, stderr) = evenhand(&["run", "--scenario", arg(&dir.join("spec.json")), "--out", arg(&out)]);
    assert_eq!(code, 3, "{stdout} {stderr}");
    assert!(started.elapsed().as_secs_f64() < 3.0, "the 5 s answers were waited for: {:?}", started.elapsed());
    assert_eq!(mock.stats()["total"].as_u64(), Some(4));
    for r in records(&out) {
        assert_eq!((r.status, r.error.as_str()), (Status::Error, "no answer within 0.3 s"));
    }
}

#[test]
fn a_run_killed_mid_way_keeps_every_settled_answer() {
    let Some(mock) = Mock::start(&["--latency-ms", "20"]) else { return };
    let dir = setup("killed", &mock, 400, json!({"models": ["mock-a"], "concurrency": 4}), json!({}));
    let (spec, out) = (dir.join("spec.json"), dir.join("r.csv"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_evenhand"))
        .args(["run", "--scenario", arg(&spec), "--out", arg(&out)])
        .env(KEY_VAR, FAKE_KEY)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let journal = dir.join("r.csv.journal.jsonl");
    let started = Instant::now();
    while std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count()) < 50 {
        assert!(started.elapsed().as_secs() < 30, "the run did not start");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL: no chance to tidy up
    child.wait().unwrap();
    assert!(!out.exists(), "killed before the end, so no table was written");
    let asked_before = mock.stats()["total"].as_u64().unwrap();
    assert!(asked_before < 400, "the kill came too late to test anything");
    mock.reset();

    let (code, stdout, stderr) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out)]);
    assert_eq!(code, 0, "{stderr}");
    let s = summary(&stdout);
    let restored = s["restored"].as_u64().unwrap();
    assert!(restored >= 50, "{s}");
    // Only the calls in flight at the kill (at most the concurrency) are asked for twice.
    assert_eq!(mock.stats()["total"].as_u64(), Some(400 - restored), "{s}");
    assert!(asked_before - restored <= 4, "{asked_before} asked, {restored} journaled");
    assert_eq!(records(&out).iter().filter(|r| r.status == Status::Ok).count(), 400);
}

#[test]
fn a_fake_key_appears_in_no_output_log_journal_or_record() {
    let Some(mock) = Mock::start(&[]) else { return };
    let dir = setup(
        "key",
        &mock,
        3,
        json!({"models": ["mock-401", "mock-drop"]}),
        json!({"retry": {"max_attempts": 2, "backoff_base_s": 0.05}}),
    );
    let out = dir.join("r.json");
    let (code, stdout, stderr) = evenhand(&["run", "--scenario", arg(&dir.join("spec.json")), "--out", arg(&out)]);
    assert_eq!(code, 3, "{stdout} {stderr}");
    assert_eq!(mock.stats()["total"].as_u64(), Some(3 + 3 * 2), "401 once, drops twice");
    let journal = std::fs::read_to_string(dir.join("r.json.journal.jsonl")).unwrap();
    let output = std::fs::read_to_string(&out).unwrap();
    for (what, text) in [("stdout", &stdout), ("stderr", &stderr), ("journal", &journal), ("output", &output)] {
        assert!(!text.contains(FAKE_KEY), "the key is in {what}");
        assert!(!text.contains(&FAKE_KEY[..12]), "a prefix of the key is in {what}");
    }
    let s = summary(&stdout);
    assert!(s["failures"].as_array().unwrap().iter().any(|f| f["error"].as_str().unwrap().contains("HTTP 401")), "{s}");
    assert!(output.contains("network error"), "the dropped connection is recorded: {output}");

    // Without the variable: a clear error naming it, and nothing sent.
    mock.reset();
    let out2 = Command::new(env!("CARGO_BIN_EXE_evenhand"))
        .args(["run", "--scenario", arg(&dir.join("spec.json")), "--out", arg(&dir.join("r2.csv"))])
        .env_remove(KEY_VAR)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out2.stderr);
    assert_eq!(out2.status.code(), Some(2));
    assert!(err.contains(KEY_VAR) && err.contains("needs a key"), "{err}");
    assert_eq!(mock.stats()["total"].as_u64(), Some(0));
}

#[test]
fn a_dry_run_and_a_refused_confirmation_send_nothing() {
    let Some(mock) = Mock::start(&[]) else { return };
    let dir = setup("confirm", &mock, 12, json!({"models": ["mock-a", "mock-b"]}), json!({"confirm_above_calls": 10}));
    let (spec, out) = (dir.join("spec.json"), dir.join("r.csv"));
    let (code, stdout, _) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out), "--dry-run"]);
    assert_eq!(code, 0);
    let e = summary(&stdout);
    assert_eq!((e["calls"].as_u64(), e["rows"].as_array().unwrap().len()), (Some(24), 2), "{e}");
    assert_eq!(e["confirm"].as_array().unwrap().len(), 1, "{e}");
    // --cases replaces the spec's cases file.
    let few = dir.join("few.jsonl");
    std::fs::write(&few, "{\"prompt\": \"one\"}\n{\"prompt\": \"two\"}\n{\"prompt\": \"three\"}\n").unwrap();
    let (code, stdout, _) =
        evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out), "--dry-run", "--cases", arg(&few)]);
    assert_eq!((code, summary(&stdout)["calls"].as_u64()), (0, Some(6)));

    let (code, stdout, stderr) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out)]);
    assert_ne!(code, 0);
    assert!(stderr.contains("--yes") && stderr.contains("24 calls"), "{stderr}");
    assert_eq!(summary(&stdout)["calls"].as_u64(), Some(24), "the estimate is shown");
    assert_eq!(mock.stats()["total"].as_u64(), Some(0), "nothing was sent");
    assert!(!out.exists() && !dir.join("r.csv.journal.jsonl").exists());

    let (code, stdout, stderr) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out), "--yes"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(summary(&stdout)["answered"].as_u64(), Some(24));
    assert_eq!(mock.stats()["total"].as_u64(), Some(24));
}

#[test]
fn batch_export_and_import_round_trip_through_the_mocks_answers() {
    let Some(mock) = Mock::start(&[]) else { return };
    let dir = setup("batch", &mock, 6, json!({"models": ["mock-a"]}), json!({"params": {"temperature": 0}}));
    // A second target, on Anthropic, so each export takes only its provider's calls.
    let mut spec: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("spec.json")).unwrap()).unwrap();
    spec["targets"].as_array_mut().unwrap().push(json!({"provider": "anthropic", "models": ["mock-b"]}));
    std::fs::write(dir.join("spec.json"), spec.to_string()).unwrap();
    let spec = dir.join("spec.json");

    let openai_file = dir.join("openai.jsonl");
    let (code, stdout, stderr) =
        evenhand(&["batch", "export", "--scenario", arg(&spec), "--provider", "openai", "--out", arg(&openai_file)]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(summary(&stdout)["requests"].as_u64(), Some(6));
    let lines: Vec<Value> =
        std::fs::read_to_string(&openai_file).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 6);
    // The provider's side, played by the mock: each request's body sent as is.
    let mut results = String::new();
    let mut expected = std::collections::HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["url"], "/v1/chat/completions");
        assert_eq!(line["body"]["temperature"], json!(0.0));
        let id = line["custom_id"].as_str().unwrap();
        assert!(id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'), "{id}");
        match i {
            5 => continue, // no result: reported missing
            4 => results.push_str(
                &json!({"custom_id": id, "response": null, "error": {"code": "batch_expired", "message": "not run in time"}})
                    .to_string(),
            ),
            _ => {
                let answer = mock.post("/v1/chat/completions", &line["body"]);
                expected.insert(line["body"]["messages"][0]["content"].as_str().unwrap().to_string(), answer["choices"][0]["message"]["content"].clone());
                results.push_str(&json!({"id": format!("batch_req_{i}"), "custom_id": id, "error": null,
                    "response": {"status_code": 200, "request_id": "req", "body": answer}}).to_string());
            }
        }
        results.push('\n');
    }
    results.push_str(&json!({"custom_id": "stray-1", "response": null, "error": {"message": "?"}}).to_string());
    let results_file = dir.join("openai_results.jsonl");
    std::fs::write(&results_file, results).unwrap();
    let out = dir.join("imported.csv");
    let (code, stdout, stderr) = evenhand(&[
        "batch",
        "import",
        "--scenario",
        arg(&spec),
        "--provider",
        "openai",
        "--results",
        arg(&results_file),
        "--out",
        arg(&out),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let s = summary(&stdout);
    assert_eq!((s["total"].as_u64(), s["answered"].as_u64(), s["failed"].as_u64()), (Some(6), Some(4), Some(1)), "{s}");
    assert_eq!(s["missing"], json!(["batch:q5:openai:mock-a:0"]));
    assert_eq!(s["unknown"], json!(["stray-1"]));
    let recs = records(&out);
    assert_eq!(recs.len(), 6);
    for r in &recs[..4] {
        assert_eq!((r.status, json!(r.response)), (Status::Ok, expected[&r.prompt].clone()), "{r:?}");
        assert_eq!(r.params["temperature"], json!(0.0));
    }
    assert!(recs[4].status == Status::Error && recs[4].error.contains("not run in time"), "{:?}", recs[4]);
    assert_eq!(recs[5].status, Status::Pending);

    // Anthropic: the request file, answered through the mock's Messages route.
    let anthropic_file = dir.join("anthropic.json");
    let (code, _, stderr) = evenhand(&[
        "batch",
        "export",
        "--scenario",
        arg(&spec),
        "--provider",
        "anthropic",
        "--out",
        arg(&anthropic_file),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let req: Value = serde_json::from_str(&std::fs::read_to_string(&anthropic_file).unwrap()).unwrap();
    let requests = req["requests"].as_array().unwrap();
    assert_eq!(requests.len(), 6);
    let mut results = String::new();
    for r in requests {
        assert_eq!(r["params"]["model"], "mock-b");
        let message = mock.post("/v1/messages", &r["params"]);
        results.push_str(
            &json!({"custom_id": r["custom_id"], "result": {"type": "succeeded", "message": message}}).to_string(),
        );
        results.push('\n');
    }
    std::fs::write(&results_file, results).unwrap();
    let (code, stdout, stderr) = evenhand(&[
        "batch",
        "import",
        "--scenario",
        arg(&spec),
        "--provider",
        "anthropic",
        "--results",
        arg(&results_file),
        "--out",
        arg(&out),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let s = summary(&stdout);
    assert_eq!((s["answered"].as_u64(), s["missing"].as_array().unwrap().len()), (Some(6), 0), "{s}");
    assert!(records(&out).iter().all(|r| r.provider == "anthropic" && ["A", "B", "C"].contains(&r.response.as_str())));
}

/// Embedding runs: texts in batches through /v1/embeddings, vectors appended as they come,
/// readable by the embedding loader, and a second run sends nothing.
#[test]
fn an_embedding_run_writes_every_vector_once() {
    let Some(mock) = Mock::start(&["--fault-rate", "0.1", "--seed", "5"]) else { return };
    let dir = setup("embed", &mock, 1, json!({"models": ["mock-embed"], "concurrency": 4}), json!({}));
    let mut texts = String::new();
    for i in 0..25 {
        texts.push_str(&json!({"id": format!("r{i}"), "text": format!("Answer number {i}.")}).to_string());
        texts.push('\n');
    }
    std::fs::write(dir.join("texts.jsonl"), texts).unwrap();
    let out = dir.join("calls.csv");
    let vectors = dir.join("vectors.jsonl");
    let (spec, texts) = (dir.join("spec.json"), dir.join("texts.jsonl"));
    let args = [
        "run",
        "--scenario",
        arg(&spec),
        "--out",
        arg(&out),
        "--embed",
        arg(&texts),
        "--batch-size",
        "10",
        "--embeddings-out",
        arg(&vectors),
    ];
    let (code, stdout, stderr) = evenhand(&args);
    assert_eq!(code, 0, "{stderr}");
    let s = summary(&stdout);
    assert_eq!((s["total"].as_u64(), s["answered"].as_u64()), (Some(3), Some(3)), "25 texts in calls of 10: {s}");
    let table =
        evenhand::formats::embeddings::read_embeddings("vectors.jsonl", &std::fs::read(&vectors).unwrap()).unwrap();
    assert_eq!(table.ids.len(), 25);
    assert!(table.dim > 0);
    assert!(std::fs::read_to_string(&vectors).unwrap().contains("\"model\":\"mock-embed\""));
    let sent = mock.stats()["routes"].to_string();
    mock.reset();
    let (code, stdout, _) = evenhand(&args);
    assert_eq!((code, summary(&stdout)["settled_now"].as_u64()), (0, Some(0)), "resumed from the journal");
    assert_eq!(mock.stats()["total"], 0, "nothing sent again (first run: {sent})");
    assert_eq!(std::fs::read_to_string(&vectors).unwrap().lines().count(), 25);
}

/// Issue 15, defect 3: a journal record is reused only for the request the plan sends now.
/// A changed prompt, or a changed max_tokens, sends those calls again and says which.
#[test]
fn a_changed_prompt_or_parameter_is_sent_again_not_restored_from_the_journal() {
    let Some(mock) = Mock::start(&[]) else { return };
    let dir = setup("stale", &mock, 10, json!({"models": ["mock-a"]}), json!({}));
    let (spec, out) = (dir.join("spec.json"), dir.join("r.csv"));
    let (code, _, stderr) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out)]);
    assert_eq!(code, 0, "{stderr}");

    // One case's prompt changes: only that call is sent, and the output holds the new prompt.
    let cases = std::fs::read_to_string(dir.join("cases.csv")).unwrap();
    std::fs::write(dir.join("cases.csv"), cases.replace("Case 3: who was late", "Case 3: who left early")).unwrap();
    mock.reset();
    let (code, stdout, stderr) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("1 records were made for a different request"), "{stderr}");
    assert_eq!((summary(&stdout)["restored"].as_u64(), mock.stats()["total"].as_u64()), (Some(9), Some(1)));
    let all = records(&out);
    assert_eq!(all.len(), 10);
    assert!(
        all.iter().any(|r| r.prompt.contains("who left early"))
            && !all.iter().any(|r| r.prompt.contains("Case 3: who was late"))
    );

    // max_tokens changes for the whole spec: every call is sent again.
    let text = std::fs::read_to_string(&spec).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["params"] = json!({"max_tokens": 7});
    std::fs::write(&spec, serde_json::to_string(&v).unwrap()).unwrap();
    mock.reset();
    let (code, stdout, stderr) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out)]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!((summary(&stdout)["restored"].as_u64(), mock.stats()["total"].as_u64()), (Some(0), Some(10)));
    assert!(records(&out).iter().all(|r| r.params.get("max_completion_tokens") == Some(&json!(7))));
}

/// Issue 15, defect 12: an output path that cannot be written is refused before any call.
#[test]
fn an_unwritable_output_path_is_refused_before_the_first_call() {
    let Some(mock) = Mock::start(&[]) else { return };
    let dir = setup("outdir", &mock, 5, json!({"models": ["mock-a"]}), json!({}));
    let spec = dir.join("spec.json");
    for (out, expect) in [(dir.clone(), "is a folder"), (dir.join("missing/r.csv"), "cannot be written")] {
        mock.reset();
        let (code, _, stderr) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out)]);
        assert_ne!(code, 0, "{out:?} accepted");
        assert!(stderr.contains(expect), "{stderr}");
        assert_eq!(mock.stats()["total"].as_u64(), Some(0), "calls were sent for {out:?}");
    }
}

#[test]
fn a_second_run_on_a_held_journal_is_refused_and_a_stale_lock_taken_over() {
    let Some(mock) = Mock::start(&[]) else { return };
    let dir = setup("lock", &mock, 20, json!({"models": ["mock-a"]}), json!({}));
    let (spec, out) = (dir.join("spec.json"), dir.join("r.csv"));
    let lock = dir.join("r.csv.journal.jsonl.lock");
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_string());
    let Ok(host) = host else {
        eprintln!("skipped: no /proc/sys/kernel/hostname to name this host");
        return;
    };
    // Held: this test's own process, alive, on this host, as a run in progress writes it.
    let held = json!({"pid": std::process::id(), "host": host, "started": "2026-11-29T04:00:00.000Z"});
    std::fs::write(&lock, held.to_string()).unwrap();
    let (code, _, stderr) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out)]);
    assert_ne!(code, 0);
    let holder = format!("process {} on {host}, started 2026-11-29T04:00:00.000Z", std::process::id());
    assert!(stderr.contains(&holder), "{stderr}");
    assert_eq!(mock.stats()["total"].as_u64(), Some(0), "the second run sent nothing");
    assert!(lock.exists(), "the holder's lock stays");
    // Stale: a process of this host that has ended.
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    std::fs::write(&lock, json!({"pid": dead, "host": host, "started": "then"}).to_string()).unwrap();
    let (code, _, stderr) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains(&format!("taking over a stale lock of process {dead}")), "{stderr}");
    assert_eq!(mock.stats()["total"].as_u64(), Some(20));
    assert!(!lock.exists(), "the lock goes with the run");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 25: two real `evenhand run` processes on the same --out, against a slow mock. The
/// second is refused naming the first (its process id), sends nothing, and the mock sees every
/// case once; when the first has ended, its lock is gone and its table complete.
#[test]
fn two_runs_on_one_out_at_once_send_each_case_once() {
    let Some(mock) = Mock::start(&["--latency-ms", "150"]) else { return };
    let n = 12;
    let dir = setup("two-processes", &mock, n, json!({"models": ["mock-a"], "concurrency": 1}), json!({}));
    let (spec, out) = (dir.join("spec.json"), dir.join("r.csv"));
    let lock = dir.join("r.csv.journal.jsonl.lock");
    let first = Command::new(env!("CARGO_BIN_EXE_evenhand"))
        .args(["run", "--scenario", arg(&spec), "--out", arg(&out)])
        .env(KEY_VAR, FAKE_KEY)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The first run holds the lock once it has planned; a call or two is then under way.
    let started = Instant::now();
    while mock.stats()["total"].as_u64() == Some(0) {
        assert!(started.elapsed().as_secs() < 30, "the first run did not start");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let held = lock.exists();
    let (code, _, stderr) = evenhand(&["run", "--scenario", arg(&spec), "--out", arg(&out)]);
    let first_pid = first.id();
    let result = first.wait_with_output().unwrap();
    assert_ne!(code, 0, "the second run was let in: {stderr}");
    assert!(held, "a run sending calls holds its journal's lock");
    assert!(
        stderr.contains("another run is writing this journal") && stderr.contains(&format!("process {first_pid} on ")),
        "the refusal names the holder: {stderr}"
    );
    let first_err = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{first_err}");
    assert!(
        Instant::now() - started > std::time::Duration::from_millis(150 * n as u64 / 2),
        "the run was too quick for the second one to have overlapped it"
    );
    let s = summary(&String::from_utf8_lossy(&result.stdout));
    assert_eq!((s["answered"].as_u64(), s["pending"].as_u64()), (Some(n as u64), Some(0)), "{s}");
    let stats = mock.stats();
    assert_eq!(stats["total"].as_u64(), Some(n as u64), "every case asked for once: {stats}");
    let counts = stats["cases"].as_object().unwrap();
    assert_eq!(counts.len(), n, "{stats}");
    assert!(counts.values().all(|c| c.as_u64() == Some(1)), "{stats}");
    assert!(!lock.exists(), "the lock goes with the run");
    assert_eq!(records(&out).iter().filter(|r| r.status == Status::Ok).count(), n);
    std::fs::remove_dir_all(&dir).ok();
}
