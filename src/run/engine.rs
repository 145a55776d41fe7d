//! The run engine: a queue that decides what to send, and what to do with what comes back.
//!
//! It is a state machine with no clock and no I/O. A driver (the page's run worker, or the
//! CLI) repeats: `next(now)` gives the calls that may start now; the driver sends each and
//! hands the result to `complete`, which returns what to store. `wake_at()` says when to ask
//! again if nothing is in flight (a backoff or a rate window ending).
//!
//! Each call is Queued, Waiting (a retry after backoff), InFlight, Answered or Failed.
//! Rules a driver can rely on:
//! - an answered call is never sent again, and [`Engine::restore`] marks the calls a store
//!   already holds as answered, so a resumed run pays for nothing twice;
//! - an error never replaces an answer ([`crate::providers::outcome`]);
//! - retryable errors (429, 5xx, network, timeout, a cut-off body) are retried after
//!   [`super::backoff`] up to `retry.max_attempts`; a 429's Retry-After also pauses the
//!   whole target, since the limit is the provider's, not the call's;
//! - every error text is redacted of the target's key before it leaves the engine.
//!
//! Keys are held only in memory, in a wrapper whose Debug output hides them; nothing the
//! engine returns carries a key except a [`Dispatch`]'s headers, which the driver sends and
//! drops.

use super::backoff;
use super::limits::Gate;
use super::plan::{Job, Plan};
use super::progress::{Failure, Progress, RunState, TargetProgress};
use crate::providers::error::ProviderError;
use crate::providers::outcome::{apply, is_answered};
use crate::providers::redact;
use crate::providers::request::{HttpRequest, Method, build_chat, build_embed};
use crate::providers::response::{RawResponse, parse_chat, parse_embed};
use crate::providers::score::{ScoreDialect, build_score, parse_score};
use crate::record::{Record, Status};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

/// How many failures `progress` lists.
const FAILURES_SHOWN: usize = 100;
/// The window over which calls per second are measured.
const RATE_WINDOW_MS: f64 = 10_000.0;

/// A key in memory. Its Debug output never shows it.
#[derive(Clone)]
struct Key(String);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[key]")
    }
}

/// One call to send now.
#[derive(Clone, Serialize)]
pub struct Dispatch {
    pub call: u32,
    pub attempt: u32,
    pub record_id: String,
    pub target: String,
    pub method: Method,
    pub url: String,
    /// Includes the key: send it, never log or store it.
    pub headers: Vec<(String, String)>,
    /// The JSON body as text.
    pub body: Option<String>,
    pub timeout_ms: f64,
}

impl std::fmt::Debug for Dispatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        write!(
            f,
            "Dispatch {{ call: {}, attempt: {}, url: {:?}, headers: {names:?} }}",
            self.call, self.attempt, self.url
        )
    }
}

/// A failure below HTTP: no status came back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "message", rename_all = "lowercase")]
pub enum TransportError {
    /// Connection refused or dropped, DNS, TLS, or a browser's CORS refusal.
    Network(String),
    /// No full answer within the dispatch's timeout.
    Timeout,
}

/// What the driver got for one dispatch.
#[derive(Debug, Clone)]
pub struct CallResult {
    pub response: Result<RawResponse, TransportError>,
    pub latency_ms: f64,
    /// Wall-clock time of the answer, for the record's timestamp and HTTP-date Retry-After.
    pub unix_ms: i64,
}

/// What to do with a finished dispatch.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Completion {
    /// Store this record now (and the vectors, for an embedding call).
    Answered { record: Box<Record>, embeddings: Option<Vec<Vec<f64>>> },
    /// The call will be sent again at `at_ms`; nothing to store.
    Retrying { record_id: String, attempt: u32, error: String, at_ms: f64 },
    /// The call gave up: store this record (status error, with the reason).
    Failed { record: Box<Record> },
    /// Not a dispatch the engine is waiting for (already settled); nothing to do.
    Ignored,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    Queued,
    Waiting(f64),
    InFlight { attempt: u32 },
    Answered,
    Failed,
}

