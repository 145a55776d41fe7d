//! The simulated model with a cultural lean: a seeded stand-in whose filler distribution is
//! known, so the whole pipeline can be checked against a value computed by hand.
//!
//! For an aspect with filler table G (the bases that either reference knows), the model's
//! distribution in context c is
//!
//! ```text
//! p_c(g) ∝ ((1 - λ) L̂(g) + λ Ŵ(g)) · exp(jitter · z_{c,g})
//! ```
//!
//! with L̂, Ŵ the raw references restricted to G and renormalised, λ the lean (0 = local,
//! 1 = Western) and z_{c,g} a seeded standard normal (jitter 0 makes every context the same).
//! Scoring mode writes ln p_c(g) + o_c per (context, filler), the offset o_c = -2 per word of
//! the context + mass_spread · z_c standing for the rest of the sentence's probability (it
//! cancels in the poster's per-context normalisation, not in the pooled form). Sampling
//! mode draws `samples` completions per context: the filler in the form the slot needs, or,
//! at `unmatched_rate`, a reply naming no filler. Every output says model `sim:NAME`.

use super::analysis::Assigned;
use super::logprobs::LogprobRow;
use super::normalise::key;
use super::probes::{Aspect, Context, ProbeSet};
use super::{DivergenceError, LOCAL, WESTERN};
use crate::record::Record;
use crate::rng;
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Lean {
    /// The model is called `sim:NAME`.
    pub name: String,
    /// 0 = the local reference's distribution, 1 = the Western one's.
    pub lean: f64,
    pub jitter: f64,
    pub mass_spread: f64,
    /// Sampling: completions per context.
    pub samples: u32,
    /// Sampling: recorded in the records' params (the simulation ignores it).
    pub temperature: f64,
    /// Sampling: share of completions that name no filler.
    pub unmatched_rate: f64,
}

impl Default for Lean {
    fn default() -> Lean {
        Lean {
            name: "lean".into(),
            lean: 0.3,
            jitter: 0.0,
            mass_spread: 0.0,
            samples: 20,
            temperature: 1.0,
            unmatched_rate: 0.0,
        }
    }
}

impl Lean {
    pub fn model(&self) -> String {
        format!("sim:{}", self.name)
    }

    pub fn check(&self) -> Result<(), DivergenceError> {
        let bad = |what: &str| Err(DivergenceError::Setting(format!("simulated model {:?}: {what}", self.name)));
        if self.name.trim().is_empty() {
            return bad("expected a non-empty name");
        }
        if !(0.0..=1.0).contains(&self.lean) {
            return bad("lean: expected a number from 0 (local) to 1 (Western)");
        }
        if !(self.jitter.is_finite() && (0.0..=10.0).contains(&self.jitter)) {
            return bad("jitter: expected a number from 0 to 10");
        }
        if !(self.mass_spread.is_finite() && (0.0..=100.0).contains(&self.mass_spread)) {
            return bad("mass_spread: expected a number from 0 to 100");
        }
        if self.samples == 0 || self.samples > 10_000 {
            return bad("samples: expected 1 to 10000 completions per context");
        }
        if !(0.0..=1.0).contains(&self.unmatched_rate) || !self.temperature.is_finite() {
            return bad("unmatched_rate: expected a number from 0 to 1");
        }
        Ok(())
    }
}

/// Raw reference weights of one culture by canonical key.
fn weights(aspect: &Aspect, refs: &[Assigned], culture: &str) -> BTreeMap<String, f64> {
    let ix = aspect.index();
    let mut w = BTreeMap::new();
    for r in refs.iter().filter(|r| r.aspect == aspect.id && r.culture == culture) {
        for (name, x) in &r.reference.entries {
            *w.entry(ix.canonical_or_self(name)).or_insert(0.0) += x;
        }
    }
    w
}

/// The lean mixture over the aspect's filler table, before per-context jitter: (filler index, p).
pub fn mixture(aspect: &Aspect, refs: &[Assigned], lean: f64) -> Vec<(usize, f64)> {
    let (wl, ww) = (weights(aspect, refs, LOCAL), weights(aspect, refs, WESTERN));
    let raw = |w: &BTreeMap<String, f64>| -> Vec<f64> {
        aspect.fillers.iter().map(|f| w.get(&key(&f.base)).copied().unwrap_or(0.0)).collect()
    };
    let (rl, rw) = (raw(&wl), raw(&ww));
    let (zl, zw) = (rl.iter().sum::<f64>(), rw.iter().sum::<f64>());
    let part = |x: f64, z: f64| if z > 0.0 { x / z } else { 0.0 };
    let mix: Vec<f64> = rl.iter().zip(&rw).map(|(l, w)| (1.0 - lean) * part(*l, zl) + lean * part(*w, zw)).collect();
    let total: f64 = mix.iter().sum();
    mix.into_iter().enumerate().filter(|(_, p)| *p > 0.0).map(|(i, p)| (i, p / total)).collect()
}

