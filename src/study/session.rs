//! One open study: the document, the files it names, and the answered records of every method
//! and target (simulated, uploaded, or brought back from a run). The page's facade and the CLI
//! both drive this; neither holds study logic of its own.

use super::format::{self, Study};
use super::inputs::{self, Inputs, Uploads};
use super::{StudyError, cases, plan};
use crate::formats::Problem;
use crate::record::Record;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Where a study's records came from: the report's methods and limitations say different
/// things of answers this study collected itself and of answers it was handed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Sent by this study's own run through Evenhand's engine (page or CLI): the cases,
    /// parameters and timing are the study's.
    Run,
    /// A record file the user gave: produced elsewhere, taken as given.
    Uploaded,
    /// Answered by the simulated model.
    Simulated,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Run => "run",
            Origin::Uploaded => "uploaded",
            Origin::Simulated => "simulated",
        }
    }

    /// `run` or `uploaded` (the origins a record file can have; simulated records are made here).
    pub fn of_file(text: &str) -> Result<Origin, String> {
        match text {
            "run" => Ok(Origin::Run),
            "uploaded" => Ok(Origin::Uploaded),
            other => Err(format!("origin: expected \"run\" or \"uploaded\", found {other:?}")),
        }
    }
}

/// Where a batch of records came from, for the methods section.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordSource {
    pub name: String,
    pub origin: Origin,
    pub records: usize,
    pub sha256: String,
    /// Records of the file left out at load because their record id was already loaded.
    #[serde(skip_serializing_if = "is_zero")]
    pub repeated: usize,
    /// The records still held per (method, provider, model): a later file that replaces a
    /// target's records takes them off this count, so the counts add up to what is analysed.
    #[serde(skip)]
    pub held: BTreeMap<(String, String, String), usize>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What adding records did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AddSummary {
    pub file: String,
    pub records: usize,
    /// Records taken per method.
    pub by_method: BTreeMap<String, usize>,
    pub models: Vec<String>,
    /// Rows not loaded, and records of methods the study does not use.
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone)]
pub struct Session {
    pub file: String,
    pub study: Study,
    pub uploads: Uploads,
    inputs: Option<Inputs>,
    pub records: Vec<Record>,
    pub sources: Vec<RecordSource>,
    /// Refusal labels given by hand, by record id; the bundle carries them.
    pub labels: crate::trust::labels::Labels,
}

impl Session {
    /// Opens a study; its uploaded inputs may follow through [`Session::add_file`].
    pub fn open(file: &str, text: &str) -> Result<Session, StudyError> {
        let study = format::parse(file, text).map_err(|problem| StudyError::Invalid { problem })?;
        let mut s = Session {
            file: file.into(),
            study,
            uploads: Uploads::new(),
            inputs: None,
            records: vec![],
            sources: vec![],
            labels: Default::default(),
        };
        if s.missing().is_empty() {
            let i = inputs::resolve(&s.study, &s.uploads)?;
            super::budget::check(&s.study, &cases::base_cases(&s.study, &i)?)?;
            s.inputs = Some(i);
        }
        Ok(s)
    }

    /// The uploaded files the study names and that are not here yet: (field, file name).
    pub fn missing(&self) -> Vec<(String, String)> {
        let m = &self.study.methods;
        let mut named: Vec<(String, String)> = vec![];
        let mut push = |field: &str, src: &format::Source| {
            if let Some(f) = &src.file {
                named.push((field.into(), f.clone()));
            }
        };
        if let Some(r) = &m.requirements {
            push("methods.requirements.scenario", &r.scenario);
        }
        if let Some(b) = &m.bbq {
            push("methods.bbq.dataset", &b.dataset);
        }
        if let Some(x) = &m.crosslingual {
            for (field, src) in x.question_fields() {
                push(&field, src);
            }
        }
        if let Some(d) = &m.divergence {
            push("methods.divergence.probes", &d.probes);
            for (i, r) in d.references.iter().enumerate() {
                named.push((format!("methods.divergence.references[{i}]"), r.file.clone()));
            }
        }
        named.retain(|(_, f)| !self.uploads.contains_key(f));
        named
    }

