//! Breakdowns of the cross-lingual section: refusals per topic and per language pair.
//!
//! - Per topic (languages pooled): each model's refusal rate with its interval (the study's
//!   interval method, and the cluster-robust one over questions), and McNemar's exact test
//!   between models on the same items (question, language, mode, sample), as the section does
//!   per language.
//! - Per language pair (l1, l2): each model's refusal gap, rate(l1) − rate(l2) on the questions
//!   it answered in both languages, with the percentile interval of a paired bootstrap over
//!   questions; and the paired model difference in that gap (A's gap − B's gap, a difference
//!   in differences) on the questions both models answered in both languages, by the paired
//!   cluster bootstrap of `stats::paired` (one draw of questions for both models).
//!
//! Each is a [`super::breakdown::Part`]: the figures once, the comparisons at any number of
//! paired replicates (the breakdowns' family decides it).

use super::breakdown::Part;
use super::compare::{self, Comparison, Figure};
use super::inputs::Inputs;
use super::sections::Settings;
use crate::crosslingual::analysis::{self, Dataset};
use crate::record::Record;
use crate::stats::cluster::ClusterCount;
use crate::stats::paired;
use std::collections::{BTreeMap, BTreeSet};

/// One judged answer.
struct Unit {
    model: String,
    topic: String,
    language: String,
    question: String,
    /// The item within a language: question, mode and sample.
    item: String,
    refused: bool,
}

/// One question's counts in a language pair: items, and refusals in l1 and l2, per side.
#[derive(Default, Clone, Copy)]
struct Gap {
    n: u64,
    first: u64,
    second: u64,
}

fn units(records: &[Record]) -> Vec<Unit> {
    let lexicon = crate::text::refusal::Lexicon::builtin();
    let d = Dataset::new("crosslingual records", records.to_vec(), &lexicon);
    let detector = analysis::Settings::default().detector;
    d.records
        .iter()
        .zip(&d.verdicts)
        .filter_map(|(r, v)| {
            Some(Unit {
                model: r.model.clone(),
                topic: r.concern.clone(),
                language: r.language.clone(),
                question: r.question_id.clone(),
                item: format!("{}#{}#{}", r.question_id, r.template_id, r.sample_index),
                refused: v.get(detector)?,
            })
        })
        .collect()
}

/// Refusal rate per topic and model, McNemar between models per topic.
fn by_topic<'a>(us: &'a [Unit], models: &'a [String], s: Settings) -> Option<Part<'a>> {
    let topics: BTreeSet<&str> = us.iter().map(|u| u.topic.as_str()).collect();
    if topics.len() < 2 {
        return None;
    }
    // topic -> model -> (clusters, items)
    type Cells = BTreeMap<String, ClusterCount>;
    type PerModel<'m> = BTreeMap<&'m str, (Cells, BTreeMap<String, bool>)>;
    let mut cells: BTreeMap<&str, PerModel> = BTreeMap::new();
    for u in us {
        let slot = cells.entry(&u.topic).or_default().entry(&u.model).or_default();
        let c = slot.0.entry(u.question.clone()).or_insert(ClusterCount { successes: 0, n: 0 });
        c.n += 1;
        c.successes += u64::from(u.refused);
        slot.1.insert(format!("{}#{}", u.item, u.language), u.refused);
    }
    let mut figures = vec![];
    let mut comparisons = vec![];
    for (topic, per_model) in &cells {
        let name = format!("refusal rate · {topic}");
        for m in models {
            if let Some((c, _)) = per_model.get(m.as_str()) {
                figures.push(compare::rate("crosslingual", &name, m, c, (s.confidence, s.interval), None));
            }
        }
        for (i, a) in models.iter().enumerate() {
            for b in &models[i + 1..] {
                if let (Some((_, ia)), Some((_, ib))) = (per_model.get(a.as_str()), per_model.get(b.as_str()))
                    && let Some(c) = compare::mcnemar("crosslingual", &name, (a, ia), (b, ib))
                {
                    comparisons.push(c);
                }
            }
        }
    }
    // McNemar's exact test does not draw: the same comparisons at any number of replicates.
    Some(Part { method: "crosslingual", by: "topic", figures, compare: Box::new(move |_| comparisons.clone()) })
}

/// Per model, per question: the counts of the items it answered in both `l1` and `l2`.
fn gaps<'a>(us: &'a [Unit], (l1, l2): (&str, &str)) -> BTreeMap<(&'a str, &'a str), Gap> {
    let mut answers: BTreeMap<(&str, &str, &str), [Option<bool>; 2]> = BTreeMap::new();
    for u in us {
        let side = if u.language == l1 {
            0
        } else if u.language == l2 {
            1
        } else {
            continue;
        };
        answers.entry((&u.model, &u.question, &u.item)).or_default()[side] = Some(u.refused);
    }
    let mut out: BTreeMap<(&str, &str), Gap> = BTreeMap::new();
    for ((model, question, _), pair) in answers {
        if let [Some(x), Some(y)] = pair {
            let g = out.entry((model, question)).or_default();
            g.n += 1;
            g.first += u64::from(x);
            g.second += u64::from(y);
        }
    }
    out
}

