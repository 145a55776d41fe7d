//! The facade of the demo method's views (Design, Results, Upload and its batch route, Share):
//! one [`Workspace`] over [`crate::demo::workspace::Workspace`], the power curve, and the
//! record table's facts the column-mapping step shows.

use super::{fail, failed, from_js, from_js_or_default, to_js};
use crate::demo::Experiment;
use crate::demo::analysis::Settings;
use crate::demo::chart::{power_figure, power_with_chart};
use crate::demo::workspace::{RowQuery, Source, Workspace as Core};
use crate::formats::ColumnMapping;
use crate::run::batch_plan::{self, BatchSettings};
use crate::stats::power::{PowerPoint, PowerQuery};
use wasm_bindgen::prelude::*;

/// The record table's columns, for the column-mapping step and the docs.
#[wasm_bindgen]
pub fn record_fields() -> Result<JsValue, JsValue> {
    to_js(&crate::record::FIELDS)
}

#[wasm_bindgen]
pub fn default_experiment() -> Result<JsValue, JsValue> {
    to_js(&Experiment::default())
}

#[wasm_bindgen]
pub fn group_fields() -> Result<JsValue, JsValue> {
    to_js(&crate::demo::analysis::GROUP_FIELDS)
}

/// Power by simulation, with its chart: {points, chart_svg}. Each size draws from its own
/// seeded stream, so the page may ask for one size at a time (for progress and cancel) and
/// get the same points.
#[wasm_bindgen]
pub fn power_curve(query: JsValue) -> Result<JsValue, JsValue> {
    let q: PowerQuery = from_js("power query", query)?;
    to_js(&power_with_chart(&q).map_err(failed)?)
}

/// The chart of points computed earlier, one size at a time.
#[wasm_bindgen]
pub fn power_chart(query: JsValue, points: JsValue) -> Result<String, JsValue> {
    let q: PowerQuery = from_js("power query", query)?;
    // An array, which `from_js` refuses for the objects it expects.
    let json: serde_json::Value =
        serde_wasm_bindgen::from_value(points).map_err(|e| fail("input", &format!("points: {e}"), &()))?;
    let points: Vec<PowerPoint> =
        serde_json::from_value(json).map_err(|e| fail("input", &format!("points: {e}"), &()))?;
    Ok(power_figure(&q, &points))
}

/// The batch route's download (Upload view): {file_name, mime, text, requests, warnings,
/// first_ids}. Its results come back through [`Workspace::batch_import`].
#[wasm_bindgen]
pub fn batch_export(settings: JsValue, cases_name: &str, cases_bytes: &[u8]) -> Result<JsValue, JsValue> {
    let s: BatchSettings = from_js("batch settings", settings)?;
    to_js(&batch_plan::download(&s, cases_name, cases_bytes).map_err(failed)?)
}

/// One open analysis; the page's worker holds one.
#[wasm_bindgen]
pub struct Workspace(Core);

#[wasm_bindgen]
impl Workspace {
    /// Opens on the built-in demo.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Workspace {
        Workspace(Core::demo())
    }

    pub fn run(&mut self, experiment: JsValue) -> Result<usize, JsValue> {
        let e: Experiment = from_js("experiment", experiment)?;
        self.0.run(e).map_err(failed)
    }

    /// `mapping` is null, or {record field: file column}.
    pub fn load(&mut self, name: &str, bytes: &[u8], mapping: JsValue) -> Result<JsValue, JsValue> {
        let mapping: Option<ColumnMapping> = from_js("mapping", mapping)?;
        to_js(&self.0.load(name, bytes, mapping.as_ref()).map_err(failed)?)
    }

    pub fn set_settings(&mut self, settings: JsValue) -> Result<(), JsValue> {
        let s: Settings = from_js("settings", settings)?;
        self.0.set_settings(s).map_err(failed)
    }

    pub fn settings(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.settings)
    }

    pub fn view(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.view().map_err(failed)?)
    }

    /// `query` may be null for the first page of all records.
    pub fn rows(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let q: RowQuery = from_js_or_default("row query", query)?;
        to_js(&self.0.rows(&q))
    }

    pub fn export(&self, format: &str) -> Result<String, JsValue> {
        self.0.export(format).map_err(failed)
    }

    pub fn bundle(&self) -> Result<String, JsValue> {
        self.0.bundle().map_err(failed)
    }

    /// `records_name` and `records_bytes` carry the records fetched from the bundle's URL, if any.
    pub fn open_bundle(
        &mut self,
        name: &str,
        text: &str,
        records_name: Option<String>,
        records_bytes: Option<Vec<u8>>,
    ) -> Result<JsValue, JsValue> {
        let fetched = match (&records_name, &records_bytes) {
            (Some(n), Some(b)) => Some((n.as_str(), b.as_slice())),
            _ => None,
        };
        to_js(&self.0.open_bundle(name, text, fetched).map_err(failed)?)
    }

    /// The records URL a bundle points to, when it does not carry its records.
    pub fn bundle_records_url(text: &str) -> Option<String> {
        crate::demo::bundle::parse("bundle", text).ok().filter(|b| b.records.is_none()).and_then(|b| b.records_url)
    }

    pub fn share_fragment(&self) -> Result<String, JsValue> {
        self.0.share_fragment().map_err(failed)
    }

    pub fn open_share(&mut self, fragment: &str) -> Result<usize, JsValue> {
        self.0.open_share(fragment).map_err(failed)
    }

    pub fn experiment(&self) -> Result<JsValue, JsValue> {
        match &self.0.source {
            Source::Simulated { experiment } => to_js(experiment),
            _ => Ok(JsValue::NULL),
        }
    }

    /// Reads a provider's batch results file against the plan of `settings` and the cases file,
    /// and makes its records the workspace's (every planned call: answered, failed, or pending
    /// when the file lacks it). Returns {report, load}; on an error nothing changes.
    pub fn batch_import(
        &mut self,
        settings: JsValue,
        cases_name: &str,
        cases_bytes: &[u8],
        results_name: &str,
        results_bytes: &[u8],
    ) -> Result<JsValue, JsValue> {
        let s: BatchSettings = from_js("batch settings", settings)?;
        let imported = batch_plan::prepare(&s, cases_name, cases_bytes)
            .and_then(|p| p.import(results_name, results_bytes, js_sys::Date::now() as i64))
            .map_err(failed)?;
        to_js(&self.0.load_batch(results_name, imported).map_err(failed)?)
    }
}

impl Default for Workspace {
    fn default() -> Self {
        Self::new()
    }
}
