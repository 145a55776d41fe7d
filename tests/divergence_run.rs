//! Cultural divergence from live runs: the Polish probe set on a few contexts, sent through
//! the run engine. Scoring goes over HTTP to the mock's /v1/completions (with injected faults
//! and a model that always fails); sampling goes to a canned chat transport. CD is computed
//! from the stored records and checked against the same data given as an uploaded table or
//! as records built by hand. Skips with a printed reason when python3 is missing.

// The mock is read with ureq, which exists for native targets only.
#![cfg(not(target_arch = "wasm32"))]

#[path = "common/http.rs"]
mod http;
#[path = "common/mock.rs"]
mod mock;

use evenhand::divergence::analysis::{ModelData, SettingsText};
use evenhand::divergence::probes::ProbeSet;
use evenhand::divergence::runs::{self, Mode};
use evenhand::divergence::session::Session;
use evenhand::divergence::{builtin, logprobs};
use evenhand::providers::response::RawResponse;
use evenhand::record::{Record, Status};
use evenhand::run::RunSpec;
use evenhand::run::engine::{Dispatch, Engine, LOGPROB_SUM, TransportError};
use evenhand::run::plan::{Job, Plan};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;

/// Toy local first-name weights for the test only (made up, not PESEL figures).
const TOY_LOCAL_NAMES: &str = "name\tcount\nAnna\t50\nMaria\t40\nKatarzyna\t30\nPiotr\t45\nKrzysztof\t35\nJan\t20\n";

/// pl-western with its first `n` contexts per aspect.
fn few_contexts(n: usize) -> ProbeSet {
    let mut p = builtin::probe_set("pl-western").unwrap();
    for a in &mut p.aspects {
        a.contexts.truncate(n);
    }
    p
}

fn session(p: &ProbeSet) -> Session {
    let mut s = Session::default();
    s.load_probes("pl-few.json", serde_json::to_string(p).unwrap().as_bytes()).unwrap();
    s.add_reference("local", "first_names", "toy.tsv", TOY_LOCAL_NAMES.as_bytes(), Some("table"), None).unwrap();
    s
}

fn settings() -> evenhand::divergence::Settings {
    SettingsText { smoothing: "add-alpha:0.5".into(), unit: "nats".into(), replicates: 200, confidence: 0.9, seed: 5 }
        .parse()
        .unwrap()
}

