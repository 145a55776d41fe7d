//! Puts the pieces together: references per aspect, the model's distributions per context
//! (from log-probabilities or samples), smoothing, the poster's CD and its pooled and KL
//! forms, bootstrap intervals. The formulas are in [`super::score`], the resampling scheme in
//! [`super::bootstrap`].

use super::bootstrap::{self, Bootstrap, Samples, Unit as BootUnit};
use super::logprobs::LogprobRow;
use super::normalise::{Index, Via, key};
use super::probes::{Aspect, Context, ProbeSet};
use super::reference::Reference;
use super::result::*;
use super::sample::{self, Extracted};
use super::score::{self, Terms};
use super::smoothing::{self, Smoothed, Smoothing};
use super::{DivergenceError, LOCAL, WESTERN};
use crate::formats::Problem;
use crate::record::Record;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub smoothing: Smoothing,
    pub unit: Unit,
    pub bootstrap: Bootstrap,
}

/// Settings as the page and the CLI write them: smoothing and unit as text.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsText {
    pub smoothing: String,
    pub unit: String,
    pub replicates: u32,
    pub confidence: f64,
    pub seed: u64,
}

impl SettingsText {
    pub fn parse(&self) -> Result<Settings, DivergenceError> {
        let unit = Unit::parse(&self.unit)
            .ok_or_else(|| DivergenceError::Setting(format!("unit: expected nats or bits, found {:?}", self.unit)))?;
        let s = Settings {
            smoothing: Smoothing::parse(&self.smoothing)?,
            unit,
            bootstrap: Bootstrap { replicates: self.replicates, confidence: self.confidence, seed: self.seed },
        };
        s.check()?;
        Ok(s)
    }
}

impl Settings {
    pub fn check(&self) -> Result<(), DivergenceError> {
        self.smoothing.check()?;
        let b = &self.bootstrap;
        if b.replicates > 100_000 {
            return Err(DivergenceError::Setting(format!(
                "replicates: expected at most 100000, found {}",
                b.replicates
            )));
        }
        if !(b.confidence > 0.0 && b.confidence < 1.0) {
            return Err(DivergenceError::Setting(format!(
                "confidence: expected a number between 0 and 1, found {}",
                b.confidence
            )));
        }
        Ok(())
    }
}

/// The model's side: scoring rows, or sampled completions as records.
#[derive(Debug, Clone)]
pub enum ModelData {
    Logprobs(Vec<LogprobRow>),
    Records(Vec<Record>),
}

/// A reference file assigned to an aspect and a culture; several for one pair add up.
#[derive(Debug, Clone)]
pub struct Assigned {
    pub aspect: String,
    pub culture: String,
    pub reference: Reference,
}

pub struct Input<'a> {
    pub probes: &'a ProbeSet,
    pub references: &'a [Assigned],
    pub data: &'a ModelData,
}

/// One context's model distribution for one model.
struct Dist<'a> {
    context: &'a Context,
    /// (canonical filler, m_c(g)), sorted by filler.
    probs: Vec<(String, f64)>,
    /// ln of the raw mass (log-sum-exp of log-probs, or ln of the number of matched samples).
    ln_mass: f64,
    /// Sampling: the canonical filler of every matched sample.
    draws: Option<Vec<String>>,
    unmatched: BTreeMap<String, usize>,
}

/// An aspect's result with its bootstrap replicates (None where undefined).
type Scored = (AspectResult, Vec<Option<f64>>);

/// Per aspect: model -> context id -> distribution.
type ByModel<'a> = BTreeMap<String, BTreeMap<String, Dist<'a>>>;

