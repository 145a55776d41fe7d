//! One open cross-lingual analysis, for the page: a question set, a planned run on the
//! simulated model (done in chunks so the worker can report progress and stop), or an
//! uploaded record table; optional embeddings; the analysis settings. A failed load never
//! replaces what is already here.

use super::analysis::{self, Dataset, Report, Settings};
use super::embeddings;
use super::permanova::{self as perm, Row, Section, Test};
use super::plan::{self, Case};
use super::questions::{self, QuestionError, QuestionSet};
use super::runs;
use crate::text::refusal::Lexicon;

mod labels;
mod matrix;
mod nli;
pub use labels::LabelsSummary;
mod permanova;
pub use permanova::{DispersionOutcome, Handout, Outcome};
mod provider;
use super::simulate::{self, Behaviour};
use crate::formats::{self, FileFormat, Problem};
use crate::record::Record;
use serde::{Deserialize, Serialize};

/// The built-in question set: our own 170 questions in six languages (datasets/crosslingual).
pub const BUILTIN_NAME: &str = "datasets/crosslingual/questions.json";
/// Its text (through [`crate::builtin`]).
pub fn builtin_questions() -> Result<&'static str, crate::builtin::NotLoaded> {
    crate::builtin::text("crosslingual/questions.json")
}

/// Upper bound on simulated calls per run, so a typo cannot hang the page.
pub const MAX_CALLS: usize = 500_000;

#[derive(Debug, Clone, Serialize)]
pub struct SetSummary {
    pub file: String,
    pub name: String,
    pub source_format: String,
    pub languages: Vec<String>,
    pub topics: Vec<String>,
    pub modes: Vec<String>,
    pub questions: usize,
    /// Bare `NaN`/`Infinity` tokens read as missing values; the page shows a warning.
    #[serde(skip_serializing_if = "is_zero")]
    pub nonfinite_values: usize,
    /// Questions of several files merged whose id an earlier file already gave: left out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub duplicates: Vec<questions::Duplicate>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    #[serde(default)]
    pub languages: Vec<String>,
    #[serde(default)]
    pub modes: Vec<String>,
    pub samples: u32,
    #[serde(default)]
    pub seed: u64,
    #[serde(default)]
    pub behaviour: Option<Behaviour>,
}

/// Which cases a provider run asks (empty lists mean all).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CasesRequest {
    #[serde(default)]
    pub languages: Vec<String>,
    #[serde(default)]
    pub modes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct LoadSummary {
    pub file: String,
    pub records: usize,
    pub used: usize,
    pub problems: Vec<Problem>,
    pub warnings: Vec<Problem>,
}

#[derive(Debug, Clone, Serialize)]
pub struct View {
    pub report: Report,
    pub rates_svg: String,
    /// The PCA scatter of the embeddings coloured by language, when there are embeddings.
    pub projection_svg: Option<String>,
}

