//! The local NLI refusal detector over a study's records: the answers of the methods that
//! detect refusals (requirements and cross-lingual) out, its P(refuse) per answer back into
//! their `nli_p_refuse`, `nli_rule` and `nli_model` columns, by the core functions every tool
//! uses ([`crate::crosslingual::nli`]). The report's detector table ([`super::detectors`]) and
//! methods text then name the NLI detector; the bundle and the share link carry the columns
//! with the records.

use super::StudyError;
use super::session::Session;
use crate::crosslingual::nli::{self, NliBatch, NliItem};
use crate::record::Record;
use crate::text::refusal::Lexicon;

/// The methods whose refusals the detectors decide.
pub const METHODS: [&str; 2] = ["requirements", "crosslingual"];

fn judged(r: &Record) -> bool {
    METHODS.contains(&r.method.as_str())
}

fn records_error(message: String) -> StudyError {
    StudyError::Records { file: "the study's records".into(), message }
}

impl Session {
    /// The answered records of [`METHODS`], once per record id (see [`nli::items_of`]).
    pub fn nli_items(&self) -> Result<Vec<NliItem>, StudyError> {
        let records: Vec<Record> = self.records.iter().filter(|r| judged(r)).cloned().collect();
        nli::items_of(&records, &Lexicon::builtin()).map_err(records_error)
    }

    /// Writes the detector's batch into the records of [`METHODS`] (all or nothing); returns
    /// how many got a probability.
    pub fn add_nli(&mut self, batch: &NliBatch) -> Result<usize, StudyError> {
        let at: Vec<usize> = (0..self.records.len()).filter(|&i| judged(&self.records[i])).collect();
        let mut records: Vec<Record> = at.iter().map(|&i| self.records[i].clone()).collect();
        let n = nli::write(&mut records, batch, &Lexicon::builtin()).map_err(records_error)?;
        for (i, r) in at.into_iter().zip(records) {
            self.records[i] = r;
        }
        Ok(n)
    }
}
