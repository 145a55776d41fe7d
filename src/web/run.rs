//! The facade of runs against LLM providers: a [`RunSession`] over the run engine for the
//! page's run worker, and the provider facts the Run tab shows (specs, model lists, the
//! advice for a refused call). [`RunSession::drive`] runs the same driver loop as the CLI
//! ([`crate::run::driver`]) with fetch as its transport (`super::fetch`), so the page and the
//! CLI send, retry, wait and store alike; the worker keeps only the IndexedDB store and the
//! messages to the page.
//!
//! Storage stays in JavaScript (www/run-store.js), called back once per settled record: the
//! store is a few IndexedDB requests and their promise plumbing, which read more plainly as
//! JavaScript than through web-sys's callbacks, and the callback issues the write before the
//! driver takes its next step, which is the guarantee that matters (a failed commit, reported
//! later, pauses the run from JavaScript).

use super::fetch::{Advice, Fetch, WorkerClock};

use super::{fail, failed, from_js, to_js};
use crate::formats::{self, FileFormat};
use crate::providers::cors::fetch_failure_advice;
use crate::providers::request::{Endpoint, build_models};
use crate::providers::response::{RawResponse, parse_models};
use crate::providers::spec::ALL_KINDS;
use crate::providers::{ProviderKind, redact};
use crate::record::Record;
use crate::run::driver::{self, Overhead, Stop};
use crate::run::plan::PlanError;
use crate::run::price::PriceTable;
use crate::run::{CallResult, Completion, Engine, Plan, RunSpec, TransportError, cases};
use futures_channel::mpsc::{UnboundedSender, unbounded};
use js_sys::{Array, Reflect, Uint8Array};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// Cases files and responses above this size are refused rather than copied into memory.
const MAX_BYTES: usize = 256 << 20;

/// One run in the run worker: the plan, the queue, and the records as they come in.
///
/// The engine is shared (`Rc<RefCell>`) between the driver loop, which runs between the
/// worker's events, and the methods the worker calls (pause, progress...); neither holds a
/// borrow across an `await`, so they never overlap.
#[wasm_bindgen]
pub struct RunSession {
    engine: Rc<RefCell<Engine>>,
    overhead: Rc<RefCell<Overhead>>,
    advice: Rc<RefCell<Advice>>,
    /// Set while a driver loop runs: wakes it when a resume or a retry has work for it.
    poke: Rc<RefCell<Option<UnboundedSender<()>>>>,
}

impl RunSession {
    fn over(engine: Engine) -> RunSession {
        let endpoints = engine.plan().spec.targets.iter().map(|t| (t.id.clone(), t.endpoint())).collect();
        RunSession {
            engine: Rc::new(RefCell::new(engine)),
            overhead: Rc::default(),
            advice: Rc::new(RefCell::new(Advice::new(endpoints))),
            poke: Rc::default(),
        }
    }

    fn poke(&self) {
        if let Some(tx) = self.poke.borrow().as_ref() {
            // A closed channel means the loop has ended; the worker starts another.
            let _ = tx.unbounded_send(());
        }
    }
}

/// The page's store: the worker's callback `(record, vectors | null)`, which issues the
/// IndexedDB write and returns (it throws only if the write cannot even be started).
struct JsStore(js_sys::Function);

impl driver::Store for JsStore {
    fn store(&mut self, record: &Record, embeddings: Option<&[Vec<f64>]>) -> Result<(), String> {
        let text = |v: JsValue| {
            v.as_string().unwrap_or_else(|| js_sys::JSON::stringify(&v).map(String::from).unwrap_or_default())
        };
        let message = |v: JsValue| {
            Reflect::get(&v, &JsValue::from_str("message")).ok().and_then(|m| m.as_string()).unwrap_or_else(|| text(v))
        };
        let record = record_to_js(record).map_err(message)?;
        let vectors = match embeddings {
            Some(v) => to_js(&v).map_err(message)?,
            None => JsValue::NULL,
        };
        self.0.call2(&JsValue::NULL, &record, &vectors).map(|_| ()).map_err(message)
    }
}

