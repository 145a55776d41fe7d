//! Reading a provider's answer. The transport hands over status, headers and body bytes;
//! a non-2xx status becomes a typed [`ProviderError`], a 2xx body is parsed by the wire
//! format's module into a [`ChatResponse`], [`Embeddings`] or a model list.
//!
//! A refusal or a content filter is an *answer* in a bias lab (how often a model refuses is
//! a measurement), so it comes back as a `ChatResponse` with its [`ContentFlag`]; only a
//! response with no text and no such reason is the [`ProviderError::Empty`] error.

use super::error::ProviderError;
use super::spec::WireFormat;
use super::{anthropic, gemini, ollama, openai};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What came back from the transport.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawResponse {
    pub fn ok(body: &str) -> RawResponse {
        RawResponse { status: 200, headers: vec![], body: body.as_bytes().to_vec() }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ContentFlag {
    #[default]
    None,
    /// The model declined (OpenAI `message.refusal`, Anthropic `stop_reason: refusal`).
    Refusal,
    /// A safety filter withheld or cut the text (`content_filter`, Gemini `SAFETY`, a blocked prompt).
    Filtered,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    pub text: String,
    /// The provider's own word for why generation stopped (`stop`, `end_turn`, `STOP`, `length`…).
    pub finish_reason: Option<String>,
    pub flag: ContentFlag,
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    /// The provider's log-probability block, unchanged (its shape differs per wire format;
    /// `divergence::logprobs` reads it).
    pub logprobs: Option<Value>,
    /// The model that answered, as the provider names it.
    pub model: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Embeddings {
    pub vectors: Vec<Vec<f64>>,
    pub tokens_in: Option<u64>,
}

/// Parses a chat answer. `key` is only used to redact error messages.
pub fn parse_chat(
    wire: WireFormat,
    raw: &RawResponse,
    key: Option<&str>,
    now_unix_s: Option<i64>,
) -> Result<ChatResponse, ProviderError> {
    let value = decode_ok(raw, key, now_unix_s, chat_expected(wire))?;
    let response = match wire {
        WireFormat::OpenAiChat => openai::parse_chat(&value)?,
        WireFormat::AnthropicMessages => anthropic::parse_chat(&value)?,
        WireFormat::GeminiGenerate => gemini::parse_chat(&value)?,
        WireFormat::OllamaNative => ollama::parse_chat(&value)?,
        WireFormat::None => return Err(missing("anything", "a provider with an HTTP API")),
    };
    if response.text.trim().is_empty() && response.flag == ContentFlag::None {
        return Err(ProviderError::Empty { finish_reason: response.finish_reason.unwrap_or_else(|| "none".into()) });
    }
    Ok(response)
}

/// Parses an embeddings answer and checks it has `expected_count` vectors of one length.
pub fn parse_embed(
    wire: WireFormat,
    raw: &RawResponse,
    key: Option<&str>,
    now_unix_s: Option<i64>,
    expected_count: usize,
) -> Result<Embeddings, ProviderError> {
    let value = decode_ok(raw, key, now_unix_s, "an embeddings object")?;
    let out = match wire {
        WireFormat::OpenAiChat => openai::parse_embed(&value)?,
        WireFormat::GeminiGenerate => gemini::parse_embed(&value)?,
        WireFormat::OllamaNative => ollama::parse_embed(&value)?,
        _ => return Err(missing("embeddings", "a provider with an embeddings endpoint")),
    };
    if out.vectors.len() != expected_count {
        return Err(missing(
            &format!("vector for each input ({} of {expected_count})", out.vectors.len()),
            "one embedding per input",
        ));
    }
    let dim = out.vectors.first().map_or(0, Vec::len);
    if dim == 0 || out.vectors.iter().any(|v| v.len() != dim) {
        return Err(missing("consistent vector length", "non-empty vectors of one length"));
    }
    Ok(out)
}

/// Parses a model list into model names, sorted.
pub fn parse_models(
    wire: WireFormat,
    raw: &RawResponse,
    key: Option<&str>,
    now_unix_s: Option<i64>,
) -> Result<Vec<String>, ProviderError> {
    let value = decode_ok(raw, key, now_unix_s, "a model list")?;
    let (list, field, name) = match wire {
        WireFormat::OpenAiChat | WireFormat::AnthropicMessages => (value.get("data"), "data", "id"),
        WireFormat::GeminiGenerate => (value.get("models"), "models", "name"),
        WireFormat::OllamaNative => (value.get("models"), "models", "name"),
        WireFormat::None => (None, "models", "name"),
    };
    let list = list.and_then(Value::as_array).ok_or_else(|| missing(field, "an array of models"))?;
    let mut names: Vec<String> = list
        .iter()
        .filter_map(|m| m.get(name).and_then(Value::as_str))
        .map(|n| n.strip_prefix("models/").unwrap_or(n).to_string())
        .collect();
    names.sort();
    Ok(names)
}

fn chat_expected(wire: WireFormat) -> &'static str {
    match wire {
        WireFormat::OpenAiChat => "an OpenAI chat.completion object",
        WireFormat::AnthropicMessages => "an Anthropic message object",
        WireFormat::GeminiGenerate => "a Gemini GenerateContentResponse",
        WireFormat::OllamaNative => "an Ollama chat response (stream: false)",
        WireFormat::None => "nothing",
    }
}

/// Status check, then JSON decoding with a truncated body told apart from a malformed one.
pub(crate) fn decode_ok(
    raw: &RawResponse,
    key: Option<&str>,
    now_unix_s: Option<i64>,
    expected: &str,
) -> Result<Value, ProviderError> {
    if !(200..300).contains(&raw.status) {
        return Err(ProviderError::from_status(raw.status, &raw.headers, &raw.body, key, now_unix_s));
    }
    serde_json::from_slice(&raw.body).map_err(|e| {
        if e.is_eof() {
            ProviderError::Truncated { expected: expected.to_string(), bytes: raw.body.len() }
        } else {
            ProviderError::InvalidJson {
                expected: expected.to_string(),
                line: e.line(),
                column: e.column(),
                detail: super::redact(&e.to_string(), key),
            }
        }
    })
}

pub(crate) fn missing(field: &str, expected: &str) -> ProviderError {
    ProviderError::MissingField { field: field.to_string(), expected: expected.to_string() }
}

/// Reads an optional count that providers give as a JSON integer.
pub(crate) fn count(v: &Value, pointer: &str) -> Option<u64> {
    v.pointer(pointer).and_then(Value::as_u64)
}

/// Reads a JSON array of numbers into a vector, rejecting non-numbers.
pub(crate) fn vector(v: &Value, what: &str) -> Result<Vec<f64>, ProviderError> {
    let list = v.as_array().ok_or_else(|| missing(what, "an array of numbers"))?;
    list.iter().map(|x| x.as_f64().filter(|f| f.is_finite()).ok_or_else(|| missing(what, "finite numbers"))).collect()
}
