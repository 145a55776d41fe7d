//! The run facade (RunSession) in headless Chromium, driven with canned responses: an
//! answer, a 429 that pauses the target and is retried, a 401 that fails with the key
//! redacted, a resume that sends nothing twice, and garbage refused without a trap; and the
//! record handed to the store as JSON is the object the field-by-field conversion made.
#![cfg(target_arch = "wasm32")]

use evenhand::record::{Record, Status};
use evenhand::web::{self, RunSession};
use js_sys::{Array, JSON, Object, Reflect, Uint8Array};
use serde_json::{Value, json};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const KEY: &str = "sk-test-SECRET-9a8b7c6d5e";
const CASES: &[u8] = b"case_id,prompt\nc1,Is the sky blue?\nc2,Name a colour.\nc3,Say yes.\n";

fn js(v: &Value) -> JsValue {
    JSON::parse(&v.to_string()).unwrap()
}

fn rs(v: JsValue) -> Value {
    serde_wasm_bindgen::from_value(v).unwrap()
}

fn session() -> RunSession {
    let spec = json!({"run_id": "t", "targets": [{"provider": "openai", "models": ["gpt-4o-mini"], "concurrency": 2}],
                      "params": {"temperature": 0, "max_tokens": 5}, "retry": {"max_attempts": 3, "backoff_base_s": 0.5}});
    let mut s = RunSession::new(js(&spec), "cases.csv", CASES, false).unwrap();
    assert!(s.set_key("openai", KEY));
    s
}

fn response(status: u16, headers: &[(&str, &str)], body: &str) -> JsValue {
    let o = Object::new();
    Reflect::set(&o, &"status".into(), &status.into()).unwrap();
    let h = Array::new();
    for (n, v) in headers {
        h.push(&Array::of2(&(*n).into(), &(*v).into()));
    }
    Reflect::set(&o, &"headers".into(), &h).unwrap();
    Reflect::set(&o, &"body".into(), &Uint8Array::from(body.as_bytes())).unwrap();
    o.into()
}