/// A record as the object the store keeps: the same object [`to_js`] makes (property order,
/// null for a missing value), made by the browser's `JSON.parse` from one string instead of a
/// property set from wasm per field, which is most of a record's handover to the store.
pub fn record_to_js(record: &Record) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(record).map_err(|e| fail("output", &e.to_string(), &()))?;
    js_sys::JSON::parse(&text)
}

/// What the worker shows: the engine's progress, the advice per target, the driver's cost.
#[derive(serde::Serialize)]
struct PageProgress<'a> {
    #[serde(flatten)]
    progress: crate::run::progress::Progress,
    advice: &'a HashMap<String, String>,
    /// The driver's cost per settled call in the worker (ms), for the benchmark.
    overhead: crate::run::overhead::PerCall,
}

fn kind_of(kind: &str) -> Result<ProviderKind, JsValue> {
    serde_json::from_value(serde_json::Value::String(kind.to_string()))
        .map_err(|_| fail("input", &format!("provider {kind:?}: expected one of the listed providers"), &()))
}

fn endpoint(kind: &str, base_url: Option<String>) -> Result<Endpoint, JsValue> {
    Ok(Endpoint { kind: kind_of(kind)?, base_url: base_url.filter(|b| !b.trim().is_empty()) })
}

/// A JS array of objects, each read as a `T` (with serde_json's field names in errors).
fn list_from_js<T: serde::de::DeserializeOwned>(what: &str, value: JsValue) -> Result<Vec<T>, JsValue> {
    if !Array::is_array(&value) {
        return Err(fail("input", &format!("{what}: expected an array"), &()));
    }
    Array::from(&value).iter().enumerate().map(|(i, v)| from_js(&format!("{what}[{i}]"), v)).collect()
}

/// Response headers as `[[name, value], ...]` or a plain `{name: value}` object.
fn headers_from_js(value: JsValue) -> Vec<(String, String)> {
    if Array::is_array(&value) {
        return Array::from(&value)
            .iter()
            .filter_map(|pair| {
                let pair = Array::from(&pair);
                Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
            })
            .collect();
    }
    if !value.is_object() {
        return vec![];
    }
    js_sys::Object::entries(&value.into())
        .iter()
        .filter_map(|pair| {
            let pair = Array::from(&pair);
            Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
        })
        .collect()
}