pub fn analyse(input: &Input, settings: &Settings) -> Result<Analysis, DivergenceError> {
    settings.check()?;
    let probes = input.probes;
    let mut problems = vec![];
    let mut skipped = vec![];
    let mut ref_summaries = vec![];
    let mut counts: BTreeMap<String, SampleCounts> = BTreeMap::new();
    let mut per_model: BTreeMap<String, Vec<Scored>> = BTreeMap::new();
    let sampling = matches!(input.data, ModelData::Records(_));

    check_context_ids(input, &mut problems, &mut counts);
    for aspect in &probes.aspects {
        let refs = |culture: &str| {
            input.references.iter().filter(|r| r.aspect == aspect.id && r.culture == culture).collect::<Vec<_>>()
        };
        let (local, western) = (refs(LOCAL), refs(WESTERN));
        if local.is_empty() || western.is_empty() {
            let lacking = if local.is_empty() { LOCAL } else { WESTERN };
            let note = aspect.references.get(lacking).map(|r| r.note.clone()).filter(|n| !n.is_empty());
            skipped.push(Skipped {
                aspect: aspect.id.clone(),
                reason: format!(
                    "no {lacking} reference was given{}",
                    note.map(|n| format!(": {n}")).unwrap_or_default()
                ),
            });
            continue;
        }
        let mut index = aspect.index();
        for r in local.iter().chain(&western) {
            for (name, _) in &r.reference.entries {
                index.add(name, name, Via::Reference);
            }
        }
        let weights = |rs: &[&Assigned]| {
            let mut w: BTreeMap<String, f64> = BTreeMap::new();
            for r in rs {
                for (name, x) in &r.reference.entries {
                    *w.entry(index.canonical_or_self(name)).or_default() += x;
                }
            }
            w
        };
        let (wl, ww) = (weights(&local), weights(&western));
        let dists = match input.data {
            ModelData::Logprobs(rows) => from_logprobs(aspect, rows, &mut index, &mut counts),
            ModelData::Records(records) => from_records(probes, aspect, records, &index, &mut counts),
        };
        if dists.is_empty() {
            skipped.push(Skipped {
                aspect: aspect.id.clone(),
                reason: "no model data names a context of this aspect".into(),
            });
            continue;
        }
        let mut vocab: BTreeSet<String> = wl.keys().chain(ww.keys()).cloned().collect();
        for d in dists.values().flat_map(|m| m.values()) {
            vocab.extend(d.probs.iter().map(|p| p.0.clone()));
        }
        let (sl, sw) =
            (smoothing::smooth(&wl, &vocab, settings.smoothing), smoothing::smooth(&ww, &vocab, settings.smoothing));
        if settings.smoothing == Smoothing::None {
            for (culture, s) in [(LOCAL, &sl), (WESTERN, &sw)] {
                let missing = dists
                    .values()
                    .flat_map(|m| m.values())
                    .flat_map(|d| &d.probs)
                    .find(|(g, p)| *p > 0.0 && !s.knows(g));
                if let Some((g, _)) = missing {
                    return Err(DivergenceError::Setting(format!(
                        "smoothing none: the model gives probability to {:?} ({}), which the {culture} reference lacks, so CD would be infinite; use add-alpha or floor",
                        index.display(g),
                        aspect.id
                    )));
                }
            }
        }
        for (culture, rs, w, s) in [(LOCAL, &local, &wl, &sl), (WESTERN, &western, &ww, &sw)] {
            ref_summaries.push(ReferenceSummary {
                aspect: aspect.id.clone(),
                culture: culture.into(),
                files: rs.iter().map(|r| r.reference.file.clone()).collect(),
                rows: rs.iter().map(|r| r.reference.entries.len()).sum(),
                fillers: w.len(),
                total_weight: w.values().sum(),
                vocabulary: s.vocabulary,
                smoothing_added_mass: s.added_mass,
            });
        }
        let candidates: Vec<String> =
            if sampling { aspect.fillers.iter().map(|f| key(&f.base)).collect() } else { vec![] };
        for (model, contexts) in &dists {
            let ctx = Scorer { aspect, index: &index, l: &sl, w: &sw, settings, model, candidates: &candidates };
            if let Some(r) = ctx.aspect(contexts) {
                per_model.entry(model.clone()).or_default().push(r);
            }
        }
    }
    if per_model.is_empty() {
        let why: Vec<String> = skipped.iter().map(|s| format!("{}: {}", s.aspect, s.reason)).collect();
        return Err(DivergenceError::Setting(format!("no aspect could be analysed ({})", why.join("; "))));
    }
    let f = settings.unit.factor();
    let models = per_model
        .into_iter()
        .map(|(model, aspects)| {
            let reps = settings.bootstrap.replicates as usize;
            let overall: Vec<f64> = (0..reps)
                .filter_map(|r| aspects.iter().map(|(_, v)| v.get(r).copied().flatten()).sum::<Option<f64>>())
                .collect();
            let ci = bootstrap::interval(&overall, settings.bootstrap.confidence);
            let sum = |g: fn(&AspectResult) -> f64| aspects.iter().map(|(a, _)| g(a)).sum::<f64>();
            let n = aspects.len() as f64;
            let cd = sum(|a| a.cd.value);
            ModelResult {
                cd: Estimate { value: cd, low: ci.map(|c| c.0 * f), high: ci.map(|c| c.1 * f) },
                h_local: sum(|a| a.h_local),
                h_western: sum(|a| a.h_western),
                kl_local: sum(|a| a.kl_local),
                kl_western: sum(|a| a.kl_western),
                entropy_term: sum(|a| a.entropy_term),
                pooled_cd: sum(|a| a.pooled_cd),
                model_mass_smoothed_local: sum(|a| a.model_mass_smoothed_local) / n,
                model_mass_smoothed_western: sum(|a| a.model_mass_smoothed_western) / n,
                replicates_used: overall.len() as u32,
                samples: counts.remove(&model).unwrap_or_default(),
                aspects: aspects.into_iter().map(|(a, _)| a).collect(),
                model,
            }
        })
        .collect();
    let simulated = match input.data {
        ModelData::Logprobs(rows) => rows.iter().all(|r| r.model.starts_with("sim:")),
        ModelData::Records(rs) => rs.iter().all(|r| r.provider == crate::simulate::PROVIDER),
    };
    Ok(Analysis {
        probe_set: probes.id.clone(),
        language: probes.language.clone(),
        cultures: [LOCAL, WESTERN].iter().map(|c| (c.to_string(), probes.culture_name(c))).collect(),
        mode: if sampling { "sampling" } else { "scoring" }.into(),
        unit: settings.unit,
        smoothing: settings.smoothing,
        smoothing_description: settings.smoothing.describe(),
        replicates: settings.bootstrap.replicates,
        confidence: settings.bootstrap.confidence,
        seed: settings.bootstrap.seed,
        sign: SIGN.into(),
        identity: IDENTITY.into(),
        references: ref_summaries,
        skipped_aspects: skipped,
        models,
        problems,
        simulated,
    })
}

