//! Turning what the user asked for into the HTTP request a provider expects. The request is
//! plain data ([`HttpRequest`]); the page's worker hands it to `fetch`, the CLI to its native
//! transport. Only the headers an API needs are set: every extra header widens the CORS
//! preflight and several providers reject unknown ones.

use super::spec::{AuthScheme, ProviderKind, ProviderSpec, WireFormat};
use super::{anthropic, gemini, ollama, openai};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

/// One chat call as the user set it up: a prompt to a model with the run's parameters.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatRequest {
    pub model: String,
    pub prompt: String,
    #[serde(default)]
    pub params: Params,
}

/// Request parameters, sent exactly as set. `None` means "not set": the provider's default
/// applies and nothing is sent; `Some(0.0)` temperature is sent as 0. A run spec holds one
/// for all its calls ([`crate::run::spec::RunSpec`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    #[serde(default)]
    pub system: Option<String>,
    #[serde(default)]
    pub temperature: Option<f64>,
    #[serde(default)]
    pub max_tokens: Option<u32>,
    #[serde(default)]
    pub top_p: Option<f64>,
    #[serde(default)]
    pub seed: Option<u64>,
    /// Ask for token log-probabilities with this many alternatives per token (0 = the chosen
    /// token only).
    #[serde(default)]
    pub logprobs: Option<u8>,
}

impl Params {
    /// The call of `prompt` to `model` with these parameters; a case's own `system` prompt
    /// replaces the run's.
    pub fn chat(&self, model: &str, prompt: &str, system: Option<&str>) -> ChatRequest {
        let system = system.map(str::to_string).or_else(|| self.system.clone());
        ChatRequest { model: model.to_string(), prompt: prompt.to_string(), params: Params { system, ..self.clone() } }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Method {
    #[serde(rename = "GET")]
    Get,
    #[serde(rename = "POST")]
    Post,
}

/// A request ready to send. It never holds a key anywhere but in `headers`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Value>,
}

impl HttpRequest {
    /// The exact body that was sent, for the record. Keys travel only in headers, so the body
    /// is the whole record of the parameters (`null` for a GET).
    pub fn params_for_record(&self) -> Value {
        self.body.clone().unwrap_or(Value::Null)
    }
}

/// Where to send: a provider kind and, optionally, a base URL replacing its default (required
/// for `openai-compatible`; useful for a remote Ollama or a gateway).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Endpoint {
    pub kind: ProviderKind,
    #[serde(default)]
    pub base_url: Option<String>,
}

impl Endpoint {
    pub fn new(kind: ProviderKind) -> Endpoint {
        Endpoint { kind, base_url: None }
    }

    pub fn with_base(kind: ProviderKind, base_url: &str) -> Endpoint {
        Endpoint { kind, base_url: Some(base_url.to_string()) }
    }

    /// The base URL without a trailing slash.
    pub fn base(&self) -> Result<String, BuildError> {
        let spec = self.kind.spec();
        let base = self.base_url.as_deref().map(str::trim).filter(|b| !b.is_empty()).unwrap_or(spec.default_base_url);
        if base.is_empty() {
            return Err(BuildError::MissingBaseUrl { provider: spec.label });
        }
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(BuildError::BadBaseUrl { found: base.to_string() });
        }
        Ok(base.trim_end_matches('/').to_string())
    }
}

