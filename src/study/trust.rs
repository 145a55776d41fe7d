//! Every refusal detector's trust in a study ([`crate::trust`]), for the methods that detect
//! refusals: per method, model (as the report names targets) and language, each detector's
//! refusals and their agreement, the "depends on the detector" statements, and with the
//! study's labels (given in the page, carried by the bundle) each detector against them.
//! Requirements: the lexicon (deciding), the opening rule, and the NLI model and the LLM judge
//! where the records carry their verdicts ([`super::detectors::panel`]); cross-lingual: the
//! same detectors with the tool's review sample ([`crate::crosslingual::trust`]).

use crate::crosslingual::analysis::Dataset;
use crate::record::Record;
use crate::text::refusal::Lexicon;
use crate::trust::labels::Labels;
use crate::trust::{self, Trust};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodTrust {
    pub method: String,
    pub trust: Trust,
}

/// The trust of each refusal-detecting method among `by_method` (records under the report's
/// target names).
pub fn of(by_method: &[(&str, Vec<Record>)], labels: &Labels, confidence: f64) -> Vec<MethodTrust> {
    let lexicon = Lexicon::builtin();
    let settings = trust::Settings { confidence, ..Default::default() };
    by_method
        .iter()
        .filter_map(|(method, records)| {
            let t = match *method {
                // No review sample is drawn for this method: labels here describe the labelled answers.
                "requirements" => trust::assess(&super::detectors::panel(records, &lexicon, false), labels, settings),
                "crosslingual" => {
                    let mut d = Dataset::new("crosslingual records", records.clone(), &lexicon);
                    d.labels = labels.clone();
                    let all: Vec<usize> = (0..d.records.len()).collect();
                    let s = crate::crosslingual::analysis::Settings::default();
                    trust::assess(
                        &crate::crosslingual::trust::panel(&d, &all, &s),
                        &crate::crosslingual::trust::labels(&d, &all),
                        settings,
                    )
                }
                _ => return None,
            };
            (!t.cells.is_empty()).then(|| MethodTrust { method: method.to_string(), trust: t })
        })
        .collect()
}

impl super::Session {
    /// Labels one answer by hand (None removes its label); the id must be one of the study's records.
    pub fn set_label(&mut self, record_id: &str, label: Option<bool>) -> Result<usize, super::StudyError> {
        if !self.records.iter().any(|r| r.record_id == record_id) {
            return Err(super::StudyError::Input {
                field: "record_id".into(),
                message: format!("no record of the study has the id {record_id:?}"),
            });
        }
        self.labels.set(record_id, label);
        Ok(self.labels.len())
    }

    /// Adds the labels of a labels CSV ([`crate::trust::labels`]); on an error nothing changes.
    pub fn import_labels(&mut self, name: &str, text: &str) -> Result<usize, super::StudyError> {
        let read = Labels::from_csv(name, text).map_err(|e| super::StudyError::Records {
            file: name.into(),
            message: e.to_string().trim_start_matches(&format!("{name}: ")).to_string(),
        })?;
        let n = read.len();
        self.labels.0.extend(read.0);
        Ok(n)
    }

    /// The labels as CSV, with each record's language and model.
    pub fn labels_csv(&self) -> String {
        let about = self
            .records
            .iter()
            .filter(|r| self.labels.0.contains_key(&r.record_id))
            .map(|r| (r.record_id.clone(), (r.language.clone(), r.model.clone())))
            .collect();
        self.labels.to_csv(&about)
    }
}
