//! Breakdowns of the BBQ section: diff-bias per category and per language, each model's figure
//! with its bootstrap interval over template groups (`bbq::metrics::breakdown`) and the paired
//! model difference within each category or language (the paired cluster bootstrap of
//! `stats::paired`, resampling the template groups of that subset). A study over en+de gets a
//! figure per language, not only the pooled one. The breakdowns' comparisons form a family of
//! their own, corrected with the study's correction (the headline family stays as it was).

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
}

/// The BBQ examples judged per model and sample (the BBQ section and the breakdowns both judge
/// through this): each sample an item of its own, with the sample it came from.
pub(super) fn judged(inputs: &Inputs, records: &[Record]) -> Vec<(u32, Judged)> {
    let Some(input) = &inputs.bbq else { return vec![] };
    let answered = || records.iter().enumerate().filter(|(_, r)| matches!(r.status, Status::Ok | Status::Refused));
    let samples: BTreeSet<u32> = answered().map(|(_, r)| r.sample_index).collect();
    let mut out = vec![];
    for &sample in &samples {
        let preds: Vec<crate::bbq::score::Prediction> = answered()
            .filter(|(_, r)| r.sample_index == sample)
            .map(|(i, r)| crate::bbq::score::Prediction {
                id: if r.question_id.is_empty() { r.case_id.clone() } else { r.question_id.clone() },
                answer: r.response.clone(),
                model: r.model.clone(),
                variant: r.params.get("variant").and_then(|v| v.as_str()).unwrap_or("").to_string(),
                line: i as u64 + 1,
                by_likelihood: false,
                file: String::new(),
                category: String::new(),
            })
            .collect();
        let matched = crate::bbq::score::judge(&input.examples, &preds, "bbq records");
        out.extend(matched.judged.into_iter().map(|j| (sample, j)));
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
        if let Ok(bs) = paired::paired_bootstrap_by_cluster(&sizes, s.replicates, s.confidence, s.seed, stat)
            && bs.difference.is_finite()
        {
            let figure = format!("{name} · {value}");
            out.push(Comparison { items: Some(n), ..compare::bootstrap("bbq", &figure, a, b, &bs) });
        }
    }
    out
}

/// BBQ's diff-bias per category and per language (only fields with two or more values).
pub fn bbq(inputs: &Inputs, records: &[Record], models: &[String], s: Settings) -> Vec<Breakdown> {
    let Some(input) = &inputs.bbq else { return vec![] };
    let examples = &input.examples;
    let js = judged(inputs, records);
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
        let mut comparisons = vec![];
        for value in &values {
            for (i, a) in models.iter().enumerate() {
                for b in &models[i + 1..] {
                    comparisons.extend(paired_in(examples, &js, (field, value), (a, b), s));
                }
            }
        }
        out.push(Breakdown { method: "bbq".into(), by: field.into(), figures, comparisons });
    }
    out
}

/// Every breakdown of the study, its comparisons corrected as one family of their own.
pub fn of(inputs: &Inputs, records: &[Record], models: &[String], s: Settings) -> Vec<Breakdown> {
    let bbq_records: Vec<Record> = records.iter().filter(|r| r.method == "bbq").cloned().collect();
    let mut out = bbq(inputs, &bbq_records, models, s);
    let mut all: Vec<Comparison> = out.iter().flat_map(|b| b.comparisons.clone()).collect();
    compare::correct(&mut all, s.correction, s.alpha);
    let mut it = all.into_iter();
    for b in &mut out {
        for c in &mut b.comparisons {
            if let Some(x) = it.next() {
                *c = x;
            }
        }
    }
    out
}
