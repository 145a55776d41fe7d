//! Every connector's request building and answer parsing, compiled to wasm and run in headless
//! Chromium (`cargo test --target wasm32-unknown-unknown --test web_connectors`), so the code the
//! page's worker runs is the code tested; natively it runs as plain tests too. Nothing is
//! fetched: the answers are canned bytes (tests/common/canned.rs, shared with providers_wire.rs).

#[path = "common/canned.rs"]
mod canned;

use canned::KEY;
use evenhand::providers::ProviderKind as K;
use evenhand::providers::cors::fetch_failure_advice;
use evenhand::providers::request::{
    BuildError, Endpoint, HttpRequest, Method, Params, build_chat, build_embed, build_models,
};
use evenhand::providers::response::{ContentFlag, RawResponse, parse_chat, parse_embed, parse_models};
use evenhand::providers::spec::ALL_KINDS;
use evenhand::providers::{ChatRequest, ProviderError, WireFormat};
use serde_json::{Value, json};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// Every parameter set, so each builder shows what it sends and what it refuses.
fn full() -> ChatRequest {
    ChatRequest {
        model: "m1".into(),
        prompt: "Who was late, A or B?".into(),
        params: Params {
            system: Some("Answer with one letter.".into()),
            temperature: Some(0.0),
            max_tokens: Some(5),
            top_p: Some(0.9),
            seed: Some(42),
            logprobs: Some(3),
        },
    }
}

/// The headers, exactly: the same names (any case, any order) with the same values, no others.
fn assert_headers(r: &HttpRequest, expected: &[(&str, &str)], what: &str) {
    let norm = |pairs: Vec<(String, String)>| {
        let mut v: Vec<(String, String)> = pairs.into_iter().map(|(k, v)| (k.to_ascii_lowercase(), v)).collect();
        v.sort();
        v
    };
    let want = norm(expected.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect());
    assert_eq!(norm(r.headers.clone()), want, "{what}: headers");
}

/// The body's top-level field names, sorted.
fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
    k.sort();
    k
}