#[test]
fn a_scoring_run_against_the_mock_gives_the_cd_of_its_logprob_table() {
    let Some(mock) = mock::Mock::start(&["--fault-rate", "0.2", "--seed", "7"]) else { return };
    let probes = few_contexts(3);
    let cases = runs::cases(&probes, Mode::Score);
    let per_model = cases.len();
    assert_eq!(per_model, 3 * 37 + 3 * 41);
    let spec = RunSpec::from_json(&format!(
        r#"{{"run_id":"cd","targets":[{{"provider":"openai-compatible","base_url":"http://127.0.0.1:{}/v1",
            "models":["mock-a","mock-404-gone"],"concurrency":4}}],"retry":{{"max_attempts":10,"timeout_s":10}},"seed":3}}"#,
        mock.port
    ))
    .unwrap();
    let plan = Plan::from_cases(spec, &cases).unwrap();
    assert_eq!(plan.calls.len(), 2 * per_model);
    assert!(plan.calls.iter().all(|c| matches!(c.job, Job::Score { .. })));
    let mut engine =
        Engine::new(plan, &HashMap::from([("openai-compatible".to_string(), "sk-mock-0123456789".into())]));
    let (records, progress) = http::drive(&mut engine, http::http);
    assert_eq!(records.len(), 2 * per_model, "every call ends answered or failed");
    assert_eq!((progress.answered, progress.failed), (per_model as u64, per_model as u64), "{progress:?}");
    assert!(progress.retries > 0, "the injected faults were retried");

    // The mock counts requests per case: each scored once, plus exactly the engine's retries.
    let stats =
        http::send("GET", &format!("http://127.0.0.1:{}/__stats", mock.port), &[], "", Duration::from_secs(5)).unwrap();
    let stats: Value = serde_json::from_slice(&stats.body).unwrap();
    assert_eq!(stats["faults"].as_u64(), Some(progress.retries), "{stats}");
    assert_eq!(stats["total"].as_u64(), Some(2 * per_model as u64 + progress.retries));

    // A stored sum is the echo's sum, token by token, as a direct call gives it.
    let krakow = records.iter().find(|r| r.case_id == "pl-city-01|Kraków" && r.model == "mock-a").unwrap();
    assert_eq!((krakow.status, krakow.prompt.as_str()), (Status::Ok, "Mieszkam w Krakowie."));
    assert_eq!(krakow.params["echo"], json!(true));
    let body =
        json!({"model": "mock-a", "prompt": "Mieszkam w Krakowie.", "echo": true, "logprobs": 1, "max_tokens": 0});
    let url = format!("http://127.0.0.1:{}/v1/completions", mock.port);
    // The direct call may draw an injected fault too; it is retried as the engine would.
    let direct = (0..10)
        .find_map(|_| {
            http::send("POST", &url, &[], &body.to_string(), Duration::from_secs(5)).ok().filter(|r| r.status == 200)
        })
        .expect("a direct answer");
    let direct: Value = serde_json::from_slice(&direct.body).unwrap();
    let by_hand: f64 =
        direct["choices"][0]["logprobs"]["token_logprobs"].as_array().unwrap().iter().filter_map(Value::as_f64).sum();
    assert_eq!(krakow.extra[LOGPROB_SUM], format!("{by_hand:?}"));
    assert_eq!(krakow.logprobs.as_ref().unwrap()["tokens"][2], " Krakowie");

    // Failed calls are counted and named; the model that always failed gives no context.
    let input = runs::inputs("run.csv", records.clone()).unwrap();
    assert_eq!((input.counts.failed, input.counts.used, input.counts.incomplete_contexts), (per_model, per_model, 6));
    assert!(input.problems.iter().any(|p| p.message.contains("HTTP 404")), "{:?}", input.problems);
    let ModelData::Logprobs(rows) = &input.data else { panic!("scoring records give a table") };
    // Some fillers are far more likely than others in one context.
    let city1: Vec<f64> = rows.iter().filter(|r| r.context == "pl-city-01").map(|r| r.logprob).collect();
    let spread = city1.iter().cloned().fold(f64::MIN, f64::max) - city1.iter().cloned().fold(f64::MAX, f64::min);
    assert!(city1.len() == 41 && spread > 3.0, "{} fillers, spread {spread}", city1.len());

    // CD from the stored records (written and read back as CSV, as `evenhand run` would)...
    let mut from_records = session(&probes);
    let csv = evenhand::formats::write(&records, evenhand::formats::FileFormat::Csv);
    let summary = from_records.load_records("run.csv", csv.as_bytes()).unwrap();
    assert_eq!(summary.calls.as_ref().map(|c| c.failed), Some(per_model));
    let a = serde_json::to_value(from_records.analyze(&settings()).unwrap()).unwrap();
    // ...equals CD from the same log-probabilities uploaded as a table.
    let mut from_table = session(&probes);
    from_table.load_logprobs("mock-a.csv", logprobs::write(rows).as_bytes()).unwrap();
    let b = serde_json::to_value(from_table.analyze(&settings()).unwrap()).unwrap();
    assert_eq!(a["models"], b["models"]);
    assert_eq!(a["models"].as_array().unwrap().len(), 1, "only mock-a has data");
    assert_eq!(a["models"][0]["aspects"].as_array().unwrap().len(), 2, "names and cities");
    let cd = a["models"][0]["cd"]["value"].as_f64().unwrap();
    assert!(cd.is_finite() && cd != 0.0, "{cd}");
    println!("mock-a scoring CD = {cd:.4} nats over 3 + 3 contexts");
}

