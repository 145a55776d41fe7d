//! LangBiTe's own report CSVs uploaded into the session and read again: the global report
//! with intervals ([`crate::requirements::reanalysis`]), and the evaluations report re-judged
//! from the responses report when the LangBiTe libraries it was made with are loaded.

use super::{Session, SessionError};
use crate::requirements::evaluate::{Rejudged, rejudge_reports};
use crate::requirements::reanalysis::{self, Reread};
use crate::requirements::reports::{self, Table};
use crate::stats::confidence::Confidence;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct ReportsView {
    /// File names of the uploaded reports: responses, evaluations, global.
    pub files: [Option<String>; 3],
    pub global: Option<Vec<Reread>>,
    /// Rows where upstream's point verdict is not what the interval supports.
    pub disagreements: usize,
    /// Our verdict for each evaluations row.
    pub rejudged: Option<Vec<Rejudged>>,
    /// How many re-judged rows match the report.
    pub agree: usize,
    /// Why a part could not be computed (a bad cell, no libraries, no scenario).
    pub problems: Vec<String>,
}

impl Session {
    /// An uploaded LangBiTe report CSV, recognised by its header.
    pub fn load_report(&mut self, name: &str, text: &str) -> Result<&'static str, SessionError> {
        let first = text.lines().next().unwrap_or_default();
        let (slot, header, kind): (usize, &[&str], &'static str) = if first.contains("Tolerance") {
            (2, &reports::GLOBAL_HEADER, "global")
        } else if first.contains("Oracle Evaluation") {
            (1, &reports::EVALUATIONS_HEADER, "evaluations")
        } else {
            (0, &reports::RESPONSES_HEADER, "responses")
        };
        let table = reports::read(name, text, header)
            .map_err(|p| SessionError::Report { file: name.into(), message: p.to_string() })?;
        self.reports[slot] = Some((name.to_string(), table));
        Ok(kind)
    }

    pub fn clear_reports(&mut self) {
        self.reports = Default::default();
    }

    pub fn reports_view(&mut self, confidence: Confidence) -> ReportsView {
        let mut problems = vec![];
        let global = self.reports[2].as_ref().and_then(|(name, t)| {
            reanalysis::global_rows(name, t, confidence).map_err(|p| problems.push(p.to_string())).ok()
        });
        let rejudged = match (&self.reports[0], &self.reports[1]) {
            (Some((_, r)), Some((_, e))) => self.rejudge(r.clone(), e.clone()).map_err(|m| problems.push(m)).ok(),
            _ => None,
        };
        let agree = rejudged.as_ref().map_or(0, |v| v.iter().filter(|r| r.ours.as_str() == r.reported).count());
        ReportsView {
            files: self.reports.clone().map(|slot| slot.map(|(name, _)| name)),
            disagreements: global.as_ref().map_or(0, |g| g.iter().filter(|r| r.disagrees).count()),
            global,
            rejudged,
            agree,
            problems,
        }
    }

    fn rejudge(&mut self, responses: Table, evaluations: Table) -> Result<Vec<Rejudged>, String> {
        if self.uploaded.is_empty() {
            return Err("re-judging the evaluations needs the LangBiTe libraries the run used: upload them under \
                        Template libraries"
                .into());
        }
        let sc = self.scenario.clone().ok_or_else(|| SessionError::NoScenario.to_string())?;
        rejudge_reports(&sc, &self.uploaded, &responses, &evaluations).map_err(|p| p.to_string())
    }
}
