//! The facade of the study flow (home screen, guided flow, report view): one [`StudySession`]
//! over [`crate::study::Session`]. A study that does not open gives an error object whose
//! `detail` is the located problem `{file, line, column, field, message}`.

use super::{fail, failed, to_js};
use crate::study::report::Report;
use crate::study::{self, StudyError};
use wasm_bindgen::prelude::*;

/// One open study; the page's worker holds one.
#[wasm_bindgen]
pub struct StudySession {
    core: study::Session,
    /// The last report built, until the records change: the page shows it, then downloads its
    /// JSON and HTML, and building it is most of the cost.
    last: std::cell::RefCell<Option<Report>>,
    /// Every item two models answered (`study::items::all`), until the records change: the
    /// item table pages and filters it.
    items: std::cell::RefCell<Option<Vec<study::items::Item>>>,
}

impl From<study::Session> for StudySession {
    fn from(core: study::Session) -> StudySession {
        StudySession { core, last: std::cell::RefCell::new(None), items: std::cell::RefCell::new(None) }
    }
}

fn study_failed(e: StudyError) -> JsValue {
    match &e {
        StudyError::Invalid { problem } => fail("invalid", &e.to_string(), problem),
        _ => failed(e),
    }
}

fn now() -> String {
    js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default()
}

#[wasm_bindgen]
impl StudySession {
    /// Opens a study document (`evenhand-study` v1). Files it names come through `add_file`.
    #[wasm_bindgen(constructor)]
    pub fn new(name: &str, text: &str) -> Result<StudySession, JsValue> {
        study::Session::open(name, text).map(StudySession::from).map_err(study_failed)
    }

    /// The finished example study: two simulated models, all four methods, already answered.
    pub fn example() -> Result<StudySession, JsValue> {
        study::example::session().map(StudySession::from).map_err(study_failed)
    }

    /// The example study's document, for "New study" to start from.
    pub fn example_text() -> String {
        study::example::TEXT.to_string()
    }

    /// The built-in simulated profiles (`simulated:<name>` targets).
    pub fn profiles() -> Vec<String> {
        study::profiles::PROFILES.iter().map(|p| p.to_string()).collect()
    }

    /// The study as JSON (pretty), as it would be saved.
    pub fn study_json(&self) -> String {
        serde_json::to_string_pretty(&self.core.study).unwrap_or_default()
    }

    /// The SHA-256 of the study as saved ([`StudySession::study_json`]): the study's identity,
    /// which the page's runs are filed under so a run is only ever offered to its own study.
    pub fn study_sha256(&self) -> String {
        study::format::sha256(self.study_json().as_bytes())
    }

    /// The files the study names that have not been added: [{field, file}].
    pub fn missing(&self) -> Result<JsValue, JsValue> {
        let m: Vec<serde_json::Value> = self
            .core
            .missing()
            .into_iter()
            .map(|(field, file)| serde_json::json!({"field": field, "file": file}))
            .collect();
        to_js(&m)
    }

    /// An input file the study names (checked against its SHA-256 once all are here); returns
    /// the files still missing, as `missing`.
    pub fn add_file(&mut self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        self.last.replace(None);
        self.items.replace(None);
        self.core.add_file(name, bytes).map_err(study_failed)?;
        self.missing()
    }

    /// Calls, tokens and cost per method and target: {rows, calls, cost, currency, unpriced, cases}.
    pub fn plan(&self) -> Result<JsValue, JsValue> {
        to_js(&self.core.plan().map_err(study_failed)?)
    }

    /// Every method's cases for the run engine as JSONL, each tagged with its `method` and,
    /// in the extra column `study_sample`, its sample; run them with `samples: 1`.
    pub fn run_cases(&self) -> Result<String, JsValue> {
        let cases = self.core.run_cases().map_err(study_failed)?;
        Ok(crate::formats::write(&cases, crate::formats::FileFormat::Jsonl))
    }

