//! The optional LLM judge in the session ([`crate::requirements::judge`]): its cases, a seeded
//! audit sample of passes and failures, go to the Run tab on any provider; its answered
//! records come back and are compared with the oracle.

use super::{Session, SessionError};
use crate::requirements::judge::{self, JudgeReport};
use crate::requirements::summary::Mode;

/// The most evaluations of each outcome sent to the judge per group.
const MAX_PER_OUTCOME: usize = 1000;

impl Session {
    /// The judge's cases (JSONL) for the last default-mode evaluation.
    pub fn judge_cases(&self, per_outcome: usize, seed: u64) -> Result<(usize, String), SessionError> {
        if per_outcome == 0 || per_outcome > MAX_PER_OUTCOME {
            return Err(SessionError::Settings(format!(
                "judge sample: expected 1 to {MAX_PER_OUTCOME} per outcome and group, found {per_outcome}"
            )));
        }
        let s = self.default_summary()?;
        let sample = judge::audit_sample(&self.records, &s.evaluations, per_outcome, seed);
        let cases = judge::cases(&self.records, &s.evaluations, &sample);
        Ok((cases.len(), crate::formats::write(&cases, crate::formats::FileFormat::Jsonl)))
    }

    /// The judge's answered records (a record file from the Run tab) against the oracle.
    pub fn load_judge(&self, name: &str, bytes: &[u8]) -> Result<JudgeReport, SessionError> {
        let s = self.default_summary()?;
        let loaded = crate::formats::load(name, bytes, None).map_err(|e| SessionError::Records(e.to_string()))?;
        let report = judge::compare(&s.evaluations, &loaded.records);
        if report.agreement.n + report.unusable == 0 {
            return Err(SessionError::Records(format!(
                "{name}: no record judges an evaluation of this run (expected the judge's cases, answered, \
                 with their `judged` column)"
            )));
        }
        Ok(report)
    }

    fn default_summary(&self) -> Result<&crate::requirements::summary::Summary, SessionError> {
        match &self.summary {
            Some(s) if s.mode == Mode::Default => Ok(s),
            Some(_) => Err(SessionError::Settings(
                "the judge reviews default-mode evaluations: evaluate without LangBiTe compatibility first".into(),
            )),
            None => Err(SessionError::NoRecords),
        }
    }
}
