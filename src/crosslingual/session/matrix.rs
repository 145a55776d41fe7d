//! The session's uploaded distance matrix (see [`crate::crosslingual::distances`]): read against
//! the loaded records, kept until the records change, used when PERMANOVA's settings ask for it
//! (`matrix: true`).

use super::{Session, SessionError};
use crate::crosslingual::distances::{self, DistancesSummary};

impl Session {
    /// Reads a distance matrix between the loaded records; a failed read keeps the earlier one.
    pub fn load_distances(&mut self, name: &str, bytes: &[u8]) -> Result<DistancesSummary, SessionError> {
        if self.data.records.is_empty() {
            return Err(SessionError::NoData);
        }
        let m = distances::read(name, bytes, &self.data).map_err(SessionError::Distances)?;
        let summary = m.summary();
        self.distances = Some(m);
        self.perm_run = None;
        Ok(summary)
    }

    /// The uploaded matrix's summary, if there is one.
    pub fn distances(&self) -> Option<DistancesSummary> {
        self.distances.as_ref().map(|m| m.summary())
    }
}
