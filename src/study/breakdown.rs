//! Breakdowns of the sections. BBQ's (here): diff-bias per category and per language, each model's figure
//! with its bootstrap interval over template groups (`bbq::metrics::breakdown`) and the paired
//! model difference within each category or language (the paired cluster bootstrap of
//! `stats::paired`, resampling the template groups of that subset). A study over en+de gets a
//! figure per language, not only the pooled one. The breakdowns' comparisons form a family of
//! their own, corrected with the study's correction (the headline family stays as it was).
//! The cross-lingual section's, per topic and per language pair, are in
//! [`super::breakdown_crosslingual`].
//!
//! Their paired bootstraps draw as many replicates as their family needs, by the rule of the
//! headline family ([`super::report::paired_replicates`]: at least 20 x family / alpha, and at
//! least the study's), so that a difference at the bootstrap's floor can survive the
//! correction here too; each model's own interval keeps the study's replicates.

use super::compare::{self, Comparison, Figure};
use super::inputs::Inputs;
use super::sections::Settings;
use crate::bbq::metrics::{self, BootstrapSettings, Judged};
use crate::record::{Record, Status};
use crate::stats::paired;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One breakdown: a method's figures and paired differences per value of one field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Breakdown {
    pub method: String,
    /// The field broken down by ("category", "language").
    pub by: String,
    pub figures: Vec<Figure>,
    pub comparisons: Vec<Comparison>,
    /// The replicates the paired bootstraps of the breakdowns drew (the study's, raised for
    /// the breakdowns' family); absent when this breakdown's comparisons draw none (McNemar).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired_replicates: Option<u32>,
}

/// One breakdown before its family is known: the figures, and the comparisons at a number of
/// paired replicates (called again when the family needs more).
pub(super) struct Part<'a> {
    pub method: &'static str,
    pub by: &'static str,
    pub figures: Vec<Figure>,
    pub compare: Box<dyn Fn(u32) -> Vec<Comparison> + 'a>,
}

/// The BBQ examples judged per model and sample (the BBQ section and the breakdowns both judge
/// through this): each sample an item of its own, with the sample it came from.
pub(super) fn judged(inputs: &Inputs, records: &[Record]) -> Vec<(u32, Judged)> {
    judged_at(inputs, records).into_iter().map(|(_, k, j)| (k, j)).collect()
}

/// [`judged`], with the index in `records` of each judged answer's record (the calls table
/// places every record by it; a record without one was not judged: not an example, or a repeat).
pub(super) fn judged_at(inputs: &Inputs, records: &[Record]) -> Vec<(usize, u32, Judged)> {
    let Some(input) = &inputs.bbq else { return vec![] };
    let answered = || records.iter().enumerate().filter(|(_, r)| matches!(r.status, Status::Ok | Status::Refused));
    let samples: BTreeSet<u32> = answered().map(|(_, r)| r.sample_index).collect();
    let mut out = vec![];
    for &sample in &samples {
        let mut judge = crate::bbq::score::Judge::new(&input.examples, "bbq records", false);
        let mut at = vec![];
        for (i, r) in answered().filter(|(_, r)| r.sample_index == sample) {
            let before = judge.taken();
            judge.take(&crate::bbq::score::Prediction {
                id: if r.question_id.is_empty() { r.case_id.clone() } else { r.question_id.clone() },
                answer: r.response.clone(),
                model: r.model.clone(),
                variant: r.params.get("variant").and_then(|v| v.as_str()).unwrap_or("").to_string(),
                line: i as u64 + 1,
                by_likelihood: false,
                file: String::new(),
                category: String::new(),
            });
            if judge.taken() > before {
                at.push(i);
            }
        }
        out.extend(at.into_iter().zip(judge.finish().judged).map(|(i, j)| (i, sample, j)));
    }
    out
}

/// A BBQ figure from a bootstrap estimate over template groups, `n` the judged examples the
/// figure was computed on (the BBQ section and the breakdowns both build theirs here).
pub(super) fn bootstrap_figure(figure: String, model: &str, e: &metrics::Estimate, n: u64, units: usize) -> Figure {
    Figure {
        method: "bbq".into(),
        figure,
        model: model.into(),
        value: e.value,
        n,
        successes: None,
        interval: e.low.zip(e.high).map(|(low, high)| crate::stats::interval::Interval { low, high }),
        interval_method: format!("bootstrap over {units} template groups"),
        clustered: None,
        threshold: None,
    }
}

fn value_of(field: &str, ex: &crate::bbq::Example) -> String {
    if field == "language" { ex.language.clone() } else { ex.category.clone() }
}

