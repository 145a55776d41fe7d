//! Local models for Evenhand: our own BERT encoder forward pass on candle-core/candle-nn, the
//! `tokenizers` crate for the model's own tokenizer, and weights checked against pinned sha256s
//! before they are used (streamed into their tensors, hashed as they arrive). One implementation for the CLI (natively) and the page's third wasm module (src/web.rs).
//!
//! - [`pin`]: the sha256 rule and the error that names the file and both hashes.
//! - [`weights`]: safetensors streamed chunk by chunk into tensors, hashed as they arrive.
//! - [`catalogue`]: the models Evenhand knows, each file pinned (or labelled trust-on-first-use).
//! - [`bert`]: the encoder (embeddings, then [`layer`]s: gemm with strides and [`fused`]
//!   elementwise passes).
//!   In the page the projections run on [`matmul`]'s kernel of our own (over [`lanes`]).
//! - [`deberta`]: DeBERTa-v2/v3 sequence classification (disentangled attention in
//!   [`deberta_attention`], its config.json in [`deberta_config`]).
//! - [`classify`]: premise/hypothesis pair classification, one head per architecture
//!   (BERT's pooler + classifier; [`xlmr`]'s dense + out_proj on RoBERTa positions).
//! - [`nli`]: the zero-shot NLI refusal detector (classifier + [`zeroshot`]'s rule).
//! - [`embed`]: text in, sentence vectors out (tokenize, encode, mean-pool, L2-normalise), in
//!   [`batch`]es padded to a similar length.

pub mod batch;
pub mod bert;
pub mod catalogue;
pub mod classify;
pub mod deberta;
pub mod deberta_attention;
pub mod deberta_config;
pub mod embed;
pub mod error;
pub mod fused;
mod lanes;
pub mod layer;
pub mod matmul;
pub mod nli;
pub mod pin;
pub mod tiny;
pub mod weights;
pub mod xlmr;
pub mod zeroshot;

#[cfg(target_arch = "wasm32")]
mod web;

pub use embed::{Embedder, ModelFiles};
pub use error::ModelError;
pub use weights::{LoadedWeights, Weights};
