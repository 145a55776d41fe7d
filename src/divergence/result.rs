//! What an analysis reports (the JSON the CLI prints and the page shows).

use super::smoothing::Smoothing;
use crate::formats::Problem;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    #[default]
    Nats,
    Bits,
}

impl Unit {
    pub fn parse(text: &str) -> Option<Unit> {
        match text.trim().to_ascii_lowercase().as_str() {
            "nats" | "nat" | "e" => Some(Unit::Nats),
            "bits" | "bit" | "2" => Some(Unit::Bits),
            _ => None,
        }
    }

    /// The factor from nats to this unit.
    pub fn factor(self) -> f64 {
        match self {
            Unit::Nats => 1.0,
            Unit::Bits => 1.0 / std::f64::consts::LN_2,
        }
    }
}

/// A value with its bootstrap percentile interval (absent where there is none).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    pub value: f64,
    pub low: Option<f64>,
    pub high: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    pub probe_set: String,
    pub language: String,
    /// Display names of "local" and "western".
    pub cultures: BTreeMap<String, String>,
    /// "scoring" (log-probabilities) or "sampling" (completions).
    pub mode: String,
    pub unit: Unit,
    pub smoothing: Smoothing,
    pub smoothing_description: String,
    pub replicates: u32,
    pub confidence: f64,
    pub seed: u64,
    pub sign: String,
    pub identity: String,
    pub references: Vec<ReferenceSummary>,
    /// Aspects left out, with the reason (typically: no reference for one culture).
    pub skipped_aspects: Vec<Skipped>,
    pub models: Vec<ModelResult>,
    /// Rows or records that could not be used, located.
    pub problems: Vec<Problem>,
    pub simulated: bool,
    /// Sampling mode: how each completion of an analysed aspect was read, by (model, record
    /// id); a record absent here belongs to no analysed aspect (left out with its aspect, or a
    /// context the probe set does not name). Kept for the study's calls table, not written out.
    #[serde(skip)]
    pub reads: BTreeMap<(String, String), Read>,
}

/// How a completion was read ([`super::sample::extract`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// It starts with a known filler: a sample of m_c.
    Matched,
    /// It starts with no known filler: listed per context, left out of m_c.
    Unmatched,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReferenceSummary {
    pub aspect: String,
    pub culture: String,
    pub files: Vec<String>,
    pub rows: usize,
    /// Distinct fillers after normalisation.
    pub fillers: usize,
    pub total_weight: f64,
    /// Size of the union vocabulary the reference was smoothed over.
    pub vocabulary: usize,
    /// Reference probability that smoothing put on fillers the reference lacks.
    pub smoothing_added_mass: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    pub aspect: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ModelResult {
    pub model: String,
    /// CD summed over the aspects below (poster's form) with its interval.
    pub cd: Estimate,
    pub h_local: f64,
    pub h_western: f64,
    pub kl_local: f64,
    pub kl_western: f64,
    pub entropy_term: f64,
    /// The plain cross-entropy form with one pooled distribution per aspect.
    pub pooled_cd: f64,
    /// Mean over aspects of the model's probability on fillers missing from each reference.
    pub model_mass_smoothed_local: f64,
    pub model_mass_smoothed_western: f64,
    pub replicates_used: u32,
    pub aspects: Vec<AspectResult>,
    pub samples: SampleCounts,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct SampleCounts {
    /// Rows or records read for this model.
    pub total: usize,
    /// Sampling: completions with a recognised filler. Scoring: rows used.
    pub matched: usize,
    /// Sampling: completions with no recognised filler (left out, listed in the contexts).
    pub unmatched: usize,
    /// Records whose status was not ok (refused, error, …).
    pub not_ok: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct AspectResult {
    pub aspect: String,
    pub cd: Estimate,
    pub h_local: f64,
    pub h_western: f64,
    pub kl_local: f64,
    pub kl_western: f64,
    pub entropy_term: f64,
    pub pooled_cd: f64,
    pub pooled_h_local: f64,
    pub pooled_h_western: f64,
    pub contexts_local: usize,
    pub contexts_western: usize,
    pub model_mass_smoothed_local: f64,
    pub model_mass_smoothed_western: f64,
    pub replicates_used: u32,
    pub contexts: Vec<ContextResult>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ContextResult {
    pub context: String,
    pub text: String,
    pub form: String,
    pub culture: Option<String>,
    /// H(m_c, L) - H(m_c, W); an interval in sampling mode.
    pub cd: Estimate,
    pub h_local: f64,
    pub h_western: f64,
    pub entropy: f64,
    /// Scoring: fillers scored. Sampling: matched samples.
    pub n: usize,
    pub unmatched: usize,
    /// The unmatched completions' first words, with counts (sampling), or fillers known to
    /// no reference and no filler table (scoring; kept and smoothed).
    pub unmatched_texts: Vec<(String, usize)>,
    pub model_mass_smoothed_local: f64,
    pub model_mass_smoothed_western: f64,
    /// The most probable fillers: model probability and both references' probabilities
    /// renormalised over this context's fillers (for the chart).
    pub fillers: Vec<FillerShare>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FillerShare {
    pub filler: String,
    pub model: f64,
    pub local: f64,
    pub western: f64,
}

pub const SIGN: &str = "CD = H(M,L) - H(M,W). Negative: the model's fillers are better explained by the local \
reference (closer to the local culture); positive: closer to the Western reference; 0: no lean either way.";

pub const IDENTITY: &str = "H(M,X) = H(M) + KL(M||X), so CD = KL(M||L) - KL(M||W) + (mean entropy of m_c over \
the local contexts - mean entropy over the Western contexts); the last term is 0 when both cultures use the same \
contexts, and then CD = KL(M||L) - KL(M||W). Per context: H(m_c,L) - H(m_c,W) = Σ_g m_c(g) ln(W(g)/L(g)).";