fn answer(text: &str) -> String {
    json!({"id": "x", "object": "chat.completion", "model": "gpt-4o-mini",
           "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}})
    .to_string()
}

fn complete(s: &mut RunSession, d: &Value, resp: JsValue, now: f64) -> Value {
    let (call, attempt) = (d["call"].as_u64().unwrap() as u32, d["attempt"].as_u64().unwrap() as u32);
    rs(s.complete(call, attempt, resp, 20.0, 1_795_430_096_789.0, now).unwrap())
}

#[wasm_bindgen_test]
fn answered_retried_429_and_failed_401_with_the_key_redacted() {
    let mut s = session();
    let estimate = rs(s.estimate().unwrap());
    assert_eq!(estimate["calls"], 3);
    let first = rs(s.next(0.0).unwrap());
    let first = first.as_array().unwrap();
    assert_eq!(first.len(), 2, "concurrency 2");
    assert_eq!(first[0]["url"], "https://api.openai.com/v1/chat/completions");
    assert_eq!(first[0]["headers"][0], json!(["Authorization", format!("Bearer {KEY}")]));
    let body: Value = serde_json::from_str(first[0]["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["temperature"], 0.0, "temperature 0 is sent");

    let done = complete(&mut s, &first[0], response(200, &[], &answer("Yes")), 30.0);
    assert_eq!(done["kind"], "answered");
    assert_eq!((done["record"]["response"].as_str(), done["record"]["status"].as_str()), (Some("Yes"), Some("ok")));
    assert_eq!(done["record"]["params"]["temperature"], 0.0);

    let limited = complete(
        &mut s,
        &first[1],
        response(429, &[("retry-after", "1")], r#"{"error":{"message":"slow down"}}"#),
        40.0,
    );
    assert_eq!(limited["kind"], "retrying", "{limited}");
    // The 429 pauses the whole target for its Retry-After second: nothing goes before 1040 ms.
    assert_eq!(rs(s.next(500.0).unwrap()), json!([]));
    assert!(s.wake_at() >= 1040.0 && s.wake_at().is_finite(), "{}", s.wake_at());
    let p = rs(s.progress(500.0).unwrap());
    assert!(p["targets"][0]["paused_for_s"].as_f64().unwrap() > 0.0, "{p}");

    let second = rs(s.next(5000.0).unwrap());
    let second = second.as_array().unwrap();
    assert_eq!(second.len(), 2);
    assert_eq!(second[0]["record_id"], first[1]["record_id"], "the retry goes first");
    assert_eq!(second[0]["attempt"], 2);
    let retried = complete(&mut s, &second[0], response(200, &[], &answer("Blue")), 5010.0);
    assert_eq!(retried["kind"], "answered");

    let echo =
        format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}.","type":"invalid_request_error"}}}}"#);
    let failed = complete(&mut s, &second[1], response(401, &[], &echo), 5020.0);
    assert_eq!(failed["kind"], "failed", "a 401 is not retried");
    let error = failed["record"]["error"].as_str().unwrap();
    assert!(error.contains("401") && error.contains("[key removed]") && !error.contains(KEY), "{error}");
    assert_eq!(failed["record"]["status"], "error");

    let p = rs(s.progress(5100.0).unwrap());
    assert_eq!(
        (p["answered"].as_u64(), p["failed"].as_u64(), p["state"].as_str()),
        (Some(2), Some(1), Some("finished"))
    );
    assert!(!p.to_string().contains(KEY));
    let csv = s.export("csv").unwrap();
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(!csv.contains(KEY) && s.export("jsonl").unwrap().lines().count() == 3);

    // A resumed session restores the stored records and sends only the failed one, after retry_failed.
    let stored = Array::new();
    for d in [&done, &retried, &failed] {
        stored.push(&js(&d["record"]));
    }
    let mut again = session();
    assert_eq!(again.restore(stored.into()).unwrap(), 3);
    assert_eq!(rs(again.next(0.0).unwrap()), json!([]));
    assert_eq!(again.retry_failed(), 1);
    let resent = rs(again.next(1.0).unwrap());
    assert_eq!(resent.as_array().map(Vec::len), Some(1));
    assert_eq!(resent[0]["record_id"], failed["record"]["record_id"]);
}

#[wasm_bindgen_test]
fn network_failures_are_retried_and_garbage_is_refused() {
    let mut s = session();
    let d = rs(s.next(0.0).unwrap())[0].clone();
    let net: JsValue = js(&json!({"error": "network", "message": "Failed to fetch"}));
    assert_eq!(complete(&mut s, &d, net, 10.0)["kind"], "retrying");
    for bad in [json!({"status": "x"}), json!({"error": "gremlins"}), json!({"status": 200, "body": 5}), json!(7)] {
        assert!(s.complete(1, 1, js(&bad), 1.0, 1.0, 1.0).is_err(), "{bad}");
    }
    assert!(s.complete(0, 1, response(200, &[], "{}"), f64::NAN, 1.0, 1.0).is_err());
    assert_eq!(rs(s.complete(99, 1, response(200, &[], "{}"), 1.0, 1.0, 1.0).unwrap())["kind"], "ignored");
    assert!(
        s.export("xml").is_err()
            && s.set_prices(js(
                &json!({"currency": "USD", "rows": [{"model": "x", "input_per_million": -1, "output_per_million": 0}]})
            ))
            .is_err()
    );
    assert!(s.restore(js(&json!({"a": 1}))).is_err());

    let e = RunSession::new(js(&json!({"targets": []})), "c.csv", CASES, false).err().unwrap();
    assert!(rs(e)["message"].as_str().unwrap().contains("targets"));
    let e = RunSession::new(
        js(&json!({"targets": [{"provider": "openai", "models": ["m"]}]})),
        "c.csv",
        b"case_id,prompt\nc1,\n",
        false,
    )
    .err()
    .unwrap();
    let message = rs(e)["message"].as_str().unwrap().to_string();
    assert!(message.contains("c.csv:2") && message.contains("prompt"), "the cases problem names its line: {message}");
    assert!(RunSession::new(JsValue::NULL, "c.csv", CASES, false).is_err());

    let specs = rs(web::provider_specs().unwrap());
    assert_eq!(specs.as_array().map(Vec::len), Some(11));
    let req = rs(web::models_request("openai", None, Some(KEY.into())).unwrap());
    assert_eq!(req["url"], "https://api.openai.com/v1/models");
    let names =
        web::parse_model_list("openai", response(200, &[], r#"{"data":[{"id":"b"},{"id":"a"}]}"#), None, 0.0).unwrap();
    assert_eq!(names, vec!["a".to_string(), "b".to_string()]);
    assert!(web::models_request("nope", None, None).is_err());
    let advice = web::network_failure_advice("ollama", None, "https://example.github.io").unwrap();
    assert!(advice.contains("OLLAMA_ORIGINS"), "{advice}");
}

#[wasm_bindgen_test]
fn an_embedding_run_returns_vectors_in_text_order_and_refuses_bad_texts() {
    let spec = json!({"run_id": "e", "targets": [{"provider": "openai", "models": ["text-embedding-3-small"]}]});
    let texts =
        b"{\"id\":\"r1\",\"text\":\"one\"}\n{\"id\":\"r2\",\"text\":\"two\"}\n{\"id\":\"r3\",\"text\":\"three\"}\n";
    let mut s = RunSession::embed(js(&spec), "texts.jsonl", texts, 2).unwrap();
    assert_eq!(s.calls(), 2, "3 texts, 2 per call");
    let sent = rs(s.next(0.0).unwrap());
    let first = &sent.as_array().unwrap()[0];
    assert_eq!(first["url"], "https://api.openai.com/v1/embeddings");
    let body: Value = serde_json::from_str(first["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["input"], json!(["one", "two"]));
    let reply = json!({"object": "list", "model": "text-embedding-3-small", "usage": {"prompt_tokens": 2, "total_tokens": 2},
        "data": [{"object": "embedding", "index": 1, "embedding": [0.0, 1.0]},
                 {"object": "embedding", "index": 0, "embedding": [1.0, 0.0]}]});
    let done = complete(&mut s, first, response(200, &[], &reply.to_string()), 10.0);
    assert_eq!(done["kind"], "answered");
    assert_eq!(done["record"]["prompt"], "r1 r2", "the record lists its ids in input order");
    let vectors: Vec<Vec<f64>> = serde_json::from_value(done["embeddings"].clone()).unwrap();
    assert_eq!(vectors, [[1.0, 0.0], [0.0, 1.0]], "vectors by index, not by position in the body");

    let dup = b"{\"id\":\"r1\",\"text\":\"one\"}\n{\"id\":\"r1\",\"text\":\"two\"}\n";
    let e = RunSession::embed(js(&spec), "texts.jsonl", dup, 2).err().unwrap();
    let message = rs(e)["message"].as_str().unwrap().to_string();
    assert!(message.contains("texts.jsonl:2") && message.contains("duplicate id"), "{message}");
    let chat_only = json!({"run_id": "e", "targets": [{"provider": "anthropic", "models": ["claude"]}]});
    assert!(RunSession::embed(js(&chat_only), "texts.jsonl", texts, 2).is_err(), "Anthropic makes no embeddings");
}

/// Whether two JS values are the same as IndexedDB would keep them: same own keys in the same
/// order, arrays where arrays, and leaves equal by `Object.is` (so null is not undefined and
/// -0 is not 0). Says where they differ.
fn same(a: &JsValue, b: &JsValue, at: &str) -> Result<(), String> {
    if !(a.is_object() && b.is_object()) {
        return if Object::is(a, b) { Ok(()) } else { Err(format!("{at}: {a:?} vs {b:?}")) };
    }
    if Array::is_array(a) != Array::is_array(b) {
        return Err(format!("{at}: an array and an object"));
    }
    let keys = |v: &JsValue| Object::keys(&Object::from(v.clone())).iter().map(|k| k.as_string().unwrap()).collect();
    let (ka, kb): (Vec<String>, Vec<String>) = (keys(a), keys(b));
    if ka != kb {
        return Err(format!("{at}: keys {ka:?} vs {kb:?}"));
    }
    for k in ka {
        let key = JsValue::from_str(&k);
        same(&Reflect::get(a, &key).unwrap(), &Reflect::get(b, &key).unwrap(), &format!("{at}.{k}"))?;
    }
    Ok(())
}

#[wasm_bindgen_test]
fn a_record_handed_over_as_json_is_the_object_the_field_by_field_conversion_made() {
    // One answered by the engine, as the store gets it...
    let mut s = session();
    let sent = rs(s.next(0.0).unwrap());
    let done = complete(&mut s, &sent[0], response(200, &[], &answer("Yes, it is.")), 25.0);
    let answered: Record = serde_json::from_value(done["record"].clone()).unwrap();
    assert_eq!(answered.status, Status::Ok);
    // ...and one with every kind of value a record holds, edge cases included.
    let mut odd = Record {
        record_id: "r\"1\"\n\u{1F600}".into(),
        prompt: "Quote \" backslash \\ tab \t nul \u{0} é 日本".into(),
        status: Status::Error,
        error: "HTTP 500".into(),
        latency_ms: Some(20.123_456_789_012_3),
        tokens_in: Some((1 << 53) - 1),
        tokens_out: None,
        gold: Some(2),
        choices: vec!["a".into(), String::new()],
        logprobs: Some(json!({"content": [{"token": "Y", "logprob": -1e-7, "top": [0.1, -0.0, 1e300, 5e-324]}]})),
        ..Record::default()
    };
    odd.communities.insert("GENDER".into(), "women".into());
    odd.params.insert("temperature".into(), json!(0.0));
    odd.params.insert("max_tokens".into(), json!(5));
    odd.params.insert("messages".into(), json!([{"role": "user", "content": "hi"}, {"10": 1, "2": null}]));
    odd.extra.insert("logprob_sum".into(), "-0.5".into());
    for record in [answered, Record::default(), odd] {
        let by_field = serde_wasm_bindgen::Serializer::json_compatible();
        let expected = serde::Serialize::serialize(&record, &by_field).unwrap();
        let handed = web::record_to_js(&record).unwrap();
        if let Err(e) = same(&handed, &expected, "record") {
            panic!("{e}");
        }
    }
}