/// One template group's counts under models A and B.
#[derive(Default)]
struct Group {
    a: metrics::Counts,
    b: metrics::Counts,
    n: usize,
}

/// The paired differences in diff-bias between `a` and `b` on the items of `value`.
fn paired_in(
    examples: &[crate::bbq::Example],
    js: &[(u32, Judged)],
    (field, value): (&str, &str),
    (a, b): (&str, &str),
    s: Settings,
    replicates: u32,
) -> Vec<Comparison> {
    let of = |m: &str| -> BTreeMap<(usize, String, u32), Option<usize>> {
        js.iter()
            .filter(|(_, j)| j.model == m && value_of(field, &examples[j.example]) == value)
            .map(|(k, j)| ((j.example, j.variant.clone(), *k), j.prediction))
            .collect()
    };
    let (pa, pb) = (of(a), of(b));
    let mut groups: BTreeMap<&str, Group> = BTreeMap::new();
    let mut n = 0u64;
    for (k, x) in &pa {
        let Some(y) = pb.get(k) else { continue };
        let e = &examples[k.0];
        let unit = if e.template_id.is_empty() { e.id.as_str() } else { e.template_id.as_str() };
        let g = groups.entry(unit).or_default();
        g.a.add(e, *x);
        g.b.add(e, *y);
        g.n += 1;
        n += 1;
    }
    let groups: Vec<Group> = groups.into_values().collect();
    let sizes: Vec<usize> = groups.iter().map(|g| g.n).collect();
    type Metric = fn(&metrics::Scores) -> Option<f64>;
    let figures: [(&str, Metric); 2] =
        [("diff-bias · ambiguous", |s| s.diff_bias_amb), ("diff-bias · disambiguated", |s| s.diff_bias_dis)];
    let mut out = vec![];
    for (name, metric) in figures {
        let stat = |idx: &[usize]| {
            let (mut ca, mut cb) = (metrics::Counts::default(), metrics::Counts::default());
            for &g in idx {
                ca.plus(&groups[g].a);
                cb.plus(&groups[g].b);
            }
            let v = |c: &metrics::Counts| metric(&metrics::scores(c)).unwrap_or(f64::NAN);
            (v(&ca), v(&cb))
        };
        if let Ok(bs) = paired::paired_bootstrap_by_cluster(&sizes, replicates, s.confidence, s.seed, stat)
            && bs.difference.is_finite()
        {
            let figure = format!("{name} · {value}");
            out.push(Comparison { items: Some(n), ..compare::bootstrap("bbq", &figure, a, b, &bs) });
        }
    }
    out
}

/// BBQ's diff-bias per category and per language (only fields with two or more values), over
/// the judged answers `js` ([`judged`]).
fn bbq<'a>(inputs: &'a Inputs, js: &'a [(u32, Judged)], models: &'a [String], s: Settings) -> Vec<Part<'a>> {
    let Some(input) = &inputs.bbq else { return vec![] };
    let examples = &input.examples;
    let settings = BootstrapSettings { replicates: s.replicates, confidence: s.confidence, seed: s.seed };
    let plain: Vec<Judged> = js.iter().map(|(_, j)| j.clone()).collect();
    let mut out = vec![];
    for field in ["category", "language"] {
        let values: BTreeSet<String> = plain.iter().map(|j| value_of(field, &examples[j.example])).collect();
        if values.len() < 2 {
            continue;
        }
        let rows = metrics::breakdown(examples, &plain, &[field.to_string(), "model".to_string()], &settings);
        let mut figures = vec![];
        for value in &values {
            for m in models {
                let Some(row) = rows.iter().find(|r| r.key == [value.clone(), m.clone()]) else { continue };
                let c = &row.counts;
                for (name, e, n) in [
                    ("diff-bias · ambiguous", &row.diff_bias_amb, c.n_a),
                    ("diff-bias · disambiguated", &row.diff_bias_dis, c.n_b + c.n_c),
                ] {
                    figures.push(bootstrap_figure(format!("{name} · {value}"), m, e, n, row.units));
                }
            }
        }
        let compare = move |replicates: u32| {
            let mut comparisons = vec![];
            for value in &values {
                for (i, a) in models.iter().enumerate() {
                    for b in &models[i + 1..] {
                        comparisons.extend(paired_in(examples, js, (field, value), (a, b), s, replicates));
                    }
                }
            }
            comparisons
        };
        out.push(Part { method: "bbq", by: field, figures, compare: Box::new(compare) });
    }
    out
}

fn is_bootstrap(c: &Comparison) -> bool {
    c.test.contains("bootstrap")
}

