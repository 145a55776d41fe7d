//! The run driver: the loop that feeds the [`Engine`] its calls' results, written once for the
//! CLI and the page.
//!
//! The engine decides and the driver acts: it asks `next(now)` for the calls that may start,
//! hands each to a [`Transport`], and gives every result to `complete` as it arrives; a
//! settled record goes to the [`Store`] before the engine is asked for anything else, so a
//! run stopped at any moment has stored every call it paid for. Between results it sleeps on
//! the [`Clock`] until the engine's `wake_at()` (a backoff or a rate window ending).
//!
//! The three traits are what differs between the targets, and only their implementations know
//! about I/O: the CLI sends with ureq, sleeps with a native timer and appends to its journal
//! (`src/cli/`); the page's run worker sends with fetch, sleeps on `setTimeout` and writes to
//! IndexedDB (`src/web/`). The loop is single-threaded and `async`: the CLI blocks on it, the
//! page spawns it on the worker's event loop. The engine sits in a `RefCell` because the page
//! also pauses, resumes or edits it between two results; no borrow is held across an `await`.

use super::engine::{CallResult, Completion, Dispatch, Engine};
pub use super::overhead::Overhead;
use crate::record::Record;
use futures_util::future::{self, Either, FutureExt};
use futures_util::stream::{FuturesUnordered, Stream, StreamExt};
use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;

/// Sends one dispatch and says what came of it. HTTP error statuses are answers (the engine
/// reads a 429's Retry-After from them); only failures below HTTP are transport errors.
/// `send` starts the call before it returns (the future only waits for the answer), so the
/// driver's turn ends with the next requests on their way.
pub trait Transport {
    type Call: Future<Output = CallResult>;
    fn send(&self, dispatch: Dispatch) -> Self::Call;
}

/// The driver's time: a monotonic clock in milliseconds and a way to wait.
pub trait Clock {
    type Sleep: Future<Output = ()>;
    fn now(&self) -> f64;
    fn sleep(&self, ms: f64) -> Self::Sleep;
}

/// Keeps settled records. `store` returns once the record is as safe as the target can make it
/// before going on (appended to the journal; the IndexedDB write issued, see `src/web/run.rs`).
pub trait Store {
    fn store(&mut self, record: &Record, embeddings: Option<&[Vec<f64>]>) -> Result<(), String>;
    /// Called about every `tick_ms` while the run goes (see [`drive`]).
    fn tick(&mut self, _engine: &mut Engine, _now: f64) {}
}

/// Why [`drive`] returned.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// Nothing in flight and nothing scheduled: every call settled, or the run is paused or
    /// cancelled (a resumed engine needs a new `drive`).
    Idle,
    /// A record could not be stored; the engine was paused so nothing more is paid for, and
    /// the calls in flight then were settled (and offered to the store) first.
    StoreFailed(String),
}

