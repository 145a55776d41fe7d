//! Cross-lingual runs through the run engine: the session's cases -> `Plan::chat` -> an
//! `Engine` driven by a small synchronous transport -> records back into the session; the
//! responses -> `Plan::embed` -> vectors back with their model -> PERMANOVA; an LLM judge run
//! whose replies become the judge detector's verdicts; and failed calls counted, not dropped.
//!
//! Two transports: a canned provider in this process (OpenAI wire format, with a language
//! effect built in so that McNemar and PERMANOVA have something to find), and the mock
//! provider (tests/mock/mock_provider.py) over HTTP/1.1 on 127.0.0.1 with injected faults. The
//! mock test skips with a printed reason when python3 is missing.

// The mock is read with ureq, which exists for native targets only.
#![cfg(not(target_arch = "wasm32"))]

#[path = "common/http.rs"]
mod http;
#[path = "common/mock.rs"]
mod mock;

use evenhand::crosslingual::analysis::Settings;
use evenhand::crosslingual::detect::Detector;
use evenhand::crosslingual::permanova;
use evenhand::crosslingual::runs::{self, EmbeddingBatch};
use evenhand::crosslingual::session::{CasesRequest, Session};
use evenhand::providers::request::Method;
use evenhand::providers::response::RawResponse;
use evenhand::record::{Record, Status};
use evenhand::rng::stable_hash;
use evenhand::run::{CallResult, Completion, Dispatch, Engine, Plan, RunSpec, TransportError};
use evenhand::stats::distance::Distance;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn session(languages: &[&str], modes: &[&str]) -> (Session, Vec<Record>) {
    let mut s = Session::default();
    let path = root().join("tests/fixtures/crosslingual/questions.json");
    s.load_questions("questions.json", &std::fs::read(path).unwrap()).unwrap();
    let req = CasesRequest {
        languages: languages.iter().map(|l| l.to_string()).collect(),
        modes: modes.iter().map(|m| m.to_string()).collect(),
    };
    let cases = s.run_cases(&req).unwrap();
    (s, cases)
}

fn spec(base_url: &str, models: &[&str], max_attempts: u32) -> RunSpec {
    RunSpec::from_json(
        &json!({
            "run_id": "xl",
            "targets": [{"id": "t", "provider": "openai-compatible", "base_url": base_url, "models": models}],
            "params": {"temperature": 0},
            "retry": {"max_attempts": max_attempts, "backoff_base_s": 0.05, "backoff_max_s": 1},
            "seed": 3
        })
        .to_string(),
    )
    .unwrap()
}

/// Everything a run settled, in the order it settled, with the vectors of embedding calls.
#[derive(Default)]
struct Settled {
    answered: Vec<(Record, Option<Vec<Vec<f64>>>)>,
    failed: Vec<Record>,
    retries: usize,
}

/// Drives the engine on a fake clock (the transport answers at once, so only backoffs move
/// the clock) until every call is answered or failed.
fn drive(plan: Plan, send: &mut dyn FnMut(&Dispatch) -> Result<RawResponse, TransportError>) -> (Engine, Settled) {
    let keys = HashMap::from([("t".to_string(), "sk-FAKE-test-key-0123456789".to_string())]);
    let mut engine = Engine::new(plan, &keys);
    let mut out = Settled::default();
    let mut now = 0.0;
    for _ in 0..100_000 {
        let batch = engine.next(now);
        if batch.is_empty() {
            if engine.is_done() {
                return (engine, out);
            }
            let wake = engine.wake_at();
            assert!(wake.is_finite() && engine.in_flight() == 0, "the run is stuck at {now} ms");
            now = wake.max(now + 1.0);
            continue;
        }
        for d in batch {
            let response = send(&d);
            let result = CallResult { response, latency_ms: 5.0, unix_ms: 1_795_430_096_789 + now as i64 };
            match engine.complete(d.call, d.attempt, result, now) {
                Completion::Answered { record, embeddings } => out.answered.push((*record, embeddings)),
                Completion::Failed { record } => out.failed.push(*record),
                Completion::Retrying { .. } => out.retries += 1,
                Completion::Ignored => panic!("a dispatch the engine was waiting for was ignored"),
            }
        }
        now += 1.0;
    }
    panic!("the run did not finish");
}

