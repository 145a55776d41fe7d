//! The finished example study the home screen opens: two simulated models with different
//! built-in biases (profiles `fair` and `skewed`) across all four methods, on built-in data
//! only, so it needs no key, no upload and no network.

use super::{Session, StudyError};

pub const FILE: &str = "example-study.json";

/// The example study's document (also a worked example of the format, and the file users start from).
/// Shipped as datasets/studies/example.json, which `evenhand study init` writes out. The file
/// ends without a newline: its bytes are the study's sha256, which the example's report and
/// share link carry.
pub const TEXT: &str = include_str!("../../datasets/studies/example.json");

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
