//! Puts the pieces together: references per aspect, the model's distributions per context
//! (from log-probabilities or samples), smoothing, the poster's CD and its pooled and KL
//! forms, bootstrap intervals. The formulas are in [`super::formulas`], the resampling scheme in
//! [`super::bootstrap`].

use super::aspect::Scorer;
use super::bootstrap::{self, Bootstrap};
use super::distribution::{from_logprobs, from_records};
use super::logprobs::LogprobRow;
use super::normalise::{Via, key};
use super::probes::ProbeSet;
use super::reference::Reference;
use super::result::*;
use super::smoothing::{self, Smoothing};
use super::{DivergenceError, LOCAL, WESTERN};
use crate::formats::Problem;
use crate::record::Record;
use crate::stats::confidence::Confidence;
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
            bootstrap: Bootstrap {
                replicates: self.replicates,
                confidence: Confidence::new(self.confidence).map_err(|e| DivergenceError::Setting(e.to_string()))?,
                seed: self.seed,
            },
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

/// An aspect's result with its bootstrap replicates (None where undefined).
pub type Scored = (AspectResult, Vec<Option<f64>>);

pub fn analyze(input: &Input, settings: &Settings) -> Result<Analysis, DivergenceError> {
    settings.check()?;
    let probes = input.probes;
    let mut problems = vec![];
    let mut skipped = vec![];
    let mut ref_summaries = vec![];
    let mut counts: BTreeMap<String, SampleCounts> = BTreeMap::new();
    let mut per_model: BTreeMap<String, Vec<Scored>> = BTreeMap::new();
    let mut reads = BTreeMap::new();
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
        for r in local.iter().chain(&western) {
            for (alias, name) in &r.reference.aliases {
                let base = index.display(&index.canonical_or_self(name));
                index.add(alias, &base, Via::Alias);
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
            ModelData::Records(records) => from_records(probes, aspect, records, &index, &mut counts, &mut reads),
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
        return Err(DivergenceError::Setting(format!("no aspect could be analyzed ({})", why.join("; "))));
    }
    let f = settings.unit.factor();
    let models = per_model
        .into_iter()
        .map(|(model, aspects)| {
            let reps = settings.bootstrap.replicates as usize;
            let overall: Vec<f64> = (0..reps)
                .filter_map(|r| aspects.iter().map(|(_, v)| v.get(r).copied().flatten()).sum::<Option<f64>>())
                .collect();
            let ci = bootstrap::interval(&overall, settings.bootstrap.confidence.get());
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
        confidence: settings.bootstrap.confidence.get(),
        seed: settings.bootstrap.seed,
        sign: SIGN.into(),
        identity: IDENTITY.into(),
        references: ref_summaries,
        skipped_aspects: skipped,
        models,
        problems,
        simulated,
        reads,
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
