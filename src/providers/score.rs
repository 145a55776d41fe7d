//! Scoring calls: the log-probability of a given text under a model, for the cultural
//! divergence metric's scoring mode. No chat API returns the log-probabilities of the
//! *prompt*, so this goes to an OpenAI-compatible legacy *completions* endpoint
//! (`POST {base}/completions`) in one of two dialects:
//!
//! - [`ScoreDialect::Echo`] (the default): `echo: true, logprobs: 1, max_tokens: 0`. The
//!   server sends the prompt back with `choices[0].logprobs.token_logprobs`, one per token,
//!   the first `null` (nothing precedes it). vLLM implements it, as do other servers that copy
//!   OpenAI's legacy completions API; llama.cpp's server has its own `n_probs` on
//!   `/completion` and may not echo (verify on your build).
//! - [`ScoreDialect::PromptLogprobs`] (vLLM's own): `prompt_logprobs: 0, max_tokens: 1`; the
//!   answer has `choices[0].prompt_logprobs`, a list with `null` first and then, per prompt
//!   token, an object `{token_id: {logprob, rank, decoded_token}}`.
//!
//! log P(text) = Σ of the prompt tokens' log-probabilities, the first token counting 0 (the
//! same for every filler of a context, so it cancels in the per-context normalisation). If a
//! server generates tokens anyway (`usage.completion_tokens` > 0), the echo list's last that
//! many entries are generated, not prompt, and are left out.
//!
//! Which providers can score ([`super::Capabilities::prompt_logprobs`]): only an
//! OpenAI-compatible server the user runs. OpenAI itself no longer gives echoed log-probabilities
//! for its current models, Anthropic, Groq and Mistral give none at all, and Ollama's native
//! API (`/api/chat`, `/api/generate`) gives log-probabilities of *generated* tokens only, not of
//! the prompt (their documentation, see docs/runs.md); for those the divergence method's sampling mode is
//! the way.

use super::error::ProviderError;
use super::request::{BuildError, Endpoint, HttpRequest, Method, headers};
use super::response::{RawResponse, count, decode_ok, missing};
use super::spec::{ProviderKind, WireFormat};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The request shape a scoring call uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScoreDialect {
    #[default]
    Echo,
    PromptLogprobs,
}

/// What a scoring call gives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    /// Σ log P(token), natural log, <= 0.
    pub logprob: f64,
    /// How many prompt tokens were summed (the first, with no log-probability, included).
    pub tokens: usize,
    /// The echoed text (empty in the prompt_logprobs dialect).
    pub text: String,
    pub tokens_in: Option<u64>,
    /// The provider's log-probability block, unchanged, for the record.
    pub block: Value,
    pub model: Option<String>,
}

/// Why a provider cannot score, or None when it can.
fn refusal(kind: ProviderKind) -> Option<&'static str> {
    if kind.spec().capabilities.prompt_logprobs {
        return None;
    }
    Some(match kind {
        ProviderKind::Ollama => {
            "prompt log-probabilities (its native API returns them for generated tokens only); use sampling mode, \
             or serve the model with vLLM as an OpenAI-compatible server"
        }
        ProviderKind::OpenAi => {
            "prompt log-probabilities (its current models no longer echo them); use sampling mode, or an \
             OpenAI-compatible server such as vLLM"
        }
        _ => "prompt log-probabilities (scoring mode); use sampling mode, or an OpenAI-compatible server such as vLLM",
    })
}

/// The request for the log-probability of `text` under `model`.
pub fn build_score(
    endpoint: &Endpoint,
    key: Option<&str>,
    model: &str,
    text: &str,
    dialect: ScoreDialect,
) -> Result<HttpRequest, BuildError> {
    let spec = endpoint.kind.spec();
    if let Some(what) = refusal(endpoint.kind) {
        return Err(BuildError::Unsupported { provider: spec.label, what });
    }
    if spec.wire != WireFormat::OpenAiChat {
        return Err(BuildError::Unsupported { provider: spec.label, what: "an OpenAI-style completions endpoint" });
    }
    if model.trim().is_empty() {
        return Err(BuildError::Invalid { field: "model", expected: "a model name, not empty".into() });
    }
    if text.is_empty() {
        return Err(BuildError::Invalid { field: "prompt", expected: "a text to score, not empty".into() });
    }
    let base = endpoint.base()?;
    let body = match dialect {
        ScoreDialect::Echo => echo_body(model, text),
        ScoreDialect::PromptLogprobs => {
            json!({"model": model, "prompt": text, "max_tokens": 1, "prompt_logprobs": 0, "temperature": 0})
        }
    };
    Ok(HttpRequest {
        method: Method::Post,
        url: format!("{base}/completions"),
        headers: headers(&spec, key, true),
        body: Some(body),
    })
}