    /// An input file the study names; once all are here the inputs are read (and checked).
    pub fn add_file(&mut self, name: &str, bytes: &[u8]) -> Result<Vec<(String, String)>, StudyError> {
        self.uploads.insert(name.into(), bytes.to_vec());
        let missing = self.missing();
        if missing.is_empty() {
            let checked = inputs::resolve(&self.study, &self.uploads).and_then(|i| {
                super::budget::check(&self.study, &cases::base_cases(&self.study, &i)?)?;
                Ok(i)
            });
            match checked {
                Ok(i) => self.inputs = Some(i),
                Err(e) => {
                    self.uploads.remove(name);
                    return Err(e);
                }
            }
        }
        Ok(missing)
    }

    pub fn inputs(&self) -> Result<&Inputs, StudyError> {
        match (&self.inputs, self.missing().first()) {
            (Some(i), _) => Ok(i),
            (None, Some((field, file))) => Err(StudyError::MissingFile { field: field.clone(), file: file.clone() }),
            (None, None) => Err(StudyError::Input { field: "methods".into(), message: "inputs not read".into() }),
        }
    }

    pub fn plan(&self) -> Result<plan::Plan, StudyError> {
        Ok(plan::plan(&self.study, &cases::base_cases(&self.study, self.inputs()?)?))
    }

    /// The cases of a provider run over every method (see [`cases::run_cases`]).
    pub fn run_cases(&self) -> Result<Vec<Record>, StudyError> {
        cases::run_cases(&self.study, self.inputs()?)
    }

    /// The run spec's skeleton for the provider targets: run id, one sample (the cases carry
    /// theirs), the study's parameters. The page and the CLI add base URLs and limits.
    pub fn run_spec(&self) -> serde_json::Value {
        let mut targets: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for t in self.study.targets.iter().filter(|t| !t.is_simulated()) {
            targets.entry(t.provider.clone()).or_default().push(t.model.clone());
        }
        let mut params = serde_json::Map::new();
        if let Some(t) = self.study.params.temperature {
            params.insert("temperature".into(), t.into());
        }
        if let Some(m) = self.study.params.max_tokens {
            params.insert("max_tokens".into(), m.into());
        }
        serde_json::json!({
            "run_id": cases::run_id(&self.study),
            "targets": targets.into_iter().map(|(p, m)| serde_json::json!({"provider": p, "models": m})).collect::<Vec<_>>(),
            "samples": 1,
            "params": params,
            "seed": self.study.seeds.simulation,
        })
    }

    /// Fills every simulated target: its earlier records are replaced. Returns the records added.
    pub fn simulate(&mut self) -> Result<usize, StudyError> {
        let inputs = self.inputs()?.clone();
        let mut added = vec![];
        for t in self.study.targets.iter().filter(|t| t.is_simulated()) {
            let profile = super::profiles::profile(&t.model)
                .map_err(|message| StudyError::Input { field: "targets".into(), message })?;
            added.extend(cases::simulate(&self.study, &inputs, &profile)?);
        }
        // Only the simulated records go: a provider model named like a profile is another target.
        let models: BTreeSet<(String, String)> = added.iter().map(|r| (r.provider.clone(), r.model.clone())).collect();
        self.records.retain(|r| !models.contains(&(r.provider.clone(), r.model.clone())));
        self.sources.retain(|s| s.origin != Origin::Simulated);
        let n = added.len();
        self.sources.push(RecordSource {
            name: format!("simulated targets (seed {})", self.study.seeds.simulation),
            origin: Origin::Simulated,
            records: n,
            sha256: String::new(),
            repeated: 0,
            held: BTreeMap::new(),
        });
        self.records.extend(added);
        Ok(n)
    }

    /// A record file: one method's (`method` given), or a table whose `method` column says;
    /// `origin` says whether this study's own run produced it or it was uploaded.
    /// Records replace earlier ones of the same method and model.
    pub fn add_records(
        &mut self,
        name: &str,
        bytes: &[u8],
        method: Option<&str>,
        origin: Origin,
    ) -> Result<AddSummary, StudyError> {
        self.add_records_mapped(name, bytes, method, origin, None)
    }