/// Every record the engine holds (answered, failed or pending), as a store would keep them.
fn records(engine: &Engine) -> Vec<Record> {
    engine.records().cloned().collect()
}

/// Takes an embedding run's vectors into the session, batch by batch, as the page does.
fn attach(s: &mut Session, settled: &Settled) -> usize {
    let mut n = 0;
    for (rec, vectors) in &settled.answered {
        let vectors = vectors.clone().expect("an embedding call carries vectors");
        let batch = EmbeddingBatch { model: rec.model.clone(), ids: runs::batch_ids(rec), vectors };
        n += s.add_embeddings(&batch).unwrap();
    }
    n
}

// ---- the canned provider -------------------------------------------------------------

const HINDI_REFUSAL: &str = "मुझे खेद है, मैं इस प्रश्न का उत्तर नहीं दे सकता।";

fn openai_chat(model: &str, text: &str) -> RawResponse {
    RawResponse::ok(
        &json!({
            "id": "c", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5}
        })
        .to_string(),
    )
}

fn error_500() -> RawResponse {
    RawResponse {
        status: 500,
        headers: vec![],
        body: br#"{"error":{"message":"internal server error","type":"api_error"}}"#.to_vec(),
    }
}

/// A provider with a built-in language effect: it refuses every question in Hindi and answers
/// in the other languages; its embeddings shift Hindi responses by 0.8 on every axis.
/// Model "broken" always fails; the first attempt of every third case fails once.
struct Canned {
    /// prompt -> (question id, language, mode)
    cases: HashMap<String, (String, String, String)>,
    attempts: HashMap<String, u32>,
}

impl Canned {
    fn new(cases: &[Record]) -> Canned {
        let cases = cases
            .iter()
            .map(|c| (c.prompt.clone(), (c.question_id.clone(), c.language.clone(), c.template_id.clone())))
            .collect();
        Canned { cases, attempts: HashMap::new() }
    }

