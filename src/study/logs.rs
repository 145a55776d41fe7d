//! Harness logs analysed: what a user of lm-evaluation-harness, Inspect or promptfoo gets from
//! the logs they already have, with no re-run.
//!
//! - [`records`]: every sample as a record-table row: BBQ-shaped samples as BBQ records (the
//!   examples rebuilt by `bbq::harness`), the others as graded pass/fail rows (`logs::graded`).
//! - [`analyse`]: per model, BBQ's accuracy, diff-bias and bias scores per category and
//!   condition with bootstrap intervals (Evenhand's own BBQ path), beside the figures the
//!   harness reported and the ways its scoring differs; with two or more models, the study of
//!   those records (built here, [`study`]): its paired tests, the correction over the family and
//!   whatever else a study report shows, items matched by the dataset's own example id, and the
//!   items only some logs have listed; for graded results, pass rates with Wilson and
//!   cluster-robust intervals and McNemar between models.

use super::format::{Bbq, Methods, Source, Statistics, Study, TargetName};
use super::inputs::{BbqInput, Inputs, Provenance};
use super::session::{Origin, RecordSource, Session};
use crate::bbq::harness::{self, Difference, Rebuilt};
use crate::bbq::metrics::BootstrapSettings;
use crate::bbq::score;
use crate::formats::Problem;
use crate::logs::{Log, Reported, graded};
use crate::record::Record;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

pub const FORMAT: &str = "evenhand-log-analysis";
pub const VERSION: u32 = 1;

/// One log as read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogSummary {
    pub file: String,
    pub harness: String,
    pub format_version: String,
    pub tool_version: String,
    pub task: String,
    pub models: Vec<String>,
    pub samples: usize,
    pub settings: BTreeMap<String, String>,
    pub reported: Vec<Reported>,
    pub notes: Vec<String>,
}

/// One of the harness's own figures beside Evenhand's figure of the same quantity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Beside {
    pub metric: String,
    pub harness: f64,
    pub evenhand: Option<f64>,
    /// What Evenhand's figure is (its name in the BBQ report).
    pub evenhand_figure: String,
}

/// BBQ's figures for one model.
#[derive(Debug, Clone, Serialize)]
pub struct BbqModel {
    pub model: String,
    /// Overall and per category, subset and language, each with its bootstrap intervals.
    pub report: score::Report,
    /// Per category and condition: the rows of `report` by category, with the conditions in
    /// their fields (acc_amb, acc_dis, diff_bias_amb, diff_bias_dis, s_amb, s_dis).
    pub beside: Vec<Beside>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BbqPart {
    pub examples: usize,
    pub models: Vec<BbqModel>,
    /// The fields some samples lack and what cannot be computed without them.
    pub missing: Vec<String>,
    /// Where the harness's scoring differs from BBQ's, counted on these logs.
    pub differences: Vec<Difference>,
    /// One line per difference and per reported figure that disagrees: where and why.
    pub explanations: Vec<String>,
    /// Examples some models answered and others did not (matched by the dataset's example id).
    pub coverage: Vec<String>,
    /// Samples whose BBQ fields could not be read.
    pub problems: Vec<Problem>,
    /// The study of these records (two or more models): paired tests, corrected over the family.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub study: Option<super::report::Report>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    pub format: String,
    pub version: u32,
    pub tool_version: String,
    pub logs: Vec<LogSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bbq: Option<BbqPart>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graded: Option<graded::Analysis>,
}

/// Every sample as a record: BBQ records for BBQ-shaped samples, graded rows for the others.
pub fn records(logs: &[Log]) -> (Vec<Record>, Rebuilt) {
    let rebuilt = harness::rebuild(logs);
    let mut out = rebuilt.records.clone();
    for log in logs {
        out.extend(log.samples.iter().filter(|s| !harness::is_bbq(s)).map(|s| graded::record(log, s, graded::METHOD)));
    }
    (out, rebuilt)
}

/// What a log is, in a few fields (its samples are the records).
pub fn summary(log: &Log) -> LogSummary {
    LogSummary {
        file: log.file.clone(),
        harness: log.harness().as_str().into(),
        format_version: log.format_version.clone(),
        tool_version: log.tool_version.clone(),
        task: log.task.clone(),
        models: log.models(),
        samples: log.samples.len(),
        settings: log.settings.clone(),
        reported: log.reported.clone(),
        notes: log.notes.clone(),
    }
}

/// The models of the records in first-seen order.
fn models_of(records: &[Record]) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for r in records {
        if !out.contains(&r.model) {
            out.push(r.model.clone());
        }
    }
    out
}

