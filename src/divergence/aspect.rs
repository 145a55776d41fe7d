//! The numbers of one aspect for one model: per-context terms, the poster's CD with its KL
//! and pooled forms, bootstrap intervals and the chart's filler shares.

use super::analysis::{Scored, Settings};
use super::bootstrap::{self, Samples, Unit as BootUnit};
use super::distribution::Dist;
use super::formulas::{self, Terms};
use super::normalise::Index;
use super::probes::Aspect;
use super::result::*;
use super::smoothing::Smoothed;
use super::{LOCAL, WESTERN};
use std::collections::{BTreeMap, BTreeSet};

pub struct Scorer<'a> {
    pub aspect: &'a Aspect,
    pub index: &'a Index,
    pub l: &'a Smoothed,
    pub w: &'a Smoothed,
    pub settings: &'a Settings,
    pub model: &'a str,
    pub candidates: &'a [String],
}

impl Scorer<'_> {
    fn missing_mass(&self, probs: &[(String, f64)], s: &Smoothed) -> f64 {
        // + 0.0: an empty f64 sum is -0.0, which would print as "-0".
        probs.iter().filter(|(g, _)| !s.knows(g)).map(|p| p.1).sum::<f64>() + 0.0
    }

    pub fn aspect(&self, dists: &BTreeMap<String, Dist>) -> Option<Scored> {
        let f = self.settings.unit.factor();
        let b = &self.settings.bootstrap;
        // Contexts in the probe set's order; those with no usable data are left out.
        let used: Vec<&Dist> =
            self.aspect.contexts.iter().filter_map(|c| dists.get(&c.id)).filter(|d| !d.probs.is_empty()).collect();
        let terms: Vec<Terms> = used.iter().map(|d| formulas::context_terms(&d.probs, self.l, self.w)).collect();
        let s = formulas::aspect_score(used.iter().zip(&terms).map(|(d, t)| (d.context.culture.as_deref(), *t)))?;
        let pooled_in: Vec<(&[(String, f64)], f64)> = used.iter().map(|d| (d.probs.as_slice(), d.ln_mass)).collect();
        let (phl, phw) = formulas::pooled(&pooled_in, self.l, self.w)?;
        let units: Vec<BootUnit> = used
            .iter()
            .zip(&terms)
            .map(|(d, t)| BootUnit {
                culture: d.context.culture.as_deref(),
                terms: *t,
                samples: d.draws.as_ref().map(|dr| self.samples(dr, &d.probs)),
            })
            .collect();
        let reps =
            bootstrap::aspect_replicates(&units, b, &[b"divergence", self.model.as_bytes(), self.aspect.id.as_bytes()]);
        let finite: Vec<f64> = reps.iter().flatten().copied().collect();
        let ci = bootstrap::interval(&finite, b.confidence.get());
        let contexts: Vec<ContextResult> =
            used.iter().zip(&terms).zip(&units).map(|((d, t), u)| self.context(d, t, u)).collect();
        let mean = |g: fn(&ContextResult) -> f64| contexts.iter().map(g).sum::<f64>() / contexts.len() as f64;
        let result = AspectResult {
            aspect: self.aspect.id.clone(),
            cd: Estimate { value: s.cd * f, low: ci.map(|c| c.0 * f), high: ci.map(|c| c.1 * f) },
            h_local: s.h_local * f,
            h_western: s.h_western * f,
            kl_local: s.kl_local * f,
            kl_western: s.kl_western * f,
            entropy_term: s.entropy_term * f,
            pooled_cd: (phl - phw) * f,
            pooled_h_local: phl * f,
            pooled_h_western: phw * f,
            contexts_local: used.iter().filter(|d| d.context.counts_for(LOCAL)).count(),
            contexts_western: used.iter().filter(|d| d.context.counts_for(WESTERN)).count(),
            model_mass_smoothed_local: mean(|c| c.model_mass_smoothed_local),
            model_mass_smoothed_western: mean(|c| c.model_mass_smoothed_western),
            replicates_used: finite.len() as u32,
            contexts,
        };
        Some((result, reps))
    }

    fn samples(&self, draws: &[String], probs: &[(String, f64)]) -> Samples {
        let pos = |g: &str| probs.binary_search_by(|p| p.0.as_str().cmp(g)).unwrap_or(0);
        Samples {
            draws: draws.iter().map(|g| pos(g)).collect(),
            nll_local: probs.iter().map(|(g, _)| -self.l.ln(g)).collect(),
            nll_western: probs.iter().map(|(g, _)| -self.w.ln(g)).collect(),
        }
    }

    fn context(&self, d: &Dist, t: &Terms, u: &BootUnit) -> ContextResult {
        let f = self.settings.unit.factor();
        let b = &self.settings.bootstrap;
        let ci = u.samples.as_ref().and_then(|s| {
            let reps =
                bootstrap::context_replicates(s, b, &[b"divergence", self.model.as_bytes(), d.context.id.as_bytes()]);
            bootstrap::interval(&reps, b.confidence.get())
        });
        // The context's fillers: those scored or sampled, plus (sampling) the filler table.
        let mut support: BTreeSet<&str> = d.probs.iter().map(|p| p.0.as_str()).collect();
        support.extend(self.candidates.iter().map(String::as_str).filter(|g| self.l.prob.contains_key(*g)));
        let zl: f64 = support.iter().map(|g| self.l.prob.get(*g).copied().unwrap_or(0.0)).sum();
        let zw: f64 = support.iter().map(|g| self.w.prob.get(*g).copied().unwrap_or(0.0)).sum();
        let model_p = |g: &str| d.probs.iter().find(|p| p.0 == g).map(|p| p.1).unwrap_or(0.0);
        let mut fillers: Vec<FillerShare> = support
            .iter()
            .map(|g| FillerShare {
                filler: self.index.display(g),
                model: model_p(g),
                local: self.l.prob.get(*g).copied().unwrap_or(0.0) / zl,
                western: self.w.prob.get(*g).copied().unwrap_or(0.0) / zw,
            })
            .collect();
        fillers.sort_by(|a, b| {
            b.model.total_cmp(&a.model).then(b.local.max(b.western).total_cmp(&a.local.max(a.western)))
        });
        fillers.truncate(12);
        ContextResult {
            context: d.context.id.clone(),
            text: d.context.text.clone(),
            form: d.context.form.clone(),
            culture: d.context.culture.clone(),
            cd: Estimate { value: t.cd() * f, low: ci.map(|c| c.0 * f), high: ci.map(|c| c.1 * f) },
            h_local: t.h_local * f,
            h_western: t.h_western * f,
            entropy: t.entropy * f,
            n: d.draws.as_ref().map(Vec::len).unwrap_or(d.probs.len()),
            unmatched: d.unmatched.values().sum(),
            unmatched_texts: d.unmatched.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            model_mass_smoothed_local: self.missing_mass(&d.probs, self.l),
            model_mass_smoothed_western: self.missing_mass(&d.probs, self.w),
            fillers,
        }
    }
}
