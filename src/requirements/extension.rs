//! Our superset of LangBiTe's scenario: one optional top-level key, `"evenhand"`, that
//! upstream never reads (it reads only the keys it knows), so a scenario with it still runs
//! in LangBiTe unchanged. It holds what a LangBiTe scenario cannot say:
//!
//! ```json
//! "evenhand": {
//!   "seed": 7,                              // template sampling (expand, plan)
//!   "samples": 3,                           // answers per prompt instance
//!   "targets": ["openai:gpt-4o-mini"],      // provider:model (a bare name: the simulated model)
//!   "judge": {"target": "anthropic:claude-3-5-haiku-latest", "per_outcome": 10, "seed": 1},
//!   "statistics": {"confidence": 0.95, "alpha": 0.05, "seed": 1}
//! }
//! ```
//!
//! Every key is optional; the defaults are those of the CLI and the page. The scenario's own
//! `temperature` and `tokens` are sent with every call we plan (upstream's HEAD drops them,
//! as of `ec46b85`): they go into each planned record's `params`, which the run engine
//! applies to that record's request.

use crate::formats::Problem;
use crate::stats::confidence::{Confidence, RANGE};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Extension {
    pub seed: u64,
    pub samples: u32,
    pub targets: Vec<String>,
    pub judge: Option<Judge>,
    pub statistics: Statistics,
}

impl Default for Extension {
    fn default() -> Self {
        Extension { seed: 1, samples: 1, targets: vec![], judge: None, statistics: Statistics::default() }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Judge {
    pub target: String,
    /// Passes and failures sampled per group for the judge.
    pub per_outcome: usize,
    pub seed: u64,
}

impl Default for Judge {
    fn default() -> Self {
        Judge { target: String::new(), per_outcome: 10, seed: 1 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Statistics {
    /// Confidence of the Wilson intervals.
    pub confidence: f64,
    /// Significance level for the marked tests.
    pub alpha: f64,
    /// Seed of the permutation tests and bootstrap.
    pub seed: u64,
}

impl Default for Statistics {
    fn default() -> Self {
        Statistics { confidence: 0.95, alpha: 0.05, seed: 1 }
    }
}

/// Reads `value` (the `evenhand` key), pushing every problem with its field path.
pub fn read(file: &str, value: &Value, errors: &mut Vec<Problem>) -> Option<Extension> {
    let ext: Extension = match serde_json::from_value(value.clone()) {
        Ok(e) => e,
        Err(e) => {
            errors.push(Problem::new(file, format!("{e}")).in_field("evenhand"));
            return None;
        }
    };
    let mut bad = |field: &str, message: String| errors.push(Problem::new(file, message).in_field(field));
    if !(1..=100).contains(&ext.samples) {
        bad("evenhand.samples", format!("expected 1 to 100, found {}", ext.samples));
    }
    for (i, t) in ext.targets.iter().enumerate() {
        if !valid_target(t) {
            bad(&format!("evenhand.targets[{i}]"), format!("expected provider:model or a model name, found {t:?}"));
        }
    }
    if let Some(j) = &ext.judge {
        if !valid_target(&j.target) {
            bad("evenhand.judge.target", format!("expected provider:model, found {:?}", j.target));
        }
        if !(1..=1000).contains(&j.per_outcome) {
            bad("evenhand.judge.per_outcome", format!("expected 1 to 1000, found {}", j.per_outcome));
        }
    }
    let s = &ext.statistics;
    // Checked here rather than typed, so that every bad value of the block is listed at once.
    if Confidence::new(s.confidence).is_err() {
        bad("evenhand.statistics.confidence", format!("expected a confidence level {RANGE}, found {}", s.confidence));
    }
    if !(s.alpha > 0.0 && s.alpha < 1.0) {
        bad("evenhand.statistics.alpha", format!("expected a number between 0 and 1, found {}", s.alpha));
    }
    Some(ext)
}

fn valid_target(t: &str) -> bool {
    let t = t.trim();
    !t.is_empty() && t.split_once(':').is_none_or(|(p, m)| !p.trim().is_empty() && !m.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors_of(v: Value) -> Vec<String> {
        let mut errors = vec![];
        read("s.json", &v, &mut errors);
        errors.iter().map(|p| format!("{}: {}", p.field.clone().unwrap_or_default(), p.message)).collect()
    }

    #[test]
    fn every_key_is_optional_and_defaults_as_the_cli() {
        let mut errors = vec![];
        let e = read("s.json", &json!({}), &mut errors).unwrap();
        assert!(errors.is_empty());
        assert_eq!(e, Extension::default());
        let e = read("s.json", &json!({"samples": 3, "targets": ["openai:gpt-4o-mini"]}), &mut errors).unwrap();
        assert_eq!((e.samples, e.targets.len()), (3, 1));
    }

    #[test]
    fn bad_values_are_named_by_their_path() {
        let e = errors_of(json!({"samples": 0, "targets": ["openai:"], "statistics": {"confidence": 1.5},
            "judge": {"target": "", "per_outcome": 0}}));
        for field in [
            "evenhand.samples",
            "evenhand.targets[0]",
            "evenhand.statistics.confidence",
            "evenhand.judge.target",
            "evenhand.judge.per_outcome",
        ] {
            assert!(e.iter().any(|m| m.starts_with(field)), "{field} in {e:?}");
        }
        let e = errors_of(json!({"sample": 2}));
        assert!(e[0].contains("unknown field `sample`"), "{e:?}");
    }
}
