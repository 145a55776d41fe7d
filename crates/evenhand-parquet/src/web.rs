//! The second wasm module's facade (www/pkg-parquet/): the page fetches it only when a
//! Parquet file is picked or a Parquet export is asked for. Errors are messages, never traps.

use wasm_bindgen::prelude::*;

/// A Parquet file's rows as JSON Lines text, for the page's usual readers.
#[wasm_bindgen]
pub fn parquet_to_jsonl(file: &str, bytes: &[u8]) -> Result<String, JsError> {
    crate::to_jsonl(bytes).map(|t| t.jsonl).map_err(|e| JsError::new(&format!("{file}: {e}")))
}

/// JSON Lines text (what the page exports) as a Parquet file.
#[wasm_bindgen]
pub fn jsonl_to_parquet(file: &str, text: &str) -> Result<Vec<u8>, JsError> {
    crate::from_jsonl(text).map_err(|e| JsError::new(&format!("{file}: {e}")))
}
