//! The facade of the Benchmarks view: one [`BbqSession`] over
//! [`crate::bbq::session::Session`] (BBQ, GG-BBQ, KoBBQ-style data sets).

use super::{failed, from_js, from_js_or_default, to_js};
use wasm_bindgen::prelude::*;

/// One open bias-QA analysis (BBQ, GG-BBQ, KoBBQ-style); the page's worker holds one.
#[wasm_bindgen]
pub struct BbqSession(crate::bbq::session::Session);

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SimulateRequest {
    behaviour: crate::simulate::Behaviour,
    #[serde(default)]
    seed: u64,
    #[serde(default)]
    variant: Option<String>,
}

#[wasm_bindgen]
impl BbqSession {
    #[wasm_bindgen(constructor)]
    pub fn new() -> BbqSession {
        BbqSession(Default::default())
    }

    pub fn add_data(&mut self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.0.add_data(name, bytes).map_err(failed)?)
    }

    /// `language`: the language of rows that do not say theirs (a catalogue file's), or null.
    pub fn add_data_in(&mut self, name: &str, bytes: &[u8], language: Option<String>) -> Result<JsValue, JsValue> {
        to_js(&self.0.add_data_in(name, bytes, language.as_deref()).map_err(failed)?)
    }

    /// Keeps the examples the selection {categories, languages, condition, subset} names.
    pub fn keep(&mut self, selection: JsValue) -> Result<JsValue, JsValue> {
        let s: crate::bbq::select::Selection = from_js_or_default("selection", selection)?;
        to_js(&self.0.keep(&s).map_err(failed)?)
    }

    /// The loaded examples as the Run tab's input: {jsonl, cases, skipped}.
    pub fn provider_cases_jsonl(&self, variant: Option<String>) -> Result<JsValue, JsValue> {
        // Handed to JavaScript in parts of about 4 MB and joined there: the full BBQ's 44 MB
        // of cases never sit in the wasm memory at once (which never shrinks once grown).
        const PART: usize = 4 << 20;
        let parts = js_sys::Array::new();
        let mut part = String::new();
        let (cases, skipped) = self
            .0
            .each_provider_case_line(variant.as_deref(), |line| {
                part.push_str(line);
                if part.len() >= PART {
                    parts.push(&JsValue::from_str(&part));
                    part.clear();
                }
            })
            .map_err(failed)?;
        parts.push(&JsValue::from_str(&part));
        let out = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&out, &k.into(), v).map(drop);
        set("jsonl", &parts.join("").into())?;
        set("cases", &JsValue::from(cases as f64))?;
        set("skipped", &JsValue::from(skipped as f64))?;
        Ok(out.into())
    }

    /// Evenhand's own BBQ-style set in the given languages (all when empty).
    pub fn use_builtin(&mut self, seed: u32, languages: Vec<String>) -> Result<JsValue, JsValue> {
        let langs: Vec<&str> = languages.iter().map(String::as_str).collect();
        to_js(&self.0.use_builtin(u64::from(seed), &langs).map_err(failed)?)
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// `format`: bbq, ggbbq, kobbq, records or table (default).
    pub fn add_predictions(&mut self, name: &str, bytes: &[u8], format: Option<String>) -> Result<JsValue, JsValue> {
        to_js(&self.0.add_predictions(name, bytes, format.as_deref()).map_err(failed)?)
    }

    /// `request`: {behaviour, seed, variant}.
    pub fn simulate(&mut self, request: JsValue) -> Result<usize, JsValue> {
        let r: SimulateRequest = from_js("simulate request", request)?;
        self.0.simulate(&r.behaviour, r.seed, r.variant.as_deref()).map_err(failed)
    }

    /// The simulated model on examples `from..to` (the part from 0 replaces its answers):
    /// {answered, to, examples}, so the page can step through a large benchmark with progress.
    pub fn simulate_part(&mut self, request: JsValue, from: usize, to: usize) -> Result<JsValue, JsValue> {
        let r: SimulateRequest = from_js("simulate request", request)?;
        to_js(&self.0.simulate_part(&r.behaviour, r.seed, r.variant.as_deref(), from, to).map_err(failed)?)
    }

    pub fn set_bootstrap(&mut self, settings: JsValue) -> Result<(), JsValue> {
        let s: crate::bbq::metrics::BootstrapSettings = from_js("bootstrap settings", settings)?;
        self.0.set_bootstrap(s).map_err(failed)
    }

    pub fn view(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.view())
    }

    /// `query` may be null for the first page.
    pub fn rows(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let q: crate::bbq::session::RowQuery = from_js_or_default("row query", query)?;
        to_js(&self.0.rows(&q))
    }

    /// The prompt variants: [{id, language, description, allows_insufficient, option_line, template}].
    pub fn prompt_variants() -> Result<JsValue, JsValue> {
        to_js(&crate::bbq::prompt::variants())
    }
}

impl Default for BbqSession {
    fn default() -> Self {
        Self::new()
    }
}
