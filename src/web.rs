//! The wasm facade: the only module that touches JavaScript. Each export converts serde
//! values in and out and calls the core; errors come back as `{message, kind, detail}`
//! objects, never as traps.

use crate::demo::Experiment;
use crate::demo::analysis::Settings;
use crate::demo::workspace::{RowQuery, Workspace as Core};
use crate::formats::ColumnMapping;
use crate::stats::power::{self, PowerQuery};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
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

/// An error object for JavaScript: a readable message plus the structured detail.
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

#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_string()
}

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
    let points = power::power(&q).map_err(failed)?;
    #[derive(Serialize)]
    struct Out {
        chart_svg: String,
        points: Vec<power::PowerPoint>,
    }
    to_js(&Out { chart_svg: power_svg(&q, &points), points })
}

/// The chart of points computed earlier, one size at a time.
#[wasm_bindgen]
pub fn power_chart(query: JsValue, points: JsValue) -> Result<String, JsValue> {
    let q: PowerQuery = from_js("power query", query)?;
    #[derive(serde::Deserialize)]
    struct Points(Vec<power::PowerPoint>);
    let json: serde_json::Value =
        serde_wasm_bindgen::from_value(points).map_err(|e| fail("input", &format!("points: {e}"), &()))?;
    let Points(points) = serde_json::from_value(json).map_err(|e| fail("input", &format!("points: {e}"), &()))?;
    Ok(power_svg(&q, &points))
}

fn power_svg(q: &PowerQuery, points: &[power::PowerPoint]) -> String {
    let caption = format!(
        "Power to tell {:.0}% from {:.0}% biased answers (α = {})",
        q.rate_a * 100.0,
        q.rate_b * 100.0,
        q.alpha
    );
    crate::demo::chart::power_curve(points, &caption)
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
        let q: RowQuery =
            if query.is_null() || query.is_undefined() { RowQuery::default() } else { from_js("row query", query)? };
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
            crate::demo::workspace::Source::Simulated { experiment } => to_js(experiment),
            _ => Ok(JsValue::NULL),
        }
    }
}

impl Default for Workspace {
    fn default() -> Self {
        Self::new()
    }
}

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

    /// Evenhand's own BBQ-style set in the given languages (all when empty).
    pub fn use_builtin(&mut self, seed: u32, languages: Vec<String>) -> Result<JsValue, JsValue> {
        let langs: Vec<&str> = languages.iter().map(String::as_str).collect();
        to_js(&self.0.use_builtin(u64::from(seed), &langs))
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

    pub fn set_bootstrap(&mut self, settings: JsValue) -> Result<(), JsValue> {
        let s: crate::bbq::metrics::BootstrapSettings = from_js("bootstrap settings", settings)?;
        self.0.set_bootstrap(s).map_err(failed)
    }

    pub fn view(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.view())
    }

    /// `query` may be null for the first page.
    pub fn rows(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let q: crate::bbq::session::RowQuery =
            if query.is_null() || query.is_undefined() { Default::default() } else { from_js("row query", query)? };
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

/// One open cultural-divergence analysis; the page's worker holds one.
#[wasm_bindgen]
pub struct DivergenceSession(crate::divergence::session::Session);

#[wasm_bindgen]
impl DivergenceSession {
    #[wasm_bindgen(constructor)]
    pub fn new() -> DivergenceSession {
        DivergenceSession(Default::default())
    }

    /// The ids of the built-in probe sets.
    pub fn builtin_probe_sets() -> Vec<String> {
        crate::divergence::builtin::PROBE_SETS.iter().map(|p| p.0.to_string()).collect()
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
        let columns: Option<crate::divergence::reference::Columns> =
            if columns.is_null() || columns.is_undefined() { None } else { Some(from_js("columns", columns)?) };
        to_js(&self.0.add_reference(culture, aspect, name, bytes, shape.as_deref(), columns.as_ref()).map_err(failed)?)
    }

    pub fn clear_references(&mut self) {
        self.0.clear_references();
    }

    pub fn load_logprobs(&mut self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.0.load_logprobs(name, bytes).map_err(failed)?)
    }

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
    /// array of records for the run engine; its records come back through `load_run_records`.
    pub fn run_cases(&self, mode: &str) -> Result<String, JsValue> {
        let mode = crate::divergence::runs::Mode::parse(mode).map_err(failed)?;
        let cases = self.0.run_cases(mode).map_err(failed)?;
        Ok(crate::formats::write(&cases, crate::formats::FileFormat::Json))
    }

    /// A run's records (JSON, JSONL or CSV) as the model data: scoring records become the
    /// log-probability table, sampling records the samples; `calls` in the summary counts the
    /// failed, pending and incomplete ones.
    pub fn load_run_records(&mut self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.0.load_records(name, bytes).map_err(failed)?)
    }

    /// The model data (log-probability table or records) as CSV.
    pub fn data_csv(&self) -> Result<String, JsValue> {
        self.0.data_csv().map_err(failed)
    }

    /// The last results as CSV or JSON.
    pub fn export(&self, format: &str) -> Result<String, JsValue> {
        let a = self.0.last().ok_or_else(|| fail("input", "nothing has been analyzed yet", &()))?;
        match format {
            "csv" => Ok(crate::divergence::export::results_csv(a)),
            "json" => serde_json::to_string_pretty(a).map_err(|e| fail("output", &e.to_string(), &())),
            other => Err(fail("input", &format!("format: expected csv or json, found {other:?}"), &())),
        }
    }
}

