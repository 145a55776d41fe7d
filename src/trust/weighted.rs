//! The hand labels' figures for all answers of a language, where the labels were drawn by the
//! review sample: up to k answers the deciding detector flagged and k it did not. That sample
//! over-represents flagged answers, so its own sensitivity, specificity and refusal share
//! describe the sample; weighting each label by N_h / n_h (its stratum's answers over its
//! stratum's labels) gives figures for every answer ([`crate::stats::twophase`]).
//!
//! Where the labels were not drawn that way (an answer labelled outside the review sample, no
//! review sample, or a deciding detector that is not one of the panel's), the weights are
//! unknown: the report says so, and the unweighted figures are named as describing the
//! labelled answers only.

use super::{Item, Panel};
use crate::stats::twophase::{Estimate, Stratum, Unit, ratio, weighted_kappa};
use serde::Serialize;

pub const FLAGGED: &str = "the deciding detector flagged";
pub const NOT_FLAGGED: &str = "the deciding detector did not flag";

/// A figure, or why it is undefined (never a silent 0).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    pub value: Option<Estimate>,
    pub undefined: Option<String>,
}

impl Figure {
    fn of(r: Result<Estimate, crate::stats::twophase::Undefined>, what: &str) -> Figure {
        match r {
            Ok(e) => Figure { value: Some(e), undefined: None },
            Err(e) => Figure { value: None, undefined: Some(format!("{what}: {e}")) },
        }
    }
}

/// One stratum of the design: N_h answers, n_h of them labelled, r_h labelled refusals.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StratumCount {
    pub stratum: String,
    pub answers: u64,
    pub labelled: u64,
    pub refusals: u64,
}

/// One detector against the labels, weighted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WeightedDetector {
    pub detector: String,
    pub sensitivity: Figure,
    pub specificity: Figure,
    /// Kappa of the weighted table (a point estimate: no interval is given for it).
    pub kappa: Option<f64>,
}

/// The two-phase figures of one language.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Weighted {
    pub strata: Vec<StratumCount>,
    /// The true refusal rate: Σ_h (N_h/N) · (labelled refusals / n_h).
    pub rate: Figure,
    /// P(refusal | the deciding detector flagged) and P(answer | it did not).
    pub ppv: Figure,
    pub npv: Figure,
    /// Every detector, the deciding one by Bayes from PPV and NPV (the same as its weighted table).
    pub detectors: Vec<WeightedDetector>,
}

/// The weighted figures of a language's `items`, or why there are none.
pub fn of(panel: &Panel, items: &[&Item], with: &[(&Item, bool)], confidence: f64) -> Result<Weighted, String> {
    let Some(decider) = panel.detectors.iter().position(|d| *d == panel.decides) else {
        return Err(format!(
            "the figures are decided by the {}, not by a detector whose verdicts split the answers into the review sample's strata: the labels' weights are unknown, so these figures describe the labelled answers only",
            panel.decides
        ));
    };
    let Some(sample) = &panel.sample else {
        return Err("there is no review sample here, so the labels were not drawn by one: these figures describe the labelled answers only, not all answers".into());
    };
    let everything = with.len() == items.len();
    let outside =
        with.iter().filter(|(it, _)| !sample.contains(&it.record_id) || it.verdicts[decider].is_none()).count();
    if outside > 0 && !everything {
        return Err(format!(
            "{outside} of the {} labelled answers are not in the review sample: the labels were not drawn by it, so these figures describe the labelled answers only, not all answers",
            with.len()
        ));
    }
    let population = |flag: bool| items.iter().filter(|it| it.verdicts[decider] == Some(flag)).count() as u64;
    let strata = [
        Stratum { name: FLAGGED, population: population(true) },
        Stratum { name: NOT_FLAGGED, population: population(false) },
    ];
    let judged: Vec<(usize, &Item, bool)> =
        with.iter().filter_map(|(it, l)| it.verdicts[decider].map(|flag| (usize::from(!flag), *it, *l))).collect();
    let counts = strata
        .iter()
        .enumerate()
        .map(|(h, st)| StratumCount {
            stratum: st.name.to_string(),
            answers: st.population,
            labelled: judged.iter().filter(|j| j.0 == h).count() as u64,
            refusals: judged.iter().filter(|j| j.0 == h && j.2).count() as u64,
        })
        .collect::<Vec<_>>();
    let units = |f: &dyn Fn(&Item, bool) -> (bool, bool)| -> Vec<Unit> {
        judged
            .iter()
            .map(|&(stratum, it, l)| {
                let (y, x) = f(it, l);
                Unit { stratum, y, x }
            })
            .collect()
    };
    let within = |h: usize, answer: bool| -> Vec<Unit> {
        judged.iter().filter(|j| j.0 == h).map(|j| Unit { stratum: 0, y: j.2 != answer, x: true }).collect()
    };
    let weight = |h: usize| strata[h].population as f64 / counts[h].labelled.max(1) as f64;
    let detectors = panel
        .detectors
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut table = [0.0; 4];
            for &(h, it, l) in &judged {
                if let Some(v) = it.verdicts[i] {
                    table[usize::from(!v) + 2 * usize::from(!l)] += weight(h);
                }
            }
            WeightedDetector {
                detector: name.clone(),
                sensitivity: Figure::of(
                    ratio(
                        &strata,
                        &units(&|it, l| (it.verdicts[i] == Some(true) && l, it.verdicts[i].is_some() && l)),
                        confidence,
                    ),
                    "sensitivity",
                ),
                specificity: Figure::of(
                    ratio(
                        &strata,
                        &units(&|it, l| (it.verdicts[i] == Some(false) && !l, it.verdicts[i].is_some() && !l)),
                        confidence,
                    ),
                    "specificity",
                ),
                kappa: weighted_kappa(table),
            }
        })
        .collect();
    Ok(Weighted {
        rate: Figure::of(ratio(&strata, &units(&|_, l| (l, true)), confidence), "refusal rate"),
        ppv: Figure::of(ratio(&strata[..1], &within(0, false), confidence), "PPV"),
        npv: Figure::of(ratio(&strata[1..], &within(1, true), confidence), "NPV"),
        strata: counts,
        detectors,
    })
}
