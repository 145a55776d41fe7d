//! Every wire format's request building and response parsing, against answers written by us
//! in each provider's documented shape, plus the error paths.

use evenhand::providers::ProviderKind as K;
use evenhand::providers::request::{BuildError, Endpoint, Method, Params, build_chat, build_embed, build_models};
use evenhand::providers::response::{ContentFlag, RawResponse, parse_chat, parse_embed, parse_models};
use evenhand::providers::spec::ALL_KINDS;
use evenhand::providers::{ChatRequest, ProviderError, WireFormat};
use serde_json::json;

#[path = "common/canned.rs"]
mod canned;

use canned::KEY;

fn req() -> ChatRequest {
    ChatRequest {
        model: "m1".into(),
        prompt: "Who was late, A or B?".into(),
        params: Params {
            system: Some("Answer with one letter.".into()),
            temperature: Some(0.0),
            max_tokens: Some(5),
            top_p: Some(0.9),
            seed: Some(42),
            logprobs: None,
        },
    }
}

fn header<'a>(h: &'a [(String, String)], name: &str) -> Option<&'a str> {
    h.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

#[test]
fn openai_chat_builds_and_parses() {
    let r = build_chat(
        &Endpoint::new(K::OpenAi),
        Some(KEY),
        &ChatRequest { params: Params { logprobs: Some(3), ..req().params }, ..req() },
    )
    .unwrap();
    assert_eq!(r.method, Method::Post);
    assert_eq!(r.url, "https://api.openai.com/v1/chat/completions");
    assert_eq!(r.headers.len(), 2, "{:?}", r.headers);
    assert_eq!(header(&r.headers, "authorization"), Some(format!("Bearer {KEY}").as_str()));
    let body = r.params_for_record();
    assert_eq!(body["temperature"], json!(0.0), "temperature 0 must be sent");
    assert_eq!(body["max_completion_tokens"], 5);
    assert_eq!((body["top_p"].clone(), body["seed"].clone()), (json!(0.9), json!(42)));
    assert_eq!((body["logprobs"].clone(), body["top_logprobs"].clone()), (json!(true), json!(3)));
    assert_eq!(body["messages"][0], json!({"role": "system", "content": "Answer with one letter."}));
    assert_eq!(body["messages"][1]["content"], "Who was late, A or B?");
    // The other OpenAI-format providers read max_tokens.
    let mistral = build_chat(&Endpoint::new(K::Mistral), Some(KEY), &req()).unwrap();
    assert_eq!(mistral.url, "https://api.mistral.ai/v1/chat/completions");
    assert_eq!(mistral.body.unwrap()["max_tokens"], 5);
    // Together takes the number of alternatives as an integer `logprobs`.
    let together = build_chat(
        &Endpoint::new(K::Together),
        Some(KEY),
        &ChatRequest { params: Params { logprobs: Some(0), ..req().params }, ..req() },
    );
    let body = together.unwrap().params_for_record();
    assert_eq!((body["logprobs"].clone(), body.get("top_logprobs")), (json!(1), None));

    let answer = canned::OPENAI_OK;
    let out = parse_chat(WireFormat::OpenAiChat, &RawResponse::ok(answer), Some(KEY), None).unwrap();
    assert_eq!(out.text, "B");
    assert_eq!(out.finish_reason.as_deref(), Some("stop"));
    assert_eq!((out.tokens_in, out.tokens_out), (Some(21), Some(1)));
    assert_eq!(out.flag, ContentFlag::None);
    assert_eq!(out.model.as_deref(), Some("m1-2026-01-01"));
    assert_eq!(out.logprobs.unwrap()["content"][0]["top_logprobs"][1]["token"], "A");
}

