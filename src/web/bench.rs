//! Exports only the Chromium benchmarks (bench/web/) call, built with `--features bench`: the
//! page's build leaves them out.

use super::permanova::permanova_job;
use super::{failed, from_js, to_js};
use crate::requirements::file_evaluation::{FileQuery, evaluate_file};
use wasm_bindgen::prelude::*;

/// PERMANOVA with PERMDISP in one call (the report of `stats::permanova`); the page runs it
/// through `PermanovaRun` in its pool of workers.
#[wasm_bindgen]
pub fn permanova(query: JsValue, values: Vec<f64>) -> Result<JsValue, JsValue> {
    let mut job = permanova_job(query, values)?;
    job.advance(usize::MAX);
    to_js(&job.result().map_err(failed)?)
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