    /// The run spec's skeleton for the provider targets: {run_id, targets: [{provider, models}],
    /// samples: 1, params, seed}; the page adds base URLs, limits and keys.
    pub fn run_spec(&self) -> Result<JsValue, JsValue> {
        to_js(&self.core.run_spec())
    }

    /// A record file: one method's (`method` given) or a table with a `method` column.
    /// `origin`: "run" for the records of this study's own run, "uploaded" (the default) for a
    /// file the user gave. Returns {file, records, by_method, models, problems}.
    pub fn add_records(
        &mut self,
        name: &str,
        bytes: &[u8],
        method: Option<String>,
        origin: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let origin = match origin.as_deref() {
            None => study::session::Origin::Uploaded,
            Some(o) => study::session::Origin::of_file(o)
                .map_err(|message| failed(StudyError::Records { file: name.into(), message }))?,
        };
        self.last.replace(None);
        self.items.replace(None);
        to_js(&self.core.add_records(name, bytes, method.as_deref(), origin).map_err(study_failed)?)
    }

    /// An uploaded record file with the column mapping the user chose after a `needs_mapping`
    /// error (whose `detail.request` holds the headers, suggestions and a preview), as the
    /// Upload tool's mapping step gives it: {field: header}.
    pub fn add_records_mapped(
        &mut self,
        name: &str,
        bytes: &[u8],
        method: Option<String>,
        mapping: JsValue,
    ) -> Result<JsValue, JsValue> {
        let mapping: Option<crate::formats::ColumnMapping> = super::from_js_or_default("mapping", mapping)?;
        self.last.replace(None);
        self.items.replace(None);
        let origin = study::session::Origin::Uploaded;
        to_js(
            &self
                .core
                .add_records_mapped(name, bytes, method.as_deref(), origin, mapping.as_ref())
                .map_err(study_failed)?,
        )
    }

    /// Several question files in the cross-lingual slot (MSQAD's one file per topic), merged:
    /// one summary as `add_records` gives, or null when a file is not a question set (add the
    /// files one by one then). `names[i]` is the name of `files[i]`.
    pub fn add_question_sets(
        &mut self,
        names: Vec<String>,
        files: Vec<js_sys::Uint8Array>,
    ) -> Result<JsValue, JsValue> {
        let files = super::named_files(names, files);
        self.last.replace(None);
        self.items.replace(None);
        let added = self.core.add_question_sets(&files, study::session::Origin::Uploaded).map_err(study_failed)?;
        to_js(&added)
    }

    /// Answers the simulated targets (replacing their earlier records): {records}.
    pub fn simulate(&mut self) -> Result<JsValue, JsValue> {
        self.last.replace(None);
        self.items.replace(None);
        let n = self.core.simulate().map_err(study_failed)?;
        to_js(&serde_json::json!({"records": n}))
    }

    /// Records held per method and model: {method: {model: count}}.
    pub fn coverage(&self) -> Result<JsValue, JsValue> {
        let mut out: std::collections::BTreeMap<&str, std::collections::BTreeMap<&str, usize>> = Default::default();
        for r in &self.core.records {
            *out.entry(r.method.as_str()).or_default().entry(r.model.as_str()).or_default() += 1;
        }
        to_js(&out)
    }

    /// The report, from the cache when the records have not changed since it was built.
    fn built(&self, generated_at: Option<String>) -> Result<Report, JsValue> {
        let at = generated_at.unwrap_or_else(now);
        if let Some(r) = self.last.borrow().as_ref() {
            return Ok(Report { generated_at: at, ..r.clone() });
        }
        let r = self.core.report(&at).map_err(study_failed)?;
        self.last.replace(Some(r.clone()));
        Ok(r)
    }

    /// One page of the item table: `query` is a `study::items::Query` ({pair, method, category,
    /// language, condition, disagree, offset, limit}); the answer a `study::items::Page`.
    pub fn items(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let q: study::items::Query = super::from_js_or_default("query", query)?;
        if self.items.borrow().is_none() {
            let all = study::items::all(&self.core).map_err(study_failed)?;
            self.items.replace(Some(all));
        }
        let held = self.items.borrow();
        to_js(&study::items::select(held.as_deref().unwrap_or_default(), &q))
    }