#[derive(Debug, Clone, PartialEq, Error)]
pub enum BuildError {
    #[error("{provider} needs a base URL (for example http://localhost:8000/v1)")]
    MissingBaseUrl { provider: &'static str },
    #[error("base URL {found:?}: expected one starting with http:// or https://")]
    BadBaseUrl { found: String },
    #[error("field {field}: {expected}")]
    Invalid { field: &'static str, expected: String },
    #[error("{provider} does not support {what}; unset it or pick another provider")]
    Unsupported { provider: &'static str, what: &'static str },
}

fn invalid(field: &'static str, expected: &str) -> BuildError {
    BuildError::Invalid { field, expected: expected.to_string() }
}

impl ChatRequest {
    /// Rejects values no provider accepts, naming the field.
    pub fn validate(&self) -> Result<(), BuildError> {
        if self.model.trim().is_empty() {
            return Err(invalid("model", "a model name, not empty"));
        }
        if let Some(t) = self.params.temperature
            && !(t.is_finite() && (0.0..=2.0).contains(&t))
        {
            return Err(invalid("temperature", &format!("a number from 0 to 2, found {t}")));
        }
        if let Some(p) = self.params.top_p
            && !(p.is_finite() && p > 0.0 && p <= 1.0)
        {
            return Err(invalid("top_p", &format!("a number above 0 and at most 1, found {p}")));
        }
        if self.params.max_tokens == Some(0) {
            return Err(invalid("max_tokens", "at least 1"));
        }
        if self.params.logprobs.is_some_and(|n| n > 20) {
            return Err(invalid("logprobs", "at most 20 alternatives per token"));
        }
        Ok(())
    }
}

/// The headers for `spec`'s auth scheme. `json` adds Content-Type for requests with a body.
pub(crate) fn headers(spec: &ProviderSpec, key: Option<&str>, json: bool) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![];
    let key = key.map(str::trim).filter(|k| !k.is_empty());
    match (spec.auth, key) {
        (AuthScheme::Bearer | AuthScheme::None, Some(k)) => out.push(("Authorization".into(), format!("Bearer {k}"))),
        (AuthScheme::AnthropicKey, k) => {
            if let Some(k) = k {
                out.push(("x-api-key".into(), k.to_string()));
            }
            out.push(("anthropic-version".into(), anthropic::API_VERSION.into()));
            out.push(("anthropic-dangerous-direct-browser-access".into(), "true".into()));
        }
        (AuthScheme::GoogApiKey, Some(k)) => out.push(("x-goog-api-key".into(), k.to_string())),
        _ => {}
    }
    if json {
        out.push(("Content-Type".into(), "application/json".into()));
    }
    out
}

fn unsupported(spec: &ProviderSpec, what: &'static str) -> BuildError {
    BuildError::Unsupported { provider: spec.label, what }
}

/// The request for one chat call.
pub fn build_chat(endpoint: &Endpoint, key: Option<&str>, req: &ChatRequest) -> Result<HttpRequest, BuildError> {
    req.validate()?;
    let spec = endpoint.kind.spec();
    // A user-run server may support logprobs whatever we know; named providers that reject
    // them are stopped here with a clear message instead of an HTTP 400 mid-run.
    if req.params.logprobs.is_some() && !spec.capabilities.logprobs && endpoint.kind != ProviderKind::OpenAiCompatible {
        return Err(unsupported(&spec, "token log-probabilities"));
    }
    let base = endpoint.base()?;
    let (url, body) = match spec.wire {
        WireFormat::OpenAiChat => {
            let dialect = match endpoint.kind {
                ProviderKind::OpenAi => openai::Dialect::OpenAi,
                ProviderKind::Together => openai::Dialect::Together,
                ProviderKind::Mistral => openai::Dialect::Mistral,
                _ => openai::Dialect::Common,
            };
            (format!("{base}/chat/completions"), openai::chat_body(req, dialect))
        }
        WireFormat::AnthropicMessages => {
            if req.params.seed.is_some() {
                return Err(unsupported(&spec, "a seed"));
            }
            (format!("{base}/messages"), anthropic::chat_body(req))
        }
        WireFormat::GeminiGenerate => {
            (format!("{base}/models/{}:generateContent", gemini::model_path(&req.model)?), gemini::chat_body(req))
        }
        WireFormat::OllamaNative => (format!("{base}/api/chat"), ollama::chat_body(req)),
        WireFormat::None => return Err(unsupported(&spec, "calls from Evenhand (no CORS); use the file route")),
    };
    Ok(HttpRequest { method: Method::Post, url, headers: headers(&spec, key, true), body: Some(body) })
}

/// The request embedding `inputs` (one vector each, in order).
pub fn build_embed(
    endpoint: &Endpoint,
    key: Option<&str>,
    model: &str,
    inputs: &[String],
) -> Result<HttpRequest, BuildError> {
    let spec = endpoint.kind.spec();
    if !spec.capabilities.embeddings {
        return Err(unsupported(&spec, "embeddings"));
    }
    if model.trim().is_empty() {
        return Err(invalid("model", "an embedding model name, not empty"));
    }
    if inputs.is_empty() {
        return Err(invalid("inputs", "at least one text to embed"));
    }
    let base = endpoint.base()?;
    let (url, body) = match spec.wire {
        WireFormat::OpenAiChat => (format!("{base}/embeddings"), openai::embed_body(model, inputs)),
        WireFormat::GeminiGenerate => gemini::embed(&base, model, inputs)?,
        WireFormat::OllamaNative => (format!("{base}/api/embed"), ollama::embed_body(model, inputs)),
        WireFormat::AnthropicMessages | WireFormat::None => return Err(unsupported(&spec, "embeddings")),
    };
    Ok(HttpRequest { method: Method::Post, url, headers: headers(&spec, key, true), body: Some(body) })
}

/// The request listing the provider's models.
pub fn build_models(endpoint: &Endpoint, key: Option<&str>) -> Result<HttpRequest, BuildError> {
    let spec = endpoint.kind.spec();
    if !spec.capabilities.model_list {
        return Err(unsupported(&spec, "a model list; type the model name"));
    }
    let base = endpoint.base()?;
    let url = match spec.wire {
        WireFormat::OllamaNative => format!("{base}/api/tags"),
        // Gemini pages its list at 50 by default; one page of 1000 holds every model it serves.
        WireFormat::GeminiGenerate => format!("{base}/models?pageSize=1000"),
        _ => format!("{base}/models"),
    };
    Ok(HttpRequest { method: Method::Get, url, headers: headers(&spec, key, false), body: None })
}
