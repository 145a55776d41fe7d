//! Local models for Evenhand: our own BERT encoder forward pass on candle-core/candle-nn, the
//! `tokenizers` crate for the model's own tokenizer, and weights checked against pinned sha256s
//! before they are parsed. One implementation for the CLI (natively) and the page's third wasm module (src/web.rs).
//!
//! - [`pin`]: the sha256 rule and the error that names the file and both hashes.
//! - [`catalogue`]: the models Evenhand knows, each file pinned (or labelled trust-on-first-use).
//! - [`bert`]: the encoder (embeddings, self-attention layers, GELU, layer norm).
//! - [`embed`]: text in, sentence vectors out (tokenize, encode, mean-pool, L2-normalise).

pub mod bert;
pub mod catalogue;
pub mod embed;
pub mod error;
pub mod pin;
pub mod tiny;
pub mod zeroshot;

#[cfg(target_arch = "wasm32")]
mod web;

pub use embed::{Embedder, ModelFiles};
pub use error::ModelError;
