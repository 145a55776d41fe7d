//! The local NLI refusal detector over the Requirements tab's records: the answers it should
//! judge out, its P(refuse) per answer back into the records' `nli_p_refuse`, `nli_rule` and
//! `nli_model` columns, by the same core functions the Cross-lingual tool and `evenhand
//! evaluate --nli-model-dir` use ([`crate::crosslingual::nli`]). Which detectors the records
//! carry verdicts for tells the page which ones the evaluation can be decided by.

use super::{Session, SessionError};
use crate::crosslingual::detect::{self, Detector};
use crate::crosslingual::nli::{self, NliBatch, NliItem};
use crate::text::refusal::Lexicon;

impl Session {
    /// The answered records with a record id, once per id (see [`nli::items_of`]).
    pub fn nli_items(&self) -> Result<Vec<NliItem>, SessionError> {
        if self.records.is_empty() {
            return Err(SessionError::NoRecords);
        }
        nli::items_of(&self.records, &Lexicon::builtin()).map_err(SessionError::Records)
    }

    /// Writes the detector's batch into the records (all or nothing); the last evaluation is
    /// dropped, since its refusals may now be decided otherwise. Returns how many records got
    /// a probability.
    pub fn add_nli(&mut self, batch: &NliBatch) -> Result<usize, SessionError> {
        let n = nli::write(&mut self.records, batch, &Lexicon::builtin()).map_err(SessionError::Records)?;
        self.summary = None;
        if let Some(o) = self.origin.as_object_mut() {
            // The manifest says that the records judged are the file's plus the model's columns.
            o.insert("nli".into(), serde_json::json!({"model": batch.model.trim(), "rule": batch.rule, "records": n}));
        }
        Ok(n)
    }

    /// The detectors an evaluation can be decided by: the lexicon always, and the NLI model,
    /// the LLM judge and uploaded labels when some record carries that detector's column.
    pub fn detectors(&self) -> Vec<Detector> {
        let has = |column: &str| self.records.iter().any(|r| r.extra.get(column).is_some_and(|v| !v.trim().is_empty()));
        Detector::ALL
            .into_iter()
            .filter(|d| match d {
                Detector::Lexicon => true,
                // The rule, not the probability: a cascade's lexicon refusals have no P(refuse).
                Detector::Nli => has(detect::NLI_RULE_COLUMN),
                Detector::Judge => has(detect::JUDGE_COLUMN),
                Detector::Label => has(detect::LABEL_COLUMN),
            })
            .collect()
    }
}
