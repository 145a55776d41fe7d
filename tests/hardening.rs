//! Regression tests for issue 28's hardening pass outside the dataset cache: study file
//! references that leave the study's folder, and the other cases each section names.

use std::path::{Path, PathBuf};
use std::process::Command;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("evenhand-hardening-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn evenhand(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_evenhand")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn sha256(bytes: &[u8]) -> String {
    evenhand::catalogue::sha256_hex(bytes)
}

/// A study whose BBQ dataset is the uploaded `file` with the digest `sha`.
fn study_naming(dir: &Path, file: &str, sha: &str) -> PathBuf {
    let study = serde_json::json!({
        "format": "evenhand-study", "version": 1, "title": "t", "question": "q",
        "targets": ["simulated:skewed"],
        "methods": {"bbq": {"dataset": {"file": file, "sha256": sha}, "languages": ["en"]}},
        "samples": 1, "seeds": {"plan": 3, "simulation": 5, "statistics": 2},
        "statistics": {"confidence": 0.95, "alpha": 0.05, "correction": "bh", "interval": "wilson", "replicates": 200}
    });
    let path = dir.join("s.json");
    std::fs::write(&path, serde_json::to_string_pretty(&study).unwrap()).unwrap();
    path
}

/// Regression (issue 28): a study naming `/etc/passwd` had its first line printed in the error;
/// a `../` reference had its sha256 printed. Neither is read now, and the error names the field.
#[test]
fn study_files_outside_the_study_folder_are_refused_unread() {
    let home = temp("study-paths");
    let secret = "SECRET-LINE-do-not-print\n";
    std::fs::write(home.join("secret.jsonl"), secret).unwrap();
    let dir = home.join("study");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(home.join("secret.jsonl"), dir.join("link.jsonl")).unwrap();
    let zeros = "0".repeat(64);
    let absolute = home.join("secret.jsonl").display().to_string();
    for file in [absolute.as_str(), "../secret.jsonl", "sub/../../secret.jsonl", "link.jsonl", "/etc/passwd"] {
        let study = study_naming(&dir, file, &zeros);
        let (code, out, err) = evenhand(&["study", "plan", "--study", study.to_str().unwrap()]);
        assert_eq!(code, 2, "{file}: {out}{err}");
        assert!(err.contains("field methods.bbq.dataset") && err.contains("nothing was read"), "{file}: {err}");
        assert!(!err.contains("SECRET") && !err.contains(&sha256(secret.as_bytes())), "{file}: {err}");
        assert!(!err.contains("root:"), "{file}: {err}");
    }
    // A file inside the folder is still read (and checked against its digest).
    std::fs::write(dir.join("mine.jsonl"), secret).unwrap();
    let study = study_naming(&dir, "mine.jsonl", &zeros);
    let (code, _, err) = evenhand(&["study", "plan", "--study", study.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&sha256(secret.as_bytes())), "{err}");
}

/// Regression (issue 28): a model name ending in U+202E reversed the rest of the Methods
/// paragraph in the HTML report; the report had no Content-Security-Policy.
#[test]
fn the_html_report_escapes_bidi_controls_and_forbids_scripts_and_remote_loads() {
    let s = evenhand::study::example::session().unwrap();
    let mut r = s.report("2026-01-01T00:00:00Z").unwrap();
    let tricks = ["\u{202E}", "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{2066}", "\u{2067}", "\u{2068}"];
    let more = ["\u{2069}", "\u{200E}", "\u{200F}", "\u{061C}"];
    for (i, c) in tricks.iter().chain(more.iter()).enumerate() {
        r.methods_text.push(format!("Model gpt-{i}{c} answered 40 items."));
    }
    r.models[0].model.push('\u{202E}');
    let html = evenhand::study::html::render(&r);
    for c in tricks.iter().chain(more.iter()) {
        assert!(!html.contains(c), "U+{:04X} reached the HTML", c.chars().next().unwrap() as u32);
    }
    assert!(html.contains("gpt-0[U+202E] answered") && html.contains("[U+061C]"));
    let csp = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline';";
    assert!(html.contains(csp), "{}", &html[..400]);
    // The policy is in <head>, before anything it governs.
    assert!(html.find(csp).unwrap() < html.find("<style>").unwrap());
}

