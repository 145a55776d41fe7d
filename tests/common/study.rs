//! The study parity fixture, shared by the native and the wasm tests: the study, and the
//! "uploaded" records of its provider target, made by answering tests/fixtures/study/upload.json
//! with the simulated `skewed` profile and relabelling them as openai:gpt-4o-mini.

#![allow(dead_code)] // each test file uses what it needs

pub const PARITY: &str = include_str!("../fixtures/study/parity.json");
pub const UPLOAD: &str = include_str!("../fixtures/study/upload.json");
pub const GOLDEN: &str = include_str!("../golden/study_report.json");
pub const GENERATED_AT: &str = "2026-01-01T00:00:00.000Z";

/// The skewed model's records as if a provider had answered them.
pub fn relabel(jsonl: &str) -> String {
    jsonl.replace("\"provider\":\"simulated\"", "\"provider\":\"openai\"").replace("sim:skewed", "gpt-4o-mini")
}

/// A report's JSON without its timestamp, the one field allowed to differ.
pub fn without_time(text: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    v.as_object_mut().unwrap().remove("generated_at");
    v
}
