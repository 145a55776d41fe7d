//! One open divergence analysis: a probe set, references, the model's data, the settings
//! and the last result. The page's worker holds one, and the CLI drives one, so both go
//! through the same steps and give the same numbers.

use super::analysis::{Assigned, Input, ModelData, Settings, analyze};
use super::chart::context_chart;
use super::logprobs;
use super::probes::ProbeSet;
use super::reference::{Columns, Reference, Shape};
use super::result::Analysis;
use super::runs::{self, Mode};
use super::simulate::{self, Lean};
use super::{DivergenceError, LOCAL, WESTERN, builtin};
use crate::formats::{self, FileFormat, Problem};
use serde::{Deserialize, Serialize};

#[derive(Debug, Default)]
pub struct Session {
    probes: Option<ProbeSet>,
    probe_warnings: Vec<Problem>,
    builtin_refs: Vec<Assigned>,
    user_refs: Vec<Assigned>,
    data: Option<ModelData>,
    data_name: String,
    last: Option<Analysis>,
}

/// What the page shows about the loaded inputs.
#[derive(Debug, Clone, Serialize)]
pub struct State {
    pub probe_set: Option<ProbeSummary>,
    pub references: Vec<RefSummary>,
    pub data: Option<DataSummary>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProbeSummary {
    pub id: String,
    pub language: String,
    pub cultures: std::collections::BTreeMap<String, String>,
    pub aspects: Vec<AspectSummary>,
    pub warnings: Vec<Problem>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AspectSummary {
    pub id: String,
    pub contexts: Vec<(String, String)>,
    pub fillers: usize,
    /// Per culture: where its reference comes from, or the note saying where to get it.
    pub reference_notes: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RefSummary {
    pub aspect: String,
    pub culture: String,
    pub file: String,
    pub shape: Shape,
    pub rows: usize,
    pub builtin: bool,
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DataSummary {
    pub file: String,
    pub mode: String,
    pub rows: usize,
    pub models: Vec<String>,
    /// Sampling: the temperatures the records state in their params (empty when none does).
    pub temperatures: Vec<f64>,
    pub problems: Vec<Problem>,
    /// For records: what became of the run's calls (failed, pending, incomplete contexts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<runs::RunCounts>,
}

/// A simulated run: scoring (log-probabilities) or sampling (completion records).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimRequest {
    pub mode: String,
    pub models: Vec<Lean>,
    #[serde(default)]
    pub seed: u64,
}

impl Session {
    fn probes(&self) -> Result<&ProbeSet, DivergenceError> {
        self.probes.as_ref().ok_or_else(|| DivergenceError::Setting("no probe set is loaded".into()))
    }

    /// A built-in probe set with its shipped references; model data is cleared.
    pub fn use_builtin(&mut self, id: &str) -> Result<State, DivergenceError> {
        let set = builtin::probe_set(id)?;
        self.builtin_refs = builtin::references_for(&set)?;
        self.set_probes(set, vec![]);
        Ok(self.state())
    }

    /// A probe set from a file. References it names that are shipped with Evenhand are used.
    pub fn load_probes(&mut self, name: &str, bytes: &[u8]) -> Result<State, DivergenceError> {
        let text = formats::decode(name, bytes).map_err(|e| DivergenceError::input(name, e.to_string()))?;
        let (set, warnings) = ProbeSet::parse(name, text)?;
        let mut refs = vec![];
        for a in &set.aspects {
            for (culture, src) in &a.references {
                if let Some(file) = &src.file
                    && builtin::REFERENCES.contains(&file.as_str())
                {
                    refs.push(Assigned {
                        aspect: a.id.clone(),
                        culture: culture.clone(),
                        reference: builtin::reference(file)?,
                    });
                }
            }
        }
        self.builtin_refs = refs;
        self.set_probes(set, warnings);
        Ok(self.state())
    }

    fn set_probes(&mut self, set: ProbeSet, warnings: Vec<Problem>) {
        self.probes = Some(set);
        self.probe_warnings = warnings;
        self.user_refs.clear();
        self.data = None;
        self.last = None;
    }

    /// Adds a reference for (aspect, culture). The first user file for a pair replaces the
    /// built-in one; more files for the same pair add up (men's and women's PESEL lists).
    pub fn add_reference(
        &mut self,
        culture: &str,
        aspect: &str,
        name: &str,
        bytes: &[u8],
        shape: Option<&str>,
        columns: Option<&Columns>,
    ) -> Result<RefSummary, DivergenceError> {
        let set = self.probes()?;
        if culture != LOCAL && culture != WESTERN {
            return Err(DivergenceError::Setting(format!("culture: expected local or western, found {culture:?}")));
        }
        if set.aspect(aspect).is_none() {
            let known: Vec<&str> = set.aspects.iter().map(|a| a.id.as_str()).collect();
            return Err(DivergenceError::Setting(format!(
                "aspect: expected one of {}, found {aspect:?}",
                known.join(", ")
            )));
        }
        let shape = match shape.filter(|s| !s.is_empty() && *s != "auto") {
            Some(s) => Some(Shape::parse(s).ok_or_else(|| {
                DivergenceError::Setting(format!(
                    "shape: expected auto, table, ssa, census, geonames or pesel, found {s:?}"
                ))
            })?),
            None => None,
        };
        let reference = Reference::load(name, bytes, shape, columns)?;
        let summary = ref_summary(aspect, culture, &reference, false);
        self.user_refs.push(Assigned { aspect: aspect.into(), culture: culture.into(), reference });
        self.last = None;
        Ok(summary)
    }

    pub fn clear_references(&mut self) {
        self.user_refs.clear();
        self.last = None;
    }

    /// The references in force: the user's for a pair they gave, else the built-in one.
    pub fn references(&self) -> Vec<Assigned> {
        let user = |a: &Assigned| self.user_refs.iter().any(|u| u.aspect == a.aspect && u.culture == a.culture);
        self.builtin_refs.iter().filter(|b| !user(b)).chain(&self.user_refs).cloned().collect()
    }

    pub fn load_logprobs(&mut self, name: &str, bytes: &[u8]) -> Result<DataSummary, DivergenceError> {
        self.probes()?;
        let model = std::path::Path::new(name).file_stem().and_then(|s| s.to_str()).unwrap_or(name);
        let (rows, problems) = logprobs::read(name, bytes, model)?;
        self.set_data(name, ModelData::Logprobs(rows), problems)
    }

    /// A record table: sampled completions, or a scoring run's records (see [`runs`]).
    pub fn load_records(&mut self, name: &str, bytes: &[u8]) -> Result<DataSummary, DivergenceError> {
        self.probes()?;
        let loaded = formats::load(name, bytes, None).map_err(|e| DivergenceError::input(name, e.to_string()))?;
        if loaded.records.is_empty() {
            let first = loaded.errors.first().map(|p| format!(" First problem: {p}")).unwrap_or_default();
            return Err(DivergenceError::input(name, format!("no record could be read.{first}")));
        }
        self.take_records(name, loaded.records, loaded.errors)
    }

    /// The cases of a live run over the loaded probe set (see [`runs::cases`]).
    pub fn run_cases(&self, mode: Mode) -> Result<Vec<crate::record::Record>, DivergenceError> {
        Ok(runs::cases(self.probes()?, mode))
    }

    /// Records a run produced (or any record table already read), as the model data.
    pub fn take_records(
        &mut self,
        name: &str,
        records: Vec<crate::record::Record>,
        mut problems: Vec<Problem>,
    ) -> Result<DataSummary, DivergenceError> {
        self.probes()?;
        if records.is_empty() {
            return Err(DivergenceError::input(name, "no records: expected the records of a run"));
        }
        let input = runs::inputs(name, records)?;
        problems.extend(input.problems);
        let mut s = self.set_data(name, input.data, problems)?;
        s.calls = Some(input.counts);
        Ok(s)
    }

    fn set_data(
        &mut self,
        name: &str,
        data: ModelData,
        problems: Vec<Problem>,
    ) -> Result<DataSummary, DivergenceError> {
        self.data = Some(data);
        self.data_name = name.to_string();
        self.last = None;
        let mut s = self.data_summary().ok_or_else(|| DivergenceError::Setting("no data".into()))?;
        s.problems = problems;
        Ok(s)
    }

    pub fn simulate(&mut self, req: &SimRequest) -> Result<DataSummary, DivergenceError> {
        let set = self.probes()?.clone();
        let refs = self.references();
        if req.models.is_empty() || req.models.len() > 10 {
            return Err(DivergenceError::Setting("models: expected 1 to 10 simulated models".into()));
        }
        let data = match req.mode.as_str() {
            "scoring" => {
                let mut rows = vec![];
                for lean in &req.models {
                    rows.extend(simulate::logprobs(&set, &refs, lean, req.seed)?);
                }
                ModelData::Logprobs(rows)
            }
            "sampling" => {
                let mut records = vec![];
                for lean in &req.models {
                    records.extend(simulate::records(&set, &refs, lean, req.seed)?);
                }
                ModelData::Records(records)
            }
            other => {
                return Err(DivergenceError::Setting(format!("mode: expected scoring or sampling, found {other:?}")));
            }
        };
        self.set_data(&format!("simulated {} (seed {})", req.mode, req.seed), data, vec![])
    }

    pub fn analyze(&mut self, settings: &Settings) -> Result<&Analysis, DivergenceError> {
        let set = self.probes()?;
        let data = self.data.as_ref().ok_or_else(|| {
            DivergenceError::Setting(
                "no model data: load log-probabilities or records, or run the simulated model".into(),
            )
        })?;
        let refs = self.references();
        let analysis = analyze(&Input { probes: set, references: &refs, data }, settings)?;
        Ok(self.last.insert(analysis))
    }

    pub fn last(&self) -> Option<&Analysis> {
        self.last.as_ref()
    }

    /// The chart of one context for one model of the last analysis.
    pub fn chart(&self, model: &str, context: &str) -> Result<String, DivergenceError> {
        let a = self.last.as_ref().ok_or_else(|| DivergenceError::Setting("nothing has been analyzed yet".into()))?;
        let m = a
            .models
            .iter()
            .find(|m| m.model == model)
            .ok_or_else(|| DivergenceError::Setting(format!("no model {model:?} in the results")))?;
        let c = m
            .aspects
            .iter()
            .flat_map(|x| &x.contexts)
            .find(|c| c.context == context)
            .ok_or_else(|| DivergenceError::Setting(format!("no context {context:?} in the results of {model}")))?;
        Ok(context_chart(c, model, &a.cultures[LOCAL], &a.cultures[WESTERN]))
    }

    /// The model data as a file: the log-probability table, or the records as CSV.
    pub fn data_csv(&self) -> Result<String, DivergenceError> {
        match &self.data {
            Some(ModelData::Logprobs(rows)) => Ok(logprobs::write(rows)),
            Some(ModelData::Records(rs)) => Ok(formats::write(rs, FileFormat::Csv)),
            None => Err(DivergenceError::Setting("no model data".into())),
        }
    }

    /// The last results as CSV or JSON.
    pub fn export(&self, format: &str) -> Result<String, DivergenceError> {
        let a = self.last.as_ref().ok_or_else(|| DivergenceError::Setting("nothing has been analyzed yet".into()))?;
        match format {
            "csv" => Ok(super::export::results_csv(a)),
            "json" => serde_json::to_string_pretty(a).map_err(|e| DivergenceError::Setting(e.to_string())),
            other => Err(DivergenceError::Setting(format!("format: expected csv or json, found {other:?}"))),
        }
    }

    pub fn state(&self) -> State {
        let refs = self.references();
        State {
            probe_set: self.probes.as_ref().map(|p| ProbeSummary {
                id: p.id.clone(),
                language: p.language.clone(),
                cultures: [LOCAL, WESTERN].iter().map(|c| (c.to_string(), p.culture_name(c))).collect(),
                aspects: p
                    .aspects
                    .iter()
                    .map(|a| AspectSummary {
                        id: a.id.clone(),
                        contexts: a.contexts.iter().map(|c| (c.id.clone(), c.text.clone())).collect(),
                        fillers: a.fillers.len(),
                        reference_notes: a.references.iter().map(|(k, v)| (k.clone(), v.note.clone())).collect(),
                    })
                    .collect(),
                warnings: self.probe_warnings.clone(),
            }),
            references: refs
                .iter()
                .map(|r| {
                    let shipped = !self.user_refs.iter().any(|u| u.aspect == r.aspect && u.culture == r.culture);
                    ref_summary(&r.aspect, &r.culture, &r.reference, shipped)
                })
                .collect(),
            data: self.data_summary(),
        }
    }

    fn data_summary(&self) -> Option<DataSummary> {
        let (mode, rows, mut models): (&str, usize, Vec<String>) = match self.data.as_ref()? {
            ModelData::Logprobs(r) => ("scoring", r.len(), r.iter().map(|x| x.model.clone()).collect()),
            ModelData::Records(r) => ("sampling", r.len(), r.iter().map(|x| x.model.clone()).collect()),
        };
        models.sort();
        models.dedup();
        let mut temperatures: Vec<f64> = match self.data.as_ref()? {
            ModelData::Records(r) => {
                r.iter().filter_map(|x| x.params.get("temperature").and_then(|t| t.as_f64())).collect()
            }
            ModelData::Logprobs(_) => vec![],
        };
        temperatures.sort_by(f64::total_cmp);
        temperatures.dedup();
        Some(DataSummary {
            file: self.data_name.clone(),
            mode: mode.into(),
            rows,
            models,
            temperatures,
            problems: vec![],
            calls: None,
        })
    }
}

fn ref_summary(aspect: &str, culture: &str, r: &Reference, builtin: bool) -> RefSummary {
    RefSummary {
        aspect: aspect.into(),
        culture: culture.into(),
        file: r.file.clone(),
        shape: r.shape,
        rows: r.entries.len(),
        builtin,
        problems: r.problems.iter().take(50).cloned().collect(),
    }
}
