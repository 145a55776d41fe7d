//! Connectors to LLM providers, as pure code: what each provider is ([`spec`]), the HTTP
//! request for a chat, embedding or model-list call ([`request`]), and the reading of the
//! answer ([`response`], [`error`]). Sending is not done here: the page's worker uses `fetch`
//! and the CLI a native transport, and both hand the bytes back to these functions, so the
//! two paths cannot drift apart.
//!
//! Each wire format (the JSON shape a family of APIs speaks) has its own module:
//! [`openai`] (also Mistral, Groq, Together, OpenRouter, the Hugging Face router and any
//! OpenAI-compatible server), [`anthropic`], [`gemini`] and [`ollama`]. [`cors`] turns a
//! refused browser call into advice; [`batch`] writes and reads the providers' batch files;
//! [`outcome`] writes a call's result into its record; [`score`] asks an OpenAI-compatible
//! server for the log-probability of a text (the divergence method's scoring mode).

pub mod anthropic;
pub mod batch;
pub mod cors;
pub mod error;
pub mod gemini;
pub mod ollama;
pub mod openai;
pub mod outcome;
pub mod redact;
pub mod request;
pub mod response;
pub mod score;
pub mod spec;

pub use error::ProviderError;
pub use redact::redact;
pub use request::{ChatRequest, HttpRequest};
pub use response::{ChatResponse, Embeddings};
pub use spec::{Capabilities, CorsStatus, ProviderKind, ProviderSpec, WireFormat};