#[test]
fn openai_refusal_and_filter_are_answers_with_a_flag() {
    let refusal = canned::OPENAI_REFUSAL;
    let out = parse_chat(WireFormat::OpenAiChat, &RawResponse::ok(refusal), None, None).unwrap();
    assert_eq!(out.flag, ContentFlag::Refusal);
    assert!(out.text.starts_with("I can't help"));
    let filtered = canned::OPENAI_FILTERED;
    let out = parse_chat(WireFormat::OpenAiChat, &RawResponse::ok(filtered), None, None).unwrap();
    assert_eq!((out.flag, out.text.as_str()), (ContentFlag::Filtered, ""));
    let empty = canned::OPENAI_EMPTY;
    let err = parse_chat(WireFormat::OpenAiChat, &RawResponse::ok(empty), None, None).unwrap_err();
    assert_eq!(err, ProviderError::Empty { finish_reason: "length".into() });
    assert!(!err.retryable());
}

#[test]
fn anthropic_messages_builds_and_parses() {
    let r = build_chat(
        &Endpoint::new(K::Anthropic),
        Some(KEY),
        &ChatRequest { params: Params { seed: None, ..req().params }, ..req() },
    )
    .unwrap();
    assert_eq!(r.url, "https://api.anthropic.com/v1/messages");
    assert_eq!(header(&r.headers, "x-api-key"), Some(KEY));
    assert_eq!(header(&r.headers, "anthropic-version"), Some("2023-06-01"));
    assert_eq!(header(&r.headers, "anthropic-dangerous-direct-browser-access"), Some("true"));
    assert_eq!(header(&r.headers, "authorization"), None);
    assert_eq!(r.headers.len(), 4);
    let body = r.params_for_record();
    assert_eq!(body["system"], "Answer with one letter.");
    assert_eq!(body["temperature"], json!(0.0));
    assert_eq!(body["max_tokens"], 5);
    assert_eq!(body["messages"], json!([{"role": "user", "content": "Who was late, A or B?"}]));
    // max_tokens is required by the API, so an unset one gets a default that is recorded.
    let unset = build_chat(
        &Endpoint::new(K::Anthropic),
        None,
        &ChatRequest { params: Params { seed: None, max_tokens: None, ..req().params }, ..req() },
    );
    assert_eq!(unset.unwrap().body.unwrap()["max_tokens"], 1024);
    // A seed cannot be honoured, so it is refused rather than silently dropped.
    let seeded = build_chat(&Endpoint::new(K::Anthropic), None, &req()).unwrap_err();
    assert!(matches!(seeded, BuildError::Unsupported { what: "a seed", .. }), "{seeded}");

    let answer = canned::ANTHROPIC_OK;
    let out = parse_chat(WireFormat::AnthropicMessages, &RawResponse::ok(answer), None, None).unwrap();
    assert_eq!((out.text.as_str(), out.finish_reason.as_deref()), ("A", Some("end_turn")));
    assert_eq!((out.tokens_in, out.tokens_out, out.logprobs), (Some(30), Some(4), None));
    let refusal = canned::ANTHROPIC_REFUSAL;
    let out = parse_chat(WireFormat::AnthropicMessages, &RawResponse::ok(refusal), None, None).unwrap();
    assert_eq!(out.flag, ContentFlag::Refusal);
}

