//! What each provider is: its wire format, default base URL, how the key is sent, whether a
//! browser page may call it (CORS) and what it can do. The CORS and capability columns follow
//! the providers' public documentation; where it leaves a point unverified, the capability is left off so a
//! method asks for a fallback instead of failing mid-run.

use serde::{Deserialize, Serialize};

/// The providers Evenhand knows. `OpenAiCompatible` is any server speaking OpenAI's chat
/// completions (vLLM, llama.cpp server, LM Studio, a company gateway); its base URL is the
/// user's. `Replicate` is listed only so the page can say why it cannot be called.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    #[serde(rename = "openai")]
    OpenAi,
    Anthropic,
    Gemini,
    Mistral,
    Groq,
    Together,
    #[serde(rename = "openrouter")]
    OpenRouter,
    #[serde(rename = "huggingface")]
    HuggingFace,
    Ollama,
    #[serde(rename = "openai-compatible")]
    OpenAiCompatible,
    Replicate,
}

/// The JSON dialect of a provider's API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WireFormat {
    /// `POST {base}/chat/completions`, `/embeddings`, `GET /models`.
    OpenAiChat,
    /// `POST {base}/messages`, `GET /models`.
    AnthropicMessages,
    /// `POST {base}/models/{model}:generateContent`, `:embedContent`, `GET /models`.
    GeminiGenerate,
    /// `POST {base}/api/chat`, `/api/embed`, `GET /api/tags`.
    OllamaNative,
    /// No HTTP API usable from here (Replicate).
    None,
}

/// How the key travels. Never in the URL: a key in a URL ends up in logs and history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AuthScheme {
    /// `Authorization: Bearer KEY`.
    Bearer,
    /// `x-api-key: KEY` plus `anthropic-version` and the browser opt-in header.
    AnthropicKey,
    /// `x-goog-api-key: KEY` (the `?key=` form is avoided on purpose).
    GoogApiKey,
    /// No key (a local Ollama). A key, if given, is sent as Bearer for proxies in front of it.
    None,
}

/// Whether a page on another origin may call the provider with the user's key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", content = "advice", rename_all = "kebab-case")]
pub enum CorsStatus {
    /// Works from any origin.
    Allowed,
    /// Works only after something is switched on; the text says what.
    OptIn(String),
    /// Blocked; the text says what to do instead.
    Blocked(String),
    /// Not settled by our sources; the text says what to try.
    Unverified(String),
}

/// What a connector can be asked for. Methods check these before planning a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    pub chat: bool,
    /// Log-probabilities of generated tokens.
    pub logprobs: bool,
    /// Log-probabilities of the prompt's own tokens (scoring mode).
    pub prompt_logprobs: bool,
    pub embeddings: bool,
    /// The API lists its models, so the page can offer a choice instead of a text field.
    pub model_list: bool,
}

/// Everything fixed about a provider kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderSpec {
    pub kind: ProviderKind,
    pub label: &'static str,
    pub wire: WireFormat,
    /// Empty for `OpenAiCompatible`: the user must give one.
    pub default_base_url: &'static str,
    pub auth: AuthScheme,
    pub cors: CorsStatus,
    pub capabilities: Capabilities,
}

/// Every kind, in the order the page lists them.
pub const ALL_KINDS: [ProviderKind; 11] = [
    ProviderKind::OpenAi,
    ProviderKind::Anthropic,
    ProviderKind::Gemini,
    ProviderKind::Mistral,
    ProviderKind::Groq,
    ProviderKind::Together,
    ProviderKind::OpenRouter,
    ProviderKind::HuggingFace,
    ProviderKind::Ollama,
    ProviderKind::OpenAiCompatible,
    ProviderKind::Replicate,
];

const fn caps(logprobs: bool, prompt_logprobs: bool, embeddings: bool, model_list: bool) -> Capabilities {
    Capabilities { chat: true, logprobs, prompt_logprobs, embeddings, model_list }
}

