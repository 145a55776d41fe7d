//! The mock provider (tests/mock/mock_provider.py) against our request builders and parsers,
//! over real HTTP on 127.0.0.1, and against the official OpenAI and Anthropic Python SDKs.
//! Tests skip with a printed reason when python3 (or, for the SDK check, PyPI) is missing.

// The mock is read with ureq, which exists for native targets only.
#![cfg(not(target_arch = "wasm32"))]

#[path = "common/mock.rs"]
mod mock;

use evenhand::providers::ProviderKind as K;
use evenhand::providers::request::{Endpoint, HttpRequest, Method, Params, build_chat, build_embed, build_models};
use evenhand::providers::response::{ContentFlag, RawResponse, parse_chat, parse_embed, parse_models};
use evenhand::providers::{ChatRequest, ProviderError, WireFormat};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A minimal HTTP/1.1 client: one request per connection, body read to the end. Transport
/// failures map to the errors a real transport would give.
fn send(req: &HttpRequest, timeout: Duration) -> Result<RawResponse, ProviderError> {
    let rest = req.url.strip_prefix("http://").expect("http URL");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let net = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            ProviderError::Timeout { seconds: timeout.as_secs_f64() }
        }
        _ => ProviderError::Network { message: e.to_string() },
    };
    let mut stream = TcpStream::connect(host).map_err(net)?;
    stream.set_read_timeout(Some(timeout)).unwrap();
    let body = req.body.as_ref().map(|b| b.to_string()).unwrap_or_default();
    let method = if req.method == Method::Post { "POST" } else { "GET" };
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (k, v) in &req.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body.as_bytes())).map_err(net)?;
    let mut raw = vec![];
    stream.read_to_end(&mut raw).map_err(net)?;
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").ok_or_else(|| ProviderError::Network {
        message: format!("connection closed after {} bytes, before a response", raw.len()),
    })?;
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).unwrap();
    let headers =
        lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).collect();
    Ok(RawResponse { status, headers, body: raw[split + 4..].to_vec() })
}

fn endpoint(kind: K, port: u16) -> Endpoint {
    let path = match kind {
        K::Gemini => "/v1beta",
        K::Ollama => "",
        _ => "/v1",
    };
    Endpoint::with_base(kind, &format!("http://127.0.0.1:{port}{path}"))
}

fn chat(model: &str, prompt: &str) -> ChatRequest {
    ChatRequest {
        model: model.into(),
        prompt: prompt.into(),
        params: Params { temperature: Some(0.0), ..Params::default() },
    }
}

const CHAT_KINDS: [K; 4] = [K::OpenAiCompatible, K::Anthropic, K::Gemini, K::Ollama];
const KEY: &str = "sk-evenhand-FAKE-mock-0123456789";

fn call_chat(port: u16, kind: K, req: &ChatRequest) -> Result<evenhand::providers::ChatResponse, ProviderError> {
    let http = build_chat(&endpoint(kind, port), Some(KEY), req).unwrap();
    let raw = send(&http, Duration::from_secs(5))?;
    parse_chat(kind.spec().wire, &raw, Some(KEY), None)
}

#[test]
fn our_requests_are_answered_and_our_parsers_read_every_format() {
    let Some(mock) = mock::Mock::start(&[]) else { return };
    for kind in CHAT_KINDS {
        let logprobs = kind.spec().capabilities.logprobs.then_some(2);
        let req = ChatRequest {
            params: Params { logprobs, system: Some("One letter.".into()), ..chat("mock-a", "Who was late?").params },
            ..chat("mock-a", "Who was late?")
        };
        let first = call_chat(mock.port, kind, &req).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        assert!(["A", "B", "C"].contains(&first.text.as_str()), "{kind:?}: {first:?}");
        assert_eq!(first.flag, ContentFlag::None);
        assert!(first.tokens_in.is_some() && first.model.as_deref() == Some("mock-a"), "{kind:?}: {first:?}");
        assert_eq!(first.logprobs.is_some(), logprobs.is_some(), "{kind:?}: {first:?}");
        let again = call_chat(mock.port, kind, &req).unwrap();
        assert_eq!(again.text, first.text, "{kind:?}: the mock must be deterministic");

        let models = build_models(&endpoint(kind, mock.port), Some(KEY)).unwrap();
        let names =
            parse_models(kind.spec().wire, &send(&models, Duration::from_secs(5)).unwrap(), None, None).unwrap();
        assert!(names.iter().any(|n| n.starts_with("mock-a")), "{kind:?}: {names:?}");
    }
    for (kind, n) in [(K::OpenAi, 3), (K::Gemini, 1), (K::Gemini, 2), (K::Ollama, 2)] {
        let inputs: Vec<String> = (0..n).map(|i| format!("text {i}")).collect();
        let http = build_embed(&endpoint(kind, mock.port), Some(KEY), "mock-embed", &inputs).unwrap();
        let raw = send(&http, Duration::from_secs(5)).unwrap();
        let e = parse_embed(kind.spec().wire, &raw, None, None, n).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        assert_eq!((e.vectors.len(), e.vectors[0].len()), (n, 8), "{kind:?}");
    }
}