/// The echo dialect's body: the prompt's log-probabilities and no new tokens.
pub fn echo_body(model: &str, text: &str) -> Value {
    json!({"model": model, "prompt": text, "max_tokens": 0, "echo": true, "logprobs": 1, "temperature": 0})
}

/// Reads a scoring answer in either dialect (the answer's shape says which).
pub fn parse_score(raw: &RawResponse, key: Option<&str>, now_unix_s: Option<i64>) -> Result<Score, ProviderError> {
    let v = decode_ok(raw, key, now_unix_s, "a text_completion object with log-probabilities")?;
    let choice = v.pointer("/choices/0").ok_or_else(|| missing("choices[0]", "a completion with one choice"))?;
    let (logprob, tokens, block) = if let Some(list) = choice.get("prompt_logprobs").filter(|p| !p.is_null()) {
        let (sum, n) = sum_prompt_logprobs(list)?;
        (sum, n, list.clone())
    } else {
        let block = choice
            .get("logprobs")
            .filter(|l| !l.is_null())
            .ok_or_else(|| missing("choices[0].logprobs", "token log-probabilities (did the server accept echo?)"))?;
        let generated = count(&v, "/usage/completion_tokens").unwrap_or(0) as usize;
        let (sum, n) = sum_echo(block, generated)?;
        (sum, n, block.clone())
    };
    Ok(Score {
        logprob,
        tokens,
        text: choice.get("text").and_then(Value::as_str).unwrap_or_default().to_string(),
        tokens_in: count(&v, "/usage/prompt_tokens"),
        block,
        model: v.get("model").and_then(Value::as_str).map(str::to_string),
    })
}

fn lp_at(v: &Value, what: &str) -> Result<f64, ProviderError> {
    match v.as_f64() {
        Some(x) if x.is_finite() && x <= 1e-9 => Ok(x.min(0.0)),
        _ => Err(missing(what, &format!("a log-probability <= 0 or null, found {v}"))),
    }
}

/// Sums an echo block's `token_logprobs`, leaving out the last `generated` entries.
pub fn sum_echo(block: &Value, generated: usize) -> Result<(f64, usize), ProviderError> {
    let list = block
        .get("token_logprobs")
        .and_then(Value::as_array)
        .ok_or_else(|| missing("choices[0].logprobs.token_logprobs", "an array (did the server accept echo?)"))?;
    if list.is_empty() || generated >= list.len() {
        return Err(missing("prompt tokens in token_logprobs", "at least one echoed prompt token"));
    }
    let prompt = &list[..list.len() - generated];
    let mut total = 0.0;
    for (i, v) in prompt.iter().enumerate() {
        if !v.is_null() {
            total += lp_at(v, &format!("choices[0].logprobs.token_logprobs[{i}]"))?;
        }
    }
    Ok((total, prompt.len()))
}

