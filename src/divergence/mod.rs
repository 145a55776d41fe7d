//! Cultural divergence (CD): how strongly a model prompted in one culture's language leans
//! toward another culture, after the MIT poster "Cultural Divergence" (Cieślar, Neupane, Guter).
//!
//! For a probe set (aspects such as first names and cities, contexts with a slot, fillers),
//! a local reference distribution L and a Western (other-culture) one W:
//!
//! ```text
//! H(m_c, X)  = - Σ_g m_c(g) ln x(g)               one context c; m_c normalised over its fillers
//! H(M, X | a) = mean over the contexts C_{X,a} of H(m_c, X)
//! H(M, X)    = Σ_a H(M, X | a)                    summed (not averaged) over aspects
//! CD         = H(M, L) - H(M, W)
//! ```
//!
//! Negative CD: the model's fillers are better explained by the local reference (closer to the
//! local culture); positive: closer to the Western one. Units are nats (ln) or bits (÷ ln 2).
//! Since H(m, X) = H(m) + KL(m ‖ X), CD = KL(M‖L) - KL(M‖W) + (H̄_L(M) - H̄_W(M)), where
//! H̄_X(M) is the mean entropy of m_c over C_{X,a} (summed over aspects); the last term is 0
//! when both cultures use the same contexts, and then CD = KL(M‖L) - KL(M‖W) exactly.
//!
//! The model's m_c comes either from log-probabilities of the filled contexts (scoring mode,
//! [`logprobs`]) or from sampled
//! completions (sampling mode, [`sample`]); [`distribution`] turns either into m_c per context.
//! References are loaded by [`mod@reference`] and smoothed over the union vocabulary by
//! [`smoothing`]; fillers are matched through [`normalise`] (case, diacritics, inflected forms,
//! exonyms). [`formulas`] holds the formulas, [`aspect`] applies them to one aspect,
//! [`bootstrap`] gives the intervals, [`mod@analyze`] puts it together, [`runs`] turns a
//! probe set into cases for the run engine and its records back into input, [`session`] is
//! what the page and the CLI drive, [`simulate`] is the model with a known cultural lean, [`chart`] and
//! [`export`] present the results, [`builtin`] holds the shipped data.

pub mod analysis;
pub mod aspect;
pub mod bootstrap;
pub mod builtin;
pub mod chart;
pub mod distribution;
pub mod export;
pub mod formulas;
pub mod logprobs;
pub mod normalise;
pub mod probes;
pub mod reference;
pub mod result;
pub mod runs;
pub mod sample;
pub mod session;
pub mod simulate;
pub mod smoothing;

pub use analysis::{Assigned, Input, ModelData, Settings, analyze};
pub use probes::ProbeSet;
pub use reference::Reference;
pub use result::{Analysis, Unit};
pub use smoothing::Smoothing;

use crate::formats::Problem;
use serde::Serialize;

/// The two roles of a comparison: the culture of the prompt language and the other one.
pub const LOCAL: &str = "local";
pub const WESTERN: &str = "western";

/// Why an input could not be used at all (row-level problems are listed, not raised).
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DivergenceError {
    #[error("{0}")]
    Input(Problem),
    #[error("{0}")]
    Setting(String),
}

impl DivergenceError {
    pub fn input(file: &str, message: impl Into<String>) -> DivergenceError {
        DivergenceError::Input(Problem::new(file, message))
    }
}