#[test]
fn gemini_generate_builds_and_parses() {
    let r = build_chat(
        &Endpoint::new(K::Gemini),
        Some(KEY),
        &ChatRequest { params: Params { logprobs: Some(5), ..req().params }, ..req() },
    )
    .unwrap();
    assert_eq!(r.url, "https://generativelanguage.googleapis.com/v1beta/models/m1:generateContent");
    assert!(!r.url.contains(KEY) && !r.url.contains("key="));
    assert_eq!(header(&r.headers, "x-goog-api-key"), Some(KEY));
    assert_eq!(r.headers.len(), 2);
    let body = r.params_for_record();
    let config = &body["generationConfig"];
    assert_eq!(config["temperature"], json!(0.0));
    assert_eq!((config["maxOutputTokens"].clone(), config["topP"].clone()), (json!(5), json!(0.9)));
    assert_eq!((config["seed"].clone(), config["responseLogprobs"].clone()), (json!(42), json!(true)));
    assert_eq!(config["logprobs"], 5);
    assert_eq!(body["systemInstruction"]["parts"][0]["text"], "Answer with one letter.");
    assert_eq!(body["contents"][0]["parts"][0]["text"], "Who was late, A or B?");
    let bad = build_chat(&Endpoint::new(K::Gemini), None, &ChatRequest { model: "m1?x=1".into(), ..req() });
    assert!(matches!(bad, Err(BuildError::Invalid { field: "model", .. })));

    let answer = canned::GEMINI_OK;
    let out = parse_chat(WireFormat::GeminiGenerate, &RawResponse::ok(answer), None, None).unwrap();
    assert_eq!((out.text.as_str(), out.finish_reason.as_deref()), ("B", Some("STOP")));
    assert_eq!((out.tokens_in, out.tokens_out, out.model.as_deref()), (Some(18), Some(1), Some("m1-001")));
    assert_eq!(out.logprobs.unwrap()["chosenCandidates"][0]["logProbability"], json!(-0.2));
    let blocked = canned::GEMINI_BLOCKED;
    let out = parse_chat(WireFormat::GeminiGenerate, &RawResponse::ok(blocked), None, None).unwrap();
    assert_eq!((out.flag, out.finish_reason.as_deref()), (ContentFlag::Filtered, Some("SAFETY")));
    let safety = canned::GEMINI_SAFETY;
    assert_eq!(
        parse_chat(WireFormat::GeminiGenerate, &RawResponse::ok(safety), None, None).unwrap().flag,
        ContentFlag::Filtered
    );
}

#[test]
fn ollama_chat_builds_and_parses() {
    let r = build_chat(
        &Endpoint::new(K::Ollama),
        None,
        &ChatRequest { params: Params { logprobs: Some(2), ..req().params }, ..req() },
    )
    .unwrap();
    assert_eq!(r.url, "http://localhost:11434/api/chat");
    assert_eq!(r.headers, vec![("Content-Type".to_string(), "application/json".to_string())]);
    let body = r.params_for_record();
    assert_eq!(body["stream"], false);
    assert_eq!(body["options"], json!({"temperature": 0.0, "num_predict": 5, "top_p": 0.9, "seed": 42}));
    assert_eq!((body["logprobs"].clone(), body["top_logprobs"].clone()), (json!(true), json!(2)));
    let answer = canned::OLLAMA_OK;
    let out = parse_chat(WireFormat::OllamaNative, &RawResponse::ok(answer), None, None).unwrap();
    assert_eq!((out.text.as_str(), out.finish_reason.as_deref()), ("A", Some("stop")));
    assert_eq!((out.tokens_in, out.tokens_out), (Some(25), Some(2)));
    assert_eq!(out.logprobs.unwrap()[0]["top_logprobs"][1]["token"], "B");
}