fn field(obj: &JsValue, name: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// `{status, headers, body: Uint8Array}` or `{error: "network" | "timeout", message}`.
fn response_from_js(value: &JsValue) -> Result<Result<RawResponse, TransportError>, JsValue> {
    if !value.is_object() {
        return Err(fail("input", "response: expected {status, headers, body} or {error, message}", &()));
    }
    let error = field(value, "error");
    if let Some(kind) = error.as_string() {
        let message = field(value, "message").as_string().unwrap_or_default();
        return match kind.as_str() {
            "network" => Ok(Err(TransportError::Network(message))),
            "timeout" => Ok(Err(TransportError::Timeout)),
            other => Err(fail(
                "input",
                &format!("response.error: expected \"network\" or \"timeout\", found {other:?}"),
                &(),
            )),
        };
    }
    let status = field(value, "status").as_f64().filter(|s| s.fract() == 0.0 && (100.0..=599.0).contains(s));
    let Some(status) = status else {
        return Err(fail("input", "response.status: expected an HTTP status from 100 to 599", &()));
    };
    let body = field(value, "body");
    let body = if body.is_instance_of::<Uint8Array>() {
        let bytes = Uint8Array::from(body);
        if bytes.length() as usize > MAX_BYTES {
            return Err(fail("input", "response.body: larger than 256 MB", &()));
        }
        bytes.to_vec()
    } else if let Some(text) = body.as_string() {
        text.into_bytes()
    } else {
        return Err(fail("input", "response.body: expected a Uint8Array or a string", &()));
    };
    Ok(Ok(RawResponse { status: status as u16, headers: headers_from_js(field(value, "headers")), body }))
}

/// The spec, its ids filled in, checked with its price table, and the input's size.
fn checked_spec(spec: JsValue, name: &str, bytes: &[u8]) -> Result<RunSpec, JsValue> {
    let mut spec: RunSpec = from_js("run spec", spec)?;
    spec.fill_ids();
    spec.validate().map_err(failed)?;
    if let Some(p) = &spec.prices {
        p.check().map_err(|m| fail("input", &m, &()))?;
    }
    if bytes.len() > MAX_BYTES {
        return Err(fail("input", &format!("{name}: larger than 256 MB"), &()));
    }
    Ok(spec)
}

fn export_format(format: &str) -> Result<FileFormat, JsValue> {
    match format {
        "csv" => Ok(FileFormat::Csv),
        "jsonl" => Ok(FileFormat::Jsonl),
        "json" => Ok(FileFormat::Json),
        other => Err(fail("input", &format!("export format {other:?}: expected csv, jsonl or json"), &())),
    }
}

#[wasm_bindgen]
impl RunSession {
    /// A run of `spec` (a RunSpec object) over the cases in `bytes`: a cases file (CSV, JSONL
    /// or JSON with a prompt column) named `name`, or, with `as_records`, a record table whose
    /// records with a prompt become the cases (the Results tab's workspace).
    #[wasm_bindgen(constructor)]
    pub fn new(spec: JsValue, name: &str, bytes: &[u8], as_records: bool) -> Result<RunSession, JsValue> {
        let spec = checked_spec(spec, name, bytes)?;
        let cases = if as_records {
            let loaded = formats::load(name, bytes, None).map_err(failed)?;
            cases::from_records(&loaded.records)
        } else {
            cases::read(name, bytes).map_err(|problems| {
                let first = problems.first().map(|p| p.to_string()).unwrap_or_default();
                let more = if problems.len() > 1 {
                    format!(" (and {} more problems)", problems.len() - 1)
                } else {
                    String::new()
                };
                fail("cases", &format!("{first}{more}"), &problems)
            })?
        };
        let plan = Plan::chat(spec, &cases).map_err(|e| match e {
            // Nothing in the file was a case: say which file.
            PlanError::NoCases => fail("cases", &format!("{name}: {e}"), &e),
            e => failed(e),
        })?;
        Ok(RunSession::over(Engine::new(plan, &HashMap::new())))
    }

    /// An embedding run of `spec` over the texts in `bytes` (JSONL, one {"id", "text"} per line;
    /// see `run::embed_texts`), `batch` texts per call. Each answer's vectors come back with
    /// `complete` (field `embeddings`, in the order of the ids its record lists in `prompt`).
    pub fn embed(spec: JsValue, name: &str, bytes: &[u8], batch: u32) -> Result<RunSession, JsValue> {
        let spec = checked_spec(spec, name, bytes)?;
        let texts = crate::run::embed_texts::read(name, bytes).map_err(|p| fail("cases", &p.to_string(), &p))?;
        let plan = Plan::embed(spec, &texts, batch as usize).map_err(failed)?;
        Ok(RunSession::over(Engine::new(plan, &HashMap::new())))
    }

    /// Calls, tokens and cost per target and model, and the reasons to confirm first.
    pub fn estimate(&self) -> Result<JsValue, JsValue> {
        to_js(&self.engine.borrow().plan().estimate())
    }

    /// The spec as planned (ids filled in); it holds no key, so the worker may store it.
    pub fn spec(&self) -> Result<JsValue, JsValue> {
        to_js(&self.engine.borrow().plan().spec)
    }

    pub fn calls(&self) -> u32 {
        self.engine.borrow().plan().calls.len() as u32
    }

    /// Sets (or clears, with "") the key of target `target`; false when there is no such target.
    pub fn set_key(&mut self, target: &str, key: &str) -> bool {
        self.engine.borrow_mut().set_key(target, key)
    }

    /// Takes the records a store holds (an array of record objects); they are never sent again.
    pub fn restore(&mut self, records: JsValue) -> Result<u32, JsValue> {
        let records: Vec<Record> = list_from_js("records", records)?;
        Ok(self.engine.borrow_mut().restore(&records) as u32)
    }

    /// What [`RunSession::restore`] set aside: stored records made for another request than
    /// the plan's (a case's prompt, the model or a parameter changed since), which will be sent
    /// again. `{records, cases}`: how many, and the case ids they belong to, in plan order.
    pub fn stale(&self) -> Result<JsValue, JsValue> {
        #[derive(serde::Serialize)]
        struct Stale<'a> {
            records: usize,
            cases: Vec<&'a str>,
        }
        let engine = self.engine.borrow();
        let ids: std::collections::HashSet<&str> = engine.stale().iter().map(String::as_str).collect();
        let (mut cases, mut seen) = (vec![], std::collections::HashSet::new());
        for call in &engine.plan().calls {
            let case = call.record.case_id.as_str();
            if ids.contains(call.record.record_id.as_str()) && seen.insert(case) {
                cases.push(case);
            }
        }
        to_js(&Stale { records: ids.len(), cases })
    }

    /// The calls to send now: [{call, attempt, record_id, target, method, url, headers, body,
    /// timeout_ms}]. Headers carry the key: send them, never keep or log them.
    pub fn next(&mut self, now: f64) -> Result<JsValue, JsValue> {
        if !now.is_finite() {
            return Err(fail("input", "now: expected a finite time in milliseconds", &()));
        }
        to_js(&self.engine.borrow_mut().next(now))
    }

    /// Hands back what dispatch (`call`, `attempt`) got; returns {kind: "answered" | "retrying"
    /// | "failed" | "ignored", ...} saying what to store.
    pub fn complete(
        &mut self,
        call: u32,
        attempt: u32,
        response: JsValue,
        latency_ms: f64,
        unix_ms: f64,
        now: f64,
    ) -> Result<JsValue, JsValue> {
        if ![latency_ms, unix_ms, now].iter().all(|x| x.is_finite()) {
            return Err(fail("input", "latency_ms, unix_ms and now: expected finite numbers", &()));
        }
        let response = response_from_js(&response)?;
        let result = CallResult { response, latency_ms: latency_ms.max(0.0), unix_ms: unix_ms as i64 };
        let done: Completion = self.engine.borrow_mut().complete(call, attempt, result, now);
        to_js(&done)
    }

    /// When to ask `next` again if nothing completes first (ms; Infinity when only a completion can help).
    pub fn wake_at(&self) -> f64 {
        self.engine.borrow().wake_at()
    }

    /// Runs the driver loop (fetch, retries, waits) until nothing is in flight and nothing is
    /// scheduled: every call settled, or the run paused or cancelled. `store(record, vectors)`
    /// is called for each settled record before anything else is sent; `origin` is the page's,
    /// for the advice when calls get no HTTP answer. Resolves to null, or to the message of a
    /// store that threw (the run is then paused). While a loop runs, another call only wakes it.
    pub fn drive(&self, store: js_sys::Function, origin: String) -> js_sys::Promise {
        if self.poke.borrow().is_some() {
            self.poke();
            return js_sys::Promise::resolve(&JsValue::NULL);
        }
        let (tx, mut rx) = unbounded();
        *self.poke.borrow_mut() = Some(tx);
        self.advice.borrow_mut().origin = origin;
        let (engine, overhead, poke) = (Rc::clone(&self.engine), Rc::clone(&self.overhead), Rc::clone(&self.poke));
        let transport = Fetch::new(Rc::clone(&self.advice));
        wasm_bindgen_futures::future_to_promise(async move {
            let mut store = JsStore(store);
            let stop =
                driver::drive(&engine, &transport, &WorkerClock, &mut store, &overhead, &mut rx, f64::INFINITY).await;
            poke.borrow_mut().take();
            Ok(match stop {
                Stop::Idle => JsValue::NULL,
                Stop::StoreFailed(message) => JsValue::from_str(&message),
            })
        })
    }

    /// The progress, with `advice` (per target id, when its calls get no HTTP answer) and the
    /// driver's `overhead` per settled call.
    pub fn progress(&mut self, now: f64) -> Result<JsValue, JsValue> {
        let progress = self.engine.borrow_mut().progress(if now.is_finite() { now } else { 0.0 });
        let overhead = self.overhead.borrow().per_call();
        to_js(&PageProgress { progress, advice: &self.advice.borrow().given, overhead })
    }

    pub fn in_flight(&self) -> u32 {
        self.engine.borrow().in_flight() as u32
    }

    pub fn pause(&mut self, now: f64) {
        self.engine.borrow_mut().pause(now);
    }

    pub fn resume(&mut self) {
        self.engine.borrow_mut().resume();
        self.poke();
    }

    pub fn cancel(&mut self, now: f64) {
        self.engine.borrow_mut().cancel(now);
    }

    pub fn retry_failed(&mut self) -> u32 {
        let n = self.engine.borrow_mut().retry_failed() as u32;
        self.poke();
        n
    }

    /// Replaces the price table ({currency, rows: [{model, input_per_million, output_per_million}]}).
    pub fn set_prices(&mut self, table: JsValue) -> Result<(), JsValue> {
        let table: PriceTable = from_js("price table", table)?;
        table.check().map_err(|m| fail("input", &m, &()))?;
        self.engine.borrow_mut().set_prices(table);
        Ok(())
    }

    /// The records answered or failed so far, as a record file (csv, jsonl or json).
    pub fn export(&self, format: &str) -> Result<String, JsValue> {
        let format = export_format(format)?;
        let settled: Vec<Record> =
            self.engine.borrow().records().filter(|r| r.status != crate::record::Status::Pending).cloned().collect();
        Ok(formats::write(&settled, format))
    }
}