#[derive(Debug, Clone)]
struct Slot {
    state: State,
    attempts: u32,
}

/// One target's queue and gate.
#[derive(Debug)]
struct Lane {
    gate: Gate,
    queue: VecDeque<u32>,
    /// Retries by the time they may go (ms, rounded up), earliest first.
    waiting: BinaryHeap<Reverse<(u64, u32)>>,
    answered: u64,
    failed: u64,
    last_error: String,
    latency_sum_ms: f64,
}

#[derive(Debug)]
pub struct Engine {
    plan: Plan,
    prices: super::price::PriceTable,
    slots: Vec<Slot>,
    lanes: Vec<Lane>,
    keys: Vec<Option<Key>>,
    index: HashMap<String, u32>,
    state: RunState,
    wake: f64,
    retries: u64,
    tokens_in: u64,
    tokens_out: u64,
    cost: f64,
    recent: VecDeque<f64>,
    elapsed_ms: f64,
    running_since: Option<f64>,
    /// Record ids a store held for a different request than the plan's (see [`Engine::restore`]).
    stale: Vec<String>,
}

impl Engine {
    /// An engine for `plan`, running from the start. `keys` are by target id; a target
    /// without one sends no key (a local server).
    pub fn new(plan: Plan, keys: &HashMap<String, String>) -> Engine {
        let lanes = plan
            .spec
            .targets
            .iter()
            .map(|t| Lane {
                gate: Gate::new(t.concurrency, t.requests_per_minute, t.tokens_per_minute),
                queue: VecDeque::new(),
                waiting: BinaryHeap::new(),
                answered: 0,
                failed: 0,
                last_error: String::new(),
                latency_sum_ms: 0.0,
            })
            .collect();
        let index = plan.calls.iter().enumerate().map(|(i, c)| (c.record.record_id.clone(), i as u32)).collect();
        let slots = vec![Slot { state: State::Queued, attempts: 0 }; plan.calls.len()];
        let mut engine = Engine {
            keys: vec![None; plan.spec.targets.len()],
            prices: plan.prices(),
            plan,
            slots,
            lanes,
            index,
            state: RunState::Running,
            wake: f64::INFINITY,
            retries: 0,
            tokens_in: 0,
            tokens_out: 0,
            cost: 0.0,
            recent: VecDeque::new(),
            elapsed_ms: 0.0,
            running_since: None,
            stale: vec![],
        };
        for (id, key) in keys {
            engine.set_key(id, key);
        }
        engine.requeue_all();
        engine
    }

    /// Sets (or, with an empty key, clears) the key of the target named `target`.
    pub fn set_key(&mut self, target: &str, key: &str) -> bool {
        let Some(i) = self.plan.spec.targets.iter().position(|t| t.id == target) else { return false };
        self.keys[i] = Some(key.trim()).filter(|k| !k.is_empty()).map(|k| Key(k.to_string()));
        true
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Takes the records a store already holds: answered ones are never sent again, failed
    /// ones stay failed until [`Engine::retry_failed`]. Returns how many matched the plan.
    ///
    /// A stored record is taken only if it answers the request the plan would send now: same
    /// prompt and model, and (when the store recorded it) the same request body, so a changed
    /// prompt, temperature or max_tokens is sent again instead of restoring a stale answer.
    /// The ids set aside that way are in [`Engine::stale`].
    pub fn restore<'a>(&mut self, stored: impl IntoIterator<Item = &'a Record>) -> usize {
        let mut matched = 0;
        for rec in stored {
            let Some(&i) = self.index.get(&rec.record_id) else { continue };
            if !self.same_request(i as usize, rec) {
                if !self.stale.contains(&rec.record_id) {
                    self.stale.push(rec.record_id.clone());
                }
                continue;
            }
            let slot = &mut self.slots[i as usize];
            if matches!(slot.state, State::InFlight { .. }) {
                continue;
            }
            let target = self.plan.calls[i as usize].target;
            let lane = &mut self.lanes[target];
            match (slot.state, is_answered(rec), rec.status == Status::Error) {
                // The first answer a store holds wins; an error never replaces it.
                (State::Answered, _, _) | (_, false, false) | (State::Failed, false, true) => continue,
                (previous, true, _) => {
                    if previous == State::Failed {
                        lane.failed -= 1;
                    }
                    slot.state = State::Answered;
                    lane.answered += 1;
                    self.count_tokens(i as usize, rec);
                }
                (_, false, true) => {
                    slot.state = State::Failed;
                    lane.failed += 1;
                }
            }
            matched += 1;
            self.plan.calls[i as usize].record = rec.clone();
        }
        self.requeue_all();
        matched
    }

