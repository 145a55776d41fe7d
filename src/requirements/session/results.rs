//! Evaluation in the session: what the Results part of the Requirements tab shows (groups,
//! community tests, charts; never the 100,000 per-record evaluations, which go to the export
//! files instead) and every export file with the run's provenance in its manifest.

use super::{Session, SessionError};
use crate::crosslingual::detect::Detector;
use crate::formats::Problem;
use crate::requirements::chart as requirements_chart;
use crate::requirements::community::Communities;
use crate::requirements::crosslang::CrossLanguage;
use crate::requirements::evaluate::GlobalRow;
use crate::requirements::outcome::{GroupStats, Outcome};
use crate::requirements::summary::{self, Mode};
use crate::stats::confidence::Confidence;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Problems listed in the view; the count says how many there were in all.
const SHOWN_PROBLEMS: usize = 50;

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvalQuery {
    /// LangBiTe's verdicts only (compatibility mode).
    pub compat: bool,
    /// Seeds the community permutation tests and bootstrap.
    pub seed: u64,
    pub confidence: Confidence,
    /// Significance level marked in the heatmap.
    pub alpha: f64,
    /// Who decides the refusals among the answers that do not pass (default mode), as
    /// `evenhand evaluate --detector` does: the lexicon, or the NLI model, the LLM judge or
    /// uploaded labels from the records' columns (answers without its verdict are listed, not
    /// judged).
    pub detector: Detector,
}

impl Default for EvalQuery {
    fn default() -> Self {
        EvalQuery {
            compat: false,
            seed: 1,
            confidence: Confidence::NINETY_FIVE,
            alpha: 0.05,
            detector: Detector::Lexicon,
        }
    }
}

#[derive(Debug, Serialize)]
pub struct ResultsView {
    pub mode: Mode,
    /// The detector that decided the refusals.
    pub detector: Detector,
    pub records: usize,
    /// Outcome -> records (default mode).
    pub outcomes: BTreeMap<Outcome, usize>,
    /// Template verdicts by LangBiTe's rules: Passed, Failed, Error.
    pub template_verdicts: BTreeMap<String, usize>,
    pub groups: Vec<GroupStats>,
    pub global: Vec<GlobalRow>,
    pub communities: Option<Communities>,
    pub cross_language: Option<CrossLanguage>,
    pub problem_count: usize,
    pub problems: Vec<Problem>,
    /// Pass rates against tolerances (default mode).
    pub pass_rates_svg: Option<String>,
    pub forest_svg: Option<String>,
    pub heatmap_svg: Option<String>,
}

impl Session {
    pub fn evaluate(&mut self, q: &EvalQuery) -> Result<ResultsView, SessionError> {
        if !(q.alpha > 0.0 && q.alpha < 1.0) {
            return Err(SessionError::Settings("alpha: expected a number between 0 and 1".into()));
        }
        let sc = self.scenario.as_ref().ok_or(SessionError::NoScenario)?;
        if self.records.is_empty() {
            return Err(SessionError::NoRecords);
        }
        let mode = if q.compat { Mode::Langbite } else { Mode::Default };
        if mode == Mode::Langbite && q.detector != Detector::Lexicon {
            return Err(SessionError::Settings(
                "detector: LangBiTe's compatibility mode keeps upstream's verdicts; choose the default mode for another detector"
                    .into(),
            ));
        }
        let s = self.summary.insert(summary::evaluate_with(sc, &self.records, mode, q.seed, q.confidence, q.detector));
        let mut outcomes = BTreeMap::new();
        for e in &s.evaluations {
            *outcomes.entry(e.outcome).or_default() += 1;
        }
        let mut template_verdicts = BTreeMap::new();
        for t in &s.templates {
            *template_verdicts.entry(t.verdict.as_str().to_string()).or_default() += 1;
        }
        Ok(ResultsView {
            mode,
            detector: q.detector,
            records: self.records.len(),
            outcomes,
            template_verdicts,
            groups: s.groups.clone(),
            global: s.global.clone(),
            pass_rates_svg: (mode == Mode::Default).then(|| requirements_chart::pass_rates(&s.groups)),
            forest_svg: s.communities.as_ref().map(requirements_chart::forest),
            heatmap_svg: s.communities.as_ref().map(|c| requirements_chart::mcnemar_heatmap(c, q.alpha)),
            communities: s.communities.clone(),
            cross_language: s.cross_language.clone(),
            problem_count: s.problems.len(),
            problems: s.problems.iter().take(SHOWN_PROBLEMS).cloned().collect(),
        })
    }

    /// Every export file of the last evaluation, as (name, text), and the records judged
    /// (so `evenhand evaluate` elsewhere rebuilds the same files from them).
    pub fn files(&self, timestamp: &str) -> Result<Vec<(String, String)>, SessionError> {
        let s = self.summary.as_ref().ok_or(SessionError::NoRecords)?;
        if self.records_hash_pending {
            return Err(SessionError::Records("the record file's hash for the manifest was not given".into()));
        }
        let mut files = summary::files(s, &self.records, timestamp, &self.provenance()?);
        files.push(("records.jsonl".into(), self.records_jsonl()));
        Ok(files)
    }
}
