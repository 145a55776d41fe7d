//! What a run is asked to do: the targets (a provider, its base URL and models, with its
//! limits), the samples per case, the request parameters and the retry policy. Keys are not
//! part of it: a spec is saved with the run, and a key must never be saved.

use crate::providers::ProviderKind;
use crate::providers::request::Endpoint;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A provider to call, with the models to run on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// A short name, unique in the run (used in record ids and progress); defaults to the provider.
    #[serde(default)]
    pub id: String,
    pub provider: ProviderKind,
    #[serde(default)]
    pub base_url: Option<String>,
    pub models: Vec<String>,
    /// The CLI reads the key from this environment variable (default: the provider's usual one).
    #[serde(default)]
    pub key_env: Option<String>,
    /// Calls in flight at once.
    #[serde(default = "default_concurrency")]
    pub concurrency: u32,
    #[serde(default)]
    pub requests_per_minute: Option<u32>,
    #[serde(default)]
    pub tokens_per_minute: Option<u32>,
}

fn default_concurrency() -> u32 {
    4
}

impl Target {
    pub fn endpoint(&self) -> Endpoint {
        Endpoint { kind: self.provider, base_url: self.base_url.clone() }
    }

    /// The environment variable the CLI reads the key from.
    pub fn key_variable(&self) -> String {
        if let Some(v) = &self.key_env {
            return v.clone();
        }
        match self.provider {
            ProviderKind::OpenAi => "OPENAI_API_KEY",
            ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
            ProviderKind::Gemini => "GEMINI_API_KEY",
            ProviderKind::Mistral => "MISTRAL_API_KEY",
            ProviderKind::Groq => "GROQ_API_KEY",
            ProviderKind::Together => "TOGETHER_API_KEY",
            ProviderKind::OpenRouter => "OPENROUTER_API_KEY",
            ProviderKind::HuggingFace => "HF_TOKEN",
            ProviderKind::Ollama => "OLLAMA_API_KEY",
            ProviderKind::OpenAiCompatible => "OPENAI_COMPATIBLE_API_KEY",
            ProviderKind::Replicate => "REPLICATE_API_TOKEN",
        }
        .to_string()
    }
}

/// The request parameters of every call of a run (the chat request's own type).
pub use crate::providers::request::Params;

/// When to retry and when to give up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RetryPolicy {
    /// Attempts per call, the first included.
    pub max_attempts: u32,
    /// A call with no full answer after this long is abandoned (and retried).
    pub timeout_s: f64,
    /// The first retry waits about this long; each further one twice as long (see [`super::backoff`]).
    pub backoff_base_s: f64,
    pub backoff_max_s: f64,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy { max_attempts: 5, timeout_s: 120.0, backoff_base_s: 1.0, backoff_max_s: 60.0 }
    }
}

/// The whole run as asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    #[serde(default = "default_run_id")]
    pub run_id: String,
    /// Written into records whose case names no method.
    #[serde(default)]
    pub method: String,
    pub targets: Vec<Target>,
    #[serde(default = "one")]
    pub samples: u32,
    #[serde(default)]
    pub params: Params,
    #[serde(default)]
    pub retry: RetryPolicy,
    /// Seeds the retry jitter, so a replayed run waits the same way.
    #[serde(default)]
    pub seed: u64,
    /// Per-model prices for the estimate; the built-in table when absent.
    #[serde(default)]
    pub prices: Option<super::price::PriceTable>,
    /// Ask before starting a run of more calls than this (the page asks; the CLI needs --yes).
    #[serde(default = "default_confirm_calls")]
    pub confirm_above_calls: u64,
    /// Ask before starting a run estimated to cost more than this, in the price table's currency.
    #[serde(default = "default_confirm_cost")]
    pub confirm_above_cost: f64,
    /// The cases file, for the CLI (a path relative to the spec file); the page picks cases itself.
    #[serde(default)]
    pub cases: Option<String>,
}

fn default_run_id() -> String {
    "run".into()
}
fn one() -> u32 {
    1
}
fn default_confirm_calls() -> u64 {
    500
}
fn default_confirm_cost() -> f64 {
    1.0
}

#[derive(Debug, Clone, PartialEq, Error, Serialize)]
#[error("run spec, field {field}: expected {expected}")]
pub struct SpecError {
    pub field: String,
    pub expected: String,
}

fn bad(field: impl Into<String>, expected: impl Into<String>) -> SpecError {
    SpecError { field: field.into(), expected: expected.into() }
}

impl RunSpec {
    /// Reads a spec from JSON, naming the line and column of a syntax error.
    pub fn from_json(text: &str) -> Result<RunSpec, SpecError> {
        let mut spec: RunSpec = serde_json::from_str(text)
            .map_err(|e| bad(format!("line {}, column {}", e.line(), e.column()), format!("a run spec ({e})")))?;
        spec.fill_ids();
        spec.validate()?;
        Ok(spec)
    }