    /// Record ids whose stored record was made for a different request than the plan's (a
    /// changed prompt, model or parameter): they were not restored and will be sent again.
    pub fn stale(&self) -> &[String] {
        &self.stale
    }

    /// Whether `rec` was made for the request call `i` would send now.
    fn same_request(&self, i: usize, rec: &Record) -> bool {
        let planned = &self.plan.calls[i].record;
        if rec.prompt != planned.prompt || rec.model != planned.model {
            return false;
        }
        if rec.params.is_empty() {
            // Stores from before request bodies were recorded (or records of the simulated
            // model): prompt and model are all there is to compare.
            return true;
        }
        match self.request(i).map(|r| r.params_for_record()) {
            Ok(serde_json::Value::Object(body)) => {
                body.len() == rec.params.len()
                    && body.iter().all(|(k, v)| rec.params.get(k).is_some_and(|r| same_json(v, r)))
            }
            _ => true,
        }
    }

    /// Replaces the price table (the user edited it mid-run) and recounts the cost so far.
    pub fn set_prices(&mut self, prices: super::price::PriceTable) {
        self.plan.spec.prices = Some(prices.clone());
        self.prices = prices;
        self.cost = 0.0;
        for (i, slot) in self.slots.iter().enumerate() {
            if slot.state == State::Answered {
                let r = &self.plan.calls[i].record;
                let (tin, tout) = (r.tokens_in.unwrap_or(0), r.tokens_out.unwrap_or(0));
                self.cost += self.prices.cost(&r.model, tin, tout).unwrap_or(0.0);
            }
        }
    }

    /// Puts every failed call back in its queue with a fresh set of attempts.
    pub fn retry_failed(&mut self) -> usize {
        let mut n = 0;
        for (i, slot) in self.slots.iter_mut().enumerate() {
            if slot.state == State::Failed {
                slot.state = State::Queued;
                slot.attempts = 0;
                let lane = &mut self.lanes[self.plan.calls[i].target];
                lane.failed -= 1;
                lane.queue.push_back(i as u32);
                n += 1;
            }
        }
        if n > 0 && self.state == RunState::Finished {
            self.state = RunState::Running;
        }
        n
    }

    fn requeue_all(&mut self) {
        for lane in &mut self.lanes {
            lane.queue.clear();
            lane.waiting.clear();
        }
        for (i, slot) in self.slots.iter().enumerate() {
            match slot.state {
                State::Queued => self.lanes[self.plan.calls[i].target].queue.push_back(i as u32),
                State::Waiting(at) => {
                    self.lanes[self.plan.calls[i].target].waiting.push(Reverse((at.ceil() as u64, i as u32)))
                }
                _ => {}
            }
        }
    }

    pub fn pause(&mut self, now: f64) {
        if self.state == RunState::Running {
            self.stop_clock(now);
            self.state = RunState::Paused;
        }
    }

    pub fn resume(&mut self) {
        if matches!(self.state, RunState::Paused | RunState::Cancelled) {
            self.state = RunState::Running;
        }
    }

