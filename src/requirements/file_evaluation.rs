//! A run's record file judged against a scenario in one call: the settings validated, the
//! file read, [`summary::evaluate`] run, and the answer assembled as one serde struct. The
//! Chromium benchmark calls it through the wasm facade (which only converts), so the browser
//! and the native build time the same work.

use super::community::Communities;
use super::evaluate::GlobalRow;
use super::outcome::GroupStats;
use super::summary::{self, Mode};
use crate::formats::{LoadError, Problem};
use serde::{Deserialize, Serialize};

/// The settings of one evaluation; every field has a default.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileQuery {
    /// Upstream's verdicts only (LangBiTe compatibility mode).
    #[serde(default)]
    pub compat: bool,
    #[serde(default = "one")]
    pub seed: u64,
    #[serde(default = "ninety_five")]
    pub confidence: f64,
    /// Return every export file (LangBiTe's three CSVs and ours) with the summary.
    #[serde(default)]
    pub files: bool,
    /// LangBiTe's file-name timestamp, YYYYmmddHHMMSS (the page passes the current time).
    #[serde(default)]
    pub timestamp: String,
    /// Add the results' fingerprint and the time spent reading and evaluating (benchmarks).
    #[serde(default)]
    pub sample: bool,
}

fn one() -> u64 {
    1
}

fn ninety_five() -> f64 {
    0.95
}

impl Default for FileQuery {
    fn default() -> Self {
        FileQuery {
            compat: false,
            seed: one(),
            confidence: ninety_five(),
            files: false,
            timestamp: String::new(),
            sample: false,
        }
    }
}

/// Seconds spent reading the records and evaluating them.
#[derive(Debug, Clone, Serialize)]
pub struct Timing {
    pub load_seconds: f64,
    pub evaluate_seconds: f64,
}

/// What one evaluation returns: counts, the group and community statistics, the problems and,
/// when asked, the export files and a fingerprint with timings.
#[derive(Debug, Clone, Serialize)]
pub struct FileEvaluation {
    pub records: usize,
    pub unreadable_rows: usize,
    /// Templates passed, failed and in error.
    pub templates: [usize; 3],
    pub global: Vec<GlobalRow>,
    pub groups: Vec<GroupStats>,
    pub communities: Option<Communities>,
    pub problems: Vec<Problem>,
    /// (file name, contents) pairs.
    pub files: Vec<(String, String)>,
    pub sample: Option<Vec<f64>>,
    pub timing: Option<Timing>,
}

#[derive(Debug, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileEvaluationError {
    #[error("{0}")]
    Confidence(crate::stats::confidence::ConfidenceError),
    /// The scenario's own error, flattened to text: it names file, line and column.
    #[error("{message}")]
    Scenario { message: String },
    #[error("{0}")]
    Records(LoadError),
}

/// Judges the record file `records_name` against the scenario JSON `scenario`. `now_ms` is a
/// millisecond clock for the timings (the browser's has no std::time).
pub fn evaluate_file(
    scenario: &str,
    records_name: &str,
    records_bytes: &[u8],
    query: &FileQuery,
    now_ms: &mut dyn FnMut() -> f64,
) -> Result<FileEvaluation, FileEvaluationError> {
    let confidence =
        crate::stats::confidence::Confidence::new(query.confidence).map_err(FileEvaluationError::Confidence)?;
    let parsed = super::scenario::parse("scenario", scenario)
        .map_err(|e| FileEvaluationError::Scenario { message: e.to_string() })?;
    let started = now_ms();
    let loaded = crate::formats::load(records_name, records_bytes, None).map_err(FileEvaluationError::Records)?;
    let read = now_ms();
    let mode = if query.compat { Mode::Langbite } else { Mode::Default };
    let s = summary::evaluate(&parsed.scenario, &loaded.records, mode, query.seed, confidence);
    let done = now_ms();
    let files = if query.files {
        let provenance = serde_json::json!({"records": {"file": records_name, "unreadable_rows": loaded.errors.len()}});
        summary::files(&s, &loaded.records, &query.timestamp, &provenance)
    } else {
        vec![]
    };
    let count = |v: &str| s.templates.iter().filter(|t| t.verdict.as_str() == v).count();
    Ok(FileEvaluation {
        records: loaded.records.len(),
        unreadable_rows: loaded.errors.len(),
        templates: [count("Passed"), count("Failed"), count("Error")],
        sample: query.sample.then(|| s.fingerprint()),
        timing: query
            .sample
            .then(|| Timing { load_seconds: (read - started) / 1e3, evaluate_seconds: (done - read) / 1e3 }),
        global: s.global,
        groups: s.groups,
        communities: s.communities,
        problems: s.problems,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> impl FnMut() -> f64 {
        let mut t = 0.0;
        move || {
            t += 500.0;
            t
        }
    }

    #[test]
    fn a_confidence_outside_zero_one_is_refused_before_any_reading() {
        for c in [0.0, 1.0, -0.5, f64::NAN] {
            let q = FileQuery { confidence: c, ..FileQuery::default() };
            let err = evaluate_file("not json", "r.csv", b"", &q, &mut clock()).unwrap_err();
            assert!(matches!(err, FileEvaluationError::Confidence(_)), "{c}: {err}");
        }
    }

    #[test]
    fn a_broken_scenario_names_its_line() {
        let err = evaluate_file("{\n  oops", "r.csv", b"x\n", &FileQuery::default(), &mut clock()).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, FileEvaluationError::Scenario { .. }) && text.starts_with("scenario:2:"), "{text}");
    }

    #[test]
    fn the_settings_refuse_an_unknown_field() {
        let err = serde_json::from_str::<FileQuery>(r#"{"seeds": 3}"#).unwrap_err();
        assert!(err.to_string().contains("seeds"), "{err}");
    }
}