    /// [`Session::add_records`] with the column mapping the user chose for a table whose
    /// columns were not recognised ([`StudyError::NeedsMapping`] asks for it). A file the
    /// method's own tool reads ([`super::tool_files`]) is taken as that tool reads it.
    pub fn add_records_mapped(
        &mut self,
        name: &str,
        bytes: &[u8],
        method: Option<&str>,
        origin: Origin,
        mapping: Option<&crate::formats::mapping::ColumnMapping>,
    ) -> Result<AddSummary, StudyError> {
        if crate::logs::detect(bytes).is_some() {
            return self.add_log(name, bytes, method, origin);
        }
        let used = self.study.methods.used();
        if let Some(m) = method
            && !used.contains(&m)
        {
            return Err(StudyError::Records {
                file: name.into(),
                message: format!("method: expected one of the study's ({}), found {m:?}", used.join(", ")),
            });
        }
        let (loaded, mut problems) = match super::tool_files::records(name, bytes, method, &used, self.inputs.as_ref())?
        {
            Some(got) => got,
            None => {
                let loaded = crate::formats::load(name, bytes, mapping).map_err(|e| match e {
                    crate::formats::LoadError::NeedsMapping(request) => StudyError::NeedsMapping { request },
                    e => StudyError::Records { file: name.into(), message: e.to_string() },
                })?;
                (loaded.records, loaded.errors)
            }
        };
        let read = loaded.len();
        let mut taken: Vec<Record> = vec![];
        let mut other: BTreeMap<String, usize> = BTreeMap::new();
        for r in loaded {
            let mut r = cases::normalise(r);
            if let Some(m) = method {
                r.method = m.to_string();
            }
            if used.contains(&r.method.as_str()) {
                taken.push(r);
            } else {
                *other.entry(r.method.clone()).or_default() += 1;
            }
        }
        for (m, n) in other {
            problems.push(
                Problem::new(
                    name,
                    format!("{n} record(s) of method {m:?} left out: the study uses {}", used.join(", ")),
                )
                .in_field("method"),
            );
        }
        if taken.is_empty() {
            // With the method given (a slot names it), nothing was read: say why, not "give the method".
            let message = match (method, problems.first()) {
                (Some(m), Some(p)) if read == 0 => format!("no {m} record could be read; first problem: {p}"),
                (Some(m), None) if read == 0 => format!("no {m} record could be read from the file"),
                _ => format!(
                    "no record of the study's methods ({}): give the method, or a method column",
                    used.join(", ")
                ),
            };
            return Err(StudyError::Records { file: name.into(), message });
        }
        // Replaced per method and target (provider and model), never per model name alone.
        let key = |r: &Record| (r.method.clone(), r.provider.clone(), r.model.clone());
        let pairs: BTreeSet<(String, String, String)> = taken.iter().map(key).collect();
        self.records.retain(|r| !pairs.contains(&key(r)));
        // What the earlier files gave for these targets is replaced: off their counts too.
        for src in &mut self.sources {
            for p in &pairs {
                if let Some(k) = src.held.remove(p) {
                    src.records = src.records.saturating_sub(k);
                }
            }
        }
        self.sources.retain(|src| src.records > 0 || src.origin == Origin::Simulated);
        // A record id already loaded for the same target (in this file or one held) is the same
        // answer again: left out here and said, or a model's record count would not be what its
        // figures used. Per target, since a derived id does not name the provider.
        let id_key = |r: &Record| (r.provider.clone(), r.model.clone(), r.record_id.clone());
        let mut ids: std::collections::HashSet<(String, String, String)> = self.records.iter().map(id_key).collect();
        let mut repeated: Vec<String> = vec![];
        taken.retain(|r| {
            let fresh = r.record_id.is_empty() || ids.insert(id_key(r));
            if !fresh {
                repeated.push(r.record_id.clone());
            }
            fresh
        });
        if !repeated.is_empty() {
            let first: Vec<&str> = repeated.iter().take(3).map(String::as_str).collect();
            problems.push(
                Problem::new(
                    name,
                    format!(
                        "{} record(s) repeat a record id already loaded and were left out (first: {}{})",
                        repeated.len(),
                        first.join(", "),
                        if repeated.len() > first.len() { ", ..." } else { "" }
                    ),
                )
                .in_field("record_id"),
            );
        }
        let mut by_method: BTreeMap<String, usize> = BTreeMap::new();
        let mut held: BTreeMap<(String, String, String), usize> = BTreeMap::new();
        for r in &taken {
            *by_method.entry(r.method.clone()).or_default() += 1;
            *held.entry(key(r)).or_default() += 1;
        }
        let models: Vec<String> =
            pairs.iter().map(|(_, _, m)| m.clone()).collect::<BTreeSet<_>>().into_iter().collect();
        let n = taken.len();
        // One entry per file (name and SHA-256): two files of one name are two sources.
        let sha256 = format::sha256(bytes);
        self.sources.retain(|s| !(s.name == name && s.sha256 == sha256));
        self.sources.push(RecordSource {
            name: name.into(),
            origin,
            records: n,
            sha256,
            repeated: repeated.len(),
            held,
        });
        self.records.extend(taken);
        Ok(AddSummary { file: name.into(), records: n, by_method, models, problems })
    }