/// Every error mode of issue 5, in all four wire formats: what our transport and parsers make
/// of it. Where an API has no such thing (a filter in Ollama, a refusal field in Gemini or
/// Ollama) the mock answers as that API would, and the expectation says so.
#[test]
fn every_error_mode_becomes_the_right_typed_error() {
    let Some(mock) = mock::Mock::start(&["--timeout-s", "2"]) else { return };
    for kind in CHAT_KINDS {
        let err = |model: &str| call_chat(mock.port, kind, &chat(model, "x")).unwrap_err();
        assert!(matches!(err("mock-401"), ProviderError::Auth { status: 401, .. }), "{kind:?}");
        assert!(matches!(err("mock-403"), ProviderError::Auth { status: 403, .. }), "{kind:?}");
        let e = err("mock-404");
        assert!(matches!(e, ProviderError::NotFound { ref message } if message.contains("does not exist")), "{e}");
        let e = err("mock-429");
        assert_eq!(e.retry_after_s(), Some(1.0), "{kind:?}: {e}");
        assert!(e.retryable() && e.to_string().contains("rate limit"), "{kind:?}: {e}");
        assert!(matches!(err("mock-500"), ProviderError::Server { status: 500, .. }), "{kind:?}");
        assert!(matches!(err("mock-503"), ProviderError::Server { status: 503, .. }), "{kind:?}");
        assert!(matches!(err("mock-truncated"), ProviderError::Truncated { .. }), "{kind:?}");
        assert!(matches!(err("mock-empty"), ProviderError::Empty { .. }), "{kind:?}");
        assert!(matches!(err("mock-drop"), ProviderError::Network { .. }), "{kind:?}");
        let slow = build_chat(&endpoint(kind, mock.port), Some(KEY), &chat("mock-timeout", "x")).unwrap();
        let e = send(&slow, Duration::from_millis(300)).unwrap_err();
        assert!(matches!(e, ProviderError::Timeout { .. }) && e.retryable(), "{kind:?}: {e}");

        let refusal = call_chat(mock.port, kind, &chat("mock-refusal", "x")).unwrap();
        let (flag, text) = match kind {
            K::Gemini => (ContentFlag::Filtered, ""), // a blocked prompt is Gemini's way to decline
            K::Ollama => (ContentFlag::None, "I will not choose between these people."), // refusal in words
            _ => (ContentFlag::Refusal, ""),
        };
        assert_eq!(refusal.flag, flag, "{kind:?}: {refusal:?}");
        if kind != K::OpenAiCompatible {
            assert_eq!(refusal.text, text, "{kind:?}");
        }
        let filtered = call_chat(mock.port, kind, &chat("mock-filtered", "x"));
        match kind {
            // Ollama has no filter: empty content is all a local model can give.
            K::Ollama => assert!(matches!(filtered, Err(ProviderError::Empty { .. })), "{filtered:?}"),
            // Anthropic reports a classifier stopping an answer as a refusal, text so far kept.
            K::Anthropic => {
                let f = filtered.unwrap();
                assert_eq!((f.flag, f.text.as_str()), (ContentFlag::Refusal, "Both of them"));
            }
            _ => assert_eq!(filtered.unwrap().flag, ContentFlag::Filtered, "{kind:?}"),
        }
    }
    // The embedding routes share the modes.
    for kind in [K::OpenAi, K::Gemini, K::Ollama] {
        let inputs = ["x".to_string(), "y".to_string()];
        for (model, expect) in
            [("mock-truncated", "truncated"), ("mock-429", "rate-limited"), ("mock-404", "not-found")]
        {
            let http = build_embed(&endpoint(kind, mock.port), Some(KEY), model, &inputs).unwrap();
            let raw = send(&http, Duration::from_secs(5)).unwrap();
            let e = parse_embed(kind.spec().wire, &raw, Some(KEY), None, 2).unwrap_err();
            assert_eq!(serde_json::to_value(&e).unwrap()["kind"], expect, "{kind:?} {model}: {e}");
        }
    }
}