    /// Stops sending. Calls in flight still complete and are stored; the rest stay pending.
    pub fn cancel(&mut self, now: f64) {
        self.stop_clock(now);
        self.state = RunState::Cancelled;
    }

    fn stop_clock(&mut self, now: f64) {
        if let Some(since) = self.running_since.take() {
            self.elapsed_ms += (now - since).max(0.0);
        }
    }

    /// The calls that may start at `now` (milliseconds on the driver's monotonic clock).
    pub fn next(&mut self, now: f64) -> Vec<Dispatch> {
        self.wake = f64::INFINITY;
        if self.state != RunState::Running {
            return vec![];
        }
        if self.running_since.is_none() {
            self.running_since = Some(now);
        }
        let mut out = vec![];
        for t in 0..self.lanes.len() {
            // Retries whose wait is over go first (earliest due first), so old calls finish
            // before new ones start.
            let mut due = vec![];
            while let Some(&Reverse((at, i))) = self.lanes[t].waiting.peek() {
                if at as f64 > now {
                    self.wake = self.wake.min(at as f64);
                    break;
                }
                self.lanes[t].waiting.pop();
                self.slots[i as usize].state = State::Queued;
                due.push(i);
            }
            for &i in due.iter().rev() {
                self.lanes[t].queue.push_front(i);
            }
            while let Some(&i) = self.lanes[t].queue.front() {
                let tokens = self.plan.calls[i as usize].est_tokens_in + self.plan.calls[i as usize].est_tokens_out;
                if let Err(at) = self.lanes[t].gate.admit(now, tokens) {
                    self.wake = self.wake.min(at);
                    break;
                }
                self.lanes[t].queue.pop_front();
                match self.request(i as usize) {
                    Ok(http) => {
                        self.lanes[t].gate.start(now, tokens);
                        let slot = &mut self.slots[i as usize];
                        slot.attempts += 1;
                        if slot.attempts > 1 {
                            self.retries += 1;
                        }
                        slot.state = State::InFlight { attempt: slot.attempts };
                        out.push(Dispatch {
                            call: i,
                            attempt: slot.attempts,
                            record_id: self.plan.calls[i as usize].record.record_id.clone(),
                            target: self.plan.spec.targets[t].id.clone(),
                            method: http.method,
                            url: http.url,
                            headers: http.headers,
                            body: http.body.map(|b| b.to_string()),
                            timeout_ms: self.plan.spec.retry.timeout_s * 1000.0,
                        });
                    }
                    // Unreachable for a plan that passed its checks; kept as a failure, not a panic.
                    Err(e) => self.fail(i as usize, &e.to_string()),
                }
            }
        }
        out
    }

    fn key(&self, target: usize) -> Option<&str> {
        self.keys[target].as_ref().map(|k| k.0.as_str())
    }

    fn request(&self, i: usize) -> Result<HttpRequest, crate::providers::request::BuildError> {
        let call = &self.plan.calls[i];
        let endpoint = self.plan.spec.targets[call.target].endpoint();
        let key = self.key(call.target);
        match &call.job {
            Job::Chat(req) => build_chat(&endpoint, key, req),
            Job::Embed { model, inputs } => build_embed(&endpoint, key, model, inputs),
            Job::Score { model, text } => build_score(&endpoint, key, model, text, ScoreDialect::Echo),
        }
    }

    fn fail(&mut self, i: usize, error: &str) {
        let rec = &mut self.plan.calls[i].record;
        rec.error = error.to_string();
        if !is_answered(rec) {
            rec.status = Status::Error;
        }
        self.slots[i].state = State::Failed;
        let lane = &mut self.lanes[self.plan.calls[i].target];
        lane.failed += 1;
        lane.last_error = error.to_string();
    }

    /// When to call [`Engine::next`] again if nothing completes before (ms; infinite when only
    /// a completion can unblock the run). Valid after a call to `next`.
    pub fn wake_at(&self) -> f64 {
        self.wake
    }