/// Every provider the page lists: kind, label, wire format, default base URL, how the key is
/// sent, CORS status with its advice, and capabilities.
#[wasm_bindgen]
pub fn provider_specs() -> Result<JsValue, JsValue> {
    to_js(&ALL_KINDS.map(ProviderKind::spec))
}

/// The built-in price table, for the page's editable copy.
#[wasm_bindgen]
pub fn builtin_prices() -> Result<JsValue, JsValue> {
    to_js(&PriceTable::builtin())
}

/// The request that lists a provider's models ({method, url, headers, body}); its headers
/// carry the key.
#[wasm_bindgen]
pub fn models_request(kind: &str, base_url: Option<String>, key: Option<String>) -> Result<JsValue, JsValue> {
    let endpoint = endpoint(kind, base_url)?;
    let key = key.as_deref().map(str::trim).filter(|k| !k.is_empty());
    to_js(&build_models(&endpoint, key).map_err(|e| fail("error", &redact(&e.to_string(), key), &()))?)
}

/// The model names in a model-list response ({status, headers, body}); errors are redacted of `key`.
#[wasm_bindgen]
pub fn parse_model_list(
    kind: &str,
    response: JsValue,
    key: Option<String>,
    unix_ms: f64,
) -> Result<Vec<String>, JsValue> {
    let kind = kind_of(kind)?;
    let key = key.as_deref().map(str::trim).filter(|k| !k.is_empty());
    let raw = match response_from_js(&response)? {
        Ok(raw) => raw,
        Err(_) => return Err(fail("input", "response: a model list needs an HTTP answer", &())),
    };
    let now_s = unix_ms.is_finite().then(|| (unix_ms / 1000.0) as i64);
    parse_models(kind.spec().wire, &raw, key, now_s).map_err(|e| fail("error", &redact(&e.to_string(), key), &()))
}

/// What to tell the user when calls to a provider fail before any HTTP answer ("Failed to
/// fetch"): CORS, a local server's origin setting, or the browser's local-network prompt.
#[wasm_bindgen]
pub fn network_failure_advice(kind: &str, base_url: Option<String>, page_origin: &str) -> Result<String, JsValue> {
    Ok(fetch_failure_advice(&endpoint(kind, base_url)?, page_origin))
}