/// Gemini's 429 says how long to wait in its body too; without the header our parser reads that.
#[test]
fn gemini_rate_limits_carry_retry_info_in_the_body() {
    let Some(mock) = mock::Mock::start(&[]) else { return };
    let http = build_chat(&endpoint(K::Gemini, mock.port), Some(KEY), &chat("mock-429", "x")).unwrap();
    let mut raw = send(&http, Duration::from_secs(5)).unwrap();
    raw.headers.retain(|(k, _)| !k.eq_ignore_ascii_case("retry-after"));
    let e = parse_chat(WireFormat::GeminiGenerate, &raw, Some(KEY), None).unwrap_err();
    assert_eq!(e.retry_after_s(), Some(1.0), "{e:?}");
}

fn stats(port: u16) -> Value {
    let req = HttpRequest {
        method: Method::Get,
        url: format!("http://127.0.0.1:{port}/__stats"),
        headers: vec![],
        body: None,
    };
    serde_json::from_slice(&send(&req, Duration::from_secs(5)).unwrap().body).unwrap()
}

#[test]
fn injected_faults_are_retried_through_and_the_mock_counts_every_attempt() {
    let Some(mock) = mock::Mock::start(&["--fault-rate", "0.3", "--seed", "7"]) else { return };
    let mut attempts_total = 0;
    for case in 0..40 {
        let req = chat("mock-a", &format!("case {case}"));
        let mut attempts = 0;
        let answer = loop {
            attempts += 1;
            match call_chat(mock.port, K::OpenAiCompatible, &req) {
                Ok(a) => break a,
                Err(e) if e.retryable() && attempts < 10 => continue,
                Err(e) => panic!("case {case}: {e} after {attempts} attempts"),
            }
        };
        assert!(!answer.text.is_empty());
        attempts_total += attempts;
    }
    let s = stats(mock.port);
    let faults = s["faults"].as_u64().unwrap();
    assert_eq!(s["total"].as_u64().unwrap(), attempts_total, "{s}");
    assert_eq!(faults, attempts_total - 40, "every extra attempt was an injected fault: {s}");
    assert!(faults >= 4, "a 30% fault rate over 40 cases injected only {faults}");
    assert_eq!(s["cases"].as_object().unwrap().len(), 40);
}

/// The official SDKs (in a throwaway virtualenv under target/) accept the mock's answers and
/// raise their own error classes for its error modes.
#[test]
fn official_sdks_accept_the_mock() {
    let venv = root().join("target/sdk-venv");
    let python = venv.join("bin/python");
    let has_sdks =
        |p: &Path| Command::new(p).args(["-c", "import openai, anthropic"]).status().is_ok_and(|s| s.success());
    if !has_sdks(&python) {
        // The one download in the test suite (the SDK calls themselves stay on 127.0.0.1); it
        // happens once, the virtualenv is reused after. EVENHAND_NO_PYPI=1 opts out.
        if std::env::var_os("EVENHAND_NO_PYPI").is_some() {
            println!("SKIP: EVENHAND_NO_PYPI is set and target/sdk-venv has no SDKs");
            return;
        }
        let made = Command::new("python3").args(["-m", "venv"]).arg(&venv).status();
        if !made.is_ok_and(|s| s.success()) {
            println!("SKIP: python3 -m venv failed, so the SDK check cannot run");
            return;
        }
        let pip = Command::new(venv.join("bin/pip"))
            .args(["install", "-q", "--disable-pip-version-check", "--timeout", "20", "openai", "anthropic"])
            .status();
        if !pip.is_ok_and(|s| s.success()) || !has_sdks(&python) {
            println!("SKIP: pip could not install openai and anthropic from PyPI (offline?)");
            return;
        }
    }
    let Some(mock) = mock::Mock::start(&["--timeout-s", "3"]) else { return };
    let out = Command::new(&python)
        .arg(root().join("tests/mock/sdk_check.py"))
        .args(["--base", &format!("http://127.0.0.1:{}", mock.port)])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let line = stdout.lines().find(|l| l.starts_with("SDK CHECK OK")).expect("summary line");
    let n: usize = line.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!(n >= 31, "only {n} SDK checks ran");
    assert_eq!(stdout.lines().filter(|l| l.starts_with("ok ")).count(), n);
}