    /// Takes the result of dispatch (`call`, `attempt`) at `now`.
    pub fn complete(&mut self, call: u32, attempt: u32, result: CallResult, now: f64) -> Completion {
        let i = call as usize;
        if self.slots.get(i).map(|s| s.state) != Some(State::InFlight { attempt }) {
            return Completion::Ignored;
        }
        let t = self.plan.calls[i].target;
        self.lanes[t].gate.finish();
        let key = self.key(t).map(str::to_string);
        let key = key.as_deref();
        let spec = self.plan.spec.targets[t].provider.spec();
        let unix_s = Some(result.unix_ms.div_euclid(1000));
        let parsed = match result.response {
            Ok(raw) => match &self.plan.calls[i].job {
                Job::Chat(_) => parse_chat(spec.wire, &raw, key, unix_s).map(Answer::Chat),
                Job::Embed { inputs, .. } => parse_embed(spec.wire, &raw, key, unix_s, inputs.len()).map(Answer::Embed),
                Job::Score { .. } => parse_score(&raw, key, unix_s).map(Answer::Score),
            },
            Err(TransportError::Network(message)) => Err(ProviderError::Network { message: redact(&message, key) }),
            Err(TransportError::Timeout) => Err(ProviderError::Timeout { seconds: self.plan.spec.retry.timeout_s }),
        };
        match parsed {
            Ok(answer) => {
                self.finished_at(now);
                self.lanes[t].latency_sum_ms += result.latency_ms;
                let body = self.request(i).map(|mut h| {
                    h.headers.clear();
                    h
                });
                let rec = &mut self.plan.calls[i].record;
                let embeddings = match answer {
                    Answer::Chat(resp) => {
                        if let Ok(http) = &body {
                            apply(
                                rec,
                                self.plan.spec.targets[t].provider,
                                http,
                                Ok(&resp),
                                Some(result.latency_ms),
                                key,
                            );
                        }
                        None
                    }
                    Answer::Embed(e) => {
                        rec.status = Status::Ok;
                        rec.error.clear();
                        rec.latency_ms = Some(result.latency_ms);
                        rec.tokens_in = e.tokens_in;
                        rec.response =
                            format!("{} vectors of {}", e.vectors.len(), e.vectors.first().map_or(0, Vec::len));
                        Some(e.vectors)
                    }
                    Answer::Score(score) => {
                        if let Ok(http) = &body {
                            apply(
                                rec,
                                self.plan.spec.targets[t].provider,
                                http,
                                Ok(&score_response(&score)),
                                Some(result.latency_ms),
                                key,
                            );
                        }
                        rec.extra.insert(LOGPROB_SUM.into(), format!("{:?}", score.logprob));
                        None
                    }
                };
                rec.timestamp = super::rfc3339(result.unix_ms);
                let rec = rec.clone();
                self.slots[i].state = State::Answered;
                self.lanes[t].answered += 1;
                self.count_tokens(i, &rec);
                Completion::Answered { record: Box::new(rec), embeddings }
            }
            Err(e) => {
                let error = redact(&e.to_string(), key);
                let attempts = self.slots[i].attempts;
                self.lanes[t].last_error = error.clone();
                if e.retryable() && attempts < self.plan.spec.retry.max_attempts {
                    let record_id = self.plan.calls[i].record.record_id.clone();
                    let wait = backoff::delay_ms(
                        &self.plan.spec.retry,
                        self.plan.spec.seed,
                        &record_id,
                        attempts + 1,
                        e.retry_after_s(),
                    );
                    if let Some(s) = e.retry_after_s() {
                        let gate = &mut self.lanes[t].gate;
                        gate.paused_until = gate.paused_until.max(now + s.clamp(0.0, 3600.0) * 1000.0);
                    }
                    let at = now + wait;
                    self.slots[i].state = State::Waiting(at);
                    self.lanes[t].waiting.push(Reverse((at.ceil() as u64, call)));
                    self.plan.calls[i].record.error = error.clone();
                    Completion::Retrying { record_id, attempt: attempts, error, at_ms: at }
                } else {
                    self.finished_at(now);
                    let body = self.request(i).map(|mut h| {
                        h.headers.clear();
                        h
                    });
                    let rec = &mut self.plan.calls[i].record;
                    if let Ok(http) = &body {
                        apply(rec, self.plan.spec.targets[t].provider, http, Err(&e), Some(result.latency_ms), key);
                    }
                    rec.timestamp = super::rfc3339(result.unix_ms);
                    self.slots[i].state = State::Failed;
                    self.lanes[t].failed += 1;
                    Completion::Failed { record: Box::new(rec.clone()) }
                }
            }
        }
    }