impl Default for DivergenceSession {
    fn default() -> Self {
        Self::new()
    }
}
/// A PERMANOVA query from the page. The numbers travel separately as a Float64Array (taken
/// as a Vec, so the copy wasm-bindgen makes is the only one):
/// vectors row-major with `dim` values each, or (with `matrix: true`) a square distance
/// matrix row-major.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PermanovaQuery {
    groups: Vec<String>,
    #[serde(default)]
    dim: Option<usize>,
    #[serde(default)]
    matrix: bool,
    #[serde(default)]
    distance: crate::stats::distance::Distance,
    #[serde(default)]
    permutations: Option<usize>,
    #[serde(default)]
    seed: Option<u64>,
}

fn permanova_job(query: JsValue, values: Vec<f64>) -> Result<crate::stats::permanova::PermanovaJob, JsValue> {
    use crate::stats::distance::DistanceMatrix;
    use crate::stats::multivariate::{MultivariateError, Vectors};
    use crate::stats::permanova::{Input, Options, PermanovaJob};
    let q: PermanovaQuery = from_js("permanova query", query)?;
    let defaults = Options::default();
    let options = Options {
        permutations: q.permutations.unwrap_or(defaults.permutations),
        seed: q.seed.unwrap_or(defaults.seed),
    };
    if q.matrix {
        let n = q.groups.len();
        if n.checked_mul(n) != Some(values.len()) {
            let found = values.len();
            return Err(failed(MultivariateError::NotSquare { row: 0, found, n }));
        }
        let rows: Vec<&[f64]> = if n == 0 { vec![] } else { values.chunks(n).collect() };
        let dm = DistanceMatrix::from_square(&rows).map_err(failed)?;
        PermanovaJob::new(Input::Matrix(&dm), &q.groups, options).map_err(failed)
    } else {
        let dim = q.dim.ok_or_else(|| fail("input", "permanova query: expected dim (values per vector)", &()))?;
        let v = Vectors::from_flat(dim, values).map_err(failed)?;
        PermanovaJob::new(Input::Vectors(&v, q.distance), &q.groups, options).map_err(failed)
    }
}

/// PERMANOVA with PERMDISP in one call (the report of `stats::permanova`).
#[wasm_bindgen]
pub fn permanova(query: JsValue, values: Vec<f64>) -> Result<JsValue, JsValue> {
    let mut job = permanova_job(query, values)?;
    job.advance(usize::MAX);
    to_js(&job.result().map_err(failed)?)
}