    /// Several question files in the cross-lingual slot at once (MSQAD's one file per topic):
    /// merged first, as the Cross-lingual tool merges them, so that their reference responses
    /// (one model) are one source rather than each file replacing the last. `None` when the
    /// study has no cross-lingual method or a file is not a question set (the caller then adds
    /// the files one by one).
    pub fn add_question_sets(
        &mut self,
        files: &[(String, Vec<u8>)],
        origin: Origin,
    ) -> Result<Option<AddSummary>, StudyError> {
        if !self.study.methods.used().contains(&"crosslingual") {
            return Ok(None);
        }
        let Some((records, problems)) = super::tool_files::question_sets(files, self.inputs.as_ref())? else {
            return Ok(None);
        };
        let name = files.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(" + ");
        let jsonl = crate::formats::write(&records, crate::formats::FileFormat::Jsonl);
        let mut summary = self.add_records(&name, jsonl.as_bytes(), Some("crosslingual"), origin)?;
        summary.problems.splice(0..0, problems);
        Ok(Some(summary))
    }

    /// The records of one method, each `model` set to its target's report name
    /// ([`super::targets`]), so that the sections group by target and never by model name alone.
    pub fn records_of(&self, method: &str) -> Vec<Record> {
        let names = super::targets::names(&self.study);
        self.records
            .iter()
            .filter(|r| r.method == method)
            .map(|r| Record { model: super::targets::name_of(&names, &r.provider, &r.model), ..r.clone() })
            .collect()
    }

    /// The report name of a record's target (see [`super::targets::name_of`]).
    pub fn name_of(&self, r: &Record) -> String {
        super::targets::name_of(&super::targets::names(&self.study), &r.provider, &r.model)
    }
}

impl Session {
    /// The report of everything held now; `generated_at` is written into it as given.
    pub fn report(&self, generated_at: &str) -> Result<super::report::Report, StudyError> {
        super::report::build(self, generated_at)
    }
}

impl Session {
    /// A study whose inputs arrive already read, with its records: how a study is built from
    /// harness logs (`study::logs`), whose BBQ examples come from the logs themselves rather
    /// than from a file the study names.
    pub fn from_parts(
        file: &str,
        study: Study,
        inputs: Inputs,
        records: Vec<Record>,
        sources: Vec<RecordSource>,
    ) -> Session {
        Session {
            file: file.into(),
            study,
            uploads: Uploads::new(),
            inputs: Some(inputs),
            records,
            sources,
            labels: Default::default(),
        }
    }

    /// A harness log given as a record file: its samples become records (`study::logs`), BBQ's
    /// matched to the study's examples by the dataset's own example id, and are added as any
    /// record file is; the source keeps the log's own SHA-256.
    fn add_log(
        &mut self,
        name: &str,
        bytes: &[u8],
        method: Option<&str>,
        origin: Origin,
    ) -> Result<AddSummary, StudyError> {
        let log = crate::logs::read(name, bytes, None)
            .map_err(|e| StudyError::Records { file: name.into(), message: e.to_string() })?;
        let (records, rebuilt) = super::logs::records(std::slice::from_ref(&log));
        let jsonl = crate::formats::write(&records, crate::formats::FileFormat::Jsonl);
        let mut summary = self.add_records(name, jsonl.as_bytes(), method, origin)?;
        summary.problems.extend(rebuilt.problems);
        let converted = format::sha256(jsonl.as_bytes());
        if let Some(s) = self.sources.iter_mut().find(|s| s.name == name && s.sha256 == converted) {
            s.sha256 = format::sha256(bytes);
        }
        Ok(summary)
    }
}
