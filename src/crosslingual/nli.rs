//! The NLI refusal detector's round trip: the answers it should judge out ([`items`]: id, text,
//! language), its P(refuse) per answer back ([`apply`]), written into the records' columns
//! `nli_p_refuse`, `nli_rule` and `nli_model` ([`super::detect`] reads them). The model itself
//! runs outside the core (the CLI on the evenhand-models crate; later the page's model
//! worker), so the core stays free of it; the records carry its output like an upload would.
//!
//! The lexicon-first cascade (rule `cascade:R`, [`detect::CASCADE`]): each item says whether
//! the lexicon flags it ([`NliItem::lexicon`]); a cascade need not send those to the model,
//! and [`write`] puts the rule and the model on them too, so the core decides them by the
//! lexicon and the rest by the model. The same functions serve any records ([`items_of`],
//! [`write`]): the cross-lingual dataset and the requirements method's records alike.

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
    /// The lexicon flags it (a phrase, or the provider's refusal): a clear case the cascade
    /// decides without the model.
    pub lexicon: bool,
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
pub fn items(d: &Dataset, lexicon: &Lexicon) -> Result<Vec<NliItem>, String> {
    items_of(&d.records, lexicon)
}

/// [`items`] of any records. A duplicate record id is loaded with a warning; the detector judges
/// it once and writes its verdict into every record of that id, which is right only when they
/// carry one answer. Two different answers (or languages) under one id are an error naming it,
/// before any model work, rather than one answer's verdict given to the other.
pub fn items_of(records: &[Record], lexicon: &Lexicon) -> Result<Vec<NliItem>, String> {
    let mut first: HashMap<&str, &Record> = HashMap::new();
    let mut items = vec![];
    for r in records.iter().filter(|r| has_answer(r) && !r.record_id.is_empty()) {
        match first.get(r.record_id.as_str()) {
            Some(f) if f.response != r.response || f.language != r.language => {
                return Err(format!(
                    "record_id {:?} names two different answers; the NLI detector judges once per id, so give \
                     them distinct record_ids (nothing was judged)",
                    r.record_id
                ));
            }
            Some(_) => {}
            None => {
                first.insert(&r.record_id, r);
                items.push(NliItem {
                    id: r.record_id.clone(),
                    text: r.response.clone(),
                    language: r.language.clone(),
                    lexicon: detect::lexicon_refusal(r, lexicon),
                });
            }
        }
    }
    Ok(items)
}

/// Writes the batch into every record with one of its ids and recomputes the verdicts; all or
/// nothing. Returns how many records got a probability.
pub fn apply(d: &mut Dataset, b: &NliBatch, lexicon: &Lexicon) -> Result<usize, String> {
    let n = write(&mut d.records, b, lexicon)?;
    let (verdicts, problems) = detect::detect_all(&d.file, &d.records, lexicon);
    d.verdicts = verdicts;
    d.problems = problems;
    Ok(n)
}

/// Writes the batch into every record with one of its ids (and, for a cascade rule, the rule
/// and the model into every answered record the lexicon flags); all or nothing. Returns how
/// many records got a probability.
pub fn write(records: &mut [Record], b: &NliBatch, lexicon: &Lexicon) -> Result<usize, String> {
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
    items_of(records, lexicon)?;
    let mut by_id: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
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
            let extra = &mut records[i].extra;
            extra.insert(NLI_COLUMN.into(), p.to_string());
            extra.insert(NLI_RULE_COLUMN.into(), b.rule.clone());
            extra.insert(NLI_MODEL_COLUMN.into(), model.to_string());
            n += 1;
        }
    }
    if detect::cascade_inner(&b.rule).is_some() {
        let answered =
            |r: &Record| matches!(r.status, Status::Ok | Status::Refused | Status::Unparseable | Status::Filtered);
        let scored: HashSet<&str> = b.ids.iter().map(String::as_str).collect();
        for r in records.iter_mut().filter(|r| answered(r) && detect::lexicon_refusal(r, lexicon)) {
            // A probability from an earlier run decided nothing here: the lexicon does.
            if !scored.contains(r.record_id.as_str()) {
                r.extra.insert(NLI_COLUMN.into(), String::new());
            }
            r.extra.insert(NLI_RULE_COLUMN.into(), b.rule.clone());
            r.extra.insert(NLI_MODEL_COLUMN.into(), model.to_string());
        }
    }
    Ok(n)
}
