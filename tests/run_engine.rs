//! The run engine played with a fake clock and a fake provider: every rule the page and the
//! CLI rely on, checked without a network.

use evenhand::providers::response::RawResponse;
use evenhand::record::{Record, Status};
use evenhand::run::progress::RunState;
use evenhand::run::{CallResult, Completion, Dispatch, Engine, Plan, RunSpec, TransportError};
use std::collections::{BTreeMap, HashMap};

const KEY: &str = "sk-engine-test-FAKE-0123456789";

fn spec(extra: &str) -> RunSpec {
    RunSpec::from_json(&format!(
        r#"{{"run_id":"t","targets":[{{"id":"p","provider":"openai","models":["m"],"concurrency":3}}],
            "params":{{"temperature":0,"max_tokens":5}},"retry":{{"max_attempts":3,"backoff_base_s":1,"backoff_max_s":4}}{extra}}}"#
    ))
    .unwrap()
}

fn cases(n: usize) -> Vec<Record> {
    (0..n).map(|i| Record { case_id: format!("c{i}"), prompt: format!("question {i}"), ..Default::default() }).collect()
}

fn engine(n: usize, extra: &str) -> Engine {
    let keys = HashMap::from([("p".to_string(), KEY.to_string())]);
    Engine::new(Plan::chat(spec(extra), &cases(n)).unwrap(), &keys)
}

fn answer(text: &str) -> RawResponse {
    let body = format!(
        r#"{{"id":"x","object":"chat.completion","model":"m","choices":[{{"index":0,"message":{{"role":"assistant","content":"{text}"}},"finish_reason":"stop"}}],"usage":{{"prompt_tokens":7,"completion_tokens":2}}}}"#
    );
    RawResponse::ok(&body)
}

fn status(code: u16, headers: &[(&str, &str)], body: &str) -> RawResponse {
    RawResponse {
        status: code,
        headers: headers.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect(),
        body: body.as_bytes().to_vec(),
    }
}

fn done(response: Result<RawResponse, TransportError>) -> CallResult {
    CallResult { response, latency_ms: 50.0, unix_ms: 1_795_430_096_000 }
}

#[test]
fn a_clean_run_answers_every_call_once_with_its_parameters() {
    let mut e = engine(5, "");
    let mut now = 0.0;
    let mut stored: Vec<Record> = vec![];
    let mut sent: BTreeMap<String, u32> = BTreeMap::new();
    while !e.is_done() {
        let batch = e.next(now);
        assert!(batch.len() <= 3 && e.in_flight() <= 3, "concurrency is 3");
        for d in batch {
            *sent.entry(d.record_id.clone()).or_default() += 1;
            assert!(d.headers.contains(&("Authorization".to_string(), format!("Bearer {KEY}"))));
            assert!(d.body.as_deref().unwrap().contains("\"temperature\":0"), "temperature 0 is sent");
            match e.complete(d.call, d.attempt, done(Ok(answer("B"))), now) {
                Completion::Answered { record, embeddings: None } => stored.push(*record),
                other => panic!("{other:?}"),
            }
        }
        now += 10.0;
    }
    assert_eq!(stored.len(), 5);
    assert!(sent.values().all(|&n| n == 1));
    let r = &stored[0];
    assert_eq!((r.status, r.response.as_str(), r.tokens_in, r.tokens_out), (Status::Ok, "B", Some(7), Some(2)));
    assert_eq!(r.params["temperature"], serde_json::json!(0.0));
    assert_eq!(r.params["max_completion_tokens"], serde_json::json!(5), "OpenAI's name for max tokens");
    assert_eq!(r.timestamp, "2026-11-23T10:34:56.000Z");
    let p = e.progress(now);
    assert_eq!((p.state, p.answered, p.failed, p.remaining, p.tokens_in), (RunState::Finished, 5, 0, 0, 35));
}