/// The same computation a chunk at a time, for a progress bar and a cancel button in the
/// worker; chunking does not change a single bit of the result.
#[wasm_bindgen]
pub struct PermanovaRun(crate::stats::permanova::PermanovaJob);

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

/// A 2-D PCA of vectors (row-major, `dim` values each): {points, explained, iterations}.
#[wasm_bindgen]
pub fn pca_2d(dim: u32, values: Vec<f64>) -> Result<JsValue, JsValue> {
    let v = crate::stats::multivariate::Vectors::from_flat(dim as usize, values).map_err(failed)?;
    to_js(&crate::stats::pca::pca_2d(&v).map_err(failed)?)
}

/// One open cross-lingual analysis (MSQAD method); the page's worker holds one.
#[wasm_bindgen]
pub struct XlingSession(crate::crosslingual::session::Session);

#[wasm_bindgen]
impl XlingSession {
    #[wasm_bindgen(constructor)]
    pub fn new() -> XlingSession {
        XlingSession(Default::default())
    }

    pub fn use_builtin(&mut self) -> Result<JsValue, JsValue> {
        to_js(&self.0.use_builtin().map_err(failed)?)
    }

    /// An evenhand-questions or MSQAD JSON file.
    pub fn load_questions(&mut self, name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        to_js(&self.0.load_questions(name, bytes).map_err(failed)?)
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

    /// The judge's cases as a JSONL cases file for the Run tab.
    pub fn judge_cases_jsonl(&self) -> Result<String, JsValue> {
        let cases = self.0.judge_cases().map_err(failed)?;
        Ok(crate::formats::write(&cases, crate::formats::FileFormat::Jsonl))
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
}

impl Default for XlingSession {
    fn default() -> Self {
        Self::new()
    }
}

// ---- The batch route (Upload tab): a run too large for a tab, as a provider batch file. ----

/// A batch file to download: {file_name, mime, text, requests, warnings, first_ids}, with the
/// first few custom_id / record_id pairs to show (the file holds them all).
#[wasm_bindgen]
pub fn batch_export(settings: JsValue, cases_name: &str, cases_bytes: &[u8]) -> Result<JsValue, JsValue> {
    use crate::run::batch_plan::{BatchSettings, IdPair, prepare};
    let s: BatchSettings = from_js("batch settings", settings)?;
    let export = prepare(&s, cases_name, cases_bytes).and_then(|p| p.export()).map_err(failed)?;
    #[derive(Serialize)]
    struct Out {
        file_name: String,
        mime: &'static str,
        text: String,
        requests: usize,
        warnings: Vec<String>,
        first_ids: Vec<IdPair>,
    }
    let first_ids = export.ids.into_iter().take(5).collect();
    let out = Out {
        file_name: export.file_name,
        mime: export.mime,
        text: export.text,
        requests: export.requests,
        warnings: export.warnings,
        first_ids,
    };
    to_js(&out)
}

#[wasm_bindgen]
impl Workspace {
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
        use crate::run::batch_plan::{BatchSettings, prepare};
        let s: BatchSettings = from_js("batch settings", settings)?;
        let imported = prepare(&s, cases_name, cases_bytes)
            .and_then(|p| p.import(results_name, results_bytes, js_sys::Date::now() as i64))
            .map_err(failed)?;
        // Through the record-file reader, so batch records load exactly as a downloaded file would.
        let jsonl = crate::formats::write(&imported.records, crate::formats::FileFormat::Jsonl);
        let load = self.0.load(results_name, jsonl.as_bytes(), None).map_err(failed)?;
        #[derive(Serialize)]
        struct Out {
            report: crate::run::batch_plan::ImportReport,
            load: crate::demo::workspace::LoadSummary,
        }
        to_js(&Out { report: imported.report, load })
    }
}

// ---- LangBiTe-style requirements: oracles, statistics and reports over a run's records. ----

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LangbiteQuery {
    /// Upstream's verdicts only (LangBiTe compatibility mode).
    #[serde(default)]
    compat: bool,
    #[serde(default = "one_u64")]
    seed: u64,
    #[serde(default)]
    confidence: crate::stats::confidence::Confidence,
    /// Return every export file (LangBiTe's three CSVs and ours) with the summary.
    #[serde(default)]
    files: bool,
    /// LangBiTe's file-name timestamp, YYYYmmddHHMMSS (the page passes the current time).
    #[serde(default)]
    timestamp: String,
    /// Add the results' fingerprint and the time spent reading and evaluating (benchmarks).
    #[serde(default)]
    sample: bool,
}

fn one_u64() -> u64 {
    1
}

/// Judges a run's records against a LangBiTe scenario: template verdicts, group statistics,
/// community tests and, with `files`, every export as [name, text] pairs.
#[wasm_bindgen]
pub fn langbite_evaluate(
    scenario: &str,
    records_name: &str,
    records_bytes: &[u8],
    query: JsValue,
) -> Result<JsValue, JsValue> {
    use crate::requirements::summary::{self, Mode};
    let q: LangbiteQuery = from_js("evaluation settings", query)?;
    let parsed = crate::requirements::scenario::parse("scenario", scenario)
        .map_err(|e| fail("scenario", &e.to_string(), &()))?;
    let started = js_sys::Date::now();
    let loaded = crate::formats::load(records_name, records_bytes, None).map_err(failed)?;
    let read_ms = js_sys::Date::now();
    let mode = if q.compat { Mode::Langbite } else { Mode::Default };
    let s = summary::evaluate(&parsed.scenario, &loaded.records, mode, q.seed, q.confidence);
    let done_ms = js_sys::Date::now();
    let files = if q.files {
        let provenance = serde_json::json!({"records": {"file": records_name, "unreadable_rows": loaded.errors.len()}});
        summary::files(&s, &loaded.records, &q.timestamp, &provenance)
    } else {
        vec![]
    };
    #[derive(Serialize)]
    struct Out<'a> {
        records: usize,
        unreadable_rows: usize,
        templates: [usize; 3],
        global: &'a [crate::requirements::evaluate::GlobalRow],
        groups: &'a [crate::requirements::outcome::GroupStats],
        communities: &'a Option<crate::requirements::community::Communities>,
        problems: &'a [crate::formats::Problem],
        files: Vec<(String, String)>,
        sample: Option<Vec<f64>>,
        timing: Option<serde_json::Value>,
    }
    let count = |v: &str| s.templates.iter().filter(|t| t.verdict.as_str() == v).count();
    to_js(&Out {
        records: loaded.records.len(),
        unreadable_rows: loaded.errors.len(),
        templates: [count("Passed"), count("Failed"), count("Error")],
        global: &s.global,
        groups: &s.groups,
        communities: &s.communities,
        problems: &s.problems,
        files,
        sample: q.sample.then(|| s.fingerprint()),
        timing: q.sample.then(|| {
            serde_json::json!({"load_seconds": (read_ms - started) / 1e3, "evaluate_seconds": (done_ms - read_ms) / 1e3})
        }),
    })
}

mod run;
pub use run::{RunSession, builtin_prices, models_request, network_failure_advice, parse_model_list, provider_specs};

/// A JSON array of records as a JSONL record file (the form the Run tab reads as cases): how
/// the Cross-lingual and Divergence tabs hand their provider cases to a run.
#[wasm_bindgen]
pub fn records_to_jsonl(records_json: &str) -> Result<String, JsValue> {
    let records: Vec<crate::record::Record> = serde_json::from_str(records_json)
        .map_err(|e| fail("records", &format!("expected a JSON array of records: {e}"), &()))?;
    Ok(crate::formats::write(&records, crate::formats::FileFormat::Jsonl))
}

mod requirements;
pub use requirements::ReqSession;
