//! One evaluation of a LangBiTe-style run, in both modes, and every file it exports: the
//! CLI's `evenhand evaluate` and the page build the same files from the same function.
//!
//! Files: LangBiTe's three CSVs (compatibility verdicts, one timestamp for all three), and in
//! default mode our own: `evaluations.csv` (one row per judged record, joinable by
//! record_id), `groups.csv`/`groups.json` (outcome counts, pass rate with its interval, the
//! three-valued verdict and upstream's beside it), `communities.json` (the per-community tests),
//! `cross_language.json` (one template id across languages) and `manifest.json` (mode, seed, confidence, tool version, hashes of the scenario and the
//! records, the templates judged).

use super::community::{self, Communities};
use super::crosslang::{self, CrossLanguage};
use super::evaluate::{GlobalRow, TemplateEval, compat_from_records, global, langbite_reports};
use super::outcome::{self, Evaluation, GroupStats};
use super::scenario::Scenario;
use crate::crosslingual::detect::Detector;
use crate::formats::Problem;
use crate::record::Record;
use crate::stats::confidence::Confidence;
use crate::text::refusal::Lexicon;
use serde::Serialize;
use std::collections::BTreeSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Upstream's verdicts only.
    Langbite,
    /// Every instance judged, with statistics; LangBiTe's CSVs are written too.
    Default,
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub mode: Mode,
    pub seed: u64,
    pub confidence: Confidence,
    /// The detector that decided refusals among the answers that did not pass.
    pub detector: Detector,
    pub templates: Vec<TemplateEval>,
    pub global: Vec<GlobalRow>,
    pub evaluations: Vec<Evaluation>,
    pub groups: Vec<GroupStats>,
    pub communities: Option<Communities>,
    /// The same template id across languages (default mode).
    pub cross_language: Option<CrossLanguage>,
    /// Records that could not be judged, with why.
    pub problems: Vec<Problem>,
}

/// Evaluates `records` against `scenario` (its tolerances and deltas), refusals by the lexicon.
pub fn evaluate(scenario: &Scenario, records: &[Record], mode: Mode, seed: u64, confidence: Confidence) -> Summary {
    evaluate_with(scenario, records, mode, seed, confidence, Detector::Lexicon)
}

/// [`evaluate`] with the refusals of an answer that does not pass decided by `detector`
/// ([`outcome::Refusals`]; the NLI model, the judge and labels from the records' columns).
pub fn evaluate_with(
    scenario: &Scenario,
    records: &[Record],
    mode: Mode,
    seed: u64,
    confidence: Confidence,
    detector: Detector,
) -> Summary {
    let (templates, mut problems) = compat_from_records(scenario, records);
    let global = global(scenario, &templates);
    let lexicon = Lexicon::builtin();
    let (evaluations, groups, communities, cross_language) = if mode == Mode::Default {
        let (refusals, unreadable) = outcome::Refusals::new(detector, records, &lexicon);
        problems.extend(unreadable);
        let (evals, more, at) = outcome::evaluate_indexed_by(scenario, records, &refusals);
        problems.extend(more);
        // Each evaluation's record, found once for the three analyzes below.
        let judged = outcome::judged_records(records, &evals, Some(&at));
        let groups = outcome::groups_of(scenario, &judged, &evals, confidence.get());
        let communities = community::analyze_of(&judged, &evals, seed);
        let cross = crosslang::compare_of(&judged, &evals);
        (evals, groups, Some(communities), Some(cross))
    } else {
        (vec![], vec![], None, None)
    };
    // Both modes report one problem per broken record; keep each once.
    let mut seen = BTreeSet::new();
    problems.retain(|p| seen.insert((p.file.clone(), p.message.clone())));
    Summary {
        mode,
        seed,
        confidence,
        detector,
        templates,
        global,
        evaluations,
        groups,
        communities,
        cross_language,
        problems,
    }
}

