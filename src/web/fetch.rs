//! The page's side of the run driver ([`crate::run::driver`]): calls go out with fetch from
//! the run worker (the request made with web-sys, the response read through gloo-net), the
//! clock is the worker's `performance.now()` and its sleeps are `setTimeout`s (gloo-timers).
//!
//! A dispatch is sent with exactly the headers the engine built (they carry the target's own
//! key), no cookies and no referrer. Its timeout is an `AbortController` that aborts the
//! request and the reading of its body alike; the timer is cleared when the answer is in.
//! Nothing here logs a dispatch or puts a key into an error.

use crate::providers::cors::fetch_failure_advice;
use crate::providers::request::{Endpoint, Method};
use crate::providers::response::RawResponse;
use crate::run::driver;
use crate::run::{CallResult, Dispatch, TransportError};
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal, ReferrerPolicy, RequestCredentials, RequestInit};

/// Answers above this size are refused rather than handed to the engine.
const MAX_BODY_BYTES: usize = 256 << 20;
/// A target whose calls fail this many times in a row without any HTTP answer gets the advice.
const NETWORK_STREAK: u32 = 3;
/// The longest wait `setTimeout` takes (2^31 - 1 ms).
const MAX_TIMEOUT_MS: f64 = 2_147_483_647.0;

#[wasm_bindgen]
extern "C" {
    // `performance` and `fetch` are globals in windows and workers alike.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
    #[wasm_bindgen(js_name = fetch)]
    fn fetch_with_init(url: &str, init: &RequestInit) -> js_sys::Promise;
}

/// The worker's clock.
pub struct WorkerClock;

impl driver::Clock for WorkerClock {
    type Sleep = gloo_timers::future::TimeoutFuture;
    fn now(&self) -> f64 {
        performance_now()
    }
    fn sleep(&self, ms: f64) -> Self::Sleep {
        gloo_timers::future::TimeoutFuture::new(ms.ceil().clamp(0.0, MAX_TIMEOUT_MS) as u32)
    }
}

/// What to tell the user about a target whose calls never get an HTTP answer (CORS, a local
/// server's allowed origins): computed once, after [`NETWORK_STREAK`] such failures in a row.
#[derive(Default)]
pub struct Advice {
    endpoints: HashMap<String, Endpoint>,
    pub origin: String,
    streak: HashMap<String, u32>,
    pub given: HashMap<String, String>,
}

impl Advice {
    pub fn new(endpoints: HashMap<String, Endpoint>) -> Advice {
        Advice { endpoints, ..Advice::default() }
    }

    fn note(&mut self, target: &str, response: &Result<RawResponse, TransportError>) {
        if !matches!(response, Err(TransportError::Network(_))) {
            self.streak.insert(target.to_string(), 0);
            return;
        }
        let n = self.streak.entry(target.to_string()).or_default();
        *n += 1;
        if *n >= NETWORK_STREAK
            && !self.given.contains_key(target)
            && let Some(endpoint) = self.endpoints.get(target)
        {
            self.given.insert(target.to_string(), fetch_failure_advice(endpoint, &self.origin));
        }
    }
}

/// fetch as the driver's transport.
pub struct Fetch {
    advice: Rc<RefCell<Advice>>,
    /// Each target's request headers as the browser's `Headers`, made again only when they
    /// change (a new key): fetch copies them into every request it makes.
    headers: RefCell<HashMap<String, MadeHeaders>>,
}

/// A target's headers as the engine built them, and the browser's `Headers` made from them.
struct MadeHeaders {
    pairs: Vec<(String, String)>,
    headers: web_sys::Headers,
}

impl Fetch {
    pub fn new(advice: Rc<RefCell<Advice>>) -> Fetch {
        Fetch { advice, headers: RefCell::default() }
    }

    fn headers(&self, d: &Dispatch) -> Result<web_sys::Headers, TransportError> {
        let mut made = self.headers.borrow_mut();
        if let Some(m) = made.get(&d.target)
            && m.pairs == d.headers
        {
            return Ok(m.headers.clone());
        }
        let network = |what: &str| TransportError::Network(what.to_string());
        let headers = web_sys::Headers::new().map_err(|_| network("the browser has no Headers"))?;
        for (name, value) in &d.headers {
            // The message never quotes the value: it holds the key.
            headers
                .append(name, value)
                .map_err(|_| network(&format!("the {name} header is not a valid HTTP header value (check the key)")))?;
        }
        made.insert(d.target.clone(), MadeHeaders { pairs: d.headers.clone(), headers: headers.clone() });
        Ok(headers)
    }

