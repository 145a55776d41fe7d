//! The model's distribution m_c per context and model, from log-probability rows (scoring
//! mode) or completion records (sampling mode), with fillers mapped to canonical keys.

use super::formulas;
use super::logprobs::LogprobRow;
use super::normalise::{Index, key};
use super::probes::{Aspect, Context, ProbeSet};
use super::result::{Read, SampleCounts};
use super::sample::{self, Extracted};
use crate::record::Record;
use std::collections::BTreeMap;

/// One context's model distribution for one model.
pub struct Dist<'a> {
    pub context: &'a Context,
    /// (canonical filler, m_c(g)), sorted by filler.
    pub probs: Vec<(String, f64)>,
    /// ln of the raw mass (log-sum-exp of log-probs, or ln of the number of matched samples).
    pub ln_mass: f64,
    /// Sampling: the canonical filler of every matched sample.
    pub draws: Option<Vec<String>>,
    pub unmatched: BTreeMap<String, usize>,
}

/// Per aspect: model -> context id -> distribution.
pub type ByModel<'a> = BTreeMap<String, BTreeMap<String, Dist<'a>>>;

pub fn from_logprobs<'a>(
    aspect: &'a Aspect,
    rows: &[LogprobRow],
    index: &mut Index,
    counts: &mut BTreeMap<String, SampleCounts>,
) -> ByModel<'a> {
    let mut grouped: BTreeMap<(&str, &str), Vec<&LogprobRow>> = BTreeMap::new();
    for r in rows {
        if aspect.contexts.iter().any(|c| c.id == r.context) {
            grouped.entry((r.model.as_str(), r.context.as_str())).or_default().push(r);
        }
    }
    let mut out: ByModel = BTreeMap::new();
    for ((model, cid), rows) in grouped {
        let Some(context) = aspect.contexts.iter().find(|c| c.id == cid) else { continue };
        let mut lps: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        let mut unmatched = BTreeMap::new();
        for r in &rows {
            let k = match index.canonical(&r.filler) {
                Some(k) => k.to_string(),
                None => {
                    *unmatched.entry(r.filler.clone()).or_default() += 1;
                    let k = key(&r.filler);
                    index.remember_display(&k, &r.filler);
                    k
                }
            };
            if !k.is_empty() {
                lps.entry(k).or_default().push(r.logprob);
            }
        }
        // Two spellings of one filler (Warszawa, Warsaw) are two ways to say it: probabilities add.
        let per: Vec<(String, f64)> = lps.into_iter().map(|(k, v)| (k, formulas::log_sum_exp(&v))).collect();
        let all: Vec<f64> = per.iter().map(|p| p.1).collect();
        let lse = formulas::log_sum_exp(&all);
        let probs = per.into_iter().map(|(k, lp)| (k, libm::exp(lp - lse))).collect();
        let c = counts.entry(model.to_string()).or_default();
        c.matched += rows.len();
        out.entry(model.to_string())
            .or_default()
            .insert(cid.to_string(), Dist { context, probs, ln_mass: lse, draws: None, unmatched });
    }
    out
}

pub fn from_records<'a>(
    probes: &ProbeSet,
    aspect: &'a Aspect,
    records: &[Record],
    index: &Index,
    counts: &mut BTreeMap<String, SampleCounts>,
    reads: &mut BTreeMap<(String, String), Read>,
) -> ByModel<'a> {
    let mut out: ByModel = BTreeMap::new();
    for r in records {
        let Some(context) = aspect.contexts.iter().find(|c| c.id == r.case_id) else { continue };
        let c = counts.entry(r.model.clone()).or_default();
        let d = out.entry(r.model.clone()).or_default().entry(context.id.clone()).or_insert_with(|| Dist {
            context,
            probs: vec![],
            ln_mass: f64::NEG_INFINITY,
            draws: Some(vec![]),
            unmatched: BTreeMap::new(),
        });
        if !sample::usable(r) {
            c.not_ok += 1;
            continue;
        }
        match sample::extract(context.prompt(&probes.slot), &r.response, index) {
            Extracted::Matched { filler, .. } => {
                c.matched += 1;
                reads.insert((r.model.clone(), r.record_id.clone()), Read::Matched);
                d.draws.get_or_insert_with(Vec::new).push(filler);
            }
            Extracted::Unmatched { text } => {
                c.unmatched += 1;
                reads.insert((r.model.clone(), r.record_id.clone()), Read::Unmatched);
                *d.unmatched.entry(text).or_default() += 1;
            }
        }
    }
    for d in out.values_mut().flat_map(|m| m.values_mut()) {
        let draws = d.draws.as_deref().unwrap_or(&[]);
        let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
        for g in draws {
            *tally.entry(g).or_default() += 1;
        }
        let n = draws.len() as f64;
        d.probs = tally.into_iter().map(|(g, k)| (g.to_string(), k as f64 / n)).collect();
        d.ln_mass = if draws.is_empty() { f64::NEG_INFINITY } else { libm::log(n) };
    }
    out
}
