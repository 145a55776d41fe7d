//! PERMANOVA + PERMDISP as the page's pool of workers runs it (www/permanova-pool.js): every
//! worker builds the same [`PermanovaRun`] from the same request, counts its share of the
//! permutations a chunk at a time, and one worker absorbs every share's counts and reports.
//! The request is `stats::permanova_query`'s: a small settings object beside a Float64Array.

use super::{failed, from_js, to_js};
use crate::stats::permanova::{Counts, PermanovaJob};
use crate::stats::permanova_query::PermanovaQuery;
use wasm_bindgen::prelude::*;

pub(super) fn permanova_job(query: JsValue, values: Vec<f64>) -> Result<PermanovaJob, JsValue> {
    let q: PermanovaQuery = from_js("permanova query", query)?;
    q.job(values).map_err(failed)
}

/// One PERMANOVA job; however its permutations are split, counted and absorbed, the result
/// has the same bits.
#[wasm_bindgen]
pub struct PermanovaRun(PermanovaJob);

#[wasm_bindgen]
impl PermanovaRun {
    /// The numbers travel as a Float64Array, taken as a Vec so the copy wasm-bindgen makes is
    /// the only one.
    #[wasm_bindgen(constructor)]
    pub fn new(query: JsValue, values: Vec<f64>) -> Result<PermanovaRun, JsValue> {
        Ok(PermanovaRun(permanova_job(query, values)?))
    }

    /// Counts permutations `first..end` without changing the job; returns
    /// {first, end, permanova, permdisp} for `absorb` (here or in another worker's run).
    pub fn count(&self, first: u32, end: u32) -> Result<JsValue, JsValue> {
        to_js(&self.0.count(first as usize, end as usize).map_err(failed)?)
    }

    /// Adds a range's counts; a range outside the job or already counted is refused. Returns
    /// {done, total}.
    pub fn absorb(&mut self, counts: JsValue) -> Result<JsValue, JsValue> {
        let c: Counts = from_js("permanova counts", counts)?;
        to_js(&self.0.absorb(c).map_err(failed)?)
    }

    /// Counts and absorbs up to `count` more permutations here; returns {done, total}.
    pub fn advance(&mut self, count: u32) -> Result<JsValue, JsValue> {
        to_js(&self.0.advance(count as usize))
    }

    /// {done, total}.
    pub fn progress(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.progress())
    }

    /// The report, once every permutation is counted.
    pub fn result(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.result().map_err(failed)?)
    }
}