    /// Issues `d`'s request: one `fetch(url, init)`, where gloo-net's builder would make two
    /// `Request`s and parse the URL in between.
    fn start(&self, d: &Dispatch) -> Result<Started, TransportError> {
        let controller =
            AbortController::new().map_err(|_| TransportError::Network("the browser has no AbortController".into()))?;
        let signal = controller.signal();
        let _timer =
            gloo_timers::callback::Timeout::new(d.timeout_ms.ceil().clamp(0.0, MAX_TIMEOUT_MS) as u32, move || {
                controller.abort()
            });
        let init = RequestInit::new();
        init.set_method(match d.method {
            Method::Get => "GET",
            Method::Post => "POST",
        });
        let headers = self.headers(d)?;
        init.set_headers(&headers);
        // No cache mode: "no-store" would also bypass Chromium's CORS preflight cache and cost
        // one OPTIONS round trip per call (a POST is never served from the HTTP cache anyway).
        init.set_credentials(RequestCredentials::Omit);
        init.set_referrer_policy(ReferrerPolicy::NoReferrer);
        init.set_signal(Some(&signal));
        if let Some(body) = &d.body {
            init.set_body(&JsValue::from_str(body));
        }
        Ok(Started { response: JsFuture::from(fetch_with_init(&d.url, &init)), signal, _timer })
    }
}

impl driver::Transport for Fetch {
    type Call = Pin<Box<dyn Future<Output = CallResult>>>;
    fn send(&self, d: Dispatch) -> Self::Call {
        let advice = Rc::clone(&self.advice);
        let started = performance_now();
        // Issued here rather than when the future is first polled: the driver's turn ends with
        // the request on its way.
        let call = self.start(&d);
        Box::pin(async move {
            let response = match call {
                // Nothing downstream (records, IndexedDB, bundles) sees a key the answer echoed.
                Ok(call) => call.answer().await.map(|r| crate::providers::redact::redact_response(r, &d.headers)),
                Err(e) => Err(e),
            };
            advice.borrow_mut().note(&d.target, &response);
            CallResult { response, latency_ms: performance_now() - started, unix_ms: js_sys::Date::now() as i64 }
        })
    }
}

/// A request on its way: its response, and the timer that aborts it (cleared when dropped).
struct Started {
    response: JsFuture,
    signal: AbortSignal,
    _timer: gloo_timers::callback::Timeout,
}

impl Started {
    async fn answer(self) -> Result<RawResponse, TransportError> {
        let Started { response, signal, _timer } = self;
        let failed = |e: JsValue| match signal.aborted() {
            true => TransportError::Timeout,
            false => TransportError::Network(js_message(&e)),
        };
        let response: web_sys::Response = response.await.map_err(failed)?.unchecked_into();
        let response = gloo_net::http::Response::from(response);
        let status = response.status();
        let headers = response.headers().entries().collect();
        let failed = |e: gloo_net::Error| match signal.aborted() {
            true => TransportError::Timeout,
            false => TransportError::Network(message(e)),
        };
        let body = response.binary().await.map_err(failed)?;
        if body.len() > MAX_BODY_BYTES {
            return Err(TransportError::Network("the response is larger than 256 MB".into()));
        }
        Ok(RawResponse { status, headers, body })
    }
}

/// A rejected promise's reason as text: an Error's message ("Failed to fetch"), else the value.
fn js_message(e: &JsValue) -> String {
    match e.dyn_ref::<js_sys::Error>() {
        Some(error) => error.message().into(),
        None => e.as_string().unwrap_or_else(|| format!("{e:?}")),
    }
}

/// The browser's own words ("Failed to fetch"), without gloo-net's wrapping.
fn message(e: gloo_net::Error) -> String {
    match e {
        gloo_net::Error::JsError(js) => js.message,
        other => other.to_string(),
    }
}