/// The study of BBQ records rebuilt from logs: one target per model (its provider the
/// harness), BBQ as the one method, the examples the logs carried as its input.
pub fn study(rebuilt: &Rebuilt, statistics: &Statistics) -> Session {
    let mut targets: Vec<TargetName> = vec![];
    for r in &rebuilt.records {
        if !targets.iter().any(|t| t.model == r.model) {
            targets.push(TargetName { provider: r.provider.clone(), model: r.model.clone() });
        }
    }
    let study = Study {
        format: super::format::FORMAT.into(),
        version: super::format::VERSION,
        title: "Models compared from their harness logs".into(),
        question: "Do these models differ on BBQ, as their own evaluation logs recorded their answers?".into(),
        targets,
        methods: Methods {
            bbq: Some(Bbq {
                dataset: Source { builtin: None, file: Some("harness logs".into()), sha256: None },
                categories: vec![],
                languages: vec![],
                conditions: vec![],
                variant: None,
            }),
            ..Methods::default()
        },
        samples: 1,
        seeds: Default::default(),
        statistics: statistics.clone(),
        params: Default::default(),
    };
    let json = serde_json::to_vec(&rebuilt.examples).unwrap_or_default();
    let inputs = Inputs {
        bbq: Some(BbqInput {
            examples: rebuilt.examples.clone(),
            provenance: Provenance {
                source: "the examples the harness logs carried".into(),
                sha256: super::format::sha256(&json),
                size: format!("{} examples", rebuilt.examples.len()),
            },
        }),
        ..Inputs::default()
    };
    let mut sources: Vec<RecordSource> = vec![];
    for r in &rebuilt.records {
        let file = r.extra.get("log_file").cloned().unwrap_or_default();
        match sources.iter_mut().find(|s| s.name == file) {
            Some(s) => s.records += 1,
            None => sources.push(RecordSource {
                name: file,
                origin: Origin::Uploaded,
                records: 1,
                sha256: String::new(),
                repeated: 0,
                held: Default::default(),
            }),
        }
    }
    Session::from_parts("harness logs", study, inputs, rebuilt.records.clone(), sources)
}

/// The harness's figures that match an Evenhand figure: lm-eval's accuracies and bias scores
/// (overall and per category), Inspect's accuracy.
fn beside(reported: &[Reported], report: &score::Report, accuracy: Option<f64>) -> Vec<Beside> {
    let b = &report.overall;
    let category = |name: &str| {
        report
            .by
            .iter()
            .filter(|(field, _)| field == "category")
            .flat_map(|(_, rows)| rows.iter())
            .find(|row| row.label == name)
            .map(|row| row.scores)
    };
    reported
        .iter()
        .filter_map(|r| {
            let (evenhand, name) = match r.metric.as_str() {
                "acc" | "choice/accuracy" => (accuracy, "accuracy over all answers (BBQ's three options)".to_string()),
                "accuracy_amb" => (b.scores.acc_amb, "Acc_amb".into()),
                "accuracy_disamb" => (b.scores.acc_dis, "Acc_dis".into()),
                "amb_bias_score" => (b.scores.s_amb, "s_AMB".into()),
                "disamb_bias_score" => (b.scores.s_dis, "s_DIS".into()),
                m => {
                    let (cat, s_amb) = match (m.strip_prefix("amb_bias_score_"), m.strip_prefix("disamb_bias_score_")) {
                        (Some(c), _) => (c, true),
                        (_, Some(c)) => (c, false),
                        _ => return None,
                    };
                    // (A log of one category has no per-category rows: its overall row is that one.)
                    let scores = category(cat)?;
                    if s_amb {
                        (scores.s_amb, format!("s_AMB · {cat}"))
                    } else {
                        (scores.s_dis, format!("s_DIS · {cat}"))
                    }
                }
            };
            Some(Beside { metric: r.metric.clone(), harness: r.value, evenhand, evenhand_figure: name })
        })
        .collect()
}

/// Everything the logs give (see the module doc). `statistics` sets the confidence, the
/// correction, alpha and the bootstrap replicates; the bootstrap's seed is 1.
pub fn analyse(logs: &[Log], statistics: &Statistics, generated_at: &str) -> Result<Analysis, super::StudyError> {
    let (records, rebuilt) = records(logs);
    let mut analysis = Analysis {
        format: FORMAT.into(),
        version: VERSION,
        tool_version: crate::VERSION.into(),
        logs: logs.iter().map(summary).collect(),
        bbq: None,
        graded: None,
    };
    if !rebuilt.records.is_empty() {
        analysis.bbq = Some(bbq_part(logs, &rebuilt, statistics, generated_at)?);
    }
    let graded_rows: Vec<Record> = records.into_iter().filter(|r| r.method == graded::METHOD).collect();
    if !graded_rows.is_empty() {
        analysis.graded =
            Some(graded::analyse(&graded_rows, statistics.confidence, statistics.alpha, statistics.correction));
    }
    Ok(analysis)
}