    /// The report (the struct `report.json` holds). `generated_at` defaults to now.
    pub fn report(&self, generated_at: Option<String>) -> Result<JsValue, JsValue> {
        to_js(&self.built(generated_at)?)
    }

    /// `report.json` as the CLI writes it (pretty JSON).
    pub fn report_json(&self, generated_at: Option<String>) -> Result<String, JsValue> {
        let r = self.built(generated_at)?;
        Ok(study::html::report_json(&r))
    }

    /// `report.html`: one self-contained file (inline CSS and SVG, no script, no request).
    pub fn report_html(&self, generated_at: Option<String>) -> Result<String, JsValue> {
        let r = self.built(generated_at)?;
        Ok(study::html::render(&r))
    }

    /// The records of `method` as its expert tool reads them (`study::handoff`), as JSONL: the
    /// report's link opens the tool with them.
    pub fn tool_records(&self, method: &str) -> Result<String, JsValue> {
        let records = study::handoff::records(&self.core, method).map_err(study_failed)?;
        Ok(crate::formats::write(&records, crate::formats::FileFormat::Jsonl))
    }

    /// The study's requirements scenario (JSON text), for the Requirements tool; undefined when
    /// the study has no requirements method.
    pub fn tool_scenario(&self) -> Result<Option<String>, JsValue> {
        study::handoff::scenario(&self.core).map_err(study_failed)
    }

    /// Every record held, as JSONL.
    pub fn records_jsonl(&self) -> String {
        crate::formats::write(&self.core.records, crate::formats::FileFormat::Jsonl)
    }

    /// The answers of the requirements and cross-lingual records for the local NLI detector:
    /// [{id, text, language, lexicon}], once per record id.
    pub fn nli_items(&self) -> Result<JsValue, JsValue> {
        to_js(&self.core.nli_items().map_err(study_failed)?)
    }

    /// The NLI detector's batch {model, rule, ids, p_refuse} into those records' nli_* columns;
    /// all or nothing. Returns how many records got a probability.
    pub fn add_nli(&mut self, batch: JsValue) -> Result<usize, JsValue> {
        let b: crate::crosslingual::nli::NliBatch = super::from_js("NLI batch", batch)?;
        let n = self.core.add_nli(&b).map_err(study_failed)?;
        self.last.replace(None);
        self.items.replace(None);
        Ok(n)
    }

    /// The study bundle (study, input files, records, manifest) as JSON.
    pub fn bundle(&self) -> String {
        serde_json::to_string(&study::bundle::make(&self.core)).unwrap_or_default()
    }

    pub fn share_fragment(&self) -> String {
        study::bundle::share_fragment(&self.core)
    }

    /// What the share link cannot carry (provider answers, named files): empty when the link
    /// rebuilds the report; otherwise the study needs its bundle.
    pub fn share_lacks(&self) -> Vec<String> {
        study::bundle::share_lacks(&self.core)
    }

    /// The share link's fragment that rebuilds this report: {fragment} (the study alone, or the
    /// bundle when it fits a link), or {lacks} (what no link could carry: share the bundle).
    pub fn share_link(&self) -> Result<JsValue, JsValue> {
        to_js(&match study::bundle::share_link(&self.core) {
            Ok(fragment) => serde_json::json!({"fragment": fragment, "lacks": []}),
            Err(lacks) => serde_json::json!({"fragment": null, "lacks": lacks}),
        })
    }

    /// Opens a study bundle; its records come back as they were saved.
    pub fn open_bundle(name: &str, text: &str) -> Result<StudySession, JsValue> {
        study::bundle::open(name, text).map(StudySession::from).map_err(study_failed)
    }

    /// Opens a share link's fragment; a study of simulated targets is answered again.
    pub fn open_share(fragment: &str) -> Result<StudySession, JsValue> {
        study::bundle::open_share(fragment).map(StudySession::from).map_err(study_failed)
    }
}
