//! OpenAI's chat-completions wire format, spoken also by Mistral, Groq, Together, OpenRouter,
//! the Hugging Face router and OpenAI-compatible servers (vLLM, llama.cpp, LM Studio).

use super::error::ProviderError;
use super::request::ChatRequest;
use super::response::{ChatResponse, ContentFlag, Embeddings, count, missing, vector};
use serde_json::{Map, Value, json};

/// Where the dialects of this wire format differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// OpenAI itself: `max_completion_tokens` (its reasoning models reject `max_tokens`).
    OpenAi,
    /// Together: `logprobs` is an integer, the number of alternatives (1 to 20).
    Together,
    /// Mistral: the seed is called `random_seed` (its API documentation; not tried live).
    Mistral,
    /// Everyone else: `max_tokens`, and `logprobs: true` with `top_logprobs`.
    Common,
}

/// The request body in `dialect`.
pub fn chat_body(req: &ChatRequest, dialect: Dialect) -> Value {
    let mut messages = vec![];
    if let Some(system) = &req.params.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    messages.push(json!({"role": "user", "content": req.prompt}));
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert("messages".into(), Value::Array(messages));
    if let Some(t) = req.params.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(n) = req.params.max_tokens {
        let name = if dialect == Dialect::OpenAi { "max_completion_tokens" } else { "max_tokens" };
        body.insert(name.into(), json!(n));
    }
    if let Some(p) = req.params.top_p {
        body.insert("top_p".into(), json!(p));
    }
    if let Some(s) = req.params.seed {
        let name = if dialect == Dialect::Mistral { "random_seed" } else { "seed" };
        body.insert(name.into(), json!(s));
    }
    if let Some(n) = req.params.logprobs.filter(|_| dialect == Dialect::Together) {
        body.insert("logprobs".into(), json!(n.max(1)));
    } else if let Some(n) = req.params.logprobs {
        body.insert("logprobs".into(), json!(true));
        if n > 0 {
            body.insert("top_logprobs".into(), json!(n));
        }
    }
    Value::Object(body)
}

pub fn parse_chat(v: &Value) -> Result<ChatResponse, ProviderError> {
    let choice = v.pointer("/choices/0").ok_or_else(|| missing("choices[0]", "a chat.completion with one choice"))?;
    let message = choice.get("message").ok_or_else(|| missing("choices[0].message", "an assistant message"))?;
    let refusal = message.get("refusal").and_then(Value::as_str).filter(|r| !r.is_empty());
    let content = message.get("content").and_then(Value::as_str);
    let finish_reason = choice.get("finish_reason").and_then(Value::as_str).map(str::to_string);
    let flag = if refusal.is_some() {
        ContentFlag::Refusal
    } else if finish_reason.as_deref() == Some("content_filter") {
        ContentFlag::Filtered
    } else {
        ContentFlag::None
    };
    Ok(ChatResponse {
        text: content.or(refusal).unwrap_or_default().to_string(),
        finish_reason,
        flag,
        tokens_in: count(v, "/usage/prompt_tokens"),
        tokens_out: count(v, "/usage/completion_tokens"),
        logprobs: choice.get("logprobs").filter(|l| !l.is_null()).cloned(),
        model: v.get("model").and_then(Value::as_str).map(str::to_string),
    })
}

pub fn embed_body(model: &str, inputs: &[String]) -> Value {
    json!({"model": model, "input": inputs})
}

/// Vectors in input order (the `index` field, not the array order, says which is which).
pub fn parse_embed(v: &Value) -> Result<Embeddings, ProviderError> {
    let data = v.get("data").and_then(Value::as_array).ok_or_else(|| missing("data", "an array of embeddings"))?;
    let mut indexed = vec![];
    for (i, item) in data.iter().enumerate() {
        let index = item.get("index").and_then(Value::as_u64).map_or(i, |n| n as usize);
        let values = item.get("embedding").ok_or_else(|| missing(&format!("data[{i}].embedding"), "a vector"))?;
        indexed.push((index, vector(values, &format!("data[{i}].embedding"))?));
    }
    indexed.sort_by_key(|(i, _)| *i);
    if indexed.iter().enumerate().any(|(pos, (i, _))| pos != *i) {
        return Err(missing("data[].index", "indices 0..n, each once"));
    }
    Ok(Embeddings {
        vectors: indexed.into_iter().map(|(_, v)| v).collect(),
        tokens_in: count(v, "/usage/prompt_tokens"),
    })
}