fn sorted(names: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// Temperature 0 must be on the wire as a number, not dropped as "falsy" or "unset".
fn assert_zero_temperature(body: &Value, pointer: &str, what: &str) {
    let t = body.pointer(pointer).unwrap_or_else(|| panic!("{what}: no {pointer} in {body}"));
    assert_eq!(t.as_f64(), Some(0.0), "{what}: {pointer} = {t}");
    let field = pointer.rsplit('/').next().unwrap();
    assert!(body.to_string().contains(&format!("\"{field}\":0.0")), "{what}: {body}");
}

fn bearer() -> String {
    format!("Bearer {KEY}")
}

fn raw(status: u16, headers: &[(&str, &str)], body: &str) -> RawResponse {
    RawResponse {
        status,
        headers: headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        body: body.as_bytes().to_vec(),
    }
}

fn chat_ok(wire: WireFormat, body: &str) -> evenhand::providers::ChatResponse {
    parse_chat(wire, &RawResponse::ok(body), Some(KEY), None).unwrap_or_else(|e| panic!("{wire:?}: {e}"))
}

fn chat_err(wire: WireFormat, r: &RawResponse) -> ProviderError {
    parse_chat(wire, r, Some(KEY), None).expect_err("an error")
}

/// A 401 whose body quotes the key: the typed error names the status and never holds the key.
fn assert_key_redacted(wire: WireFormat) {
    let e = chat_err(wire, &raw(401, &[], &canned::auth_error_quoting_the_key()));
    assert!(matches!(e, ProviderError::Auth { status: 401, .. }), "{wire:?}: {e:?}");
    let text = format!("{e} {e:?} {}", serde_json::to_string(&e).unwrap());
    assert!(!text.contains(KEY) && !text.contains(&KEY[..16]), "{wire:?}: {text}");
    assert!(e.to_string().contains("[key removed]") && !e.retryable(), "{e}");
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn openai_sends_exactly_what_was_set_and_reads_every_answer_shape() {
    let r = build_chat(&Endpoint::new(K::OpenAi), Some(KEY), &full()).unwrap();
    assert_eq!((r.method, r.url.as_str()), (Method::Post, "https://api.openai.com/v1/chat/completions"));
    assert_headers(&r, &[("Authorization", &bearer()), ("Content-Type", "application/json")], "openai chat");
    let body = r.params_for_record();
    assert_eq!(
        keys(&body),
        sorted(&[
            "model",
            "messages",
            "temperature",
            "max_completion_tokens",
            "top_p",
            "seed",
            "logprobs",
            "top_logprobs"
        ])
    );
    assert_zero_temperature(&body, "/temperature", "openai");
    assert_eq!((&body["max_completion_tokens"], &body["top_p"], &body["seed"]), (&json!(5), &json!(0.9), &json!(42)));
    assert_eq!((&body["logprobs"], &body["top_logprobs"]), (&json!(true), &json!(3)));
    assert_eq!(
        body["messages"],
        json!([{"role": "system", "content": "Answer with one letter."}, {"role": "user", "content": "Who was late, A or B?"}])
    );

    let w = WireFormat::OpenAiChat;
    let ok = chat_ok(w, canned::OPENAI_OK);
    assert_eq!((ok.text.as_str(), ok.flag, ok.finish_reason.as_deref()), ("B", ContentFlag::None, Some("stop")));
    assert_eq!((ok.tokens_in, ok.tokens_out, ok.model.as_deref()), (Some(21), Some(1), Some("m1-2026-01-01")));
    assert_eq!(ok.logprobs.unwrap()["content"][0]["top_logprobs"][1]["logprob"], json!(-2.3));
    let refusal = chat_ok(w, canned::OPENAI_REFUSAL);
    assert_eq!(refusal.flag, ContentFlag::Refusal);
    assert!(refusal.text.contains("ranking people"), "{refusal:?}");
    let filtered = chat_ok(w, canned::OPENAI_FILTERED);
    assert_eq!((filtered.flag, filtered.finish_reason.as_deref()), (ContentFlag::Filtered, Some("content_filter")));
    assert_eq!(
        chat_err(w, &RawResponse::ok(canned::OPENAI_EMPTY)),
        ProviderError::Empty { finish_reason: "length".into() }
    );
    let cut = chat_ok(w, canned::OPENAI_LENGTH);
    assert_eq!((cut.text.as_str(), cut.finish_reason.as_deref()), ("The answer is", Some("length")));
    let e = chat_err(w, &RawResponse::ok(canned::OPENAI_TRUNCATED));
    assert!(matches!(e, ProviderError::Truncated { bytes, .. } if bytes == canned::OPENAI_TRUNCATED.len()), "{e:?}");
    assert!(e.retryable());
    let limited = chat_err(w, &raw(429, &[("retry-after", "20"), ("retry-after-ms", "2500")], canned::OPENAI_429));
    assert_eq!(limited.retry_after_s(), Some(2.5), "retry-after-ms is the finer of the two");
    assert!(limited.to_string().contains("Rate limit reached for m1"), "{limited}");
    assert_key_redacted(w);

    let inputs = vec!["a nurse".to_string(), "a pilot".to_string()];
    let e = build_embed(&Endpoint::new(K::OpenAi), Some(KEY), "emb-1", &inputs).unwrap();
    assert_eq!(e.url, "https://api.openai.com/v1/embeddings");
    assert_headers(&e, &[("Authorization", &bearer()), ("Content-Type", "application/json")], "openai embed");
    assert_eq!(e.params_for_record(), json!({"model": "emb-1", "input": ["a nurse", "a pilot"]}));
    let v = parse_embed(w, &RawResponse::ok(canned::OPENAI_EMBED), None, None, 2).unwrap();
    assert_eq!(v.vectors, vec![vec![0.25, 0.75], vec![0.5, -0.5]], "ordered by index, not by position");
    let m = build_models(&Endpoint::new(K::OpenAi), Some(KEY)).unwrap();
    assert_eq!((m.method, m.url.as_str(), m.body.is_none()), (Method::Get, "https://api.openai.com/v1/models", true));
    assert_headers(&m, &[("Authorization", &bearer())], "openai models: a GET has no Content-Type");
    assert_eq!(parse_models(w, &RawResponse::ok(canned::OPENAI_MODELS), None, None).unwrap(), ["m1", "m2"]);
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_openai_format_family_differs_only_where_each_api_does() {
    // (kind, chat URL, max-tokens field, seed field, logprobs sent as)
    let family: [(K, &str, &str, &str, Option<Value>); 6] = [
        (K::Mistral, "https://api.mistral.ai/v1", "max_tokens", "random_seed", None),
        (K::Groq, "https://api.groq.com/openai/v1", "max_tokens", "seed", None),
        (K::Together, "https://api.together.xyz/v1", "max_tokens", "seed", Some(json!(3))),
        (K::OpenRouter, "https://openrouter.ai/api/v1", "max_tokens", "seed", None),
        (K::HuggingFace, "https://router.huggingface.co/v1", "max_tokens", "seed", None),
        (K::OpenAiCompatible, "http://localhost:8000/v1", "max_tokens", "seed", Some(json!(true))),
    ];
    for (kind, base, max_field, seed_field, logprobs) in family {
        let endpoint = if kind == K::OpenAiCompatible {
            Endpoint::with_base(kind, "http://localhost:8000/v1/")
        } else {
            Endpoint::new(kind)
        };
        let what = format!("{kind:?}");
        // Each of them answers in OpenAI's shape, so OpenAI's parser reads it.
        assert_eq!(kind.spec().wire, WireFormat::OpenAiChat, "{what}");
        assert_eq!(chat_ok(kind.spec().wire, canned::OPENAI_OK).text, "B", "{what}");
        assert_eq!(chat_ok(kind.spec().wire, canned::OPENAI_REFUSAL).flag, ContentFlag::Refusal, "{what}");
        let asked = if logprobs.is_some() {
            full()
        } else {
            ChatRequest { params: Params { logprobs: None, ..full().params }, ..full() }
        };
        let r = build_chat(&endpoint, Some(KEY), &asked).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(r.url, format!("{base}/chat/completions"), "{what}");
        assert_headers(&r, &[("Authorization", &bearer()), ("Content-Type", "application/json")], &what);
        let body = r.params_for_record();
        let mut expected = vec!["model", "messages", "temperature", max_field, "top_p", seed_field];
        if logprobs == Some(json!(true)) {
            expected.extend(["logprobs", "top_logprobs"]);
        } else if logprobs.is_some() {
            expected.push("logprobs");
        }
        assert_eq!(keys(&body), sorted(&expected), "{what}: {body}");
        assert_zero_temperature(&body, "/temperature", &what);
        assert_eq!((&body[max_field], &body[seed_field]), (&json!(5), &json!(42)), "{what}");
        assert_eq!(body["messages"][0]["role"], "system", "{what}");
        if let Some(lp) = &logprobs {
            assert_eq!(&body["logprobs"], lp, "{what}");
        } else {
            let refused = build_chat(&endpoint, Some(KEY), &full()).unwrap_err();
            assert!(
                matches!(refused, BuildError::Unsupported { what: "token log-probabilities", .. }),
                "{what}: {refused}"
            );
        }
        let m = build_models(&endpoint, Some(KEY)).unwrap();
        assert_eq!(m.url, format!("{base}/models"), "{what}");
        assert_headers(&m, &[("Authorization", &bearer())], &what);
        let inputs = ["x".to_string()];
        match build_embed(&endpoint, Some(KEY), "emb", &inputs) {
            Ok(e) => {
                assert!(kind.spec().capabilities.embeddings, "{what}");
                assert_eq!(e.url, format!("{base}/embeddings"), "{what}");
            }
            Err(e) => {
                assert!(!kind.spec().capabilities.embeddings, "{what}: {e}");
                assert!(matches!(e, BuildError::Unsupported { what: "embeddings", .. }), "{what}: {e}");
            }
        }
    }
    // Together answers logprobs in its own parallel-array shape, kept as it came.
    let t = chat_ok(WireFormat::OpenAiChat, canned::TOGETHER_OK);
    assert_eq!((t.text.as_str(), t.finish_reason.as_deref()), ("A", Some("eos")));
    assert_eq!(t.logprobs.unwrap()["token_logprobs"][0], json!(-0.01));
    // A local server without a key gets no Authorization header at all; no base URL is an error.
    let local = Endpoint::with_base(K::OpenAiCompatible, "http://127.0.0.1:1234/v1");
    let r = build_chat(&local, None, &full()).unwrap();
    assert_headers(&r, &[("Content-Type", "application/json")], "compatible without a key");
    let r = build_chat(&local, Some("   "), &full()).unwrap();
    assert_headers(&r, &[("Content-Type", "application/json")], "a blank key is no key");
    assert!(matches!(
        build_chat(&Endpoint::new(K::OpenAiCompatible), None, &full()),
        Err(BuildError::MissingBaseUrl { .. })
    ));
    assert!(matches!(
        build_chat(&Endpoint::with_base(K::OpenAiCompatible, "localhost:8000"), None, &full()),
        Err(BuildError::BadBaseUrl { .. })
    ));
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn anthropic_sends_the_browser_header_and_reads_refusals() {
    let asked = ChatRequest { params: Params { seed: None, logprobs: None, ..full().params }, ..full() };
    let r = build_chat(&Endpoint::new(K::Anthropic), Some(KEY), &asked).unwrap();
    assert_eq!(r.url, "https://api.anthropic.com/v1/messages");
    let expected = [
        ("x-api-key", KEY),
        ("anthropic-version", "2023-06-01"),
        ("anthropic-dangerous-direct-browser-access", "true"),
        ("Content-Type", "application/json"),
    ];
    assert_headers(&r, &expected, "anthropic chat");
    let body = r.params_for_record();
    assert_eq!(keys(&body), sorted(&["model", "max_tokens", "system", "messages", "temperature", "top_p"]));
    assert_zero_temperature(&body, "/temperature", "anthropic");
    assert_eq!((&body["max_tokens"], &body["system"]), (&json!(5), &json!("Answer with one letter.")));
    assert_eq!(body["messages"], json!([{"role": "user", "content": "Who was late, A or B?"}]));
    // What the API cannot honour is refused before anything is sent, never dropped silently.
    let seeded = build_chat(
        &Endpoint::new(K::Anthropic),
        Some(KEY),
        &ChatRequest { params: Params { logprobs: None, ..full().params }, ..full() },
    );
    assert!(matches!(seeded, Err(BuildError::Unsupported { what: "a seed", .. })));
    let lp = build_chat(
        &Endpoint::new(K::Anthropic),
        Some(KEY),
        &ChatRequest { params: Params { seed: None, ..full().params }, ..full() },
    );
    assert!(matches!(lp, Err(BuildError::Unsupported { what: "token log-probabilities", .. })));
    assert!(build_embed(&Endpoint::new(K::Anthropic), Some(KEY), "e", &["x".into()]).is_err());

    let w = WireFormat::AnthropicMessages;
    let ok = chat_ok(w, canned::ANTHROPIC_OK);
    assert_eq!((ok.text.as_str(), ok.flag, ok.tokens_in, ok.tokens_out), ("A", ContentFlag::None, Some(30), Some(4)));
    assert_eq!(ok.logprobs, None);
    let refusal = chat_ok(w, canned::ANTHROPIC_REFUSAL);
    assert_eq!((refusal.flag, refusal.text.as_str()), (ContentFlag::Refusal, ""));
    let cut = chat_ok(w, canned::ANTHROPIC_CUT_BY_CLASSIFIER);
    assert_eq!((cut.flag, cut.text.as_str()), (ContentFlag::Refusal, "Both could"));
    assert_eq!(
        chat_err(w, &RawResponse::ok(canned::ANTHROPIC_EMPTY)),
        ProviderError::Empty { finish_reason: "end_turn".into() }
    );
    assert_eq!(chat_ok(w, canned::ANTHROPIC_LENGTH).finish_reason.as_deref(), Some("max_tokens"));
    assert!(matches!(chat_err(w, &RawResponse::ok(canned::ANTHROPIC_TRUNCATED)), ProviderError::Truncated { .. }));
    let limited = chat_err(w, &raw(429, &[("Retry-After", "12")], canned::ANTHROPIC_429));
    assert_eq!(limited.retry_after_s(), Some(12.0));
    assert!(limited.to_string().contains("exceeded your rate limit"), "{limited}");
    let overloaded =
        chat_err(w, &raw(529, &[], r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#));
    assert!(matches!(overloaded, ProviderError::Server { status: 529, .. }) && overloaded.retryable());
    assert_key_redacted(w);

    let m = build_models(&Endpoint::new(K::Anthropic), Some(KEY)).unwrap();
    assert_eq!(m.url, "https://api.anthropic.com/v1/models");
    assert_headers(&m, &expected[..3], "anthropic models");
    assert_eq!(parse_models(w, &RawResponse::ok(canned::ANTHROPIC_MODELS), None, None).unwrap(), ["claude-x-1"]);
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn gemini_keeps_the_key_out_of_the_url_and_reads_filters() {
    let r = build_chat(&Endpoint::new(K::Gemini), Some(KEY), &full()).unwrap();
    assert_eq!(r.url, "https://generativelanguage.googleapis.com/v1beta/models/m1:generateContent");
    assert_headers(&r, &[("x-goog-api-key", KEY), ("Content-Type", "application/json")], "gemini chat");
    let body = r.params_for_record();
    assert_eq!(keys(&body), sorted(&["systemInstruction", "contents", "generationConfig"]));
    assert_eq!(
        keys(&body["generationConfig"]),
        sorted(&["temperature", "maxOutputTokens", "topP", "seed", "responseLogprobs", "logprobs"])
    );
    assert_zero_temperature(&body, "/generationConfig/temperature", "gemini");
    let config = &body["generationConfig"];
    assert_eq!((&config["maxOutputTokens"], &config["seed"], &config["logprobs"]), (&json!(5), &json!(42), &json!(3)));
    assert_eq!(body["systemInstruction"], json!({"parts": [{"text": "Answer with one letter."}]}));
    assert_eq!(body["contents"], json!([{"role": "user", "parts": [{"text": "Who was late, A or B?"}]}]));
    let sneaky = build_chat(&Endpoint::new(K::Gemini), None, &ChatRequest { model: "m1:x/../y".into(), ..full() });
    assert!(matches!(sneaky, Err(BuildError::Invalid { field: "model", .. })), "a model name cannot change the URL");

    let w = WireFormat::GeminiGenerate;
    let ok = chat_ok(w, canned::GEMINI_OK);
    assert_eq!((ok.text.as_str(), ok.flag), ("B", ContentFlag::None), "the thought part is not the answer");
    assert_eq!(ok.logprobs.unwrap()["topCandidates"][0]["candidates"][1]["token"], "A");
    let blocked = chat_ok(w, canned::GEMINI_BLOCKED);
    assert_eq!(
        (blocked.flag, blocked.finish_reason.as_deref(), blocked.tokens_in),
        (ContentFlag::Filtered, Some("SAFETY"), Some(12))
    );
    assert_eq!(chat_ok(w, canned::GEMINI_SAFETY).flag, ContentFlag::Filtered);
    assert_eq!(
        chat_err(w, &RawResponse::ok(canned::GEMINI_EMPTY)),
        ProviderError::Empty { finish_reason: "MAX_TOKENS".into() }
    );
    assert!(matches!(chat_err(w, &RawResponse::ok(canned::GEMINI_TRUNCATED)), ProviderError::Truncated { .. }));
    let limited = chat_err(w, &raw(429, &[], canned::GEMINI_429));
    assert_eq!(limited.retry_after_s(), Some(38.0), "RetryInfo in the body: {limited:?}");
    assert!(limited.to_string().contains("Resource has been exhausted"), "{limited}");
    assert_key_redacted(w);

    let two = ["a".to_string(), "b".to_string()];
    let e = build_embed(&Endpoint::new(K::Gemini), Some(KEY), "gemini-embedding-001", &two).unwrap();
    assert!(e.url.ends_with("/models/gemini-embedding-001:batchEmbedContents") && !e.url.contains(KEY), "{}", e.url);
    assert_headers(&e, &[("x-goog-api-key", KEY), ("Content-Type", "application/json")], "gemini embed");
    assert_eq!(parse_embed(w, &RawResponse::ok(canned::GEMINI_BATCH_EMBED), None, None, 2).unwrap().vectors.len(), 2);
    assert_eq!(
        parse_embed(w, &RawResponse::ok(canned::GEMINI_EMBED), None, None, 1).unwrap().vectors,
        vec![vec![1.0, 0.0]]
    );
    let m = build_models(&Endpoint::new(K::Gemini), Some(KEY)).unwrap();
    assert_eq!(m.url, "https://generativelanguage.googleapis.com/v1beta/models?pageSize=1000");
    assert_headers(&m, &[("x-goog-api-key", KEY)], "gemini models");
    assert_eq!(parse_models(w, &RawResponse::ok(canned::GEMINI_MODELS), None, None).unwrap(), ["gemini-x"]);
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn ollama_uses_its_native_api_and_its_own_option_names() {
    let r = build_chat(&Endpoint::new(K::Ollama), None, &full()).unwrap();
    assert_eq!(r.url, "http://localhost:11434/api/chat");
    assert_headers(&r, &[("Content-Type", "application/json")], "ollama chat without a key");
    let body = r.params_for_record();
    assert_eq!(keys(&body), sorted(&["model", "messages", "stream", "options", "logprobs", "top_logprobs"]));
    assert_eq!(body["stream"], json!(false));
    assert_eq!(keys(&body["options"]), sorted(&["temperature", "num_predict", "top_p", "seed"]));
    assert_zero_temperature(&body, "/options/temperature", "ollama");
    assert_eq!((&body["options"]["num_predict"], &body["top_logprobs"]), (&json!(5), &json!(3)));
    assert_eq!(body["messages"][0], json!({"role": "system", "content": "Answer with one letter."}));
    // A key, if given (a proxy in front of a remote Ollama), goes as Bearer.
    let proxied =
        build_chat(&Endpoint::with_base(K::Ollama, "https://ollama.example.org"), Some(KEY), &full()).unwrap();
    assert_headers(&proxied, &[("Authorization", &bearer()), ("Content-Type", "application/json")], "ollama via proxy");

    let w = WireFormat::OllamaNative;
    let ok = chat_ok(w, canned::OLLAMA_OK);
    assert_eq!((ok.text.as_str(), ok.tokens_in, ok.tokens_out), ("A", Some(25), Some(2)));
    assert_eq!(ok.logprobs.unwrap()[0]["top_logprobs"][1]["logprob"], json!(-4.6));
    assert_eq!(
        chat_err(w, &RawResponse::ok(canned::OLLAMA_EMPTY)),
        ProviderError::Empty { finish_reason: "stop".into() }
    );
    assert_eq!(chat_ok(w, canned::OLLAMA_LENGTH).finish_reason.as_deref(), Some("length"));
    assert!(matches!(chat_err(w, &RawResponse::ok(canned::OLLAMA_TRUNCATED)), ProviderError::Truncated { .. }));
    let missing = chat_err(w, &raw(404, &[], canned::OLLAMA_404));
    assert!(
        matches!(missing, ProviderError::NotFound { ref message } if message.contains("try pulling it first")),
        "{missing:?}"
    );
    // Ollama's answer to a page origin it does not allow: 403 with an empty body.
    let origin = chat_err(w, &raw(403, &[], ""));
    assert!(
        matches!(origin, ProviderError::Auth { status: 403, ref message } if message == "no message"),
        "{origin:?}"
    );
    let limited = chat_err(w, &raw(429, &[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")], r#"{"error":"busy"}"#));
    assert_eq!(limited.retry_after_s(), None, "an HTTP date needs the clock");
    let dated =
        parse_chat(w, &raw(429, &[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")], "{}"), None, Some(784_111_767));
    assert_eq!(dated.unwrap_err().retry_after_s(), Some(10.0));
    assert_key_redacted(w);

    let two = ["a".to_string(), "b".to_string()];
    let e = build_embed(&Endpoint::new(K::Ollama), None, "nomic-m", &two).unwrap();
    assert_eq!(
        (e.url.as_str(), e.params_for_record()),
        ("http://localhost:11434/api/embed", json!({"model": "nomic-m", "input": two}))
    );
    assert_eq!(
        parse_embed(w, &RawResponse::ok(canned::OLLAMA_EMBED), None, None, 2).unwrap().vectors[1],
        vec![0.03, 0.04]
    );
    let m = build_models(&Endpoint::new(K::Ollama), None).unwrap();
    assert_eq!(m.url, "http://localhost:11434/api/tags");
    assert!(m.headers.is_empty(), "{:?}", m.headers);
    assert_eq!(parse_models(w, &RawResponse::ok(canned::OLLAMA_TAGS), None, None).unwrap(), ["llama-m:latest"]);
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn replicate_is_refused_with_the_file_route() {
    let e = Endpoint::new(K::Replicate);
    for err in [
        build_chat(
            &e,
            Some(KEY),
            &ChatRequest { params: Params { seed: None, logprobs: None, ..full().params }, ..full() },
        )
        .unwrap_err(),
        build_embed(&e, Some(KEY), "m", &["x".into()]).unwrap_err(),
        build_models(&e, Some(KEY)).unwrap_err(),
    ] {
        assert!(matches!(err, BuildError::Unsupported { provider: "Replicate", .. }), "{err}");
    }
    assert!(
        build_chat(&e, None, &ChatRequest { params: Params { seed: None, logprobs: None, ..full().params }, ..full() })
            .unwrap_err()
            .to_string()
            .contains("file route")
    );
    let advice = fetch_failure_advice(&e, "https://example.github.io");
    assert!(advice.contains("no CORS headers") && advice.contains("file route"), "{advice}");
    assert!(parse_chat(WireFormat::None, &RawResponse::ok(canned::OPENAI_OK), None, None).is_err());
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn statuses_become_typed_errors_with_the_right_retry_decision() {
    // (status, retryable) for each error kind the run engine tells apart.
    let cases: [(u16, bool, &str); 12] = [
        (400, false, "rejected"),
        (401, false, "auth"),
        (403, false, "auth"),
        (404, false, "not-found"),
        (408, true, "server"),
        (413, false, "rejected"),
        (422, false, "rejected"),
        (429, true, "rate-limited"),
        (500, true, "server"),
        (502, true, "server"),
        (503, true, "server"),
        (529, true, "server"),
    ];
    for (status, retryable, kind) in cases {
        let e = ProviderError::from_status(status, &[], canned::OPENAI_429.as_bytes(), Some(KEY), None);
        assert_eq!(e.retryable(), retryable, "{status}: {e:?}");
        assert_eq!(serde_json::to_value(&e).unwrap()["kind"], kind, "{status}");
        assert!(e.to_string().contains("Rate limit reached for m1"), "the provider's message is kept: {e}");
    }
    // A gateway's HTML page is cut, not shown whole.
    let html = format!("<html>{}</html>", "x".repeat(5000));
    let e = ProviderError::from_status(502, &[], html.as_bytes(), None, None);
    assert!(e.to_string().len() < 400, "{}", e.to_string().len());
    // The key is redacted wherever the body quotes it, whatever the status.
    for status in [400, 401, 403, 404, 429, 500] {
        let e =
            ProviderError::from_status(status, &[], canned::auth_error_quoting_the_key().as_bytes(), Some(KEY), None);
        assert!(!e.to_string().contains(KEY), "{status}: {e}");
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn no_bytes_make_a_parser_panic() {
    let walls: [&[u8]; 9] = [
        b"",
        b"\xff\xfe\x00garbage",
        b"null",
        b"[]",
        b"{\"choices\":[{\"message\":null}]}",
        b"{\"candidates\":[{\"content\":{\"parts\":[{\"text\":7}]}}]}",
        b"{\"content\":\"not blocks\"}",
        b"{\"data\":[{\"embedding\":[1,\"x\"]}],\"embeddings\":[[1e999]]}",
        b"{\"message\":{\"content\":[1,2]},\"models\":{}}",
    ];
    let wires = [
        WireFormat::OpenAiChat,
        WireFormat::AnthropicMessages,
        WireFormat::GeminiGenerate,
        WireFormat::OllamaNative,
        WireFormat::None,
    ];
    for wire in wires {
        for body in walls {
            for status in [200, 201, 429, 599, 0, 999] {
                let r =
                    RawResponse { status, headers: vec![("retry-after".into(), "NaN".into())], body: body.to_vec() };
                // Only that none of these panics and that a 2xx non-answer is an error.
                let chat = parse_chat(wire, &r, Some(KEY), Some(0));
                let _ = parse_embed(wire, &r, Some(KEY), Some(0), 1);
                let _ = parse_models(wire, &r, Some(KEY), Some(0));
                if !(200..300).contains(&status) {
                    let e = chat.expect_err("an error status");
                    assert_eq!(e.retry_after_s(), None, "NaN is no wait");
                }
            }
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_key_is_only_ever_in_one_header() {
    let inputs = vec!["x".to_string()];
    for kind in ALL_KINDS {
        let endpoint = Endpoint::with_base(kind, "http://127.0.0.1:9/v1");
        let chat = ChatRequest { params: Params { seed: None, logprobs: None, ..full().params }, ..full() };
        let built: Vec<HttpRequest> = [
            build_chat(&endpoint, Some(KEY), &chat).ok(),
            build_embed(&endpoint, Some(KEY), "emb", &inputs).ok(),
            build_models(&endpoint, Some(KEY)).ok(),
        ]
        .into_iter()
        .flatten()
        .collect();
        for r in &built {
            assert!(!r.url.contains(KEY), "{kind:?}: {}", r.url);
            assert!(!r.params_for_record().to_string().contains(KEY), "{kind:?}");
            assert_eq!(r.headers.iter().filter(|(_, v)| v.contains(KEY)).count(), 1, "{kind:?}: {:?}", r.headers);
        }
        assert_eq!(built.is_empty(), kind == K::Replicate, "{kind:?}");
    }
}

/// The batch route's facade: garbage settings and files give error objects, never a trap, and a
/// good export and import go through (the page's Upload tab calls exactly these).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen_test::wasm_bindgen_test]
fn batch_facade_refuses_garbage_and_round_trips() {
    use evenhand::web::{Workspace, batch_export};
    use wasm_bindgen::JsValue;
    let settings = |text: &str| js_sys::JSON::parse(text).unwrap();
    let cases = b"case_id,prompt\nq1,First?\nq2,Second?\n";
    let garbage = [
        JsValue::UNDEFINED,
        JsValue::from_f64(f64::NAN),
        JsValue::from_str("openai"),
        settings(r#"[1,2]"#),
        settings(r#"{"provider":"replicate","model":"m"}"#),
        settings(r#"{"provider":"openai","model":"m","params":{"temperature":-1}}"#),
        settings(r#"{"provider":"openai","model":"m","samples":0}"#),
        settings(r#"{"provider":"anthropic","model":"m","params":{"seed":1}}"#),
        settings(r#"{"provider":"openai","model":"m","colour":"red"}"#),
    ];
    for g in garbage {
        let e = batch_export(g.clone(), "c.csv", cases).expect_err("garbage settings");
        assert!(js_sys::Reflect::get(&e, &"message".into()).unwrap().is_string(), "{e:?}");
    }
    let good = settings(r#"{"provider":"openai","model":"m","params":{"temperature":0}}"#);
    for bad_cases in [&b""[..], b"\xff\xfe", b"prompt\n", b"case_id,prompt\na,x\na,y\n"] {
        assert!(batch_export(good.clone(), "c.csv", bad_cases).is_err());
    }
    let out = batch_export(good.clone(), "c.csv", cases).unwrap();
    let text = js_sys::Reflect::get(&out, &"text".into()).unwrap().as_string().unwrap();
    let ids: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["custom_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2);
    let mut ws = Workspace::new();
    for bad in [&b"\xff"[..], b"not json\n", b"{\"no_id\":1}\n"] {
        assert!(ws.batch_import(good.clone(), "c.csv", cases, "r.jsonl", bad).is_err());
    }
    let line = format!(
        r#"{{"custom_id":"{}","response":{{"status_code":200,"body":{}}},"error":null}}"#,
        ids[1],
        canned::OPENAI_OK.replace('\n', "")
    );
    // Random bytes as cases and as results: an error or a report each time, never a trap.
    const ALPHABET: &[u8] = b",;\t\"\n{}[]:custom_id result prompt \xff0-";
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..150 {
        let bytes: Vec<u8> = (0..(round * 5) % 200)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                ALPHABET[(state % ALPHABET.len() as u64) as usize]
            })
            .collect();
        let _ = batch_export(good.clone(), "c.jsonl", &bytes);
        let _ = ws.batch_import(good.clone(), "c.csv", cases, "r.jsonl", &bytes);
    }
    let report = ws.batch_import(good, "c.csv", cases, "r.jsonl", line.as_bytes()).unwrap();
    let report: Value = serde_wasm_bindgen::from_value(report).unwrap();
    assert_eq!(report["report"]["answered"], json!([ids[1]]));
    assert_eq!(report["report"]["missing"][0]["record_id"], "batch:q1:openai:m:0");
    assert_eq!(report["load"]["loaded"], 2);
}
