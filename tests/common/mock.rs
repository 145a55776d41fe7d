//! Starting tests/mock/mock_provider.py from native tests (include with
//! `#[path = "common/mock.rs"] mod mock;`) and reading its request counts.

#![allow(dead_code)] // each test file uses what it needs

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A running mock, stopped (by its own process id) when dropped.
pub struct Mock {
    pub child: Child,
    pub port: u16,
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Mock {
    /// Starts the mock with `args`; None (after printing SKIP) when python3 is missing.
    pub fn start(args: &[&str]) -> Option<Mock> {
        let spawned = Command::new("python3")
            .arg(root().join("tests/mock/mock_provider.py"))
            .args(["--max-seconds", "300"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn();
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => {
                println!("SKIP: python3 not available ({e})");
                return None;
            }
        };
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.strip_prefix("LISTENING ").and_then(|p| p.trim().parse().ok());
        let port = port.unwrap_or_else(|| panic!("the mock did not start: {line:?}"));
        Some(Mock { child, port })
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// GET /__stats: {"total", "faults", "routes", "cases": {key: count}}.
    pub fn stats(&self) -> Value {
        let mut r = ureq::get(format!("{}/__stats", self.base())).call().unwrap();
        serde_json::from_slice(&r.body_mut().read_to_vec().unwrap()).unwrap()
    }

    pub fn reset(&self) {
        ureq::post(format!("{}/__reset", self.base())).send_empty().unwrap();
    }

    /// POSTs a JSON body to `path` and returns the JSON answer (status must be 200).
    pub fn post(&self, path: &str, body: &Value) -> Value {
        let mut r = ureq::post(format!("{}{path}", self.base()))
            .header("content-type", "application/json")
            .send(body.to_string().as_bytes())
            .unwrap();
        serde_json::from_slice(&r.body_mut().read_to_vec().unwrap()).unwrap()
    }
}

/// The mock's case keys (first 16 hex digits of sha256(model + "\n" + prompt)), computed by
/// python3's hashlib so the test shares no hashing code with the mock's caller.
pub fn case_keys(pairs: &[(String, String)]) -> Vec<String> {
    let input = serde_json::to_string(pairs).unwrap();
    let mut child = Command::new("python3")
        .args([
            "-c",
            "import hashlib, json, sys\nfor m, p in json.load(sys.stdin):\n    \
             print(hashlib.sha256((m + '\\n' + p).encode()).hexdigest()[:16])",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect()
}
