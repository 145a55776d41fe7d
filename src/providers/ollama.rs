//! Ollama's native API (`/api/chat`, `/api/embed`, `/api/tags`). The native endpoint, not
//! Ollama's OpenAI-compatible `/v1`, because only the native one returns log-probabilities.
//! Sampling parameters go under `options` with Ollama's own names (`num_predict`).

use super::error::ProviderError;
use super::request::ChatRequest;
use super::response::{ChatResponse, ContentFlag, Embeddings, count, missing, vector};
use serde_json::{Map, Value, json};

pub fn chat_body(req: &ChatRequest) -> Value {
    let mut messages = vec![];
    if let Some(system) = &req.params.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    messages.push(json!({"role": "user", "content": req.prompt}));
    let mut options = Map::new();
    if let Some(t) = req.params.temperature {
        options.insert("temperature".into(), json!(t));
    }
    if let Some(n) = req.params.max_tokens {
        options.insert("num_predict".into(), json!(n));
    }
    if let Some(p) = req.params.top_p {
        options.insert("top_p".into(), json!(p));
    }
    if let Some(s) = req.params.seed {
        options.insert("seed".into(), json!(s));
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(false));
    if !options.is_empty() {
        body.insert("options".into(), Value::Object(options));
    }
    if let Some(n) = req.params.logprobs {
        body.insert("logprobs".into(), json!(true));
        if n > 0 {
            body.insert("top_logprobs".into(), json!(n));
        }
    }
    Value::Object(body)
}

pub fn parse_chat(v: &Value) -> Result<ChatResponse, ProviderError> {
    let text = v
        .pointer("/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| missing("message.content", "an Ollama chat response with stream: false"))?;
    Ok(ChatResponse {
        text: text.to_string(),
        finish_reason: v.get("done_reason").and_then(Value::as_str).map(str::to_string),
        flag: ContentFlag::None,
        tokens_in: count(v, "/prompt_eval_count"),
        tokens_out: count(v, "/eval_count"),
        logprobs: v.get("logprobs").filter(|l| !l.is_null()).cloned(),
        model: v.get("model").and_then(Value::as_str).map(str::to_string),
    })
}

pub fn embed_body(model: &str, inputs: &[String]) -> Value {
    json!({"model": model, "input": inputs})
}

pub fn parse_embed(v: &Value) -> Result<Embeddings, ProviderError> {
    let list =
        v.get("embeddings").and_then(Value::as_array).ok_or_else(|| missing("embeddings", "an array of vectors"))?;
    let vectors =
        list.iter().enumerate().map(|(i, e)| vector(e, &format!("embeddings[{i}]"))).collect::<Result<_, _>>()?;
    Ok(Embeddings { vectors, tokens_in: count(v, "/prompt_eval_count") })
}
