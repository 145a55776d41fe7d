//! Labels given by hand to the review sample's answers (or any answer), kept by record id: set
//! one at a time from the page's keys, exported and imported as CSV
//! ([`crate::trust::labels`]). They are kept when other records are loaded, so labels imported
//! before the records they name still count once those records arrive.

use super::{Session, SessionError};
use crate::trust::labels::Labels;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelsSummary {
    /// Labels now held.
    pub labels: usize,
    /// Of those, labels that name no loaded record.
    pub unmatched: usize,
    /// Labels the import brought (0 when one was set by hand).
    pub imported: usize,
}

impl Session {
    fn labels_summary(&self, imported: usize) -> LabelsSummary {
        let labels = &self.data.labels;
        let ids: std::collections::BTreeSet<&str> = self.data.records.iter().map(|r| r.record_id.as_str()).collect();
        LabelsSummary {
            labels: labels.len(),
            unmatched: labels.0.keys().filter(|k| !ids.contains(k.as_str())).count(),
            imported,
        }
    }

    /// Labels one answer (Some(true): refusal, Some(false): answer) or removes its label (None).
    pub fn set_label(&mut self, record_id: &str, label: Option<bool>) -> Result<LabelsSummary, SessionError> {
        if !self.data.records.iter().any(|r| r.record_id == record_id) {
            return Err(SessionError::Invalid(format!("record_id: no loaded record has the id {record_id:?}")));
        }
        self.data.labels.set(record_id, label);
        Ok(self.labels_summary(0))
    }

    pub fn labels(&self) -> &Labels {
        &self.data.labels
    }

    /// The labels as CSV, with each record's language and model.
    pub fn labels_csv(&self) -> String {
        let about: BTreeMap<String, (String, String)> = self
            .data
            .records
            .iter()
            .filter(|r| self.data.labels.0.contains_key(&r.record_id))
            .map(|r| (r.record_id.clone(), (r.language.clone(), r.model.clone())))
            .collect();
        self.data.labels.to_csv(&about)
    }

    /// Reads a labels CSV and adds its labels (a label in the file replaces the one held for
    /// that record). On any error nothing changes.
    pub fn import_labels(&mut self, name: &str, text: &str) -> Result<LabelsSummary, SessionError> {
        let read = Labels::from_csv(name, text)?;
        let imported = read.len();
        for (id, l) in read.0 {
            self.data.labels.0.insert(id, l);
        }
        Ok(self.labels_summary(imported))
    }

    /// Replaces every label (a study bundle's, say).
    pub fn use_labels(&mut self, labels: Labels) {
        self.data.labels = labels;
    }
}