#[test]
fn the_mock_stops_on_sigterm() {
    let Some(mut mock) = mock::Mock::start(&[]) else { return };
    let pid = mock.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = mock.child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(5), "the mock ignored SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn header<'a>(raw: &'a RawResponse, name: &str) -> Option<&'a str> {
    raw.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

#[test]
fn the_mock_answers_preflights_and_adds_its_latency() {
    let Some(mock) = mock::Mock::start(&["--latency-ms", "150"]) else { return };
    let mut stream = TcpStream::connect(("127.0.0.1", mock.port)).unwrap();
    let preflight = "OPTIONS /v1/messages HTTP/1.1\r\nHost: x\r\nOrigin: https://example.github.io\r\n\
        Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: x-api-key, anthropic-version, \
        anthropic-dangerous-direct-browser-access, content-type\r\nConnection: close\r\n\r\n";
    stream.write_all(preflight.as_bytes()).unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 204"), "{text}");
    let allowed = text.lines().find(|l| l.starts_with("Access-Control-Allow-Headers:")).unwrap().to_lowercase();
    for h in [
        "x-api-key",
        "anthropic-version",
        "anthropic-dangerous-direct-browser-access",
        "content-type",
        "x-goog-api-key",
        "authorization",
    ] {
        assert!(allowed.contains(h), "{h} not allowed: {allowed}");
    }

    let req = build_chat(&endpoint(K::OpenAi, mock.port), Some(KEY), &chat("mock-a", "x")).unwrap();
    let started = std::time::Instant::now();
    let raw = send(&req, Duration::from_secs(5)).unwrap();
    assert!(started.elapsed() >= Duration::from_millis(150), "{:?}", started.elapsed());
    assert_eq!(header(&raw, "access-control-allow-origin"), Some("*"));
    let limited = send(
        &build_chat(&endpoint(K::OpenAi, mock.port), None, &chat("mock-429", "x")).unwrap(),
        Duration::from_secs(5),
    );
    let limited = limited.unwrap();
    assert_eq!(header(&limited, "retry-after"), Some("1"));
    assert!(header(&limited, "access-control-expose-headers").unwrap().contains("retry-after"));
}

/// A divergence sampling prompt on a built-in probe set gets a filler, not a letter, so a
/// study over mocked providers has a divergence section (issue 16, the e2e study).
#[test]
fn divergence_sampling_prompts_get_fillers_the_method_reads() {
    let Some(mock) = mock::Mock::start(&[]) else { return };
    let text = r#"{"format": "evenhand-study", "version": 1, "title": "mocked divergence",
      "targets": ["openai-compatible:mock-a", "openai-compatible:mock-b"],
      "methods": {"divergence": {"probes": {"builtin": "pl-western"}, "completions": 1}}}"#;
    let mut s = evenhand::study::Session::open("s.json", text).unwrap();
    let cases = s.run_cases().unwrap();
    let mut records = vec![];
    for model in ["mock-a", "mock-b"] {
        for (i, c) in cases.iter().enumerate() {
            let answer = call_chat(mock.port, K::OpenAiCompatible, &chat(model, &c.prompt)).unwrap();
            assert!(!["A", "B", "C"].contains(&answer.text.as_str()), "{}: {:?}", c.prompt, answer.text);
            records.push(evenhand::record::Record {
                provider: "openai-compatible".into(),
                model: model.into(),
                record_id: format!("{model}:{i}"),
                status: evenhand::record::Status::Ok,
                response: answer.text,
                ..c.clone()
            });
        }
    }
    let jsonl = evenhand::formats::write(&records, evenhand::formats::FileFormat::Jsonl);
    s.add_records("run.jsonl", jsonl.as_bytes(), None, evenhand::study::session::Origin::Run).unwrap();
    let r = s.report("T").unwrap();
    assert_eq!(r.omitted, vec![], "{:?}", r.limitations);
    let div = r.sections.iter().find(|x| x.method == "divergence").expect("a divergence section");
    assert!(
        div.figures.iter().any(|f| f.model == "mock-b" && f.value.is_some_and(f64::is_finite)),
        "{:?}",
        div.figures
    );
    assert!(!div.comparisons.is_empty());
}
