//! The facade of the Requirements tab: one [`RequirementsSession`] over
//! [`crate::requirements::session::Session`], serde structs in and out.

use super::{fail, failed, from_js, to_js};
use crate::requirements::session::{BrowseQuery, DEFAULT_SCENARIO, EvalQuery, PlanQuery, Session};
use crate::requirements::simulate::SimBias;
use crate::stats::confidence::Confidence;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct RequirementsSession {
    session: Session,
    /// The last record file loaded, still in JavaScript's memory, for the hash the exports'
    /// manifest gives it ([`Session::load_records_unhashed`]).
    records_file: Option<js_sys::Uint8Array>,
}

/// Bytes of a record file copied into wasm memory at a time to be hashed.
const HASH_CHUNK: u32 = 1 << 20;

/// [`crate::rng::stable_hash`] of the bytes of `file`, copied over a chunk at a time, so the
/// file is never in wasm memory twice.
fn hash_of(file: &js_sys::Uint8Array) -> u64 {
    let mut hash = crate::rng::StableHash::new();
    let mut chunk = vec![0u8; HASH_CHUNK as usize];
    let mut at = 0;
    while at < file.length() {
        let end = file.length().min(at + HASH_CHUNK);
        let part = &mut chunk[..(end - at) as usize];
        file.subarray(at, end).copy_to(part);
        hash.write(part);
        at = end;
    }
    hash.end_part();
    hash.finish()
}

#[wasm_bindgen]
impl RequirementsSession {
    #[wasm_bindgen(constructor)]
    pub fn new() -> RequirementsSession {
        RequirementsSession { session: Session::default(), records_file: None }
    }

    /// The scenario the editor opens with.
    pub fn default_scenario() -> String {
        DEFAULT_SCENARIO.to_string()
    }

    /// The built-in library's languages, concerns, markups and community ids.
    pub fn catalogue(&mut self) -> Result<JsValue, JsValue> {
        to_js(&self.session.catalogue().map_err(failed)?)
    }

    /// Checks the scenario JSON: {ok, errors, warnings, requirements}. A valid one replaces
    /// the session's; an invalid one leaves it.
    pub fn set_scenario(&mut self, text: &str) -> Result<JsValue, JsValue> {
        to_js(&self.session.set_scenario(text))
    }

    /// A LangBiTe library for `language` (tab-separated .csv or the JSON prompt form);
    /// returns its warnings.
    pub fn load_library(&mut self, language: &str, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.session.load_library(language, name, bytes).map_err(failed)?)
    }

    pub fn use_builtin(&mut self) {
        self.session.use_builtin();
    }

    /// `query`: {language, concern, input_type, reflection_type, text, limit}.
    pub fn browse(&mut self, query: JsValue) -> Result<JsValue, JsValue> {
        let q: BrowseQuery = from_js("browse query", query)?;
        to_js(&self.session.browse(&q).map_err(failed)?)
    }

    /// `query`: {seed, models, samples, first, run_id}.
    pub fn preview(&mut self, query: JsValue) -> Result<JsValue, JsValue> {
        let q: PlanQuery = from_js("plan", query)?;
        to_js(&self.session.preview(&q).map_err(failed)?)
    }

    /// Plans the pending records; returns how many.
    pub fn plan(&mut self, query: JsValue) -> Result<usize, JsValue> {
        let q: PlanQuery = from_js("plan", query)?;
        self.session.plan(&q).map_err(failed)
    }

    /// `settings`: {seed, bias, community: {id: rate}, refusal}; returns how many answered.
    pub fn simulate(&mut self, settings: JsValue) -> Result<usize, JsValue> {
        let s: SimBias = from_js("simulation", settings)?;
        self.session.simulate(&s).map_err(failed)
    }

    /// A record file (for example a finished run from the Run tab): {records, problems}. Its
    /// hash for the manifest is taken when an export first needs it (`files`), from `bytes`
    /// kept as they are: the caller must not change them meanwhile (the page moves them here).
    pub fn load_records(&mut self, name: &str, bytes: js_sys::Uint8Array) -> Result<JsValue, JsValue> {
        let (records, problems) = self.session.load_records_unhashed(name, &bytes.to_vec()).map_err(failed)?;
        self.records_file = Some(bytes);
        to_js(&serde_json::json!({"records": records, "problems": problems}))
    }

    /// The planned or loaded records as JSONL: the cases file for the Run tab.
    pub fn records_jsonl(&self) -> Result<String, JsValue> {
        if self.session.records.is_empty() {
            return Err(fail("input", "no records yet: preview and plan first", &()));
        }
        Ok(self.session.records_jsonl())
    }

    /// `query`: {compat, seed, confidence, alpha}; the results view.
    pub fn evaluate(&mut self, query: JsValue) -> Result<JsValue, JsValue> {
        let q: EvalQuery = from_js("evaluation settings", query)?;
        to_js(&self.session.evaluate(&q).map_err(failed)?)
    }

    /// The answers for the local NLI detector: [{id, text, language, lexicon}], once per record id.
    pub fn nli_items(&self) -> Result<JsValue, JsValue> {
        to_js(&self.session.nli_items().map_err(failed)?)
    }

    /// The NLI detector's batch {model, rule, ids, p_refuse} into the records' nli_p_refuse,
    /// nli_rule and nli_model columns; all or nothing. Returns how many records got a probability.
    pub fn add_nli(&mut self, batch: JsValue) -> Result<usize, JsValue> {
        let b: crate::crosslingual::nli::NliBatch = from_js("NLI batch", batch)?;
        self.session.add_nli(&b).map_err(failed)
    }

    /// The detectors an evaluation can be decided by (lexicon, and those the records carry).
    pub fn detectors(&self) -> Result<JsValue, JsValue> {
        to_js(&self.session.detectors())
    }

    /// Every export file as [name, text] pairs; `timestamp` names LangBiTe's three CSVs.
    pub fn files(&mut self, timestamp: &str) -> Result<JsValue, JsValue> {
        if self.session.records_hash_pending()
            && let Some(file) = &self.records_file
        {
            self.session.set_records_hash(hash_of(file));
        }
        to_js(&self.session.files(timestamp).map_err(failed)?)
    }

    /// The LLM judge's cases as JSONL, `per_outcome` passes and failures per group, seeded:
    /// {cases, jsonl}.
    pub fn judge_cases(&self, per_outcome: u32, seed: u32) -> Result<JsValue, JsValue> {
        let (cases, jsonl) = self.session.judge_cases(per_outcome as usize, u64::from(seed)).map_err(failed)?;
        to_js(&serde_json::json!({"cases": cases, "jsonl": jsonl}))
    }

    /// The judge's answered records: its agreement with the oracle.
    pub fn load_judge(&self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.session.load_judge(name, bytes).map_err(failed)?)
    }

    /// A LangBiTe report CSV (responses, evaluations or global, told by its header).
    pub fn load_report(&mut self, name: &str, text: &str) -> Result<String, JsValue> {
        self.session.load_report(name, text).map(str::to_string).map_err(failed)
    }

    pub fn clear_reports(&mut self) {
        self.session.clear_reports();
    }

    pub fn reports_view(&mut self, confidence: f64) -> Result<JsValue, JsValue> {
        let confidence = Confidence::new(confidence).map_err(|e| fail("input", &e.to_string(), &()))?;
        to_js(&self.session.reports_view(confidence))
    }
}

impl Default for RequirementsSession {
    fn default() -> Self {
        Self::new()
    }
}
