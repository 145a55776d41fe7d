//! The facade of the Divergence view: one [`DivergenceSession`] over
//! [`crate::divergence::session::Session`].

use super::{failed, from_js, from_js_or_default, to_js};
use wasm_bindgen::prelude::*;

/// One open cultural-divergence analysis; the page's worker holds one.
#[wasm_bindgen]
pub struct DivergenceSession(crate::divergence::session::Session);

#[wasm_bindgen]
impl DivergenceSession {
    #[wasm_bindgen(constructor)]
    pub fn new() -> DivergenceSession {
        DivergenceSession(Default::default())
    }

    pub fn use_builtin(&mut self, id: &str) -> Result<JsValue, JsValue> {
        to_js(&self.0.use_builtin(id).map_err(failed)?)
    }

    pub fn load_probes(&mut self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.0.load_probes(name, bytes).map_err(failed)?)
    }

    /// `shape`: auto (or absent), table, ssa, census, geonames or pesel; `columns`: null or
    /// {name, weight} naming a table's columns.
    pub fn add_reference(
        &mut self,
        culture: &str,
        aspect: &str,
        name: &str,
        bytes: &[u8],
        shape: Option<String>,
        columns: JsValue,
    ) -> Result<JsValue, JsValue> {
        let columns: Option<crate::divergence::reference::Columns> = from_js_or_default("columns", columns)?;
        to_js(&self.0.add_reference(culture, aspect, name, bytes, shape.as_deref(), columns.as_ref()).map_err(failed)?)
    }

    pub fn clear_references(&mut self) {
        self.0.clear_references();
    }

    pub fn load_logprobs(&mut self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.0.load_logprobs(name, bytes).map_err(failed)?)
    }

    /// A record file (JSON, JSONL or CSV), a live run's among them, as the model data:
    /// scoring records become the log-probability table, sampling records the samples;
    /// `calls` in the summary counts the failed, pending and incomplete ones.
    pub fn load_records(&mut self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.0.load_records(name, bytes).map_err(failed)?)
    }

    /// `request`: {mode: "scoring" | "sampling", models: [{name, lean, ...}], seed}.
    pub fn simulate(&mut self, request: JsValue) -> Result<JsValue, JsValue> {
        let r: crate::divergence::session::SimRequest = from_js("simulate request", request)?;
        to_js(&self.0.simulate(&r).map_err(failed)?)
    }

    /// `settings`: {smoothing: "add-alpha:0.5", unit: "nats", replicates, confidence, seed}.
    pub fn analyze(&mut self, settings: JsValue) -> Result<JsValue, JsValue> {
        let t: crate::divergence::analysis::SettingsText = from_js("settings", settings)?;
        let s = t.parse().map_err(failed)?;
        to_js(self.0.analyze(&s).map_err(failed)?)
    }

    pub fn chart(&self, model: &str, context: &str) -> Result<String, JsValue> {
        self.0.chart(model, context).map_err(failed)
    }

    pub fn state(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.state())
    }

    /// The cases of a live run over the loaded probe set (`mode`: score or sample), as a JSON
    /// array of records for the run engine; its records come back through `load_records`.
    pub fn run_cases_jsonl(&self, mode: &str) -> Result<String, JsValue> {
        let mode = crate::divergence::runs::Mode::parse(mode).map_err(failed)?;
        let cases = self.0.run_cases(mode).map_err(failed)?;
        Ok(crate::formats::write(&cases, crate::formats::FileFormat::Jsonl))
    }

    /// The model data (log-probability table or records) as CSV.
    pub fn data_csv(&self) -> Result<String, JsValue> {
        self.0.data_csv().map_err(failed)
    }

    /// The last results as CSV or JSON.
    pub fn export(&self, format: &str) -> Result<String, JsValue> {
        self.0.export(format).map_err(failed)
    }
}

impl Default for DivergenceSession {
    fn default() -> Self {
        Self::new()
    }
}
