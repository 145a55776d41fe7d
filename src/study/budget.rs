//! A study's work, bounded before it starts. What a study costs to answer and report grows
//! with its records (cases x samples, or divergence's completions, x targets) and, for the
//! bootstrap, with records x replicates; a share link of a few hundred characters could ask
//! for minutes of work and gigabytes (and kill the page). So the work is estimated from the
//! study's cases when it opens, and a study above either limit is refused naming the fields
//! that make it large.

use super::StudyError;
use super::cases::copies;
use super::format::Study;
use crate::record::Record;
use serde::Serialize;

/// Records a study may hold from its own targets (the page holds them all in memory).
pub const MAX_RECORDS: u64 = 1_000_000;
/// Records x bootstrap replicates: about ten seconds of resampling natively.
pub const MAX_DRAWS: u64 = 5_000_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Work {
    /// Records the study's targets give: cases x samples (completions) x targets.
    pub records: u64,
    /// Records x replicates.
    pub draws: u64,
}

/// The work of `study` over its base cases (one per prompt, see `cases::base_cases`).
pub fn estimate(study: &Study, base: &[Record]) -> Work {
    let per_target: u64 = base.iter().map(|r| u64::from(copies(study, &r.method))).sum();
    let records = per_target.saturating_mul(study.targets.len() as u64);
    Work { records, draws: records.saturating_mul(u64::from(study.statistics.replicates)) }
}

/// Refuses a study whose work is above the limits; the error names the fields to lower.
pub fn check(study: &Study, base: &[Record]) -> Result<Work, StudyError> {
    let w = estimate(study, base);
    let divergence = study.methods.divergence.as_ref().map(|d| d.completions);
    let mut sizes = vec![format!("samples ({})", study.samples)];
    if let Some(c) = divergence {
        sizes.push(format!("methods.divergence.completions ({c})"));
    }
    sizes.push(format!("targets ({})", study.targets.len()));
    let cases = base.len();
    if w.records > MAX_RECORDS {
        let field = match divergence {
            Some(c) if c > study.samples => "methods.divergence.completions",
            _ => "samples",
        };
        return Err(StudyError::TooLarge {
            field: field.into(),
            message: format!(
                "this study would make {} records ({cases} cases x {}), above the limit of {MAX_RECORDS}; lower {}",
                w.records,
                sizes.join(" x "),
                sizes.iter().map(|s| s.split(' ').next().unwrap_or_default()).collect::<Vec<_>>().join(", ")
            ),
        });
    }
    if w.draws > MAX_DRAWS {
        return Err(StudyError::TooLarge {
            field: "statistics.replicates".into(),
            message: format!(
                "this study would resample its {} records ({cases} cases x {}) {} times ({} record draws), above the limit of {MAX_DRAWS}; lower statistics.replicates or {}",
                w.records,
                sizes.join(" x "),
                study.statistics.replicates,
                w.draws,
                sizes.iter().map(|s| s.split(' ').next().unwrap_or_default()).collect::<Vec<_>>().join(", ")
            ),
        });
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn study(samples: u32, completions: u32, replicates: u32) -> Study {
        let text = format!(
            r#"{{"format": "evenhand-study", "version": 1, "title": "t", "targets": ["simulated:fair", "simulated:skewed"],
              "methods": {{"bbq": {{"dataset": {{"builtin": "evenhand"}}}}, "divergence": {{"probes": {{"builtin": "pl-western"}}, "completions": {completions}}}}},
              "samples": {samples}, "statistics": {{"replicates": {replicates}}}}}"#
        );
        super::super::format::parse("s.json", &text).unwrap()
    }

    fn base(bbq: usize, divergence: usize) -> Vec<Record> {
        let r = |m: &str| Record { method: m.into(), ..Record::default() };
        std::iter::repeat_n(r("bbq"), bbq).chain(std::iter::repeat_n(r("divergence"), divergence)).collect()
    }

    #[test]
    fn the_work_is_cases_times_copies_times_targets_and_replicates() {
        let w = check(&study(2, 20, 1000), &base(100, 10)).unwrap();
        assert_eq!(w, Work { records: (100 * 2 + 10 * 20) * 2, draws: 800 * 1000 });
    }

    #[test]
    fn too_many_records_or_draws_are_refused_naming_the_fields() {
        let e = check(&study(100, 1000, 1000), &base(1000, 1000)).unwrap_err();
        let StudyError::TooLarge { field, message } = &e else { panic!("{e:?}") };
        assert_eq!(field, "methods.divergence.completions");
        assert!(message.contains("samples (100) x methods.divergence.completions (1000) x targets (2)"), "{message}");
        let e = check(&study(100, 100, 100_000), &base(1000, 100)).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("statistics.replicates: this study would resample its 220000 records (1100 cases x samples (100) x methods.divergence.completions (100) x targets (2)) 100000 times"),
            "{e}"
        );
    }
}