/// The canned chat model: for sample s of a context, a filler chosen by a fixed rule, said in
/// one of three ways; the last sample of each context answers with no filler at all, and one
/// call always fails with HTTP 500.
fn canned(probes: &ProbeSet, d: &Dispatch) -> Result<RawResponse, TransportError> {
    let parts: Vec<&str> = d.record_id.split(':').collect();
    let (context_id, sample) = (parts[1], parts[4].parse::<usize>().unwrap());
    if context_id == "pl-name-02" && sample == 1 {
        return Ok(RawResponse { status: 500, headers: vec![], body: br#"{"error":{"message":"boom"}}"#.to_vec() });
    }
    let body: Value = serde_json::from_str(d.body.as_deref().unwrap()).unwrap();
    assert_eq!(body["temperature"], json!(0.9));
    assert!(body["messages"][0]["content"].as_str().unwrap().starts_with("Uzupełnij lukę"));
    let (aspect, context) = probes.context(context_id).unwrap();
    let text = if sample == 5 {
        "Nie wiem.".to_string()
    } else {
        let f = &aspect.fillers[(sample * sample + context_id.len()) % 4];
        let form = f.form(&context.form);
        match sample % 3 {
            0 => form.to_string(),
            1 => context.filled(&probes.slot, form),
            _ => format!("{}.", form.to_uppercase()),
        }
    };
    let answer = json!({"id": "c", "object": "chat.completion", "model": "canned",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 3}});
    Ok(RawResponse::ok(&answer.to_string()))
}

#[test]
fn a_sampling_run_gives_the_cd_of_its_samples_with_unmatched_and_failed_calls_counted() {
    let probes = few_contexts(3);
    let cases = runs::cases(&probes, Mode::Sample);
    assert_eq!(cases.len(), 6);
    let spec = RunSpec::from_json(
        r#"{"run_id":"cds","targets":[{"provider":"openai-compatible","base_url":"http://canned.invalid/v1","models":["canned"]}],
            "samples":6,"params":{"temperature":0.9},"retry":{"max_attempts":3}}"#,
    )
    .unwrap();
    let plan = Plan::from_cases(spec, &cases).unwrap();
    assert!(plan.calls.iter().all(|c| matches!(c.job, Job::Chat(_))));
    let mut engine = Engine::new(plan, &HashMap::new());
    let (records, progress) = http::drive(&mut engine, |d| canned(&probes, d));
    assert_eq!((progress.answered, progress.failed, progress.retries), (35, 1, 2), "{progress:?}");
    let ok = records.iter().find(|r| r.status == Status::Ok).unwrap();
    assert_eq!((ok.language.as_str(), ok.extra["job"].as_str()), ("pl", "sample"));
    assert_eq!(ok.params["temperature"], json!(0.9));

    let mut s = session(&probes);
    let csv = evenhand::formats::write(&records, evenhand::formats::FileFormat::Csv);
    let summary = s.load_records("run.csv", csv.as_bytes()).unwrap();
    assert_eq!(summary.temperatures, vec![0.9]);
    let calls = summary.calls.unwrap();
    assert_eq!((calls.mode.as_str(), calls.failed, calls.used), ("sampling", 1, 35));
    assert!(summary.problems.iter().any(|p| p.message.contains("HTTP 500") && p.message.contains("boom")));
    let a = serde_json::to_value(s.analyze(&settings()).unwrap()).unwrap();
    let m = &a["models"][0];
    assert_eq!(m["samples"]["unmatched"], 6, "one 'Nie wiem.' per context, counted");
    assert_eq!(m["samples"]["not_ok"], 1, "the failed call, counted");
    assert_eq!(m["samples"]["matched"], 29);
    let unmatched = &m["aspects"][1]["contexts"][0]["unmatched_texts"];
    assert_eq!(unmatched, &json!([["Nie wiem.", 1]]));

    // The same completions as records built by hand (no engine) give the same numbers.
    let by_hand: Vec<Record> = records
        .iter()
        .map(|r| Record {
            case_id: r.case_id.clone(),
            model: r.model.clone(),
            sample_index: r.sample_index,
            response: r.response.clone(),
            status: r.status,
            ..Record::default()
        })
        .collect();
    let mut s2 = session(&probes);
    s2.take_records("by-hand", by_hand, vec![]).unwrap();
    let b = serde_json::to_value(s2.analyze(&settings()).unwrap()).unwrap();
    assert_eq!(a["models"], b["models"]);
    // And the city contexts' distributions are the canned rule's tallies.
    let ctx = &m["aspects"][1]["contexts"][0];
    assert_eq!(ctx["context"], "pl-city-01");
    assert_eq!(ctx["n"], 5);
    println!("canned sampling CD = {:.4} nats", m["cd"]["value"].as_f64().unwrap());
}
