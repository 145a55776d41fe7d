//! Exports only the Chromium benchmarks (bench/web/) call, built with `--features bench`: the
//! page's build leaves them out.

use super::{failed, from_js, to_js};
use crate::requirements::file_evaluation::{FileQuery, evaluate_file};
use crate::stats::permanova::PermanovaJob;
use crate::stats::permanova_query::PermanovaQuery;
use wasm_bindgen::prelude::*;

fn permanova_job(query: JsValue, values: Vec<f64>) -> Result<PermanovaJob, JsValue> {
    let q: PermanovaQuery = from_js("permanova query", query)?;
    q.job(values).map_err(failed)
}

/// PERMANOVA with PERMDISP in one call (the report of `stats::permanova`). The numbers travel
/// as a Float64Array, taken as a Vec so the copy wasm-bindgen makes is the only one.
#[wasm_bindgen]
pub fn permanova(query: JsValue, values: Vec<f64>) -> Result<JsValue, JsValue> {
    let mut job = permanova_job(query, values)?;
    job.advance(usize::MAX);
    to_js(&job.result().map_err(failed)?)
}

/// The same computation a chunk at a time; chunking does not change a single bit of the result.
#[wasm_bindgen]
pub struct PermanovaRun(PermanovaJob);

#[wasm_bindgen]
impl PermanovaRun {
    #[wasm_bindgen(constructor)]
    pub fn new(query: JsValue, values: Vec<f64>) -> Result<PermanovaRun, JsValue> {
        Ok(PermanovaRun(permanova_job(query, values)?))
    }

    /// Runs up to `count` more permutations; returns {done, total}.
    pub fn advance(&mut self, count: u32) -> Result<JsValue, JsValue> {
        to_js(&self.0.advance(count as usize))
    }

    pub fn result(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.result().map_err(failed)?)
    }
}

/// Judges a run's record file against a scenario: template verdicts, group statistics,
/// community tests and, with `files`, every export as [name, text] pairs.
#[wasm_bindgen]
pub fn requirements_evaluate(
    scenario: &str,
    records_name: &str,
    records_bytes: &[u8],
    query: JsValue,
) -> Result<JsValue, JsValue> {
    let q: FileQuery = from_js("evaluation settings", query)?;
    let out = evaluate_file(scenario, records_name, records_bytes, &q, &mut js_sys::Date::now).map_err(failed)?;
    to_js(&out)
}