/// Every breakdown of the study (`by_method`: its records split by method, targets under
/// report names), their comparisons corrected as one family of their own, their paired
/// bootstraps drawing the replicates that family needs.
pub fn of(inputs: &Inputs, by_method: &[(&str, Vec<Record>)], models: &[String], s: Settings) -> Vec<Breakdown> {
    let records = |method: &str| by_method.iter().find(|(m, _)| *m == method).map_or(&[][..], |(_, r)| r.as_slice());
    let js = judged(inputs, records("bbq"));
    let xl = super::breakdown_crosslingual::judge(records("crosslingual"));
    let mut parts = bbq(inputs, &js, models, s);
    parts.extend(super::breakdown_crosslingual::parts(inputs, &xl, models, s));
    // As the headline family: the size is known once the comparisons are made, and a size
    // that needs more replicates makes them again (a loop: the size can only grow).
    let mut b = s.replicates;
    let made = loop {
        let made: Vec<Vec<Comparison>> = parts.iter().map(|p| (p.compare)(b)).collect();
        let all = made.iter().flatten();
        let want = if all.clone().any(is_bootstrap) {
            super::report::paired_replicates(s.replicates, all.count(), s.alpha, s.correction)
        } else {
            b
        };
        if want <= b {
            break made;
        }
        b = want;
    };
    let mut all: Vec<Comparison> = made.iter().flatten().cloned().collect();
    compare::correct(&mut all, s.correction, s.alpha);
    let mut it = all.into_iter();
    parts
        .into_iter()
        .zip(made)
        .map(|(p, made)| Breakdown {
            method: p.method.into(),
            by: p.by.into(),
            figures: p.figures,
            paired_replicates: made.iter().any(is_bootstrap).then_some(b),
            comparisons: made.iter().map(|c| it.next().unwrap_or_else(|| c.clone())).collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::report::paired_replicates;

    #[test]
    fn the_breakdowns_draw_the_replicates_their_family_needs() {
        let r = super::super::example::session().unwrap().report("T").unwrap();
        let st = &r.statistics;
        let size: usize = r.breakdowns.iter().map(|b| b.comparisons.len()).sum();
        let want = paired_replicates(st.replicates, size, st.alpha, st.correction);
        assert!(want > st.replicates, "the example's breakdown family ({size}) needs more than the study's replicates");
        let bbq = r.breakdowns.iter().find(|b| b.method == "bbq" && b.by == "category").unwrap();
        assert_eq!(bbq.paired_replicates, Some(want));
        // The smallest p a bootstrap with `want` replicates gives: the comparisons reach it,
        // which the study's 1,000 could not (2 / 1001).
        let floor = 2.0 / (f64::from(want) + 1.0);
        let smallest = bbq.comparisons.iter().map(|c| c.p_value).fold(1.0, f64::min);
        assert!((smallest - floor).abs() < 1e-12, "{smallest} vs {floor}");
    }

    #[test]
    fn crosslingual_breaks_down_by_topic_and_language_pair_with_paired_differences() {
        let r = super::super::example::session().unwrap().report("T").unwrap();
        let topic = r.breakdowns.iter().find(|b| b.method == "crosslingual" && b.by == "topic").unwrap();
        // 17 topics, both models, each with an interval; one McNemar comparison per topic.
        assert_eq!(topic.figures.len(), 17 * 2);
        assert!(topic.figures.iter().all(|f| f.interval.is_some() && f.figure.starts_with("refusal rate · ")));
        assert_eq!(topic.comparisons.len(), 17);
        assert!(topic.comparisons.iter().all(|c| c.test == "mcnemar-exact" && c.discordant.is_some()));
        assert_eq!(topic.paired_replicates, None);
        let pairs = r.breakdowns.iter().find(|b| b.method == "crosslingual" && b.by == "language pair").unwrap();
        let names: Vec<&str> = pairs.comparisons.iter().map(|c| c.figure.as_str()).collect();
        assert_eq!(
            names,
            ["en − es", "en − hi", "en − zh", "es − hi", "es − zh", "hi − zh"].map(|p| format!("refusal gap · {p}"))
        );
        for c in &pairs.comparisons {
            let i = c.interval.unwrap();
            assert!(i.low <= c.difference && c.difference <= i.high, "{c:?}");
            // A's gap and B's gap are each model's figure for the pair.
            let gap =
                |m: &str| pairs.figures.iter().find(|f| f.figure == c.figure && f.model == m).unwrap().value.unwrap();
            assert!((gap(&c.model_a) - c.value_a).abs() < 1e-12 && (gap(&c.model_b) - c.value_b).abs() < 1e-12);
        }
        assert!(pairs.paired_replicates.is_some());
    }
}