impl ProviderKind {
    /// The fixed description of this kind.
    pub fn spec(self) -> ProviderSpec {
        use ProviderKind::*;
        let (label, wire, base, auth, cors, capabilities) = match self {
            OpenAi => (
                "OpenAI",
                WireFormat::OpenAiChat,
                "https://api.openai.com/v1",
                AuthScheme::Bearer,
                CorsStatus::Allowed,
                caps(true, false, true, true),
            ),
            Anthropic => (
                "Anthropic",
                WireFormat::AnthropicMessages,
                "https://api.anthropic.com/v1",
                AuthScheme::AnthropicKey,
                CorsStatus::OptIn(
                    "Works with the direct-browser-access header, which Evenhand sends; an organisation admin \
                     can switch browser access off, and then only the file route (batch export) remains."
                        .into(),
                ),
                caps(false, false, false, true),
            ),
            Gemini => (
                "Google Gemini",
                WireFormat::GeminiGenerate,
                "https://generativelanguage.googleapis.com/v1beta",
                AuthScheme::GoogApiKey,
                CorsStatus::Allowed,
                // Logprobs exist on some models only; the run reports the model's refusal.
                caps(true, false, true, true),
            ),
            Mistral => (
                "Mistral",
                WireFormat::OpenAiChat,
                "https://api.mistral.ai/v1",
                AuthScheme::Bearer,
                CorsStatus::Allowed,
                caps(false, false, true, true),
            ),
            Groq => (
                "Groq",
                WireFormat::OpenAiChat,
                "https://api.groq.com/openai/v1",
                AuthScheme::Bearer,
                CorsStatus::Allowed,
                caps(false, false, false, true),
            ),
            Together => (
                "Together",
                WireFormat::OpenAiChat,
                "https://api.together.xyz/v1",
                AuthScheme::Bearer,
                CorsStatus::Allowed,
                caps(true, false, true, true),
            ),
            OpenRouter => (
                "OpenRouter",
                WireFormat::OpenAiChat,
                "https://openrouter.ai/api/v1",
                AuthScheme::Bearer,
                CorsStatus::Allowed,
                // Route-dependent logprobs: not promised.
                caps(false, false, true, true),
            ),
            HuggingFace => (
                "Hugging Face router",
                WireFormat::OpenAiChat,
                "https://router.huggingface.co/v1",
                AuthScheme::Bearer,
                CorsStatus::Unverified(
                    "CORS on the router was fixed provider by provider; if the call fails, pick another \
                     inference provider for the model or use the file route."
                        .into(),
                ),
                caps(false, false, false, true),
            ),
            Ollama => (
                "Ollama (local)",
                WireFormat::OllamaNative,
                "http://localhost:11434",
                AuthScheme::None,
                CorsStatus::OptIn(
                    "Ollama allows localhost pages by default; for any other page origin start it with \
                     OLLAMA_ORIGINS=<the page's origin>. A public HTTPS page calling localhost also needs \
                     the browser's local-network permission (click Allow)."
                        .into(),
                ),
                caps(true, false, true, true),
            ),
            OpenAiCompatible => (
                "OpenAI-compatible server",
                WireFormat::OpenAiChat,
                "",
                AuthScheme::Bearer,
                CorsStatus::Unverified(
                    "Depends on the server: vLLM allows any origin by default, llama.cpp's server reflects \
                     the origin (see --cors-origins), LM Studio needs CORS switched on (lms server start --cors)."
                        .into(),
                ),
                // vLLM and llama.cpp give logprobs, and vLLM echoes the prompt's (see `score`); a
                // gateway may not. Offered, and a failure is reported.
                caps(true, true, true, true),
            ),
            Replicate => (
                "Replicate",
                WireFormat::None,
                "https://api.replicate.com/v1",
                AuthScheme::Bearer,
                CorsStatus::Blocked(
                    "Replicate's API sends no CORS headers, so no page can call it. Use the file route: \
                     export the plan, run it with Replicate's own tools, and import the results file."
                        .into(),
                ),
                Capabilities {
                    chat: false,
                    logprobs: false,
                    prompt_logprobs: false,
                    embeddings: false,
                    model_list: false,
                },
            ),
        };
        ProviderSpec { kind: self, label, wire, default_base_url: base, auth, cors, capabilities }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_their_names() {
        for kind in ALL_KINDS {
            let name = serde_json::to_string(&kind).unwrap();
            let back: ProviderKind = serde_json::from_str(&name).unwrap();
            assert_eq!(back, kind, "{name}");
        }
        assert_eq!(serde_json::to_string(&ProviderKind::OpenAiCompatible).unwrap(), "\"openai-compatible\"");
        assert_eq!(serde_json::to_string(&ProviderKind::HuggingFace).unwrap(), "\"huggingface\"");
    }

    #[test]
    fn capabilities_follow_the_provider_note() {
        assert!(!ProviderKind::Anthropic.spec().capabilities.logprobs);
        assert!(!ProviderKind::Anthropic.spec().capabilities.embeddings);
        assert!(!ProviderKind::Groq.spec().capabilities.embeddings);
        assert!(ProviderKind::OpenAi.spec().capabilities.logprobs);
        assert!(ProviderKind::Ollama.spec().capabilities.embeddings);
        // Only a user-run OpenAI-compatible server (vLLM) echoes prompt log-probabilities.
        for kind in ALL_KINDS {
            assert_eq!(kind.spec().capabilities.prompt_logprobs, kind == ProviderKind::OpenAiCompatible, "{kind:?}");
        }
        assert!(matches!(ProviderKind::Replicate.spec().cors, CorsStatus::Blocked(ref s) if s.contains("file route")));
        assert_eq!(ProviderKind::Gemini.spec().auth, AuthScheme::GoogApiKey);
        assert_eq!(ProviderKind::OpenAiCompatible.spec().default_base_url, "");
        for kind in ALL_KINDS {
            let spec = kind.spec();
            assert_eq!(spec.wire == WireFormat::None, !spec.capabilities.chat, "{kind:?}");
            assert!(!spec.default_base_url.ends_with('/'), "{kind:?}");
        }
    }
}