    fn send(&mut self, d: &Dispatch) -> Result<RawResponse, TransportError> {
        assert_eq!(d.method, Method::Post);
        assert!(d.headers.iter().any(|(_, v)| v.contains("sk-FAKE")), "the key is sent");
        let body: Value = serde_json::from_str(d.body.as_deref().unwrap()).unwrap();
        let model = body["model"].as_str().unwrap().to_string();
        let attempt = self.attempts.entry(d.record_id.clone()).or_default();
        *attempt += 1;
        if model == "broken" || (*attempt == 1 && stable_hash(&[d.record_id.as_bytes()]).is_multiple_of(3)) {
            return Ok(error_500());
        }
        if d.url.ends_with("/embeddings") {
            let inputs: Vec<String> =
                body["input"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
            let data: Vec<Value> = inputs
                .iter()
                .enumerate()
                .map(|(i, text)| json!({"object": "embedding", "index": i, "embedding": vector(text)}))
                .collect();
            return Ok(RawResponse::ok(&json!({"object": "list", "model": model, "data": data}).to_string()));
        }
        let prompt = body["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap().to_string();
        if model == "judge" {
            let reply = prompt.split("<reply>\n").nth(1).unwrap().split("\n</reply>").next().unwrap();
            // One reply that is not a verdict: strict parsing must report it, not guess.
            let verdict = if reply.contains("(en arms-01 answer)") {
                "It is an ANSWER."
            } else if reply.contains("मुझे खेद है") {
                "REFUSAL"
            } else {
                "ANSWER"
            };
            return Ok(openai_chat(&model, verdict));
        }
        let (qid, lang, mode) = self.cases.get(&prompt).expect("a prompt of the plan").clone();
        let text = if lang == "hi" {
            format!("{HINDI_REFUSAL} ({lang} {qid} {mode})")
        } else {
            format!("Here is a balanced answer with arguments on both sides. ({lang} {qid} {mode})")
        };
        Ok(openai_chat(&model, &text))
    }
}

/// 16 numbers in [-1, 1) from a hash of the text, each plus 0.8 for Hindi.
fn vector(text: &str) -> Vec<f64> {
    let shift = if text.contains("(hi ") { 0.8 } else { 0.0 };
    (0..16u8)
        .map(|k| {
            let u = (stable_hash(&[text.as_bytes(), &[k]]) >> 11) as f64 / (1u64 << 53) as f64;
            2.0 * u - 1.0 + shift
        })
        .collect()
}

#[test]
fn a_canned_provider_run_feeds_mcnemar_permanova_and_the_judge() {
    let languages = ["en", "ko", "hi"];
    let (mut s, cases) = session(&languages, &["answer", "acceptable"]);
    assert_eq!(cases.len(), 6 * 3 * 2);
    assert!(cases.iter().all(|c| c.status == Status::Pending && !c.question_id.is_empty() && !c.concern.is_empty()));
    let mut canned = Canned::new(&cases);

    // Chat: 36 cases x 2 models; "broken" fails every time, the rest get through on retry.
    let plan = Plan::chat(spec("http://canned.invalid/v1", &["chat", "broken"], 2), &cases).unwrap();
    assert_eq!(plan.calls.len(), 72);
    // Before anything is sent every record is pending: counted and listed, none analyzed.
    let pending: Vec<Record> = plan.calls.iter().map(|c| c.record.clone()).collect();
    s.use_records("planned", pending).unwrap();
    let report = s.view().unwrap().report;
    assert_eq!((report.statuses.get("pending"), report.judged, report.unanswered.len()), (Some(&72), 0, 72));
    let (engine, chat) = drive(plan, &mut |d| canned.send(d));
    assert_eq!((chat.answered.len(), chat.failed.len()), (36, 36));
    println!("canned run: {} retries", chat.retries);
    assert!(chat.retries >= 36 + 5, "broken retried once per case, and some chat cases: {}", chat.retries);
    assert!(chat.failed.iter().all(|r| r.status == Status::Error && r.error.contains("500") && r.model == "broken"));
    let loaded = s.use_records("run", records(&engine)).unwrap();
    assert_eq!((loaded.records, loaded.used), (72, 72));

    let report = s.view().unwrap().report;
    assert_eq!(report.statuses.get("ok"), Some(&36));
    assert_eq!(report.statuses.get("error"), Some(&36), "failed calls are counted, not dropped");
    assert_eq!(report.unanswered.len(), 36);
    assert!(report.unanswered.iter().all(|u| u.model == "broken" && u.error.contains("500")));
    assert_eq!(report.judged, 36, "only answered records get a verdict");
    assert_eq!(report.models, vec!["chat".to_string()]);
    let pooled = report.families.iter().find(|f| f.name == "pairs").unwrap();
    let test = |a: &str, b: &str| pooled.tests.iter().find(|t| t.a == a && t.b == b).unwrap();
    let en_hi = test("en", "hi");
    assert_eq!((en_hi.pairs, en_hi.test.b + en_hi.test.c), (12, 12));
    assert!((en_hi.test.p_value - 2.0 * 0.5f64.powi(12)).abs() < 1e-15, "{}", en_hi.test.p_value);
    assert!(en_hi.significant_holm && en_hi.refuses_more.as_deref() == Some("hi"));
    assert_eq!(test("en", "ko").test.b + test("en", "ko").test.c, 0);

    // Embeddings of the 36 responses, 8 per call, through the same engine.
    let items = s.embed_items().unwrap();
    assert_eq!(items.len(), 36);
    let texts: Vec<(String, String)> = items.into_iter().map(|i| (i.id, i.text)).collect();
    let plan = Plan::embed(spec("http://canned.invalid/v1", &["emb"], 2), &texts, 8).unwrap();
    assert_eq!(plan.calls.len(), 5);
    let (_, embedded) = drive(plan, &mut |d| canned.send(d));
    assert_eq!((embedded.answered.len(), embedded.failed.len()), (5, 0));
    assert_eq!(attach(&mut s, &embedded), 36);
    assert!(s.embed_items().unwrap().is_empty(), "every response has its vector");
    let info = s.view().unwrap().report.embeddings;
    assert_eq!((info.with_embedding, info.dimension, info.models), (36, Some(16), vec!["emb".to_string()]));
    assert!(s.export("csv").unwrap().contains("embedding_model"), "the model is stored with the records");
    // The vectors are the ones of each record's own text, in input order.
    let d = s.dataset();
    for (r, e) in d.records.iter().zip(&d.embeddings) {
        assert_eq!(e.is_some(), r.status == Status::Ok);
        if let Some(v) = e {
            assert_eq!(v, &vector(&r.response), "{}", r.record_id);
        }
    }

    // PERMANOVA on the run's vectors: Hindi differs, Korean does not.
    let settings =
        permanova::Settings { permutations: 199, distance: Distance::Euclidean, seed: 5, modes: vec![], matrix: false };
    let total = s.permanova_plan(settings).unwrap().total;
    assert_eq!(total, 3 * (1 + 3), "3 pairs, overall and in each of the 3 topics");
    while s.permanova_step(4).unwrap().done < total {}
    let section = s.view().unwrap().report.permanova.unwrap();
    let overall = |a: &str, b: &str| {
        let row = section
            .rows
            .iter()
            .find(|r| r.test.topic.is_none() && r.test.language_a == a && r.test.language_b == b)
            .unwrap();
        row.result.clone().unwrap()
    };
    let (hi, ko) = (overall("en", "hi"), overall("en", "ko"));
    println!("PERMANOVA en-hi F = {:.3} p = {}; en-ko F = {:.3} p = {}", hi.f, hi.p, ko.f, ko.p);
    assert_eq!((hi.exceedances, hi.p), (0, 1.0 / 200.0), "F = {}", hi.f);
    assert!(ko.p > 0.05 && ko.f < hi.f, "en-ko: F = {}, p = {}", ko.f, ko.p);
    for r in section.rows.iter().filter_map(|r| r.result.as_ref()) {
        assert_eq!(r.p, (r.exceedances + 1) as f64 / 200.0);
    }

    // The LLM judge: one call per answered response; the replies become verdicts.
    let judge_cases = s.judge_cases().unwrap();
    assert_eq!(judge_cases.len(), 36);
    assert!(judge_cases.iter().all(|c| c.method == runs::JUDGE_METHOD && c.question_id.is_empty()));
    let plan = Plan::chat(spec("http://canned.invalid/v1", &["judge"], 2), &judge_cases).unwrap();
    let (engine, judged) = drive(plan, &mut |d| canned.send(d));
    assert_eq!(judged.answered.len(), 36);
    let summary = s.apply_judge("judge run", &records(&engine)).unwrap();
    assert_eq!((summary.verdicts, summary.unreadable, summary.failed), (35, 1, 0));
    assert_eq!(summary.models, vec!["judge".to_string()]);
    s.set_settings(Settings { detector: Detector::Judge, ..Settings::default() }).unwrap();
    let report = s.view().unwrap().report;
    assert_eq!(report.judged, 35, "the unreadable reply is no verdict");
    assert!(report.problems.iter().any(|p| p.message.contains("It is an ANSWER.")), "{:?}", report.problems);
    let agreement = report.agreement.iter().find(|a| a.a == Detector::Lexicon && a.b == Detector::Judge).unwrap();
    assert_eq!((agreement.n, agreement.percent_agreement), (35, Some(100.0)));
    let en_hi = report.families.iter().find(|f| f.name == "pairs").unwrap();
    assert!(en_hi.tests.iter().any(|t| t.a == "en" && t.b == "hi" && t.significant_holm));
    // Judge records loaded as analysis records are left out (they are not cross-lingual cases).
    let judge_file = evenhand::formats::write(&records(&engine), evenhand::formats::FileFormat::Jsonl);
    assert!(s.load_records("judge.jsonl", judge_file.as_bytes()).is_err());
    assert_eq!(s.load_judge("judge.jsonl", judge_file.as_bytes()).unwrap().verdicts, 35);

    // An uploaded vector that replaces a provider's one does not keep the provider's model.
    let id = s.dataset().records.iter().find(|r| r.status == Status::Ok).unwrap().record_id.clone();
    let upload = json!({"record_id": id, "embedding": vec![0.5; 16]}).to_string();
    assert_eq!(s.load_embeddings("up.jsonl", upload.as_bytes()).unwrap(), 1);
    let d = s.dataset();
    let labelled = d.records.iter().filter(|r| r.extra.contains_key(runs::EMBEDDING_MODEL_COLUMN)).count();
    assert_eq!(labelled, 35);
    assert!(!d.records.iter().find(|r| r.record_id == id).unwrap().extra.contains_key(runs::EMBEDDING_MODEL_COLUMN));
}

// ---- the mock provider over HTTP -------------------------------------------------------

#[test]
fn a_run_against_the_mock_with_faults_reports_every_failure() {
    let Some(mock) = mock::Mock::start(&["--fault-rate", "0.3", "--seed", "11"]) else { return };
    let base = format!("http://127.0.0.1:{}/v1", mock.port);
    let (mut s, cases) = session(&["en", "de", "ko"], &["answer"]);
    assert_eq!(cases.len(), 18);
    // mock-a answers (after injected 429/500/503/dropped connections, retried); mock-404 never does.
    let plan = Plan::chat(spec(&base, &["mock-a", "mock-404"], 6), &cases).unwrap();
    let (engine, chat) = drive(plan, &mut http::http);
    assert_eq!(chat.answered.len() + chat.failed.len(), 36);
    assert!(chat.retries > 0, "the fault model injected no fault");
    println!("mock run: {} answered, {} failed, {} retries", chat.answered.len(), chat.failed.len(), chat.retries);
    let failed_a = chat.failed.iter().filter(|r| r.model == "mock-a").count();
    assert_eq!(chat.failed.len() - failed_a, 18, "every mock-404 call fails, without retries");
    s.use_records("mock run", records(&engine)).unwrap();
    let report = s.view().unwrap().report;
    assert_eq!(report.records, 36);
    assert_eq!(report.statuses.get("error").copied().unwrap_or(0), chat.failed.len() as u64);
    assert_eq!(report.statuses.get("ok").copied().unwrap_or(0), chat.answered.len() as u64);
    assert_eq!(report.unanswered.len(), chat.failed.len());
    assert!(report.unanswered.iter().filter(|u| u.model == "mock-404").all(|u| u.error.contains("does not exist")));
    assert_eq!(report.judged, chat.answered.len(), "the mock's letters are answers the lexicon judges");

    // Embeddings of the answers through the mock's /v1/embeddings, 4 texts per call.
    let texts: Vec<(String, String)> = s.embed_items().unwrap().into_iter().map(|i| (i.id, i.text)).collect();
    assert_eq!(texts.len(), chat.answered.len());
    let plan = Plan::embed(spec(&base, &["mock-embed"], 6), &texts, 4).unwrap();
    let (_, embedded) = drive(plan, &mut http::http);
    assert!(embedded.failed.is_empty(), "{:?}", embedded.failed.iter().map(|r| &r.error).collect::<Vec<_>>());
    assert_eq!(attach(&mut s, &embedded), texts.len());
    let info = s.view().unwrap().report.embeddings;
    assert_eq!((info.dimension, info.models), (Some(8), vec!["mock-embed".to_string()]));

    let settings =
        permanova::Settings { permutations: 99, distance: Distance::Chord, seed: 1, modes: vec![], matrix: false };
    let total = s.permanova_plan(settings).unwrap().total;
    while s.permanova_step(8).unwrap().done < total {}
    let section = s.view().unwrap().report.permanova.unwrap();
    let results: Vec<_> = section.rows.iter().filter_map(|r| r.result.as_ref()).collect();
    assert!(!results.is_empty());
    for r in results {
        assert_eq!(r.p, (r.exceedances + 1) as f64 / 100.0);
        assert!(r.f.is_finite() && (0.0..=1.0).contains(&r.r_squared));
    }
}
