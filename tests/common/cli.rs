//! Running the `evenhand` binary from native integration tests (include with
//! `#[path = "common/cli.rs"] mod cli;`).

#![allow(dead_code)] // each test file uses what it needs

use std::path::PathBuf;
use std::process::Command;

/// Runs `evenhand ARGS`: (exit code, stdout, stderr).
pub fn evenhand(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_evenhand")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A fresh folder for one test, unique per test process.
pub fn temp(prefix: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("evenhand-{prefix}-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
