//! The session's side of the NLI detector ([`crate::crosslingual::nli`]): the answers out,
//! their P(refuse) back.

use super::{Session, SessionError};
use crate::crosslingual::nli::{self, NliBatch, NliItem};

impl Session {
    /// The answered responses for the NLI detector, once per record id.
    pub fn nli_items(&self) -> Result<Vec<NliItem>, SessionError> {
        if self.data.records.is_empty() {
            return Err(SessionError::NoData);
        }
        nli::items(&self.data, &self.lexicon).map_err(SessionError::Invalid)
    }

    /// The detector's probabilities: written into the records, verdicts recomputed.
    pub fn add_nli(&mut self, batch: &NliBatch) -> Result<usize, SessionError> {
        if self.data.records.is_empty() {
            return Err(SessionError::NoData);
        }
        nli::apply(&mut self.data, batch, &self.lexicon).map_err(SessionError::Invalid)
    }
}
