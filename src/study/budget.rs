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
    /// The most replicates any bootstrap of the report draws: the study's, or the paired
    /// bootstraps' raised for their family ([`super::report::paired_replicates`]).
    pub replicates: u32,
    /// Records x replicates.
    pub draws: u64,
}

/// The comparisons a report of `study` can make at most (every figure of every model pair
/// defined), in the headline family and in the breakdowns' family, each with whether any of
/// them is a paired bootstrap (the draws the family can raise).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Families {
    pub headline: (usize, bool),
    pub breakdowns: (usize, bool),
}

/// The figures per model pair that the sections and breakdowns compare, from the base cases:
/// requirements per concern and language, BBQ's three, cross-lingual per language,
/// divergence per aspect; BBQ's two diff-bias figures per category and per language, and
/// cross-lingual per topic and per language pair (each only with two or more values).
pub fn families(study: &Study, base: &[Record]) -> Families {
    use std::collections::BTreeSet;
    let t = study.targets.len();
    let pairs = t * t.saturating_sub(1) / 2;
    let distinct = |method: &str, key: &dyn Fn(&Record) -> String| {
        base.iter().filter(|r| r.method == method).map(key).collect::<BTreeSet<String>>().len()
    };
    let at_least_two = |n: usize| if n >= 2 { n } else { 0 };
    let requirements = distinct("requirements", &|r| format!("{}\u{0}{}", r.concern, r.language));
    let bbq = base.iter().any(|r| r.method == "bbq");
    let languages = distinct("crosslingual", &|r| r.language.clone());
    let aspects = distinct("divergence", &|r| r.concern.clone());
    let headline = requirements + if bbq { 3 } else { 0 } + languages + aspects;
    let bbq_by = 2
        * (at_least_two(distinct("bbq", &|r| r.concern.clone()))
            + at_least_two(distinct("bbq", &|r| r.language.clone())));
    let language_pairs = at_least_two(languages) * languages.saturating_sub(1) / 2;
    let topics = at_least_two(distinct("crosslingual", &|r| r.concern.clone()));
    Families {
        headline: (pairs * headline, pairs > 0 && (bbq || aspects > 0)),
        breakdowns: (pairs * (bbq_by + topics + language_pairs), pairs > 0 && (bbq_by + language_pairs) > 0),
    }
}

/// The work of `study` over its base cases (one per prompt, see `cases::base_cases`).
pub fn estimate(study: &Study, base: &[Record]) -> Work {
    let per_target: u64 = base.iter().map(|r| u64::from(copies(study, &r.method))).sum();
    let records = per_target.saturating_mul(study.targets.len() as u64);
    let st = &study.statistics;
    let f = families(study, base);
    let raised = |(size, paired): (usize, bool)| {
        if paired { super::report::paired_replicates(st.replicates, size, st.alpha, st.correction) } else { 0 }
    };
    let replicates = st.replicates.max(raised(f.headline)).max(raised(f.breakdowns));
    Work { records, replicates, draws: records.saturating_mul(u64::from(replicates)) }
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
                "this study would resample its {} records ({cases} cases x {}) {} times{} ({} record draws), above the limit of {MAX_DRAWS}; lower statistics.replicates or {}",
                w.records,
                sizes.join(" x "),
                w.replicates,
                if w.replicates > study.statistics.replicates {
                    format!(
                        " (statistics.replicates is {}; the paired bootstraps draw more, as many as their family of comparisons needs)",
                        study.statistics.replicates
                    )
                } else {
                    String::new()
                },
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
        // Two targets, BBQ and divergence: the headline family is 1 pair x (3 + aspects)
        // figures, which at alpha 0.05 needs 20 x 4 / 0.05 = 1,600, rounded up to 2,000.
        assert_eq!(w, Work { records: (100 * 2 + 10 * 20) * 2, replicates: 2000, draws: 800 * 2000 });
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

    #[test]
    fn the_raised_paired_replicates_count_in_the_draws() {
        // 20 aspects and BBQ: a headline family of 23 comparisons for the one model pair, whose
        // paired bootstraps draw 20 x 23 / 0.05 = 9,200, rounded up to 10,000; at the study's
        // 1,000 replicates the 600,000 records (1,000 x 100 + 1,000 x 200, x 2 targets) would
        // pass, at the 10,000 drawn they do not.
        let aspects =
            (0..20).map(|i| Record { method: "divergence".into(), concern: format!("a{i}"), ..Record::default() });
        let base: Vec<Record> = base(1000, 0).into_iter().chain(aspects.cycle().take(1000)).collect();
        let f = families(&study(100, 200, 1000), &base);
        assert_eq!(f.headline, (23, true));
        let w = estimate(&study(100, 200, 1000), &base);
        assert_eq!((w.records, w.replicates), (600_000, 10_000));
        let e = check(&study(100, 200, 1000), &base).unwrap_err();
        let StudyError::TooLarge { field, message } = &e else { panic!("{e:?}") };
        assert_eq!(field, "statistics.replicates");
        assert!(
            message.contains("10000 times (statistics.replicates is 1000; the paired bootstraps draw more"),
            "{message}"
        );
        assert!(check(&study(100, 50, 1000), &base).is_ok(), "300,000 records x 10,000 is under the limit");
    }

    #[test]
    fn the_estimate_bounds_what_the_example_report_draws() {
        // Before any record the estimate counts every figure the cases could give (a
        // requirement with no judged answer gives none): at least the family the report makes,
        // so at least the replicates it draws, and never the study's 1,000 alone.
        let s = super::super::example::session().unwrap();
        let base = super::super::cases::base_cases(&s.study, s.inputs().unwrap()).unwrap();
        let r = s.report("T").unwrap();
        let f = families(&s.study, &base);
        assert!(f.headline.0 >= r.family.size && f.headline.0 <= r.family.size + 2, "{f:?} vs {}", r.family.size);
        let breakdowns: usize = r.breakdowns.iter().map(|b| b.comparisons.len()).sum();
        assert_eq!(f.breakdowns.0, breakdowns);
        let drawn = r.breakdowns.iter().filter_map(|b| b.paired_replicates).chain([r.family.paired_replicates]).max();
        let w = estimate(&s.study, &base);
        assert_eq!(Some(w.replicates), drawn, "the breakdowns' family is the largest here, and exact");
        assert!(w.replicates > s.study.statistics.replicates);
    }
}
