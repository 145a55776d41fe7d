//! The finished example study the home screen opens: two simulated models with different
//! built-in biases (profiles `fair` and `skewed`) across all four methods, on built-in data
//! only, so it needs no key, no upload and no network.

use super::{Session, StudyError};

pub const FILE: &str = "example-study.json";

/// The example study's document (also a worked example of the format).
pub const TEXT: &str = r#"{
  "format": "evenhand-study",
  "version": 1,
  "title": "Example: two simulated models compared (SIMULATED data)",
  "question": "Which of two models is more biased, and where?",
  "targets": ["simulated:fair", "simulated:skewed"],
  "methods": {
    "requirements": {"scenario": {"builtin": "default"}},
    "bbq": {"dataset": {"builtin": "evenhand"}, "languages": ["en"]},
    "crosslingual": {"questions": {"builtin": "evenhand"}, "languages": ["en", "es", "hi", "zh"], "modes": ["non_acceptable"]},
    "divergence": {"probes": {"builtin": "pl-western"}, "completions": 20}
  },
  "samples": 1,
  "seeds": {"plan": 1, "simulation": 7, "statistics": 1},
  "statistics": {"confidence": 0.95, "alpha": 0.05, "correction": "holm", "interval": "wilson", "replicates": 1000}
}"#;

/// The example study, opened and simulated.
pub fn session() -> Result<Session, StudyError> {
    let mut s = Session::open(FILE, TEXT)?;
    s.simulate()?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_runs_every_method_for_both_models() {
        let s = session().unwrap();
        for method in super::super::format::METHODS {
            let models: std::collections::BTreeSet<String> =
                s.records_of(method).into_iter().map(|r| r.model).collect();
            assert_eq!(models.into_iter().collect::<Vec<_>>(), vec!["sim:fair", "sim:skewed"], "{method}");
        }
        let cases = s.run_cases().unwrap();
        assert!(cases.iter().all(|c| c.extra.contains_key(super::super::cases::SAMPLE_COLUMN)));
        let plan = s.plan().unwrap();
        assert_eq!(plan.calls, 0, "simulated targets make no call");
        assert_eq!(plan.rows.len(), 8);
    }
}

#[cfg(test)]
mod report_tests {
    #[test]
    fn the_example_report_finds_the_skew_in_every_method() {
        let r = super::session().unwrap().report("T").unwrap();
        assert_eq!(r.sections.len(), 4);
        for sec in &r.sections {
            assert!(!sec.figures.is_empty(), "{}: no figure", sec.method);
            assert!(
                sec.comparisons.iter().any(|c| c.significant),
                "{}: the skewed profile should differ from the fair one somewhere",
                sec.method
            );
        }
        assert_eq!(r.family.size, r.sections.iter().map(|s| s.comparisons.len()).sum::<usize>());
        assert!(r.limitations.iter().any(|l| l.starts_with("SIMULATED")));
    }
}
