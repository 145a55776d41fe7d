//! The facade of the harness logs the Upload view takes (lm-evaluation-harness, Inspect,
//! promptfoo): one [`HarnessLogs`] holding the files dropped so far, read together (an lm-eval
//! samples file pairs with its results file whichever comes first). A file that is refused
//! leaves the others as they were.

use super::{failed, from_js_or_default, to_js};
use crate::logs;
use crate::study::format::Statistics;
use wasm_bindgen::prelude::*;

/// What kind of harness log these bytes are ("lm_eval_samples", "inspect_eval", ...), or
/// undefined when they are none (a record table, a data set).
#[wasm_bindgen]
pub fn harness_log_kind(bytes: &[u8]) -> Option<String> {
    logs::detect(bytes)
        .map(|k| serde_json::to_value(k).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default())
}

#[wasm_bindgen]
#[derive(Default)]
pub struct HarnessLogs {
    files: Vec<(String, Vec<u8>)>,
    logs: Vec<logs::Log>,
}

#[wasm_bindgen]
impl HarnessLogs {
    #[wasm_bindgen(constructor)]
    pub fn new() -> HarnessLogs {
        HarnessLogs::default()
    }

    /// Adds a file (a file of the same name is replaced) and reads them all again: the summary
    /// of every log, or the error of the file at fault, the files held before kept.
    pub fn add(&mut self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        let mut files: Vec<(String, Vec<u8>)> = self.files.iter().filter(|(n, _)| n != name).cloned().collect();
        files.push((name.to_string(), bytes.to_vec()));
        let pending_results = files.iter().all(|(_, b)| logs::detect(b) == Some(logs::Kind::LmEvalResults));
        if pending_results {
            // A results file waits for its samples file.
            self.files = files;
            return to_js(&Vec::<crate::study::logs::LogSummary>::new());
        }
        let read = logs::read_all(&files).map_err(failed)?;
        self.files = files;
        self.logs = read;
        self.summary()
    }

    pub fn clear(&mut self) {
        self.files.clear();
        self.logs.clear();
    }

    pub fn summary(&self) -> Result<JsValue, JsValue> {
        to_js(&self.logs.iter().map(crate::study::logs::summary).collect::<Vec<_>>())
    }

    /// Every sample as a record table (JSON Lines), for the workspace and the downloads.
    pub fn records_jsonl(&self) -> String {
        let (records, _) = crate::study::logs::records(&self.logs);
        crate::formats::write(&records, crate::formats::FileFormat::Jsonl)
    }

    /// One page of the item table of the BBQ samples of two or more models (the study the logs
    /// make, as `analysis` builds it): `query` as the study's `items`.
    pub fn items(&self, query: JsValue, statistics: JsValue) -> Result<JsValue, JsValue> {
        let q: crate::study::items::Query = super::from_js_or_default("query", query)?;
        let st: Statistics = from_js_or_default("statistics", statistics)?;
        let (_, rebuilt) = crate::study::logs::records(&self.logs);
        let all = crate::study::items::all(&crate::study::logs::study(&rebuilt, &st)).map_err(failed)?;
        to_js(&crate::study::items::select(&all, &q))
    }

    /// The analysis (`study::logs::Analysis`); `statistics` is null or a study's statistics
    /// object. `generated_at` is written into the study report as given.
    pub fn analysis(&self, statistics: JsValue, generated_at: &str) -> Result<JsValue, JsValue> {
        let st: Statistics = from_js_or_default("statistics", statistics)?;
        to_js(&crate::study::logs::analyse(&self.logs, &st, generated_at).map_err(failed)?)
    }
}
