//! The wasm facade: the only module that touches JavaScript. One file per page view, each
//! holding that view's wasm class (matching www/views/*); every export converts serde values
//! in and out and calls the core. Errors come back as `{message, kind, detail}` objects,
//! never as traps.
//!
//! - [`demo`]: the Design, Results, Upload and Share views' [`Workspace`], with the power curve
//!   and the batch route's download;
//! - [`bbq`]: the Benchmarks view's [`BbqSession`];
//! - [`crosslingual`]: the Cross-lingual view's [`CrosslingualSession`];
//! - [`divergence`]: the Divergence view's [`DivergenceSession`];
//! - `permanova`: [`PermanovaRun`], one PERMANOVA job for the page's pool of workers
//!   (www/permanova-pool.js), which the Cross-lingual view runs its tests through;
//! - [`logs`]: the harness logs the Upload view takes ([`HarnessLogs`]);
//! - [`requirements`]: the Requirements view's [`RequirementsSession`];
//! - [`run`]: the Run view's [`RunSession`] and provider facts;
//! - [`study`]: the study flow's [`StudySession`] (home screen, guided flow, report);
//!
//! All but [`demo`] need the `tools` feature (on by default): the page's first-load module is
//! built without it (build.sh), the full module with it.

use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

#[cfg(feature = "tools")]
mod bbq;
#[cfg(feature = "tools")]
mod crosslingual;
mod demo;
#[cfg(feature = "tools")]
mod divergence;
#[cfg(feature = "tools")]
mod fetch;
#[cfg(feature = "tools")]
mod logs;
#[cfg(feature = "tools")]
mod permanova;
#[cfg(feature = "tools")]
mod requirements;
#[cfg(feature = "tools")]
mod run;
#[cfg(feature = "tools")]
mod study;

#[cfg(feature = "tools")]
pub use bbq::BbqSession;
#[cfg(feature = "tools")]
pub use crosslingual::CrosslingualSession;
pub use demo::{Workspace, batch_export, default_experiment, group_fields, power_chart, power_curve, record_fields};
#[cfg(feature = "tools")]
pub use divergence::DivergenceSession;
#[cfg(feature = "tools")]
pub use logs::{HarnessLogs, harness_log_kind};
#[cfg(feature = "tools")]
pub use permanova::PermanovaRun;
#[cfg(feature = "tools")]
pub use requirements::RequirementsSession;
#[cfg(feature = "tools")]
pub use run::{
    RunSession, builtin_prices, models_request, network_failure_advice, parse_model_list, provider_specs, record_to_js,
};
#[cfg(feature = "tools")]
pub use study::StudySession;

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_string()
}

/// The built-in datasets the tools read, by path under the page's data/ (src/builtin.rs). In the
/// first-load module too, so the worker can fetch them while the full module compiles.
#[wasm_bindgen]
pub fn builtin_files() -> Vec<String> {
    crate::builtin::FILES.iter().map(|f| f.to_string()).collect()
}

/// Hands over a built-in dataset the worker fetched from data/`path`.
#[cfg(feature = "tools")]
#[wasm_bindgen]
pub fn install_builtin(path: &str, text: String) -> Result<(), JsValue> {
    crate::builtin::install(path, text).map_err(failed)
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| fail("output", &e.to_string(), &()))
}

fn from_js<T: DeserializeOwned>(what: &str, value: JsValue) -> Result<T, JsValue> {
    // serde would also build a struct from an array, by position; the page never means that.
    if js_sys::Array::is_array(&value) {
        return Err(fail("input", &format!("{what}: expected an object, found an array"), &()));
    }
    // JSON has no Infinity or NaN; serde_json would quietly turn them into null.
    if value.as_f64().is_some_and(|x| !x.is_finite()) {
        return Err(fail("input", &format!("{what}: expected an object, found {value:?}"), &()));
    }
    // Through serde_json, because serde_wasm_bindgen reads only the fields a struct knows and
    // so would let a misspelt field pass silently; serde_json also names the field at fault.
    let json: serde_json::Value =
        serde_wasm_bindgen::from_value(value).map_err(|e| fail("input", &format!("{what}: {e}"), &()))?;
    serde_json::from_value(json).map_err(|e| fail("input", &format!("{what}: {e}"), &()))
}

/// Like [`from_js`], with JavaScript's null and undefined read as the default (a first page,
/// no columns).
fn from_js_or_default<T: DeserializeOwned + Default>(what: &str, value: JsValue) -> Result<T, JsValue> {
    if value.is_null() || value.is_undefined() { Ok(T::default()) } else { from_js(what, value) }
}

/// An error object for JavaScript: a readable message plus the structured detail.
/// Files handed over as two arrays (wasm-bindgen takes no tuples): `names[i]` names `files[i]`.
#[cfg(feature = "tools")]
fn named_files(names: Vec<String>, files: Vec<js_sys::Uint8Array>) -> Vec<(String, Vec<u8>)> {
    names.into_iter().zip(files.iter().map(js_sys::Uint8Array::to_vec)).collect()
}

fn fail<D: Serialize + ?Sized>(kind: &str, message: &str, detail: &D) -> JsValue {
    #[derive(Serialize)]
    struct Failure<'a, D: Serialize + ?Sized> {
        kind: &'a str,
        message: &'a str,
        detail: &'a D,
    }
    to_js(&Failure { kind, message, detail }).unwrap_or_else(|_| JsValue::from_str(message))
}

fn failed<E: Serialize + std::fmt::Display>(e: E) -> JsValue {
    fail("error", &e.to_string(), &e)
}