/// Sums vLLM's `prompt_logprobs`: per token the entry of rank-order for the token itself
/// (with `prompt_logprobs: 0` the only one; otherwise the one holding the prompt token, which
/// vLLM lists first).
fn sum_prompt_logprobs(list: &Value) -> Result<(f64, usize), ProviderError> {
    let items = list.as_array().ok_or_else(|| missing("choices[0].prompt_logprobs", "an array"))?;
    if items.is_empty() {
        return Err(missing("choices[0].prompt_logprobs", "at least one prompt token"));
    }
    let mut total = 0.0;
    for (i, item) in items.iter().enumerate() {
        let what = format!("choices[0].prompt_logprobs[{i}]");
        match item {
            Value::Null => {}
            Value::Object(map) => {
                let first = map.values().next().ok_or_else(|| missing(&what, "one token entry"))?;
                let lp = first.get("logprob").ok_or_else(|| missing(&format!("{what}.logprob"), "a number"))?;
                total += lp_at(lp, &format!("{what}.logprob"))?;
            }
            other => return Err(missing(&what, &format!("null or an object of token entries, found {other}"))),
        }
    }
    Ok((total, items.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compat() -> Endpoint {
        Endpoint::with_base(ProviderKind::OpenAiCompatible, "http://localhost:8000/v1/")
    }

    #[test]
    fn an_echo_request_goes_to_completions_with_no_new_tokens() {
        let r = build_score(&compat(), Some("k"), "m", "Mieszkam w Krakowie.", ScoreDialect::Echo).unwrap();
        assert_eq!(r.url, "http://localhost:8000/v1/completions");
        let b = r.body.unwrap();
        assert_eq!(
            (b["echo"].clone(), b["max_tokens"].clone(), b["logprobs"].clone()),
            (json!(true), json!(0), json!(1))
        );
        assert_eq!(b["prompt"], "Mieszkam w Krakowie.");
        assert!(r.headers.contains(&("Authorization".into(), "Bearer k".into())));
        let v = build_score(&compat(), None, "m", "x", ScoreDialect::PromptLogprobs).unwrap().body.unwrap();
        assert_eq!((v["prompt_logprobs"].clone(), v.get("echo")), (json!(0), None));
    }

    #[test]
    fn providers_that_cannot_score_say_so_and_what_to_do() {
        for kind in [ProviderKind::Ollama, ProviderKind::Anthropic, ProviderKind::OpenAi, ProviderKind::Groq] {
            let e = build_score(&Endpoint::new(kind), None, "m", "x", ScoreDialect::Echo).unwrap_err();
            assert!(matches!(e, BuildError::Unsupported { .. }), "{kind:?}: {e}");
            let text = e.to_string();
            assert!(text.contains("prompt log-probabilities") && text.contains("sampling mode"), "{text}");
        }
        let e = build_score(&Endpoint::new(ProviderKind::Ollama), None, "m", "x", ScoreDialect::Echo).unwrap_err();
        assert!(e.to_string().contains("generated tokens only"), "{e}");
        assert!(matches!(
            build_score(&compat(), None, " ", "x", ScoreDialect::Echo),
            Err(BuildError::Invalid { field: "model", .. })
        ));
        assert!(matches!(
            build_score(&Endpoint::new(ProviderKind::OpenAiCompatible), None, "m", "x", ScoreDialect::Echo),
            Err(BuildError::MissingBaseUrl { .. })
        ));
    }

    #[test]
    fn echo_answers_are_summed_without_generated_tokens() {
        let body = json!({"object": "text_completion", "model": "m", "choices": [{"text": "Mam kota.", "index": 0,
            "logprobs": {"tokens": ["Mam", " kota", ".", " A"], "token_logprobs": [null, -2.5, -0.25, -9.0]}}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1}});
        let s = parse_score(&RawResponse::ok(&body.to_string()), None, None).unwrap();
        assert_eq!((s.logprob, s.tokens, s.tokens_in), (-2.75, 3, Some(3)));
        assert_eq!((s.text.as_str(), s.model.as_deref()), ("Mam kota.", Some("m")));
        assert_eq!(s.block["tokens"][0], "Mam");
        let bad = json!({"choices": [{"logprobs": {"token_logprobs": [null, 0.5]}}]});
        let e = parse_score(&RawResponse::ok(&bad.to_string()), None, None).unwrap_err();
        assert!(e.to_string().contains("token_logprobs[1]"), "{e}");
        let none = json!({"choices": [{"text": "x", "logprobs": null}]});
        assert!(parse_score(&RawResponse::ok(&none.to_string()), None, None).unwrap_err().to_string().contains("echo"));
        let err = RawResponse {
            status: 400,
            headers: vec![],
            body: br#"{"error":{"message":"echo is not supported"}}"#.to_vec(),
        };
        let e = parse_score(&err, None, None).unwrap_err();
        assert!(matches!(e, ProviderError::Rejected { status: 400, .. }) && e.to_string().contains("echo"), "{e}");
    }

    #[test]
    fn vllm_prompt_logprobs_are_read_too() {
        let body = json!({"choices": [{"text": " A", "prompt_logprobs": [null,
            {"812": {"logprob": -1.5, "rank": 3, "decoded_token": " w"}},
            {"77": {"logprob": -0.5, "rank": 1, "decoded_token": "."}}]}]});
        let s = parse_score(&RawResponse::ok(&body.to_string()), None, None).unwrap();
        assert_eq!((s.logprob, s.tokens), (-2.0, 3));
        let bad = json!({"choices": [{"prompt_logprobs": [null, 3]}]});
        assert!(parse_score(&RawResponse::ok(&bad.to_string()), None, None).is_err());
    }
}