#[test]
fn embeddings_build_and_parse_for_each_format() {
    let inputs = vec!["a nurse".to_string(), "a pilot".to_string()];
    let r = build_embed(&Endpoint::new(K::OpenAi), Some(KEY), "emb-1", &inputs).unwrap();
    assert_eq!(
        (r.url.as_str(), r.params_for_record()),
        ("https://api.openai.com/v1/embeddings", json!({"model": "emb-1", "input": inputs}))
    );
    // Out of order on purpose: index decides.
    let answer = canned::OPENAI_EMBED;
    let e = parse_embed(WireFormat::OpenAiChat, &RawResponse::ok(answer), None, None, 2).unwrap();
    assert_eq!(e.vectors, vec![vec![0.25, 0.75], vec![0.5, -0.5]]);
    assert_eq!(e.tokens_in, Some(6));
    assert!(matches!(
        parse_embed(WireFormat::OpenAiChat, &RawResponse::ok(answer), None, None, 3),
        Err(ProviderError::MissingField { .. })
    ));

    let r = build_embed(&Endpoint::new(K::Gemini), Some(KEY), "models/gemini-embedding-001", &inputs).unwrap();
    assert_eq!(
        r.url,
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:batchEmbedContents"
    );
    assert_eq!(r.params_for_record()["requests"][1]["model"], "models/gemini-embedding-001");
    let one = build_embed(&Endpoint::new(K::Gemini), Some(KEY), "gemini-embedding-001", &inputs[..1]).unwrap();
    assert!(one.url.ends_with(":embedContent"));
    assert_eq!(one.params_for_record(), json!({"content": {"parts": [{"text": "a nurse"}]}}));
    let batch = canned::GEMINI_BATCH_EMBED;
    assert_eq!(
        parse_embed(WireFormat::GeminiGenerate, &RawResponse::ok(batch), None, None, 2).unwrap().vectors[1],
        vec![0.3, 0.2, 0.1]
    );
    let single = canned::GEMINI_EMBED;
    assert_eq!(
        parse_embed(WireFormat::GeminiGenerate, &RawResponse::ok(single), None, None, 1).unwrap().vectors,
        vec![vec![1.0, 0.0]]
    );

    let r = build_embed(&Endpoint::with_base(K::Ollama, "http://10.0.0.5:11434/"), None, "nomic-m", &inputs).unwrap();
    assert_eq!(r.url, "http://10.0.0.5:11434/api/embed");
    let answer = canned::OLLAMA_EMBED;
    assert_eq!(
        parse_embed(WireFormat::OllamaNative, &RawResponse::ok(answer), None, None, 2).unwrap().vectors[1],
        vec![0.03, 0.04]
    );
    let ragged = r#"{"embeddings":[[0.01,0.02],[0.03]]}"#;
    assert!(parse_embed(WireFormat::OllamaNative, &RawResponse::ok(ragged), None, None, 2).is_err());

    for kind in [K::Anthropic, K::Groq] {
        assert!(matches!(build_embed(&Endpoint::new(kind), None, "x", &inputs), Err(BuildError::Unsupported { .. })));
    }
}

#[test]
fn model_lists_build_and_parse() {
    let r = build_models(&Endpoint::new(K::OpenRouter), Some(KEY)).unwrap();
    assert_eq!((r.method, r.url.as_str(), r.body.clone()), (Method::Get, "https://openrouter.ai/api/v1/models", None));
    assert_eq!(r.headers.len(), 1, "a GET carries no Content-Type");
    assert_eq!(build_models(&Endpoint::new(K::Ollama), None).unwrap().url, "http://localhost:11434/api/tags");
    assert!(build_models(&Endpoint::new(K::Gemini), Some(KEY)).unwrap().url.ends_with("/models?pageSize=1000"));
    let openai = canned::OPENAI_MODELS;
    assert_eq!(parse_models(WireFormat::OpenAiChat, &RawResponse::ok(openai), None, None).unwrap(), ["m1", "m2"]);
    let gemini = canned::GEMINI_MODELS;
    assert_eq!(parse_models(WireFormat::GeminiGenerate, &RawResponse::ok(gemini), None, None).unwrap(), ["gemini-x"]);
    let ollama = canned::OLLAMA_TAGS;
    assert_eq!(
        parse_models(WireFormat::OllamaNative, &RawResponse::ok(ollama), None, None).unwrap(),
        ["llama-m:latest"]
    );
}

#[test]
fn the_key_never_reaches_a_url_or_a_recorded_body() {
    let inputs = vec!["x".to_string()];
    for kind in ALL_KINDS {
        let endpoint = Endpoint::with_base(kind, "http://127.0.0.1:9/v1");
        let mut built = vec![];
        let chat = ChatRequest { params: Params { seed: None, ..req().params }, ..req() };
        built.extend(build_chat(&endpoint, Some(KEY), &chat).ok());
        built.extend(build_embed(&endpoint, Some(KEY), "emb", &inputs).ok());
        built.extend(build_models(&endpoint, Some(KEY)).ok());
        if kind != K::Replicate {
            assert!(built.len() >= 2, "{kind:?} built only {}", built.len());
        }
        for r in built {
            assert!(!r.url.contains(KEY), "{kind:?}: key in {}", r.url);
            assert!(!r.params_for_record().to_string().contains(KEY), "{kind:?}: key in the body");
            assert!(r.headers.iter().filter(|(_, v)| v.contains(KEY)).count() <= 1, "{kind:?}");
        }
    }
}

