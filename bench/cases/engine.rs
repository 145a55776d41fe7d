//! The run engine's own cost per call: N calls (bench-size: 100000) played through
//! `Engine::next` / `Engine::complete` with an instant, canned OpenAI answer, so what is
//! timed is the engine alone: queue and gate bookkeeping, building each request body,
//! parsing each answer and writing it into its record (and, second figure, the journal line
//! the CLI appends per record). No network, no clock but the wall time of the whole loop.
//! A third figure plays the same calls through the run driver (`run::driver::drive`, the loop
//! the CLI and the page run) with a transport that answers at once, so the driver's own
//! bookkeeping (futures, the store call) is in it too.
//!
//! Usage: bench_engine [N]. Prints JSON.

use evenhand::providers::response::RawResponse;
use evenhand::record::Record;
use evenhand::run::driver::{self, Overhead};
use evenhand::run::{CallResult, Completion, Dispatch, Engine, Plan, RunSpec, journal};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::{Ready, ready};
use std::time::Instant;

fn answer() -> CallResult {
    CallResult {
        response: Ok(RawResponse { status: 200, headers: vec![], body: ANSWER.as_bytes().to_vec() }),
        latency_ms: 1.0,
        unix_ms: 1_763_856_000_000,
    }
}

/// Answers every call at once.
struct Instantly;
impl driver::Transport for Instantly {
    type Call = Ready<CallResult>;
    fn send(&self, _: Dispatch) -> Self::Call {
        ready(answer())
    }
}

/// A clock that moves 1 ms per reading (the engine's rate windows need time to pass).
struct Ticks(Cell<f64>);
impl driver::Clock for Ticks {
    type Sleep = Ready<()>;
    fn now(&self) -> f64 {
        self.0.set(self.0.get() + 1.0);
        self.0.get()
    }
    fn sleep(&self, ms: f64) -> Self::Sleep {
        self.0.set(self.0.get() + ms);
        ready(())
    }
}

/// Counts what it is handed, as a store that keeps nothing.
struct Count(usize);
impl driver::Store for Count {
    fn store(&mut self, record: &Record, _: Option<&[Vec<f64>]>) -> Result<(), String> {
        self.0 += record.response.len().min(1);
        Ok(())
    }
}

const ANSWER: &str = r#"{"id":"chatcmpl-1","object":"chat.completion","created":1763856000,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"B","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13},"system_fingerprint":"fp_mock"}"#;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let spec = RunSpec::from_json(
        r#"{"run_id":"bench","targets":[{"provider":"openai","models":["gpt-4o-mini"],"concurrency":16}],
            "params":{"temperature":0,"max_tokens":5},"confirm_above_calls":100000000}"#,
    )
    .expect("spec");
    let cases: Vec<Record> = (0..n)
        .map(|i| Record {
            case_id: format!("case-{i}"),
            prompt: format!("Case {i}: two people missed the bus. Who was late, A, B or C? Answer with one letter."),
            ..Default::default()
        })
        .collect();
    let keys = HashMap::from([("openai".to_string(), "sk-bench-not-a-key-0123456789".to_string())]);

    let mut journal_bytes = 0usize;
    let mut seconds = [0.0f64; 2];
    for (pass, with_journal) in [false, true].into_iter().enumerate() {
        let plan = Plan::chat(spec.clone(), &cases).expect("plan");
        let mut engine = Engine::new(plan, &keys);
        let started = Instant::now();
        let mut now = 0.0;
        let mut answered = 0usize;
        while !engine.is_done() {
            let batch = engine.next(now);
            assert!(!batch.is_empty(), "the engine stalled at {answered} answers");
            for d in batch {
                let result = answer();
                if let Completion::Answered { record, .. } = engine.complete(d.call, d.attempt, result, now) {
                    answered += 1;
                    if with_journal {
                        journal_bytes += journal::line(&record).len();
                    }
                }
            }
            now += 1.0;
        }
        seconds[pass] = started.elapsed().as_secs_f64();
        assert_eq!(answered, n);
    }
    let engine = RefCell::new(Engine::new(Plan::chat(spec, &cases).expect("plan"), &keys));
    let mut store = Count(0);
    let started = Instant::now();
    pollster::block_on(driver::drive(
        &engine,
        &Instantly,
        &Ticks(Cell::new(0.0)),
        &mut store,
        &RefCell::new(Overhead::default()),
        &mut futures_util::stream::pending(),
        f64::INFINITY,
    ));
    let driven = started.elapsed().as_secs_f64();
    assert_eq!(store.0, n, "the driver settled every call");
    let us = |s: f64| s * 1e6 / n as f64;
    println!(
        "{{\"case\":\"engine\",\"calls\":{n},\"seconds\":{:.4},\"us_per_call\":{:.2},\"us_per_call_with_journal_line\":{:.2},\"us_per_call_through_driver\":{:.2},\"journal_bytes\":{journal_bytes}}}",
        seconds[0],
        us(seconds[0]),
        us(seconds[1]),
        us(driven)
    );
}