fn bbq_part(
    logs: &[Log],
    rebuilt: &Rebuilt,
    st: &Statistics,
    generated_at: &str,
) -> Result<BbqPart, super::StudyError> {
    let settings = BootstrapSettings { replicates: st.replicates, confidence: st.confidence, seed: 1 };
    let examples = &rebuilt.examples;
    let models = models_of(&rebuilt.records);
    let mut per_model = vec![];
    let mut explanations = vec![];
    for m in &models {
        let preds: Vec<score::Prediction> = rebuilt
            .records
            .iter()
            .enumerate()
            .filter(|(_, r)| &r.model == m)
            .map(|(i, r)| score::Prediction {
                id: r.question_id.clone(),
                answer: r.response.clone(),
                model: m.clone(),
                variant: String::new(),
                line: i as u64 + 1,
                by_likelihood: false,
                category: String::new(),
                file: r.extra.get("log_file").cloned().unwrap_or_default(),
            })
            .collect();
        let matched = score::judge(examples, &preds, "harness logs");
        let mut report = score::report(examples, &matched, &settings);
        // Examples the other logs have and this model's do not are not "missing predictions".
        report.missing_predictions = 0;
        let right = matched.judged.iter().filter(|j| j.prediction == Some(examples[j.example].label)).count();
        let accuracy = (!matched.judged.is_empty()).then(|| right as f64 / matched.judged.len() as f64);
        let reported: Vec<Reported> =
            logs.iter().filter(|l| l.models().contains(m)).flat_map(|l| l.reported.iter().cloned()).collect();
        let beside = beside(&reported, &report, accuracy);
        for b in &beside {
            if let Some(e) = b.evenhand.filter(|e| (e - b.harness).abs() > 1e-9) {
                explanations.push(format!(
                    "{m}: the harness reports {} = {:.4}, Evenhand's {} is {e:.4} on the same answers{}",
                    b.metric,
                    b.harness,
                    b.evenhand_figure,
                    why(&b.metric, rebuilt)
                ));
            }
        }
        per_model.push(BbqModel { model: m.clone(), report, beside });
    }
    for d in rebuilt.differences.iter().filter(|d| d.count > 0) {
        explanations.push(format!(
            "{} in {} of {} answers (for example {})",
            d.what,
            d.count,
            d.of,
            d.examples.join(", ")
        ));
    }
    // Coverage: which examples each model answered, by the dataset's own example id.
    let mut by_model: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in &rebuilt.records {
        by_model.entry(r.model.as_str()).or_default().insert(r.question_id.as_str());
    }
    let all: BTreeSet<&str> = by_model.values().flatten().copied().collect();
    let mut coverage = vec![];
    for m in &models {
        let have = &by_model[m.as_str()];
        let lacking: Vec<&str> = all.iter().filter(|id| !have.contains(*id)).copied().collect();
        if !lacking.is_empty() {
            coverage.push(format!(
                "{m} has no answer for {} of the {} examples the logs hold together ({}{}): they are left out of its paired comparisons",
                lacking.len(),
                all.len(),
                lacking.iter().take(5).copied().collect::<Vec<_>>().join(", "),
                if lacking.len() > 5 { ", ..." } else { "" }
            ));
        }
    }
    let study = if models.len() > 1 { Some(study(rebuilt, st).report(generated_at)?) } else { None };
    Ok(BbqPart {
        examples: examples.len(),
        models: per_model,
        missing: rebuilt.missing.clone(),
        differences: rebuilt.differences.clone(),
        explanations,
        coverage,
        problems: rebuilt.problems.clone(),
        study,
    })
}

/// Why a harness's figure can differ from BBQ's on the same answers.
fn why(metric: &str, rebuilt: &Rebuilt) -> String {
    let lm_eval = rebuilt.records.iter().any(|r| r.provider == "lm-eval");
    match metric {
        "acc" | "accuracy_amb" | "accuracy_disamb" if lm_eval => {
            ": lm-eval marks an answer right when its index is among doc_to_targets(doc), which for an unknown label assumes the unknown phrasings sit at positions 2 to 12 of its twelve options (its issue #3226), while Evenhand maps the chosen option back to BBQ's three by its text".into()
        }
        "amb_bias_score" | "disamb_bias_score" if lm_eval => {
            ": lm-eval counts an answer as biased by the biased_answers its process_docs derives from answer_info, and an answer as non-unknown by its own list of unknown phrasings; Evenhand uses BBQ's rule for the biased answer and the example's own unknown option (the counted differences below say which of these applies here)".into()
        }
        _ => String::new(),
    }
}