    /// Gives unnamed targets their provider's name (suffixed when a provider appears twice).
    pub fn fill_ids(&mut self) {
        for i in 0..self.targets.len() {
            if self.targets[i].id.trim().is_empty() {
                let base = serde_json::to_value(self.targets[i].provider)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                let mut id = base.clone();
                let mut n = 2;
                while self.targets.iter().any(|t| t.id == id) {
                    id = format!("{base}-{n}");
                    n += 1;
                }
                self.targets[i].id = id;
            }
        }
    }

    pub fn validate(&self) -> Result<(), SpecError> {
        if self.run_id.trim().is_empty() || self.run_id.contains(char::is_whitespace) {
            return Err(bad("run_id", "a name without spaces"));
        }
        if self.targets.is_empty() {
            return Err(bad("targets", "at least one target (a provider with its models)"));
        }
        for (i, t) in self.targets.iter().enumerate() {
            let at = |f: &str| format!("targets[{i}].{f}");
            if self.targets[..i].iter().any(|o| o.id == t.id) {
                return Err(bad(at("id"), format!("a name used once, found {:?} twice", t.id)));
            }
            if t.models.is_empty() || t.models.iter().any(|m| m.trim().is_empty()) {
                return Err(bad(at("models"), "one or more model names, none empty"));
            }
            if !(1..=256).contains(&t.concurrency) {
                return Err(bad(at("concurrency"), format!("1 to 256, found {}", t.concurrency)));
            }
            if t.requests_per_minute == Some(0) || t.tokens_per_minute == Some(0) {
                return Err(bad(at("requests_per_minute"), "a positive limit, or none"));
            }
            t.endpoint().base().map_err(|e| bad(at("base_url"), e.to_string()))?;
            if !t.provider.spec().capabilities.chat {
                let why = match t.provider.spec().cors {
                    crate::providers::CorsStatus::Blocked(why) => why,
                    _ => "a provider Evenhand can call".into(),
                };
                return Err(bad(at("provider"), why));
            }
        }
        if !(1..=10_000).contains(&self.samples) {
            return Err(bad("samples", format!("1 to 10000, found {}", self.samples)));
        }
        let r = &self.retry;
        if !(1..=20).contains(&r.max_attempts) {
            return Err(bad("retry.max_attempts", format!("1 to 20, found {}", r.max_attempts)));
        }
        for (name, v) in
            [("timeout_s", r.timeout_s), ("backoff_base_s", r.backoff_base_s), ("backoff_max_s", r.backoff_max_s)]
        {
            if !(v.is_finite() && v > 0.0 && v <= 3600.0) {
                return Err(bad(format!("retry.{name}"), format!("seconds above 0 and at most 3600, found {v}")));
            }
        }
        // The parameters are checked by the request builder, with the model filled in.
        self.params.chat("m", "p", None).validate().map_err(|e| bad("params", e.to_string()))?;
        if !self.confirm_above_cost.is_finite() || self.confirm_above_cost < 0.0 {
            return Err(bad("confirm_above_cost", "a non-negative amount"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minimal_spec_gets_defaults_and_ids() {
        let spec = RunSpec::from_json(
            r#"{"targets":[{"provider":"openai","models":["gpt-4o-mini"]},{"provider":"openai","models":["o"]}]}"#,
        )
        .unwrap();
        assert_eq!((spec.targets[0].id.as_str(), spec.targets[1].id.as_str()), ("openai", "openai-2"));
        assert_eq!((spec.samples, spec.retry.max_attempts, spec.targets[0].concurrency), (1, 5, 4));
        assert_eq!(spec.targets[0].key_variable(), "OPENAI_API_KEY");
    }

    #[test]
    fn errors_name_the_field() {
        let e = |text: &str| RunSpec::from_json(text).unwrap_err().field;
        assert_eq!(e(r#"{"targets":[]}"#), "targets");
        assert_eq!(e(r#"{"targets":[{"provider":"openai-compatible","models":["m"]}]}"#), "targets[0].base_url");
        assert_eq!(e(r#"{"targets":[{"provider":"replicate","models":["m"]}]}"#), "targets[0].provider");
        assert_eq!(e(r#"{"targets":[{"provider":"openai","models":["m"]}],"params":{"temperature":3}}"#), "params");
        assert_eq!(
            e(r#"{"targets":[{"provider":"openai","models":["m"]}],"retry":{"max_attempts":0}}"#),
            "retry.max_attempts"
        );
        assert!(e(r#"{"targets":[{"provider":"openai","models":["m"],"colour":1}]}"#).starts_with("line 1"));
    }
}