#[test]
fn a_429_pauses_the_target_for_its_retry_after_then_the_call_is_answered() {
    let mut e = engine(2, "");
    let first = e.next(0.0);
    assert_eq!(first.len(), 2);
    let limited = status(429, &[("Retry-After", "7")], r#"{"error":{"message":"slow down"}}"#);
    match e.complete(first[0].call, 1, done(Ok(limited)), 100.0) {
        Completion::Retrying { attempt: 1, at_ms, error, .. } => {
            assert!(at_ms >= 7_100.0, "{at_ms}");
            assert!(error.contains("429"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(e.complete(first[1].call, 1, done(Ok(answer("A"))), 100.0), Completion::Answered { .. }));
    assert!(e.next(200.0).is_empty(), "the whole target waits out Retry-After");
    let p = e.progress(200.0);
    assert!(p.targets[0].paused_for_s.is_some_and(|s| (s - 6.9).abs() < 1e-9), "{:?}", p.targets[0]);
    assert!(e.wake_at() >= 7_100.0);
    let again = e.next(e.wake_at());
    assert_eq!((again.len(), again[0].attempt), (1, 2));
    assert!(matches!(e.complete(again[0].call, 2, done(Ok(answer("C"))), 7_200.0), Completion::Answered { .. }));
    let p = e.progress(7_200.0);
    assert_eq!((p.answered, p.retries), (2, 1));
}

#[test]
fn retries_stop_after_max_attempts_and_retry_failed_starts_over() {
    let mut e = engine(1, "");
    let mut now = 0.0;
    let mut last = None;
    for attempt in 1..=3 {
        let d = e.next(now);
        assert_eq!(d.len(), 1, "attempt {attempt}");
        last = Some(e.complete(d[0].call, attempt, done(Err(TransportError::Network("reset".into()))), now));
        now = e.wake_at().max(now);
    }
    match last.unwrap() {
        Completion::Failed { record } => {
            assert_eq!(record.status, Status::Error);
            assert!(record.error.contains("network error: reset"), "{}", record.error);
        }
        other => panic!("{other:?}"),
    }
    assert!(e.is_done() && e.next(now + 1e9).is_empty());
    let p = e.progress(now);
    assert_eq!((p.failed, p.failures.len(), p.failures[0].attempts), (1, 1, 3));
    assert_eq!(e.retry_failed(), 1);
    let d = e.next(now);
    assert_eq!(d[0].attempt, 1);
    assert!(matches!(e.complete(d[0].call, 1, done(Ok(answer("A"))), now), Completion::Answered { .. }));
}

#[test]
fn errors_that_cannot_improve_fail_at_once_with_the_key_removed() {
    let mut e = engine(1, "");
    let d = e.next(0.0);
    let body = format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}"}}}}"#);
    match e.complete(d[0].call, 1, done(Ok(status(401, &[], &body))), 0.0) {
        Completion::Failed { record } => {
            assert!(record.error.contains("401") && !record.error.contains(KEY), "{}", record.error);
        }
        other => panic!("{other:?}"),
    }
    assert!(!format!("{e:?}").contains(KEY), "Debug output hides the key");
    assert!(!format!("{d:?}").contains(KEY), "a dispatch's Debug output hides the key");
    let p = serde_json::to_string(&e.progress(0.0)).unwrap();
    assert!(!p.contains(KEY));
}

#[test]
fn a_restored_run_sends_only_what_the_store_lacks() {
    let mut first = engine(6, "");
    let mut stored = vec![];
    for d in first.next(0.0) {
        if let Completion::Answered { record, .. } = first.complete(d.call, d.attempt, done(Ok(answer("A"))), 0.0) {
            stored.push(*record);
        }
    }
    assert_eq!(stored.len(), 3);
    let mut second = engine(6, "");
    assert_eq!(second.restore(&stored), 3);
    let mut sent = vec![];
    let mut now = 0.0;
    while !second.is_done() {
        for d in second.next(now) {
            sent.push(d.record_id.clone());
            second.complete(d.call, d.attempt, done(Ok(answer("B"))), now);
        }
        now += 1.0;
    }
    assert_eq!(sent.len(), 3);
    assert!(stored.iter().all(|r| !sent.contains(&r.record_id)));
    let answers: Vec<&str> = second.records().map(|r| r.response.as_str()).collect();
    assert_eq!(answers, ["A", "A", "A", "B", "B", "B"], "restored answers are kept");
}

#[test]
fn late_or_duplicate_results_are_ignored_and_an_error_never_replaces_an_answer() {
    let mut e = engine(1, "");
    let d = e.next(0.0).remove(0);
    assert!(matches!(e.complete(d.call, d.attempt, done(Ok(answer("A"))), 0.0), Completion::Answered { .. }));
    assert_eq!(e.complete(d.call, d.attempt, done(Ok(answer("Z"))), 0.0), Completion::Ignored);
    assert_eq!(e.complete(99, 1, done(Ok(answer("Z"))), 0.0), Completion::Ignored);
    let mut restored = engine(1, "");
    let answered = e.records().next().unwrap().clone();
    let mut failed = answered.clone();
    failed.status = Status::Error;
    failed.response.clear();
    restored.restore(&[answered]);
    restored.restore(&[failed]);
    assert_eq!(restored.records().next().unwrap().response, "A");
}

#[test]
fn pause_stops_new_calls_and_resume_continues() {
    let mut e = engine(4, "");
    let d = e.next(0.0);
    e.pause(10.0);
    assert!(e.next(20.0).is_empty());
    for x in d {
        assert!(matches!(e.complete(x.call, x.attempt, done(Ok(answer("A"))), 30.0), Completion::Answered { .. }));
    }
    assert_eq!(e.progress(40.0).state, RunState::Paused);
    e.resume();
    assert_eq!(e.next(50.0).len(), 1);
    e.cancel(60.0);
    assert!(e.next(70.0).is_empty());
    assert_eq!(e.progress(70.0).state, RunState::Cancelled);
}

#[test]
fn per_minute_limits_space_the_calls() {
    let mut e = engine(5, "");
    let mut e2 = {
        let mut s = spec("");
        s.targets[0].requests_per_minute = Some(2);
        s.targets[0].concurrency = 10;
        Engine::new(Plan::chat(s, &cases(5)).unwrap(), &HashMap::new())
    };
    assert_eq!(e.next(0.0).len(), 3);
    let d = e2.next(0.0);
    assert_eq!(d.len(), 2);
    assert!(!d[0].headers.iter().any(|(n, _)| n == "Authorization"), "no key, no header");
    for x in d {
        e2.complete(x.call, x.attempt, done(Ok(answer("A"))), 1.0);
    }
    assert!(e2.next(1_000.0).is_empty());
    assert_eq!(e2.wake_at(), 60_000.0);
    assert_eq!(e2.next(60_000.0).len(), 2);
}

/// 1,000 calls, 5% of attempts failing in assorted ways, concurrency 6, a fake clock: every
/// call ends answered or failed, no answered call is sent again, and the engine's own cost
/// per call stays small.
#[test]
fn a_thousand_calls_with_faults_all_settle() {
    let mut e = engine(1000, r#","seed":3"#);
    let mut now = 0.0;
    let mut in_flight: Vec<(Dispatch, f64)> = vec![];
    let mut answered = std::collections::HashSet::new();
    let mut rng = 12345u64;
    let mut coin = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % 1000) as f64 / 1000.0
    };
    let started = std::time::Instant::now();
    let mut steps = 0;
    while !e.is_done() {
        steps += 1;
        assert!(steps < 1_000_000, "the run does not settle");
        for d in e.next(now) {
            assert!(!answered.contains(&d.record_id), "{} was sent after its answer", d.record_id);
            in_flight.push((d, now + 50.0));
        }
        in_flight.sort_by(|a, b| b.1.total_cmp(&a.1));
        match in_flight.pop() {
            Some((d, at)) => {
                now = now.max(at);
                let roll = coin();
                let response = if roll < 0.0125 {
                    Ok(status(429, &[("retry-after", "1")], "{}"))
                } else if roll < 0.025 {
                    Ok(status(503, &[], "{}"))
                } else if roll < 0.0375 {
                    Err(TransportError::Timeout)
                } else if roll < 0.05 {
                    Ok(RawResponse::ok("{\"choices\":[{\"mess"))
                } else {
                    Ok(answer("A"))
                };
                if let Completion::Answered { record, .. } = e.complete(d.call, d.attempt, done(response), now) {
                    answered.insert(record.record_id.clone());
                }
            }
            None => now = e.wake_at(),
        }
    }
    let p = e.progress(now);
    assert_eq!(p.answered + p.failed, 1000);
    assert!(p.answered >= 990, "with 3 attempts at 5% faults nearly all get through: {p:?}");
    assert!(p.retries > 20);
    let per_call = started.elapsed().as_secs_f64() / 1000.0;
    assert!(per_call < 0.01, "engine overhead {per_call} s per call (debug build)");
}

#[test]
fn retries_that_are_due_go_out_earliest_first() {
    let mut e = engine(3, "");
    let first = e.next(0.0);
    let fail = |code| done(Ok(status(code, &[], "{}")));
    // Three 503s at different times: their waits end in that order (the same jitter draw is
    // not guaranteed, so the order is read from the engine's own schedule).
    let mut due = vec![];
    for (k, d) in first.iter().enumerate() {
        if let Completion::Retrying { record_id, at_ms, .. } = e.complete(d.call, 1, fail(503), 1000.0 * k as f64) {
            due.push((at_ms, record_id));
        }
    }
    due.sort_by(|a, b| a.0.total_cmp(&b.0));
    let latest = due.last().unwrap().0;
    let again: Vec<String> = e.next(latest + 1.0).into_iter().map(|d| d.record_id).collect();
    let expected: Vec<String> = due.into_iter().map(|(_, id)| id).collect();
    assert_eq!(again, expected);
}