/// An aspect the simulation can answer, with its lean mixture.
type Usable<'a> = (&'a Aspect, Vec<(usize, f64)>);

/// p_c over the aspect's fillers for one context.
fn context_dist(aspect: &Aspect, base: &[(usize, f64)], lean: &Lean, seed: u64, c: &Context) -> Vec<(usize, f64)> {
    if lean.jitter == 0.0 {
        return base.to_vec();
    }
    let w: Vec<(usize, f64)> = base
        .iter()
        .map(|&(i, p)| {
            let mut r = rng::rng_for(
                seed,
                &[b"divergence-sim", lean.name.as_bytes(), c.id.as_bytes(), aspect.fillers[i].base.as_bytes()],
            );
            (i, p * libm::exp(lean.jitter * rng::standard_normal(&mut r)))
        })
        .collect();
    let z: f64 = w.iter().map(|x| x.1).sum();
    w.into_iter().map(|(i, p)| (i, p / z)).collect()
}

fn usable_aspects<'a>(
    probes: &'a ProbeSet,
    refs: &[Assigned],
    lean: &Lean,
) -> Result<Vec<Usable<'a>>, DivergenceError> {
    lean.check()?;
    let out: Vec<_> = probes
        .aspects
        .iter()
        .filter(|a| [LOCAL, WESTERN].iter().all(|c| refs.iter().any(|r| r.aspect == a.id && r.culture == *c)))
        .map(|a| (a, mixture(a, refs, lean.lean)))
        .filter(|(_, m)| !m.is_empty())
        .collect();
    if out.is_empty() {
        return Err(DivergenceError::Setting(format!(
            "the simulated model needs an aspect of {:?} with both references and a filler table they share",
            probes.id
        )));
    }
    Ok(out)
}

/// Scoring mode: one log-probability row per (context, filler).
pub fn logprobs(
    probes: &ProbeSet,
    refs: &[Assigned],
    lean: &Lean,
    seed: u64,
) -> Result<Vec<LogprobRow>, DivergenceError> {
    let mut rows = vec![];
    for (aspect, base) in usable_aspects(probes, refs, lean)? {
        for c in &aspect.contexts {
            let mut r = rng::rng_for(seed, &[b"divergence-sim-mass", lean.name.as_bytes(), c.id.as_bytes()]);
            let offset =
                -2.0 * c.text.split_whitespace().count() as f64 + lean.mass_spread * rng::standard_normal(&mut r);
            for (i, p) in context_dist(aspect, &base, lean, seed, c) {
                let f = &aspect.fillers[i];
                rows.push(LogprobRow {
                    context: c.id.clone(),
                    filler: f.form(&c.form).to_string(),
                    logprob: libm::log(p) + offset,
                    model: lean.model(),
                });
            }
        }
    }
    Ok(rows)
}

/// Sampling mode: `samples` completion records per context.
pub fn records(probes: &ProbeSet, refs: &[Assigned], lean: &Lean, seed: u64) -> Result<Vec<Record>, DivergenceError> {
    let mut out = vec![];
    let no_answer = match probes.language.as_str() {
        "pl" => "nie wiem, trudno powiedzieć.",
        "de" => "weiß ich nicht.",
        "es" => "no lo sé.",
        _ => "I am not sure.",
    };
    for (aspect, base) in usable_aspects(probes, refs, lean)? {
        for c in &aspect.contexts {
            let dist = context_dist(aspect, &base, lean, seed, c);
            for i in 0..lean.samples {
                let mut r = rng::rng_for(
                    seed,
                    &[b"divergence-sim-sample", lean.name.as_bytes(), c.id.as_bytes(), &i.to_le_bytes()],
                );
                let response = if r.random::<f64>() < lean.unmatched_rate {
                    no_answer.to_string()
                } else {
                    let u: f64 = r.random();
                    let mut acc = 0.0;
                    let pick = dist.iter().find(|(_, p)| {
                        acc += p;
                        u < acc
                    });
                    let idx = pick.or(dist.last()).map(|x| x.0).unwrap_or(0);
                    format!("{}.", aspect.fillers[idx].form(&c.form))
                };
                let mut rec = Record {
                    format_version: crate::record::FORMAT_VERSION,
                    run_id: format!("divergence-sim-{seed}"),
                    method: "divergence".into(),
                    case_id: c.id.clone(),
                    template_id: aspect.id.clone(),
                    language: probes.language.clone(),
                    concern: "cultural divergence".into(),
                    prompt: c.prompt(&probes.slot).to_string(),
                    provider: crate::simulate::PROVIDER.into(),
                    model: lean.model(),
                    sample_index: i,
                    response,
                    ..Record::default()
                };
                rec.params.insert("temperature".into(), serde_json::json!(lean.temperature));
                rec.params.insert("seed".into(), serde_json::json!(seed));
                rec.record_id = rec.derived_id();
                out.push(rec);
            }
        }
    }
    Ok(out)
}
