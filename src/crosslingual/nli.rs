//! The NLI refusal detector's round trip: the answers it should judge out ([`items`]: id, text,
//! language), its P(refuse) per answer back ([`apply`]), written into the records' columns
//! `nli_p_refuse`, `nli_rule` and `nli_model` ([`super::detect`] reads them). The model itself
//! runs outside the core (the CLI on the evenhand-models crate; later the page's model
//! worker), so the core stays free of it; the records carry its output like an upload would.

use super::analysis::Dataset;
use super::detect::{self, NLI_COLUMN, NLI_MODEL_COLUMN, NLI_RULE_COLUMN};
use crate::record::{Record, Status};
use crate::text::refusal::Lexicon;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// One answer for the detector (once per record id).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NliItem {
    pub id: String,
    pub text: String,
    pub language: String,
}

/// The detector's output for some answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NliBatch {
    /// The model as the methods text should name it (repository or folder, commit, sha256).
    pub model: String,
    /// `argmax` or `threshold:P` (see [`detect::parse_nli`]).
    pub rule: String,
    pub ids: Vec<String>,
    pub p_refuse: Vec<f64>,
}

fn has_answer(r: &Record) -> bool {
    matches!(r.status, Status::Ok | Status::Refused | Status::Unparseable | Status::Filtered)
        && !r.response.trim().is_empty()
}

/// The answered responses with a record id, once per id, in record order.
pub fn items(d: &Dataset) -> Vec<NliItem> {
    let mut seen = HashSet::new();
    d.records
        .iter()
        .filter(|r| has_answer(r) && !r.record_id.is_empty() && seen.insert(r.record_id.as_str()))
        .map(|r| NliItem { id: r.record_id.clone(), text: r.response.clone(), language: r.language.clone() })
        .collect()
}

/// Writes the batch into every record with one of its ids and recomputes the verdicts; all or
/// nothing. Returns how many records got a probability.
pub fn apply(d: &mut Dataset, b: &NliBatch, lexicon: &Lexicon) -> Result<usize, String> {
    let model = b.model.trim();
    if model.is_empty() {
        return Err("NLI batch: expected the model's name (field model)".into());
    }
    if b.ids.len() != b.p_refuse.len() {
        return Err(format!(
            "NLI batch: expected one probability per id, found {} ids and {} probabilities",
            b.ids.len(),
            b.p_refuse.len()
        ));
    }
    let mut by_id: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, r) in d.records.iter().enumerate() {
        by_id.entry(r.record_id.clone()).or_default().push(i);
    }
    for (id, p) in b.ids.iter().zip(&b.p_refuse) {
        if !by_id.contains_key(id) {
            return Err(format!("NLI batch: no loaded record has id {id:?}; nothing applied"));
        }
        // Each value and the rule are checked as the records will read them.
        detect::parse_nli(&p.to_string(), Some(&b.rule)).map_err(|e| format!("NLI batch, id {id:?}: {e}"))?;
    }
    let mut n = 0;
    for (id, p) in b.ids.iter().zip(&b.p_refuse) {
        for &i in &by_id[id] {
            let extra = &mut d.records[i].extra;
            extra.insert(NLI_COLUMN.into(), p.to_string());
            extra.insert(NLI_RULE_COLUMN.into(), b.rule.clone());
            extra.insert(NLI_MODEL_COLUMN.into(), model.to_string());
            n += 1;
        }
    }
    let (verdicts, problems) = detect::detect_all(&d.file, &d.records, lexicon);
    d.verdicts = verdicts;
    d.problems = problems;
    Ok(n)
}