    fn finished_at(&mut self, now: f64) {
        self.recent.push_back(now);
        while self.recent.front().is_some_and(|&t| t + RATE_WINDOW_MS < now) {
            self.recent.pop_front();
        }
    }

    fn count_tokens(&mut self, i: usize, rec: &Record) {
        let (tin, tout) = (rec.tokens_in.unwrap_or(0), rec.tokens_out.unwrap_or(0));
        self.tokens_in += tin;
        self.tokens_out += tout;
        self.cost += self.prices.cost(&self.plan.calls[i].record.model, tin, tout).unwrap_or(0.0);
    }

    /// Whether every call is answered or failed.
    pub fn is_done(&self) -> bool {
        self.slots.iter().all(|s| matches!(s.state, State::Answered | State::Failed))
    }

    pub fn in_flight(&self) -> usize {
        self.lanes.iter().map(|l| l.gate.in_flight as usize).sum()
    }

    /// Every record of the plan as it stands (answered, failed or pending).
    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.plan.calls.iter().map(|c| &c.record)
    }

    pub fn progress(&mut self, now: f64) -> Progress {
        if self.state == RunState::Running && self.is_done() {
            self.stop_clock(now);
            self.state = RunState::Finished;
        }
        let total = self.slots.len() as u64;
        let answered: u64 = self.lanes.iter().map(|l| l.answered).sum();
        let failed: u64 = self.lanes.iter().map(|l| l.failed).sum();
        let remaining = total - answered - failed;
        let elapsed_ms = self.elapsed_ms + self.running_since.map_or(0.0, |s| (now - s).max(0.0));
        let window = elapsed_ms.min(RATE_WINDOW_MS);
        let recent = self.recent.iter().filter(|&&t| t + RATE_WINDOW_MS >= now).count() as f64;
        let per_second = if window >= 500.0 { recent / (window / 1000.0) } else { 0.0 };
        let eta_s = (per_second > 0.0 && self.state == RunState::Running).then(|| remaining as f64 / per_second);
        let mut per_lane_remaining = vec![0u64; self.lanes.len()];
        let mut failures = vec![];
        let mut waiting = 0;
        for (i, slot) in self.slots.iter().enumerate() {
            let call = &self.plan.calls[i];
            match slot.state {
                State::Failed => {
                    if failures.len() < FAILURES_SHOWN {
                        failures.push(Failure {
                            record_id: call.record.record_id.clone(),
                            case_id: call.record.case_id.clone(),
                            target: self.plan.spec.targets[call.target].id.clone(),
                            model: call.record.model.clone(),
                            attempts: slot.attempts,
                            error: call.record.error.clone(),
                        });
                    }
                }
                State::Answered => {}
                State::Waiting(_) => {
                    waiting += 1;
                    per_lane_remaining[call.target] += 1;
                }
                _ => per_lane_remaining[call.target] += 1,
            }
        }
        let targets = self
            .lanes
            .iter()
            .zip(&self.plan.spec.targets)
            .zip(per_lane_remaining)
            .map(|((lane, t), remaining)| TargetProgress {
                target: t.id.clone(),
                provider: t.provider.spec().label.to_string(),
                answered: lane.answered,
                failed: lane.failed,
                remaining,
                in_flight: lane.gate.in_flight,
                concurrency: lane.gate.concurrency,
                paused_for_s: (lane.gate.paused_until > now).then(|| (lane.gate.paused_until - now) / 1000.0),
                last_error: lane.last_error.clone(),
                mean_latency_s: (lane.answered > 0 && lane.latency_sum_ms > 0.0)
                    .then(|| lane.latency_sum_ms / 1000.0 / lane.answered as f64),
            })
            .collect();
        Progress {
            state: self.state,
            total,
            answered,
            failed,
            remaining,
            in_flight: self.in_flight() as u64,
            waiting,
            retries: self.retries,
            tokens_in: self.tokens_in,
            tokens_out: self.tokens_out,
            cost: self.cost,
            currency: self.prices.currency.clone(),
            elapsed_s: elapsed_ms / 1000.0,
            per_second,
            eta_s,
            targets,
            failures,
            failures_total: failed,
        }
    }
}

