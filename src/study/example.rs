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
    fn the_example_report_finds_the_skew() {
        let t = std::time::Instant::now();
        let s = super::session().unwrap();
        let sim = t.elapsed();
        let r = s.report("T").unwrap();
        eprintln!("simulate {sim:?}, report {:?}", t.elapsed() - sim);
        eprintln!("{}", serde_json::to_string_pretty(&r.family).unwrap());
        for sec in &r.sections {
            eprintln!("== {} figures {} comparisons {}", sec.method, sec.figures.len(), sec.comparisons.len());
            for c in &sec.comparisons {
                eprintln!(
                    "  {} {} vs {}: {:.3} p={:.4} adj={:.4} det={:?}",
                    c.figure, c.model_a, c.model_b, c.difference, c.p_value, c.p_adjusted, c.detectable
                );
            }
            for n in &sec.notes {
                eprintln!("  note {n}");
            }
        }
        for p in &r.methods_text {
            eprintln!("M: {p}");
        }
        for p in &r.limitations {
            eprintln!("L: {p}");
        }
        assert_eq!(r.sections.len(), 4);
    }
}