/// Rows or records naming no context of the probe set are reported once, with their ids.
fn check_context_ids(input: &Input, problems: &mut Vec<Problem>, counts: &mut BTreeMap<String, SampleCounts>) {
    let mut unknown: BTreeMap<String, usize> = BTreeMap::new();
    let ids: Vec<(&str, &str)> = match input.data {
        ModelData::Logprobs(rows) => rows.iter().map(|r| (r.context.as_str(), r.model.as_str())).collect(),
        ModelData::Records(rs) => rs.iter().map(|r| (r.case_id.as_str(), r.model.as_str())).collect(),
    };
    for (id, model) in ids {
        counts.entry(model.to_string()).or_default().total += 1;
        if input.probes.context(id).is_none() {
            *unknown.entry(id.to_string()).or_default() += 1;
        }
    }
    if !unknown.is_empty() {
        let list: Vec<String> = unknown.iter().take(10).map(|(k, n)| format!("{k:?} ({n})")).collect();
        problems.push(
            Problem::new(
                "model data",
                format!(
                    "{} row(s) name a context that is not in the probe set {:?} and were not used: {}{}",
                    unknown.values().sum::<usize>(),
                    input.probes.id,
                    list.join(", "),
                    if unknown.len() > 10 { ", …" } else { "" }
                ),
            )
            .in_field("context_id"),
        );
    }
}

fn from_logprobs<'a>(
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
        let per: Vec<(String, f64)> = lps.into_iter().map(|(k, v)| (k, score::log_sum_exp(&v))).collect();
        let all: Vec<f64> = per.iter().map(|p| p.1).collect();
        let lse = score::log_sum_exp(&all);
        let probs = per.into_iter().map(|(k, lp)| (k, libm::exp(lp - lse))).collect();
        let c = counts.entry(model.to_string()).or_default();
        c.matched += rows.len();
        out.entry(model.to_string())
            .or_default()
            .insert(cid.to_string(), Dist { context, probs, ln_mass: lse, draws: None, unmatched });
    }
    out
}

fn from_records<'a>(
    probes: &ProbeSet,
    aspect: &'a Aspect,
    records: &[Record],
    index: &Index,
    counts: &mut BTreeMap<String, SampleCounts>,
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
                d.draws.get_or_insert_with(Vec::new).push(filler);
            }
            Extracted::Unmatched { text } => {
                c.unmatched += 1;
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

struct Scorer<'a> {
    aspect: &'a Aspect,
    index: &'a Index,
    l: &'a Smoothed,
    w: &'a Smoothed,
    settings: &'a Settings,
    model: &'a str,
    candidates: &'a [String],
}

impl Scorer<'_> {
    fn missing_mass(&self, probs: &[(String, f64)], s: &Smoothed) -> f64 {
        // + 0.0: an empty f64 sum is -0.0, which would print as "-0".
        probs.iter().filter(|(g, _)| !s.knows(g)).map(|p| p.1).sum::<f64>() + 0.0
    }

    fn aspect(&self, dists: &BTreeMap<String, Dist>) -> Option<Scored> {
        let f = self.settings.unit.factor();
        let b = &self.settings.bootstrap;
        // Contexts in the probe set's order; those with no usable data are left out.
        let used: Vec<&Dist> =
            self.aspect.contexts.iter().filter_map(|c| dists.get(&c.id)).filter(|d| !d.probs.is_empty()).collect();
        let terms: Vec<Terms> = used.iter().map(|d| score::context_terms(&d.probs, self.l, self.w)).collect();
        let s = score::aspect_score(used.iter().zip(&terms).map(|(d, t)| (d.context.culture.as_deref(), *t)))?;
        let pooled_in: Vec<(&[(String, f64)], f64)> = used.iter().map(|d| (d.probs.as_slice(), d.ln_mass)).collect();
        let (phl, phw) = score::pooled(&pooled_in, self.l, self.w)?;
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
        let ci = bootstrap::interval(&finite, b.confidence);
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
            bootstrap::interval(&reps, b.confidence)
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