impl Summary {
    /// A compact fingerprint of the results (template verdicts, outcome counts, groups, and
    /// the sum of the community tests' p-values), for checking that two builds (native and
    /// wasm) computed the same thing.
    pub fn fingerprint(&self) -> Vec<f64> {
        use super::outcome::Outcome;
        let verdict = |v: &str| self.templates.iter().filter(|t| t.verdict.as_str() == v).count() as f64;
        let outcome = |o: Outcome| self.evaluations.iter().filter(|e| e.outcome == o).count() as f64;
        let p_sum: f64 =
            self.communities.as_ref().map_or(0.0, |c| c.groups.iter().flat_map(|g| &g.tests).map(|t| t.p_value).sum());
        vec![
            verdict("Passed"),
            verdict("Failed"),
            verdict("Error"),
            outcome(Outcome::Passed),
            outcome(Outcome::Failed),
            outcome(Outcome::Refused),
            outcome(Outcome::Unparseable),
            self.groups.len() as f64,
            p_sum,
        ]
    }
}

fn csv_of(header: &[&str], rows: Vec<Vec<String>>) -> String {
    super::reports::write_csv(header, &rows, false)
}

fn num(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite()).map(|x| x.to_string()).unwrap_or_default()
}

/// Every export of `summary`: (file name, contents). `timestamp` is LangBiTe's
/// `YYYYmmddHHMMSS` prefix, one for all three of its files.
pub fn files(
    summary: &Summary,
    records: &[Record],
    timestamp: &str,
    provenance: &serde_json::Value,
) -> Vec<(String, String)> {
    let [responses, evaluations, global] = langbite_reports(records, &summary.templates, &summary.global, true);
    let mut out = vec![
        (format!("langbite/{timestamp}_responses.csv"), responses),
        (format!("langbite/{timestamp}_evaluations.csv"), evaluations),
        (format!("langbite/{timestamp}_global_evaluation.csv"), global),
    ];
    if summary.mode == Mode::Default {
        let rows = summary
            .evaluations
            .iter()
            .map(|e| {
                vec![
                    e.record_id.clone(),
                    e.template_id.clone(),
                    e.operation.as_str().to_string(),
                    format!("{:?}", e.outcome),
                    num(e.value),
                    e.reason.clone(),
                ]
            })
            .collect();
        out.push((
            "evaluations.csv".into(),
            csv_of(&["record_id", "template_id", "operation", "outcome", "value", "reason"], rows),
        ));
        let header = [
            "provider",
            "model",
            "concern",
            "language",
            "input_type",
            "reflection_type",
            "passed",
            "failed",
            "refused",
            "unparseable",
            "error",
            "n",
            "pass_rate",
            "low",
            "high",
            "tolerance",
            "verdict",
            "langbite_verdict",
        ];
        let rows = summary
            .groups
            .iter()
            .map(|g| {
                let count = |o| g.counts.get(&o).copied().unwrap_or(0).to_string();
                use super::outcome::Outcome::*;
                let p = g.pass_rate.as_ref();
                let mut row = g.group.cells();
                row.extend([
                    count(Passed),
                    count(Failed),
                    count(Refused),
                    count(Unparseable),
                    count(Error),
                    p.map_or(0, |p| p.n).to_string(),
                    num(p.map(|p| p.rate)),
                    num(p.map(|p| p.low)),
                    num(p.map(|p| p.high)),
                    g.tolerance.to_string(),
                    serde_json::to_value(g.verdict)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    g.point_verdict.to_string(),
                ]);
                row
            })
            .collect();
        out.push(("groups.csv".into(), csv_of(&header, rows)));
        out.push(("groups.json".into(), pretty(&summary.groups)));
        out.push(("communities.json".into(), pretty(&summary.communities)));
        out.push(("cross_language.json".into(), pretty(&summary.cross_language)));
    }
    let manifest = serde_json::json!({
        "tool": "evenhand",
        "version": env!("CARGO_PKG_VERSION"),
        "mode": summary.mode,
        "seed": summary.seed,
        "confidence": summary.confidence,
        "refusal_detector": summary.detector,
        "records": records.len(),
        "templates_judged": summary.templates.iter().map(|t| &t.template_id).collect::<BTreeSet<_>>(),
        "problems": summary.problems.len(),
        "inputs": provenance,
    });
    out.push(("manifest.json".into(), pretty(&manifest)));
    out
}

fn pretty<T: Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}

/// LangBiTe's file-name timestamp (`%Y%m%d%H%M%S`, UTC) for a Unix time in milliseconds.
pub fn langbite_timestamp(unix_ms: i64) -> String {
    crate::run::rfc3339(unix_ms).chars().filter(char::is_ascii_digit).take(14).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_are_upstreams() {
        assert_eq!(super::langbite_timestamp(1_795_430_096_789), "20261123103456");
    }
}
