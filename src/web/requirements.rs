//! The facade of the Requirements tab: one [`RequirementsSession`] over
//! [`crate::requirements::session::Session`], serde structs in and out.

use super::{fail, failed, from_js, to_js};
use crate::requirements::session::{BrowseQuery, DEFAULT_SCENARIO, EvalQuery, PlanQuery, Session};
use crate::requirements::simulate::SimBias;
use crate::stats::confidence::Confidence;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct RequirementsSession(Session);

#[wasm_bindgen]
impl RequirementsSession {
    #[wasm_bindgen(constructor)]
    pub fn new() -> RequirementsSession {
        RequirementsSession(Session::default())
    }

    /// The scenario the editor opens with.
    pub fn default_scenario() -> String {
        DEFAULT_SCENARIO.to_string()
    }

    /// The built-in library's languages, concerns, markups and community ids.
    pub fn catalogue(&mut self) -> Result<JsValue, JsValue> {
        to_js(&self.0.catalogue().map_err(failed)?)
    }

    /// Checks the scenario JSON: {ok, errors, warnings, requirements}. A valid one replaces
    /// the session's; an invalid one leaves it.
    pub fn set_scenario(&mut self, text: &str) -> Result<JsValue, JsValue> {
        to_js(&self.0.set_scenario(text))
    }

    /// A LangBiTe library for `language` (tab-separated .csv or the JSON prompt form);
    /// returns its warnings.
    pub fn load_library(&mut self, language: &str, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.0.load_library(language, name, bytes).map_err(failed)?)
    }

    pub fn use_builtin(&mut self) {
        self.0.use_builtin();
    }

    /// `query`: {language, concern, input_type, reflection_type, text, limit}.
    pub fn browse(&mut self, query: JsValue) -> Result<JsValue, JsValue> {
        let q: BrowseQuery = from_js("browse query", query)?;
        to_js(&self.0.browse(&q).map_err(failed)?)
    }

    /// `query`: {seed, models, samples, first, run_id}.
    pub fn preview(&mut self, query: JsValue) -> Result<JsValue, JsValue> {
        let q: PlanQuery = from_js("plan", query)?;
        to_js(&self.0.preview(&q).map_err(failed)?)
    }

    /// Plans the pending records; returns how many.
    pub fn plan(&mut self, query: JsValue) -> Result<usize, JsValue> {
        let q: PlanQuery = from_js("plan", query)?;
        self.0.plan(&q).map_err(failed)
    }

    /// `settings`: {seed, bias, community: {id: rate}, refusal}; returns how many answered.
    pub fn simulate(&mut self, settings: JsValue) -> Result<usize, JsValue> {
        let s: SimBias = from_js("simulation", settings)?;
        self.0.simulate(&s).map_err(failed)
    }

    /// A record file (for example a finished run from the Run tab): {records, problems}.
    pub fn load_records(&mut self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        let (records, problems) = self.0.load_records(name, bytes).map_err(failed)?;
        to_js(&serde_json::json!({"records": records, "problems": problems}))
    }

    /// The planned or loaded records as JSONL: the cases file for the Run tab.
    pub fn records_jsonl(&self) -> Result<String, JsValue> {
        if self.0.records.is_empty() {
            return Err(fail("input", "no records yet: preview and plan first", &()));
        }
        Ok(self.0.records_jsonl())
    }

    /// `query`: {compat, seed, confidence, alpha}; the results view.
    pub fn evaluate(&mut self, query: JsValue) -> Result<JsValue, JsValue> {
        let q: EvalQuery = from_js("evaluation settings", query)?;
        to_js(&self.0.evaluate(&q).map_err(failed)?)
    }

    /// Every export file as [name, text] pairs; `timestamp` names LangBiTe's three CSVs.
    pub fn files(&self, timestamp: &str) -> Result<JsValue, JsValue> {
        to_js(&self.0.files(timestamp).map_err(failed)?)
    }

    /// The LLM judge's cases as JSONL, `per_outcome` passes and failures per group, seeded:
    /// {cases, jsonl}.
    pub fn judge_cases(&self, per_outcome: u32, seed: u32) -> Result<JsValue, JsValue> {
        let (cases, jsonl) = self.0.judge_cases(per_outcome as usize, u64::from(seed)).map_err(failed)?;
        to_js(&serde_json::json!({"cases": cases, "jsonl": jsonl}))
    }

    /// The judge's answered records: its agreement with the oracle.
    pub fn load_judge(&self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.0.load_judge(name, bytes).map_err(failed)?)
    }

    /// A LangBiTe report CSV (responses, evaluations or global, told by its header).
    pub fn load_report(&mut self, name: &str, text: &str) -> Result<String, JsValue> {
        self.0.load_report(name, text).map(str::to_string).map_err(failed)
    }

    pub fn clear_reports(&mut self) {
        self.0.clear_reports();
    }

    pub fn reports_view(&mut self, confidence: f64) -> Result<JsValue, JsValue> {
        let confidence = Confidence::new(confidence).map_err(|e| fail("input", &e.to_string(), &()))?;
        to_js(&self.0.reports_view(confidence))
    }
}

impl Default for RequirementsSession {
    fn default() -> Self {
        Self::new()
    }
}