#[derive(Debug, thiserror::Error, Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum SessionError {
    #[error("{0}")]
    Questions(#[from] questions::QuestionError),
    #[error("{0}")]
    Plan(#[from] plan::PlanError),
    #[error("{0}")]
    File(String),
    #[error("{0}")]
    Embeddings(Problem),
    #[error("{0}")]
    Distances(Problem),
    #[error("{0}")]
    Builtin(#[from] crate::builtin::NotLoaded),
    #[error("load or choose a question set first")]
    NoQuestions,
    #[error("plan a run first")]
    NoRun,
    #[error("{0}")]
    Invalid(String),
    #[error(
        "{file}: no cross-lingual record (method crosslingual or a question_id) in the file; the earlier records are kept"
    )]
    NoRecords { file: String, problems: Vec<Problem> },
    #[error("load records (or run the simulated model) before embeddings")]
    NoData,
    #[error("{0}")]
    Permanova(#[from] crate::stats::multivariate::MultivariateError),
    #[error("{0}")]
    Labels(#[from] crate::trust::labels::LabelsError),
}

struct Run {
    behaviour: Behaviour,
    seed: u64,
    samples: u32,
    cases: Vec<Case>,
    done: usize,
    out: Vec<(Record, Vec<f64>)>,
}

pub struct Session {
    lexicon: Lexicon,
    set: Option<(String, QuestionSet)>,
    run: Option<Run>,
    data: Dataset,
    pub settings: Settings,
    /// A PERMANOVA family in progress (tests run one at a time), and the last finished one.
    /// Both are dropped whenever the data change.
    perm_run: Option<PermRun>,
    permanova: Option<Section>,
    /// An uploaded distance matrix between the records (dropped when the records change).
    distances: Option<super::distances::Distances>,
}

struct PermRun {
    settings: perm::Settings,
    tests: Vec<Test>,
    rows: Vec<Row>,
    /// The test handed out to the page's workers (`permanova_next`), until its report is taken.
    out: Option<perm::Prepared>,
}

impl Default for Session {
    fn default() -> Session {
        Session {
            lexicon: Lexicon::builtin(),
            set: None,
            run: None,
            data: Dataset::default(),
            settings: Settings::default(),
            perm_run: None,
            permanova: None,
            distances: None,
        }
    }
}

/// Question files read and merged (see [`questions::merge_reporting`]).
pub fn read_merged(files: &[(String, Vec<u8>)]) -> Result<(QuestionSet, Vec<questions::Duplicate>), QuestionError> {
    let mut sets = vec![];
    for (name, bytes) in files {
        sets.push((name.clone(), questions::read(name, bytes)?));
    }
    questions::merge_reporting(sets)
}

fn summary(file: &str, s: &QuestionSet) -> SetSummary {
    SetSummary {
        file: file.into(),
        name: s.name.clone(),
        source_format: s.source_format.clone(),
        languages: s.languages.clone(),
        topics: s.topics.clone(),
        modes: s.modes.keys().cloned().collect(),
        questions: s.questions.len(),
        nonfinite_values: s.nonfinite_values,
        duplicates: vec![],
    }
}

impl Session {
    pub fn use_builtin(&mut self) -> Result<SetSummary, SessionError> {
        self.load_questions(BUILTIN_NAME, builtin_questions()?.as_bytes())
    }

    pub fn load_questions(&mut self, name: &str, bytes: &[u8]) -> Result<SetSummary, SessionError> {
        let set = questions::read(name, bytes)?;
        Ok(self.use_set(name, set))
    }

    /// Several question files at once (MSQAD's one file per topic), merged into one set; a
    /// question whose id an earlier file gave is left out and listed in `duplicates`.
    pub fn load_question_files(&mut self, files: &[(String, Vec<u8>)]) -> Result<SetSummary, SessionError> {
        let (set, duplicates) = read_merged(files)?;
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        let mut s = self.use_set(&names.join(" + "), set);
        s.duplicates = duplicates;
        Ok(s)
    }

    /// A set read elsewhere (several files merged, for instance).
    pub fn use_set(&mut self, name: &str, set: QuestionSet) -> SetSummary {
        let s = summary(name, &set);
        self.set = Some((name.into(), set));
        self.run = None;
        s
    }

    /// Plans a simulated run; returns the number of calls to make.
    pub fn plan_run(&mut self, r: RunRequest) -> Result<Progress, SessionError> {
        let (_, set) = self.set.as_ref().ok_or(SessionError::NoQuestions)?;
        let behaviour = r.behaviour.unwrap_or_default();
        behaviour.validate().map_err(SessionError::Invalid)?;
        if r.samples == 0 || r.samples > 1000 {
            return Err(SessionError::Invalid("samples must be from 1 to 1000".into()));
        }
        let cases = plan::plan(set, &r.languages, &r.modes)?;
        let total = cases.len().saturating_mul(r.samples as usize);
        if total > MAX_CALLS {
            return Err(SessionError::Invalid(format!("{total} calls planned; at most {MAX_CALLS}")));
        }
        self.run = Some(Run { behaviour, seed: r.seed, samples: r.samples, cases, done: 0, out: vec![] });
        Ok(Progress { done: 0, total })
    }

    /// Runs up to `cases` more cases; when the last is done, the records replace the data.
    pub fn step(&mut self, cases: usize) -> Result<Progress, SessionError> {
        let run = self.run.as_mut().ok_or(SessionError::NoRun)?;
        let end = (run.done + cases.max(1)).min(run.cases.len());
        let chunk = simulate::run(&run.behaviour, run.seed, "sim", &run.cases[run.done..end], run.samples);
        run.out.extend(chunk);
        run.done = end;
        let s = run.samples as usize;
        let progress = Progress { done: end * s, total: run.cases.len() * s };
        if end == run.cases.len() {
            let run = self.run.take().ok_or(SessionError::NoRun)?;
            let (records, embs): (Vec<Record>, Vec<Vec<f64>>) = run.out.into_iter().unzip();
            let mut data = Dataset::new("simulated run", records, &self.lexicon);
            data.embeddings = embs.into_iter().map(Some).collect();
            self.set_data(data);
        }
        Ok(progress)
    }

    pub fn cancel(&mut self) {
        self.run = None;
    }

    /// Analyzes the question set's own reference responses (e.g. MSQAD's released ones).
    pub fn use_references(&mut self) -> Result<LoadSummary, SessionError> {
        let (file, set) = self.set.as_ref().ok_or(SessionError::NoQuestions)?;
        let records = plan::reference_records(set);
        if records.is_empty() {
            return Err(SessionError::NoRecords { file: file.clone(), problems: vec![] });
        }
        let (n, file) = (records.len(), file.clone());
        self.set_data(Dataset::new(&file, records, &self.lexicon));
        Ok(LoadSummary { file, records: n, used: n, problems: vec![], warnings: vec![] })
    }

    pub fn load_records(&mut self, name: &str, bytes: &[u8]) -> Result<LoadSummary, SessionError> {
        let loaded = formats::load(name, bytes, None).map_err(|e| SessionError::File(e.to_string()))?;
        let mut summary = self.use_records(name, loaded.records).map_err(|e| match e {
            SessionError::NoRecords { file, .. } => SessionError::NoRecords { file, problems: loaded.errors.clone() },
            e => e,
        })?;
        summary.problems = loaded.errors;
        summary.warnings = loaded.warnings;
        Ok(summary)
    }

    /// Records from a run (the engine's, answered, failed or pending alike) as the data.
    pub fn use_records(&mut self, name: &str, records: Vec<Record>) -> Result<LoadSummary, SessionError> {
        let n = records.len();
        let data = Dataset::new(name, records, &self.lexicon);
        if data.records.is_empty() {
            return Err(SessionError::NoRecords { file: name.into(), problems: vec![] });
        }
        let used = data.records.len();
        self.set_data(data);
        Ok(LoadSummary { file: name.into(), records: n, used, problems: vec![], warnings: vec![] })
    }

    /// Attaches uploaded embeddings; returns how many records got a vector.
    pub fn load_embeddings(&mut self, name: &str, bytes: &[u8]) -> Result<usize, SessionError> {
        if self.data.records.is_empty() {
            return Err(SessionError::NoData);
        }
        let e = embeddings::read(name, bytes).map_err(SessionError::Embeddings)?;
        self.perm_run = None;
        self.permanova = None;
        // A vector this session attached (from a provider) and the file replaces loses its
        // model; a record loaded with its own embedding_model column keeps it.
        for (r, v) in self.data.records.iter_mut().zip(&self.data.embeddings) {
            if v.is_some() && e.contains_key(runs::embedding_key(r)) {
                r.extra.remove(runs::EMBEDDING_MODEL_COLUMN);
            }
        }
        match self.data.attach(&e) {
            0 => Err(SessionError::Invalid(format!(
                "{name}: no record_id in the file matches a loaded record (embedding_ref or record_id); nothing attached"
            ))),
            n => Ok(n),
        }
    }

    fn set_data(&mut self, data: Dataset) {
        // Labels are by record id: they outlive the records they were given with.
        let labels = std::mem::take(&mut self.data.labels);
        self.data = data;
        self.data.labels = labels;
        self.distances = None;
        self.perm_run = None;
        self.permanova = None;
    }

    pub fn set_settings(&mut self, s: Settings) -> Result<(), SessionError> {
        s.validate().map_err(SessionError::Invalid)?;
        self.settings = s;
        Ok(())
    }

    pub fn dataset(&self) -> &Dataset {
        &self.data
    }

    pub fn view(&self) -> Result<View, SessionError> {
        if self.data.records.is_empty() {
            return Err(SessionError::NoData);
        }
        let report = analysis::analyze(&self.data, &self.settings);
        let sim = if report.simulated { " (SIMULATED model)" } else { "" };
        let rates_svg = super::chart::refusal_rates(
            &report.rates_by_language,
            &format!("Refusal rate per language, {} detector{sim}", report.detector.as_str()),
        );
        let mut report = report;
        report.permanova = self.permanova.clone();
        let has_embeddings = self.data.embeddings.iter().filter(|e| e.is_some()).count() >= 2;
        let projection_svg = if has_embeddings {
            perm::projection(&self.data, &self.settings.modes)
                .ok()
                .map(|p| super::chart::projection(&p, &format!("Response embeddings, 2-D PCA{sim}"), "PC", None))
        } else {
            // No vectors: an uploaded distance matrix's principal coordinates stand in.
            self.distances.as_ref().and_then(|m| {
                let (p, negative) = m.projection.as_ref()?;
                let left_out = match negative {
                    0 => String::new(),
                    1 => "; its leading axis is negative, not drawn".into(),
                    k => format!("; its {k} leading axes are negative, not drawn"),
                };
                let note = format!("from {}{left_out}", m.file);
                Some(super::chart::projection(
                    p,
                    &format!("Distance matrix, 2-D principal coordinates{sim}"),
                    "PCo",
                    Some(&note),
                ))
            })
        };
        Ok(View { report, rates_svg, projection_svg })
    }

    /// The records as csv, jsonl or json, or the embeddings as JSONL ("embeddings").
    pub fn export(&self, format: &str) -> Result<String, SessionError> {
        let f = match format {
            "csv" => FileFormat::Csv,
            "jsonl" => FileFormat::Jsonl,
            "json" => FileFormat::Json,
            "embeddings" => {
                let e: embeddings::Embeddings = self
                    .data
                    .records
                    .iter()
                    .zip(&self.data.embeddings)
                    .filter_map(|(r, e)| e.as_ref().map(|v| (r.record_id.clone(), v.clone())))
                    .collect();
                return Ok(embeddings::write_jsonl(&e));
            }
            other => {
                return Err(SessionError::Invalid(format!(
                    "format: expected csv, jsonl, json or embeddings, found {other:?}"
                )));
            }
        };
        Ok(formats::write(&self.data.records, f))
    }
}
