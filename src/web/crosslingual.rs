//! The facade of the Cross-lingual view: one [`CrosslingualSession`] over
//! [`crate::crosslingual::session::Session`] (the MSQAD method).

use super::{failed, from_js, to_js};
use crate::formats::{self, FileFormat};
use wasm_bindgen::prelude::*;

/// One open cross-lingual analysis (MSQAD method); the page's worker holds one.
#[wasm_bindgen]
pub struct CrosslingualSession(crate::crosslingual::session::Session);

#[wasm_bindgen]
impl CrosslingualSession {
    #[wasm_bindgen(constructor)]
    pub fn new() -> CrosslingualSession {
        CrosslingualSession(Default::default())
    }

    pub fn use_builtin(&mut self) -> Result<JsValue, JsValue> {
        to_js(&self.0.use_builtin().map_err(failed)?)
    }

    /// An evenhand-questions or MSQAD JSON file.
    pub fn load_questions(&mut self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.0.load_questions(name, bytes).map_err(failed)?)
    }

    /// Several evenhand-questions or MSQAD JSON files (MSQAD has one per topic), merged into one
    /// set: `names[i]` is the name of `files[i]`. Questions whose id an earlier file gave are
    /// left out and listed in the summary's `duplicates`.
    pub fn load_question_files(
        &mut self,
        names: Vec<String>,
        files: Vec<js_sys::Uint8Array>,
    ) -> Result<JsValue, JsValue> {
        let files = super::named_files(names, files);
        to_js(&self.0.load_question_files(&files).map_err(failed)?)
    }

    /// `request`: {languages, modes, samples, seed, behaviour?}; returns {done, total}.
    pub fn plan_run(&mut self, request: JsValue) -> Result<JsValue, JsValue> {
        let r: crate::crosslingual::session::RunRequest = from_js("run request", request)?;
        to_js(&self.0.plan_run(r).map_err(failed)?)
    }

    /// Runs up to `cases` more cases of the planned run; returns {done, total}.
    pub fn step(&mut self, cases: u32) -> Result<JsValue, JsValue> {
        to_js(&self.0.step(cases as usize).map_err(failed)?)
    }

    pub fn cancel(&mut self) {
        self.0.cancel();
    }

    pub fn load_records(&mut self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.0.load_records(name, bytes).map_err(failed)?)
    }

    /// The question set's own reference responses as the records to analyze.
    pub fn use_references(&mut self) -> Result<JsValue, JsValue> {
        to_js(&self.0.use_references().map_err(failed)?)
    }

    /// CSV record_id,embedding or JSONL; returns how many records got a vector.
    pub fn load_embeddings(&mut self, name: &str, bytes: &[u8]) -> Result<usize, JsValue> {
        self.0.load_embeddings(name, bytes).map_err(failed)
    }

    pub fn set_settings(&mut self, settings: JsValue) -> Result<(), JsValue> {
        let s: crate::crosslingual::analysis::Settings = from_js("settings", settings)?;
        self.0.set_settings(s).map_err(failed)
    }

    pub fn settings(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.settings)
    }

    /// {report, rates_svg, projection_svg}.
    pub fn view(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.view().map_err(failed)?)
    }

    /// Plans PERMANOVA per language pair and topic: `settings` is {permutations, distance,
    /// seed, modes}; returns {done, total} in tests.
    pub fn permanova_plan(&mut self, settings: JsValue) -> Result<JsValue, JsValue> {
        let s: crate::crosslingual::permanova::Settings = from_js("permanova settings", settings)?;
        to_js(&self.0.permanova_plan(s).map_err(failed)?)
    }

    /// Runs up to `tests` more tests; after the last, `view` carries the results.
    pub fn permanova_step(&mut self, tests: u32) -> Result<JsValue, JsValue> {
        to_js(&self.0.permanova_step(tests as usize).map_err(failed)?)
    }

    /// The next planned test for the page's pool of workers: {done, total, test, query,
    /// values}, `values` a Float64Array for `PermanovaRun` with `query`; `test` is null once
    /// every test is in (the corrections then applied). Skipped tests on the way are recorded.
    pub fn permanova_next(&mut self) -> Result<JsValue, JsValue> {
        let h = self.0.permanova_next().map_err(failed)?;
        let out = to_js(&h)?;
        let values = js_sys::Float64Array::from(&h.values[..]);
        js_sys::Reflect::set(&out, &"values".into(), &values).map_err(|_| failed("the handout is not an object"))?;
        Ok(out)
    }

    /// The handed-out test's report from the pool (`PermanovaRun.result()`); returns
    /// {done, total} in tests. A report that is not the test's cancels the run.
    pub fn permanova_take(&mut self, result: JsValue) -> Result<JsValue, JsValue> {
        let o: crate::crosslingual::session::Outcome = from_js("permanova result", result)?;
        to_js(&self.0.permanova_take(o).map_err(failed)?)
    }

    pub fn permanova_cancel(&mut self) {
        self.0.permanova_cancel();
    }

    /// csv, jsonl, json or embeddings (JSONL).
    pub fn export(&self, format: &str) -> Result<String, JsValue> {
        self.0.export(format).map_err(failed)
    }

    /// The cases of a provider run, `request` {languages, modes}: pending records for the
    /// run engine. The run's records come back through `load_records`.
    pub fn run_cases(&self, request: JsValue) -> Result<JsValue, JsValue> {
        let r: crate::crosslingual::session::CasesRequest = from_js("cases request", request)?;
        to_js(&self.0.run_cases(&r).map_err(failed)?)
    }

    /// The same cases as a JSONL record file: the Run tab's cases file.
    pub fn run_cases_jsonl(&self, request: JsValue) -> Result<String, JsValue> {
        let r: crate::crosslingual::session::CasesRequest = from_js("cases request", request)?;
        Ok(formats::write(&self.0.run_cases(&r).map_err(failed)?, FileFormat::Jsonl))
    }

    /// The responses to embed, [{id, text}], for an embedding run.
    pub fn embed_items(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.embed_items().map_err(failed)?)
    }

    /// `batch` {model, ids, vectors}: an embedding call's vectors (ids from its record's
    /// prompt, in order); returns how many records got a vector.
    pub fn add_embeddings(&mut self, batch: JsValue) -> Result<usize, JsValue> {
        let b: crate::crosslingual::runs::EmbeddingBatch = from_js("embedding batch", batch)?;
        self.0.add_embeddings(&b).map_err(failed)
    }

    pub fn clear_embeddings(&mut self) {
        self.0.clear_embeddings();
    }

    /// The texts to embed as JSONL {"id", "text"} (the Run tab's embedding input); `all`: every
    /// answered response, not only those without a vector.
    pub fn embed_texts(&self, all: Option<bool>) -> Result<String, JsValue> {
        self.0.embed_texts_jsonl(all.unwrap_or(false)).map_err(failed)
    }

    /// `batch` {model, ids, vectors}: an embedding run's vectors in place of any earlier ones,
    /// the model recorded; all or nothing. Returns how many records got a vector.
    pub fn use_embedding_run(&mut self, batch: JsValue) -> Result<usize, JsValue> {
        let b: crate::crosslingual::runs::EmbeddingBatch = from_js("embedding batch", batch)?;
        self.0.replace_embeddings(&b).map_err(failed)
    }

    /// The answers for the NLI refusal detector, [{id, text, language}], once per record id. The
    /// model runs in the page's models worker (www/models.js), not in this module.
    pub fn nli_items(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.nli_items().map_err(failed)?)
    }

    /// `batch` {model, rule, ids, p_refuse}: the NLI detector's P(refuse) per record id into the
    /// records' nli_p_refuse, nli_rule and nli_model columns; all or nothing. Returns how many
    /// records got a probability.
    pub fn add_nli(&mut self, batch: JsValue) -> Result<usize, JsValue> {
        let b: crate::crosslingual::nli::NliBatch = from_js("NLI batch", batch)?;
        self.0.add_nli(&b).map_err(failed)
    }

    /// The judge's cases as a JSONL cases file for the Run tab.
    pub fn judge_cases_jsonl(&self) -> Result<String, JsValue> {
        let cases = self.0.judge_cases().map_err(failed)?;
        Ok(formats::write(&cases, FileFormat::Jsonl))
    }

    /// A distance matrix between the loaded records (CSV: corner cell and ids, then one row per
    /// id); PERMANOVA uses it with `matrix: true`. Returns {file, ids, records_matched,
    /// records_without}; errors name the line and column.
    pub fn load_distances(&mut self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.0.load_distances(name, bytes).map_err(failed)?)
    }

    /// The uploaded distance matrix's summary, or null.
    pub fn distances(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.distances())
    }

    /// The LLM judge's cases: one pending record per answered response.
    pub fn judge_cases(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.judge_cases().map_err(failed)?)
    }

    /// A judge run's records (CSV, JSONL or JSON): the replies become judge verdicts.
    pub fn load_judge(&mut self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.0.load_judge(name, bytes).map_err(failed)?)
    }

    /// Labels one answer by hand: "refusal", "answer", or "" to remove its label.
    pub fn set_label(&mut self, record_id: &str, label: &str) -> Result<JsValue, JsValue> {
        let l = crate::trust::labels::parse(label)
            .map_err(|e| failed(crate::crosslingual::session::SessionError::Invalid(format!("label: {e}"))))?;
        to_js(&self.0.set_label(record_id, l).map_err(failed)?)
    }

    /// The hand labels as CSV (record_id, label, language, model).
    pub fn labels_csv(&self) -> String {
        self.0.labels_csv()
    }

    /// Reads a labels CSV; on an error (naming line and field) the labels held stay as they were.
    pub fn import_labels(&mut self, name: &str, text: &str) -> Result<JsValue, JsValue> {
        to_js(&self.0.import_labels(name, text).map_err(failed)?)
    }
}

impl Default for CrosslingualSession {
    fn default() -> Self {
        Self::new()
    }
}
