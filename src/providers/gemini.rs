//! Google Gemini's native API (`generateContent`, `embedContent`, `batchEmbedContents`). The
//! key goes in the `x-goog-api-key` header, never as `?key=`, so URLs can be logged safely.

use super::error::ProviderError;
use super::request::{BuildError, ChatRequest};
use super::response::{ChatResponse, ContentFlag, Embeddings, count, missing, vector};
use serde_json::{Map, Value, json};

/// The model's path segment: `models/x` and `x` both name model `x`; characters that would
/// change the URL's meaning are refused rather than escaped, since no Gemini model has them.
pub fn model_path(model: &str) -> Result<&str, BuildError> {
    let name = model.trim().strip_prefix("models/").unwrap_or(model.trim());
    if name.is_empty() || name.chars().any(|c| !(c.is_ascii_alphanumeric() || "-._".contains(c))) {
        return Err(BuildError::Invalid {
            field: "model",
            expected: format!("a Gemini model name of letters, digits, '-', '.', '_', found {model:?}"),
        });
    }
    Ok(name)
}

pub fn chat_body(req: &ChatRequest) -> Value {
    let mut config = Map::new();
    if let Some(t) = req.params.temperature {
        config.insert("temperature".into(), json!(t));
    }
    if let Some(n) = req.params.max_tokens {
        config.insert("maxOutputTokens".into(), json!(n));
    }
    if let Some(p) = req.params.top_p {
        config.insert("topP".into(), json!(p));
    }
    if let Some(s) = req.params.seed {
        config.insert("seed".into(), json!(s));
    }
    if let Some(n) = req.params.logprobs {
        config.insert("responseLogprobs".into(), json!(true));
        if n > 0 {
            config.insert("logprobs".into(), json!(n));
        }
    }
    let mut body = Map::new();
    if let Some(system) = &req.params.system {
        body.insert("systemInstruction".into(), json!({"parts": [{"text": system}]}));
    }
    body.insert("contents".into(), json!([{"role": "user", "parts": [{"text": req.prompt}]}]));
    if !config.is_empty() {
        body.insert("generationConfig".into(), Value::Object(config));
    }
    Value::Object(body)
}

const SAFETY_REASONS: [&str; 5] = ["SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "RECITATION"];

pub fn parse_chat(v: &Value) -> Result<ChatResponse, ProviderError> {
    let model = v.get("modelVersion").and_then(Value::as_str).map(str::to_string);
    let tokens_in = count(v, "/usageMetadata/promptTokenCount");
    // A blocked prompt comes back with no candidates and a promptFeedback.blockReason.
    if let Some(reason) = v.pointer("/promptFeedback/blockReason").and_then(Value::as_str) {
        return Ok(ChatResponse {
            text: String::new(),
            finish_reason: Some(reason.to_string()),
            flag: ContentFlag::Filtered,
            tokens_in,
            tokens_out: None,
            logprobs: None,
            model,
        });
    }
    let candidate =
        v.pointer("/candidates/0").ok_or_else(|| missing("candidates[0]", "a GenerateContentResponse candidate"))?;
    let text: String = candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let finish_reason = candidate.get("finishReason").and_then(Value::as_str).map(str::to_string);
    let flag = match finish_reason.as_deref() {
        Some(r) if SAFETY_REASONS.contains(&r) => ContentFlag::Filtered,
        _ => ContentFlag::None,
    };
    Ok(ChatResponse {
        text,
        finish_reason,
        flag,
        tokens_in,
        tokens_out: count(v, "/usageMetadata/candidatesTokenCount"),
        logprobs: candidate.get("logprobsResult").cloned(),
        model,
    })
}

/// One text uses `embedContent`; several use `batchEmbedContents` (one call, one vector each).
pub fn embed(base: &str, model: &str, inputs: &[String]) -> Result<(String, Value), BuildError> {
    let name = model_path(model)?;
    let content = |t: &String| json!({"parts": [{"text": t}]});
    if let [one] = inputs {
        return Ok((format!("{base}/models/{name}:embedContent"), json!({"content": content(one)})));
    }
    let requests: Vec<Value> =
        inputs.iter().map(|t| json!({"model": format!("models/{name}"), "content": content(t)})).collect();
    Ok((format!("{base}/models/{name}:batchEmbedContents"), json!({"requests": requests})))
}

pub fn parse_embed(v: &Value) -> Result<Embeddings, ProviderError> {
    if let Some(values) = v.pointer("/embedding/values") {
        return Ok(Embeddings { vectors: vec![vector(values, "embedding.values")?], tokens_in: None });
    }
    let list = v
        .get("embeddings")
        .and_then(Value::as_array)
        .ok_or_else(|| missing("embedding or embeddings", "an embedContent or batchEmbedContents response"))?;
    let vectors = list
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let what = format!("embeddings[{i}].values");
            vector(e.get("values").ok_or_else(|| missing(&what, "a vector"))?, &what)
        })
        .collect::<Result<_, _>>()?;
    Ok(Embeddings { vectors, tokens_in: None })
}