/// Regression (issue 28): CSV exports kept a right-to-left override open, reversing the cells
/// after it on the line in a text viewer.
#[test]
fn csv_exports_close_bidi_controls_inside_their_cell() {
    use evenhand::record::Record;
    let text = "{\"record_id\":\"r1\",\"run_id\":\"x\",\"case_id\":\"c\",\"model\":\"gpt\\u202e\",\"provider\":\"p\",\"response\":\"ok \\u2067\",\"status\":\"ok\"}\n";
    let loaded = evenhand::formats::load("r.jsonl", text.as_bytes(), None).unwrap();
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let records: Vec<Record> = loaded.records;
    let csv = evenhand::formats::csv_table::write(&records);
    let line = csv.lines().nth(1).unwrap();
    assert!(line.contains("gpt\u{202E}\u{202C}") && line.contains("ok \u{2067}\u{2069}"), "{line:?}");
}

/// Regression (issue 28): a `records_url` answering `{}` opened as "0 records" with no error.
#[test]
fn a_records_url_answering_nothing_is_an_error_and_keeps_the_records() {
    let mut w = evenhand::demo::workspace::Workspace::demo();
    let mut bundle: serde_json::Value = serde_json::from_str(&w.bundle().unwrap()).unwrap();
    let records = bundle["records"].take();
    bundle.as_object_mut().unwrap().remove("records");
    bundle.as_object_mut().unwrap().remove("experiment");
    bundle["records_url"] = "records.json".into();
    let text = bundle.to_string();
    let before = w.records.len();
    for answer in [&b"{}"[..], b"[]", b"<html>not found</html>", b""] {
        let e = w.open_bundle("b.json", &text, Some(("records.json", answer))).unwrap_err();
        assert!(e.to_string().contains("records.json"), "{e}");
        if answer == b"{}" {
            assert!(e.to_string().contains("records.json: no row could be loaded"), "{e}");
        }
        assert_eq!(w.records.len(), before, "nothing already loaded is lost");
    }
    // The real records still open.
    let good = serde_json::to_vec(&records).unwrap();
    let summary = w.open_bundle("b.json", &text, Some(("records.json", &good))).unwrap();
    assert_eq!(summary.records, before);
}

/// A provider (a misconfigured proxy) that answers 200 with the request's headers echoed in
/// the answer text: OpenAI's chat shape. Returns its base URL.
fn echoing_provider() -> String {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                loop {
                    let mut headers = vec![];
                    let mut length = 0usize;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line == "\r\n" {
                            break;
                        }
                        if let Some((k, v)) = line.split_once(':')
                            && k.eq_ignore_ascii_case("content-length")
                        {
                            length = v.trim().parse().unwrap_or(0);
                        }
                        headers.push(line.trim_end().to_string());
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    let echo = format!("you sent: {}", headers.join(" | "));
                    let answer = serde_json::json!({"id": "x", "object": "chat.completion", "model": "echo",
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": echo}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}, "echo": echo})
                    .to_string();
                    let mut s = reader.get_ref();
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
                        answer.len()
                    );
                    if s.write_all(reply.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    base
}

/// Regression (issue 28): a provider echoing the key in a 200 answer had it stored as-is in
/// the records and the journal.
#[test]
fn a_key_echoed_in_an_answer_is_stored_nowhere() {
    const KEY: &str = "sk-evenhand-ECHO-0123456789abcdef";
    let dir = temp("echo");
    std::fs::write(dir.join("cases.csv"), "case_id,prompt\nq1,Who was late?\nq2,Who was early?\n").unwrap();
    let spec = serde_json::json!({"run_id": "echo", "cases": "cases.csv",
        "targets": [{"provider": "openai", "base_url": echoing_provider(), "key_env": "EVENHAND_ECHO_TEST_KEY",
                     "models": ["echo"]}]});
    std::fs::write(dir.join("spec.json"), spec.to_string()).unwrap();
    let out = dir.join("r.jsonl");
    let o = Command::new(env!("CARGO_BIN_EXE_evenhand"))
        .args(["run", "--scenario", dir.join("spec.json").to_str().unwrap(), "--out", out.to_str().unwrap(), "--yes"])
        .env("EVENHAND_ECHO_TEST_KEY", KEY)
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    let records = std::fs::read_to_string(&out).unwrap();
    // The echo arrived (the test would prove nothing otherwise), without the key.
    assert!(records.contains("you sent:") && records.contains("[key removed]"), "{records}");
    let mut written = vec![];
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        assert!(!text.contains("ECHO-0123456789"), "{} holds the key: {text}", path.display());
        written.push(path.file_name().unwrap().to_string_lossy().into_owned());
    }
    assert!(written.iter().any(|n| n.contains("journal")), "{written:?}");
    assert!(!stdout.contains("ECHO-0123456789") && !stderr.contains("ECHO-0123456789"));
}
