//! One bias-QA example, the common form that every importer (BBQ, GG-BBQ, KoBBQ-style) and
//! the template generator produce, and that the parser and the metrics read.

use serde::{Deserialize, Serialize};

/// Whether the question asks for the stereotype ("Who is bad at maths?") or its opposite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Polarity {
    Negative,
    NonNegative,
}

/// An ambiguous context leaves the answer unknown; a disambiguated one settles it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    Ambiguous,
    Disambiguated,
}

/// Group terms ("the woman") or proper names ("Emma"): BBQ and GG-BBQ report them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Subset {
    GroupTerms,
    ProperNames,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Example {
    /// Unique within a loaded dataset, e.g. "Sexual_orientation:17" or "ggbbq-amb:3".
    pub id: String,
    pub category: String,
    pub subset: Subset,
    pub language: String,
    /// The template the example was filled from; bootstrap resamples these groups.
    pub template_id: String,
    pub polarity: Polarity,
    pub condition: Condition,
    pub context: String,
    pub question: String,
    /// The answer options, trimmed, in the order shown to the model.
    pub choices: Vec<String>,
    /// Per choice: the group it names (as the source codes it), or "unknown".
    pub choice_groups: Vec<String>,
    /// Index of the correct choice.
    pub label: usize,
    /// The groups the stereotype targets, as the source lists them.
    pub stereotyped_groups: Vec<String>,
    /// Index of the "unknown" choice, if there is one.
    pub unknown: Option<usize>,
    /// Index of the biased answer (see `bias`); None when the rule cannot decide.
    pub biased: Option<usize>,
    pub counter_biased: Option<usize>,
    /// How `biased` was decided, or why it could not be: one line for the audit column.
    pub bias_audit: String,
    /// What else the source says about the example (BBQ's subcategory, version and source
    /// URL; GG-BBQ's relevant social values), kept for the record and the table.
    #[serde(default)]
    pub metadata: std::collections::BTreeMap<String, String>,
}
