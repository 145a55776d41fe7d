//! Anthropic's Messages wire format. `max_tokens` is required by the API, so a request that
//! leaves it unset gets [`DEFAULT_MAX_TOKENS`], and the recorded body shows it.
//!
//! *Verify:* the official Python SDK 2.12 (Nov 2026) no longer exposes `temperature` or
//! `top_p`, so current models may refuse them. They are still sent when the user sets them
//! (a setting is never dropped silently); a refusal comes back as `ProviderError::Rejected`
//! with Anthropic's message naming the field.

use super::error::ProviderError;
use super::request::ChatRequest;
use super::response::{ChatResponse, ContentFlag, count, missing};
use serde_json::{Map, Value, json};

/// The API version header value; the Messages API has kept this one since 2023.
pub const API_VERSION: &str = "2023-06-01";
pub const DEFAULT_MAX_TOKENS: u32 = 1024;

pub fn chat_body(req: &ChatRequest) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert("max_tokens".into(), json!(req.params.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)));
    if let Some(system) = &req.params.system {
        body.insert("system".into(), json!(system));
    }
    body.insert("messages".into(), json!([{"role": "user", "content": req.prompt}]));
    if let Some(t) = req.params.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(p) = req.params.top_p {
        body.insert("top_p".into(), json!(p));
    }
    Value::Object(body)
}

/// Joins the text blocks; other block kinds (thinking, tool use) are not part of the answer.
pub fn parse_chat(v: &Value) -> Result<ChatResponse, ProviderError> {
    let blocks = v.get("content").and_then(Value::as_array).ok_or_else(|| missing("content", "an array of blocks"))?;
    let text: String = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    let finish_reason = v.get("stop_reason").and_then(Value::as_str).map(str::to_string);
    let flag = if finish_reason.as_deref() == Some("refusal") { ContentFlag::Refusal } else { ContentFlag::None };
    Ok(ChatResponse {
        text,
        finish_reason,
        flag,
        tokens_in: count(v, "/usage/input_tokens"),
        tokens_out: count(v, "/usage/output_tokens"),
        logprobs: None,
        model: v.get("model").and_then(Value::as_str).map(str::to_string),
    })
}