fn rates(groups: &[Gap], idx: &[usize]) -> (f64, f64) {
    let (mut n, mut x, mut y) = (0u64, 0u64, 0u64);
    for &g in idx {
        n += groups[g].n;
        x += groups[g].first;
        y += groups[g].second;
    }
    (x as f64 / n as f64, y as f64 / n as f64)
}

/// Both models' refusal gaps over the drawn questions, in one pass over the draw (this runs
/// once per replicate, for every pair of models and languages).
fn gap_pair(both: &[(Gap, Gap)], idx: &[usize]) -> (f64, f64) {
    let [mut na, mut a1, mut a2, mut nb, mut b1, mut b2] = [0u64; 6];
    for &q in idx {
        let (a, b) = &both[q];
        na += a.n;
        a1 += a.first;
        a2 += a.second;
        nb += b.n;
        b1 += b.first;
        b2 += b.second;
    }
    let (na, nb) = (na as f64, nb as f64);
    ((a1 as f64 / na) - (a2 as f64 / na), (b1 as f64 / nb) - (b2 as f64 / nb))
}

/// Each model's refusal gap per language pair, and the paired difference in gaps.
fn by_language_pair<'a>(
    us: &'a [Unit],
    languages: &'a [String],
    models: &'a [String],
    s: Settings,
) -> Option<Part<'a>> {
    let present: BTreeSet<&str> = us.iter().map(|u| u.language.as_str()).collect();
    let languages: Vec<&String> = languages.iter().filter(|l| present.contains(l.as_str())).collect();
    if languages.len() < 2 {
        return None;
    }
    // Per language pair: its figure's name, and (model, question) -> counts.
    type Gaps<'u> = BTreeMap<(&'u str, &'u str), Gap>;
    let mut pairs: Vec<(String, Gaps)> = vec![];
    for (i, l1) in languages.iter().enumerate() {
        for l2 in &languages[i + 1..] {
            pairs.push((format!("refusal gap · {l1} − {l2}"), gaps(us, (l1, l2))));
        }
    }
    let mut figures = vec![];
    for (name, per) in &pairs {
        for m in models {
            let groups: Vec<Gap> = per.iter().filter(|((x, _), _)| *x == m.as_str()).map(|(_, g)| *g).collect();
            let sizes: Vec<usize> = groups.iter().map(|g| g.n as usize).collect();
            let Ok(bs) = paired::paired_bootstrap_by_cluster(&sizes, s.replicates, s.confidence, s.seed, |idx| {
                rates(&groups, idx)
            }) else {
                continue;
            };
            figures.push(Figure {
                method: "crosslingual".into(),
                figure: name.clone(),
                model: m.clone(),
                value: Some(bs.difference),
                n: bs.items as u64,
                successes: None,
                interval: Some(bs.interval),
                interval_method: format!("paired bootstrap over {} questions", bs.clusters),
                clustered: None,
                threshold: None,
            });
        }
    }
    let compare = move |replicates: u32| {
        let mut out = vec![];
        for (name, per) in &pairs {
            for (i, a) in models.iter().enumerate() {
                for b in &models[i + 1..] {
                    // The questions both models answered in both languages, as (A's, B's) counts.
                    let both: Vec<(Gap, Gap)> = per
                        .iter()
                        .filter(|((m, _), _)| *m == a.as_str())
                        .filter_map(|((_, q), ga)| per.get(&(b.as_str(), *q)).map(|gb| (*ga, *gb)))
                        .collect();
                    // A question's items are those answered in both languages by each model.
                    let sizes: Vec<usize> = both.iter().map(|(x, y)| x.n.min(y.n) as usize).collect();
                    let stat = |idx: &[usize]| gap_pair(&both, idx);
                    if let Ok(bs) = paired::paired_bootstrap_by_cluster(&sizes, replicates, s.confidence, s.seed, stat)
                    {
                        // Questions are resampled: n is their count, the items beside it.
                        out.push(Comparison {
                            items: Some(bs.items as u64),
                            ..compare::bootstrap("crosslingual", name, a, b, &bs)
                        });
                    }
                }
            }
        }
        out
    };
    Some(Part { method: "crosslingual", by: "language pair", figures, compare: Box::new(compare) })
}

/// The judged answers of the method's records (targets under report names), read once: the
/// parts borrow them.
pub struct Judged(Vec<Unit>);

pub fn judge(records: &[Record]) -> Judged {
    Judged(if records.is_empty() { vec![] } else { units(records) })
}

/// The cross-lingual breakdowns: per topic, and per language pair in the study's order.
pub(super) fn parts<'a>(inputs: &'a Inputs, judged: &'a Judged, models: &'a [String], s: Settings) -> Vec<Part<'a>> {
    let Some(input) = &inputs.crosslingual else { return vec![] };
    by_topic(&judged.0, models, s).into_iter().chain(by_language_pair(&judged.0, &input.languages, models, s)).collect()
}