/// Runs `engine` until nothing is in flight and nothing is scheduled. `pokes` wakes the loop
/// early (the page resumed or retried with calls waiting on a timer); `tick_ms` bounds each
/// sleep so [`Store::tick`] can report progress (infinite for none).
pub async fn drive<T: Transport, C: Clock, S: Store>(
    engine: &RefCell<Engine>,
    transport: &T,
    clock: &C,
    store: &mut S,
    overhead: &RefCell<Overhead>,
    pokes: &mut (impl Stream<Item = ()> + Unpin),
    tick_ms: f64,
) -> Stop {
    let mut in_flight = FuturesUnordered::new();
    let mut failure: Option<String> = None;
    let mut next_tick = clock.now() + tick_ms;
    let mut pokes_open = true;
    // The turn under way: when its first result was taken, and how many it took.
    let mut turn: Option<(f64, u32)> = None;
    loop {
        let t0 = clock.now();
        let (dispatches, done, wake) = {
            let mut e = engine.borrow_mut();
            let d = e.next(t0);
            (d, e.is_done(), e.wake_at())
        };
        let t1 = clock.now();
        for d in dispatches {
            let (call, attempt) = (d.call, d.attempt);
            in_flight.push(transport.send(d).map(move |r| (call, attempt, r)));
        }
        let now = clock.now();
        {
            let mut o = overhead.borrow_mut();
            o.next_ms += t1 - t0;
            o.send_ms += now - t1;
            if let Some((taken, results)) = turn.take() {
                o.turn(now - taken, results);
            }
        }
        if in_flight.is_empty() && (done || !wake.is_finite()) {
            return failure.map_or(Stop::Idle, Stop::StoreFailed);
        }
        let until = wake.min(next_tick);
        let timer = match until.is_finite() {
            true => Either::Left(clock.sleep((until - now).max(0.0))),
            false => Either::Right(future::pending()),
        };
        let poke = match pokes_open {
            true => Either::Left(pokes.next()),
            false => Either::Right(future::pending()),
        };
        // An empty set of calls would answer None at once: wait on the timer and pokes alone.
        let results = match in_flight.is_empty() {
            true => Either::Left(future::pending()),
            false => Either::Right(in_flight.next()),
        };
        let first = match future::select(results, future::select(pin!(timer), poke)).await {
            Either::Left((result, _)) => result,
            Either::Right((Either::Right((None, _)), _)) => {
                pokes_open = false;
                None
            }
            Either::Right(_) => None,
        };
        // Every result already there is taken before the engine is asked for more work.
        let taken = clock.now();
        let mut results = 0;
        let mut next = first;
        while let Some((call, attempt, result)) = next {
            settle(engine, clock, store, overhead, &mut failure, call, attempt, result);
            results += 1;
            next = in_flight.next().now_or_never().flatten();
        }
        if results > 0 {
            turn = Some((taken, results));
        }
        let now = clock.now();
        if now >= next_tick {
            next_tick = now + tick_ms;
            store.tick(&mut engine.borrow_mut(), now);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn settle<C: Clock, S: Store>(
    engine: &RefCell<Engine>,
    clock: &C,
    store: &mut S,
    overhead: &RefCell<Overhead>,
    failure: &mut Option<String>,
    call: u32,
    attempt: u32,
    result: CallResult,
) {
    let t0 = clock.now();
    let completion = engine.borrow_mut().complete(call, attempt, result, t0);
    let t1 = clock.now();
    overhead.borrow_mut().complete_ms += t1 - t0;
    let (record, embeddings) = match completion {
        Completion::Answered { record, embeddings } => (record, embeddings),
        Completion::Failed { record } => (record, None),
        Completion::Retrying { .. } | Completion::Ignored => return,
    };
    let stored = store.store(&record, embeddings.as_deref());
    {
        let mut o = overhead.borrow_mut();
        o.calls += 1;
        o.store_ms += clock.now() - t1;
    }
    if let Err(e) = stored {
        // Without a stored record the run could pay for the call again later: stop sending.
        engine.borrow_mut().pause(clock.now());
        failure.get_or_insert(e);
    }
}

// Natively only: the tests block on the loop with pollster, a native dependency.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::providers::response::RawResponse;
    use crate::run::{Plan, RunSpec, TransportError};
    use std::cell::Cell;
    use std::collections::HashMap;
    use std::rc::Rc;

    /// A fake clock: a sleep, once waited on, moves it to the sleep's end, so backoffs cost no
    /// wall time (and a loop that never waits never moves it).
    #[derive(Default)]
    struct Fake(Rc<Cell<f64>>);
    struct Sleep(Rc<Cell<f64>>, f64);
    impl Future for Sleep {
        type Output = ();
        fn poll(self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<()> {
            self.0.set(self.0.get().max(self.1));
            std::task::Poll::Ready(())
        }
    }
    impl Clock for Fake {
        type Sleep = Sleep;
        fn now(&self) -> f64 {
            self.0.get()
        }
        fn sleep(&self, ms: f64) -> Sleep {
            Sleep(Rc::clone(&self.0), self.0.get() + ms)
        }
    }

    /// Answers by model name: "ok" answers, "busy" gets a 429 with Retry-After 2 on its first
    /// attempt, "down" never connects. Counts sends per record id.
    struct Mock {
        sent: RefCell<HashMap<String, u32>>,
        clock: Rc<Cell<f64>>,
    }
    impl Transport for Mock {
        type Call = future::Ready<CallResult>;
        fn send(&self, d: Dispatch) -> Self::Call {
            *self.sent.borrow_mut().entry(d.record_id.clone()).or_default() += 1;
            let body: serde_json::Value = serde_json::from_str(d.body.as_deref().unwrap_or("{}")).unwrap();
            let ok = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"B"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}"#;
            let response = match (body["model"].as_str().unwrap_or(""), d.attempt) {
                ("busy", 1) => Ok(RawResponse {
                    status: 429,
                    headers: vec![("retry-after".into(), "2".into())],
                    body: br#"{"error":{"message":"slow down"}}"#.to_vec(),
                }),
                ("down", _) => Err(TransportError::Network("connection refused".into())),
                _ => Ok(RawResponse::ok(ok)),
            };
            future::ready(CallResult { response, latency_ms: 1.0, unix_ms: self.clock.get() as i64 })
        }
    }

    #[derive(Default)]
    struct Memory {
        records: Vec<Record>,
        fail_after: Option<usize>,
    }
    impl Store for Memory {
        fn store(&mut self, record: &Record, _: Option<&[Vec<f64>]>) -> Result<(), String> {
            if self.fail_after.is_some_and(|n| self.records.len() >= n) {
                return Err("disk full".into());
            }
            self.records.push(record.clone());
            Ok(())
        }
    }

    fn engine(models: &str, cases: usize) -> Engine {
        let spec = RunSpec::from_json(&format!(
            r#"{{"run_id":"d","targets":[{{"provider":"openai","models":[{models}],"concurrency":2}}],
                "retry":{{"max_attempts":2,"backoff_base_s":0.1}}}}"#
        ))
        .unwrap();
        let cases: Vec<Record> = (0..cases)
            .map(|i| Record { case_id: format!("c{i}"), prompt: format!("q{i}"), ..Record::default() })
            .collect();
        let keys = HashMap::from([("openai".to_string(), "sk-test".to_string())]);
        Engine::new(Plan::chat(spec, &cases).unwrap(), &keys)
    }

    fn run(e: &RefCell<Engine>, store: &mut Memory) -> (Stop, HashMap<String, u32>, f64, Overhead) {
        let clock = Fake::default();
        let mock = Mock { sent: RefCell::default(), clock: Rc::clone(&clock.0) };
        let overhead = RefCell::new(Overhead::default());
        let stop = pollster::block_on(drive(
            e,
            &mock,
            &clock,
            store,
            &overhead,
            &mut futures_util::stream::pending(),
            f64::INFINITY,
        ));
        (stop, mock.sent.into_inner(), clock.0.get(), overhead.into_inner())
    }

    #[test]
    fn every_call_is_stored_once_and_a_429_waits_its_retry_after() {
        let e = RefCell::new(engine(r#""ok","busy","down""#, 4));
        let mut store = Memory::default();
        let (stop, sent, elapsed, overhead) = run(&e, &mut store);
        assert_eq!(stop, Stop::Idle);
        assert_eq!(store.records.len(), 12, "every call settled and stored");
        // The fake clock stands still between sleeps: every turn took 0 ms.
        let cost = overhead.per_call();
        assert_eq!((cost.calls, cost.turn_p50_ms, cost.turn_p90_ms), (12, Some(0.0), Some(0.0)));
        let p = e.borrow_mut().progress(elapsed);
        assert_eq!((p.answered, p.failed), (8, 4));
        // busy: sent twice each (429, then the answer); down: twice each (both network errors).
        let by_model = |m: &str| sent.iter().filter(|(id, _)| id.contains(m)).map(|(_, n)| *n).collect::<Vec<_>>();
        assert!(by_model(":busy:").iter().all(|&n| n == 2), "{sent:?}");
        assert!(by_model(":ok:").iter().all(|&n| n == 1), "{sent:?}");
        assert!(elapsed >= 2000.0, "the Retry-After of 2 s was waited out on the clock ({elapsed} ms)");
    }

    #[test]
    fn a_resumed_run_sends_only_what_the_store_lacks() {
        let e = RefCell::new(engine(r#""ok""#, 5));
        let mut first = Memory::default();
        run(&e, &mut first);
        let again = RefCell::new(engine(r#""ok""#, 5));
        again.borrow_mut().restore(&first.records[..3]);
        let mut second = Memory::default();
        let (_, sent, _, _) = run(&again, &mut second);
        assert_eq!((sent.len(), second.records.len()), (2, 2));
    }

    #[test]
    fn a_store_failure_pauses_the_run_and_is_reported() {
        let e = RefCell::new(engine(r#""ok""#, 10));
        let mut store = Memory { fail_after: Some(3), ..Memory::default() };
        let (stop, sent, _, _) = run(&e, &mut store);
        assert_eq!(stop, Stop::StoreFailed("disk full".into()));
        assert_eq!(store.records.len(), 3);
        // Concurrency 2: at most the two calls in flight when the store failed went out after.
        assert!(sent.len() <= 5, "{sent:?}");
        assert_eq!(e.borrow_mut().progress(0.0).state, super::super::progress::RunState::Paused);
    }
}