#[test]
fn bad_requests_are_refused_naming_the_field() {
    let e = |r: ChatRequest| build_chat(&Endpoint::new(K::OpenAi), None, &r).unwrap_err().to_string();
    assert!(
        e(ChatRequest { params: Params { temperature: Some(f64::NAN), ..req().params }, ..req() })
            .contains("temperature")
    );
    assert!(
        e(ChatRequest { params: Params { temperature: Some(2.5), ..req().params }, ..req() }).contains("from 0 to 2")
    );
    assert!(e(ChatRequest { params: Params { top_p: Some(0.0), ..req().params }, ..req() }).contains("top_p"));
    assert!(e(ChatRequest { model: " ".into(), ..req() }).contains("model"));
    assert!(e(ChatRequest { params: Params { logprobs: Some(21), ..req().params }, ..req() }).contains("logprobs"));
    let compat = build_chat(&Endpoint::new(K::OpenAiCompatible), None, &req()).unwrap_err();
    assert!(matches!(compat, BuildError::MissingBaseUrl { .. }), "{compat}");
    let groq = build_chat(
        &Endpoint::new(K::Groq),
        None,
        &ChatRequest { params: Params { logprobs: Some(0), ..req().params }, ..req() },
    )
    .unwrap_err();
    assert!(groq.to_string().contains("log-probabilities"), "{groq}");
    assert!(build_chat(&Endpoint::new(K::Replicate), None, &req()).unwrap_err().to_string().contains("file route"));
    let parsed: Result<ChatRequest, _> = serde_json::from_str(r#"{"model":"m","prompt":"p","temprature":0}"#);
    assert!(parsed.unwrap_err().to_string().contains("temprature"));
}

#[test]
fn unset_parameters_are_not_sent() {
    let bare = ChatRequest { model: "m".into(), prompt: "p".into(), ..Default::default() };
    for kind in [K::OpenAi, K::Together, K::Ollama, K::Gemini] {
        let body = build_chat(&Endpoint::new(kind), None, &bare).unwrap().params_for_record().to_string();
        for name in ["temperature", "top_p", "seed", "logprobs", "max_tokens", "options", "generationConfig"] {
            assert!(!body.contains(name), "{kind:?} sent {name}: {body}");
        }
    }
}

#[test]
fn broken_bodies_and_statuses_become_typed_errors() {
    let cut = RawResponse::ok(canned::OPENAI_TRUNCATED);
    let e = parse_chat(WireFormat::OpenAiChat, &cut, None, None).unwrap_err();
    assert!(matches!(e, ProviderError::Truncated { ref expected, .. } if expected.contains("chat.completion")), "{e}");
    assert!(e.retryable());
    let garbage = RawResponse::ok("{\n \"a\": nope}");
    let e = parse_chat(WireFormat::AnthropicMessages, &garbage, None, None).unwrap_err();
    assert!(
        matches!(e, ProviderError::InvalidJson { line: 2, ref expected, .. } if expected.contains("Anthropic")),
        "{e}"
    );
    let shape = parse_chat(WireFormat::GeminiGenerate, &RawResponse::ok("{}"), None, None).unwrap_err();
    assert!(shape.to_string().contains("candidates[0]"), "{shape}");

    let limited = RawResponse {
        status: 429,
        headers: vec![("Retry-After".into(), "3".into())],
        body: canned::OPENAI_429.as_bytes().to_vec(),
    };
    let e = parse_chat(WireFormat::OpenAiChat, &limited, Some(KEY), None).unwrap_err();
    assert_eq!(e.retry_after_s(), Some(3.0));
    assert!(e.retryable() && e.to_string().contains("Rate limit reached"), "{e}");
    let auth = RawResponse {
        status: 401,
        headers: vec![],
        body: format!(r#"{{"error":{{"message":"bad key {KEY}"}}}}"#).into_bytes(),
    };
    let e = parse_chat(WireFormat::OpenAiChat, &auth, Some(KEY), None).unwrap_err();
    assert!(matches!(e, ProviderError::Auth { status: 401, .. }) && !e.to_string().contains(KEY), "{e}");
}