enum Answer {
    Chat(crate::providers::ChatResponse),
    Embed(crate::providers::Embeddings),
    Score(crate::providers::score::Score),
}

/// The record column holding a scoring call's summed log-probability (natural log, written
/// with Rust's shortest round-trip formatting). `response` holds the echoed text and
/// `logprobs` the provider's token block, from which the sum can be checked.
pub const LOGPROB_SUM: &str = "logprob_sum";

/// A scoring answer in the shape [`apply`] records: the echo as text, no generated tokens.
fn score_response(s: &crate::providers::score::Score) -> crate::providers::ChatResponse {
    crate::providers::ChatResponse {
        text: s.text.clone(),
        finish_reason: None,
        flag: crate::providers::response::ContentFlag::None,
        tokens_in: s.tokens_in,
        tokens_out: Some(0),
        logprobs: Some(s.block.clone()),
        model: s.model.clone(),
    }
}

/// JSON equality as a JavaScript store sees it: a record that went through the page's
/// IndexedDB comes back with `0.0` as `0`, which serde_json's `==` tells apart.
fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::price::{Price, PriceTable};

    #[test]
    fn an_edited_price_table_recounts_the_cost_so_far() {
        let spec = crate::run::RunSpec::from_json(
            r#"{"run_id":"p","targets":[{"provider":"openai","models":["gpt-4o-mini"]}],"params":{"max_tokens":5}}"#,
        )
        .unwrap();
        let cases = vec![Record { case_id: "c1".into(), prompt: "hi".into(), ..Record::default() }];
        let mut e = Engine::new(Plan::chat(spec, &cases).unwrap(), &HashMap::new());
        let d = e.next(0.0).pop().unwrap();
        let body = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Yes"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1000000,"completion_tokens":0}}"#;
        let result = CallResult { response: Ok(RawResponse::ok(body)), latency_ms: 5.0, unix_ms: 0 };
        assert!(matches!(e.complete(d.call, d.attempt, result, 1.0), Completion::Answered { .. }));
        assert!((e.progress(2.0).cost - 0.15).abs() < 1e-12);
        let row = Price { model: "gpt-4o-mini".into(), input_per_million: 2.0, output_per_million: 0.0 };
        e.set_prices(PriceTable { currency: "EUR".into(), rows: vec![row] });
        let p = e.progress(3.0);
        assert_eq!((p.cost, p.currency.as_str()), (2.0, "EUR"));
    }

    #[test]
    fn json_compares_numbers_as_javascript_returns_them() {
        use serde_json::json;
        assert!(super::same_json(&json!({"t": 0.0, "m": [1.0, "x"]}), &json!({"t": 0, "m": [1, "x"]})));
        assert!(!super::same_json(&json!({"t": 0.5}), &json!({"t": 0})));
        assert!(!super::same_json(&json!({"t": 0}), &json!({"t": 0, "u": 1})));
    }
}
