//! Cross-lingual ethical bias (the MSQAD method): the same sensitive question asked in several
//! languages; does the language alone change whether the model refuses, and what it says?
//!
//! The flow, one module per step: [`questions`] (our format and MSQAD's JSON) -> [`plan`]
//! (cases with stable ids) -> [`simulate`] (the simulated model, or an uploaded record table) ->
//! [`lexicon`] + [`detect`] (refusal verdicts per record and detector) -> [`analysis`] (rates
//! with Wilson intervals, paired McNemar tables per language pair, topic and model, Holm and
//! BH over the stated family) -> [`review`] (a seeded sample to check the detector by eye) and
//! [`chart`]. [`session`] holds one open analysis for the page. [`embeddings`] reads uploaded
//! response embeddings; [`permanova`] tests whether they differ by language (PERMANOVA and
//! PERMDISP per language pair and topic, over [`analysis::embedding_groups`]), or on an
//! uploaded matrix ([`distances`]). [`runs`] plans
//! the calls of a provider run (chat, embeddings, LLM judge) and takes their records back;
//! [`nli`] does the same for a local NLI model's P(refuse).

pub mod analysis;
pub mod chart;
pub mod detect;
pub mod distances;
pub mod embeddings;
pub mod msqad;
pub mod nli;
pub mod pairs;
pub mod permanova;
pub mod plan;
pub mod questions;
pub mod review;
pub mod runs;
pub mod session;
pub mod simulate;
pub mod trust;

/// The `method` column value of cross-lingual records.
pub const METHOD: &str = "crosslingual";

pub use crate::text::primary_language;
