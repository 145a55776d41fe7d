//! A log's samples as record-table rows, and the statistics of graded results.
//!
//! **Records.** One row per sample: `provider` is the harness, `model` the model that
//! answered, `case_id` the item (the same item of two logs gets the same case id, so two models
//! pair), `sample_index` the epoch − 1, `template_id` the item's cluster, `concern` the task,
//! `prompt`, `response`, `expected`, `choices`, `gold`, and the log-likelihoods in `logprobs`.
//! Extras keep the rest: `passed` (true or false, where the log grades the item), `score_<name>`
//! per metric, `reason`, `harness_id` (the harness's own id), `log_file`, `prediction` and
//! `prediction_norm` (option indexes). Graded rows have method `custom`.
//!
//! **Pass rates** ([`analyse`]): per task and model, the share of graded items passed, with
//! Wilson's interval taking items as independent and the cluster-robust interval (design effect
//! over the clusters: promptfoo's prompt-and-variable sets, else each item its own cluster)
//! from `stats::cluster`. **Paired tests**: per task and pair of models, McNemar's exact test on
//! the items both graded (matched by case id and sample), Holm-corrected (or as asked) over
//! every pair and task; items only one model has are counted, not dropped in silence.

use super::{Log, Sample};
use crate::record::{FORMAT_VERSION, Record, Status};
use crate::stats::cluster::{ClusterCount, ClusteredRate, clustered_rate_with};
use crate::stats::confidence::Confidence;
use crate::stats::correction::{Family, adjust};
use crate::stats::mcnemar::Method as McNemarMethod;
use crate::stats::paired::{PairedMcNemar, paired_mcnemar};
use crate::stats::proportion::Method;
use serde::Serialize;
use std::collections::BTreeMap;

/// The method name graded rows carry.
pub const METHOD: &str = "custom";

/// The record of one sample, with every field the log gives; `method` is set by the caller.
pub fn record(log: &Log, s: &Sample, method: &str) -> Record {
    let mut extra = BTreeMap::new();
    if let Some(p) = s.passed {
        extra.insert("passed".to_string(), p.to_string());
    }
    for (name, value) in &s.scores {
        extra.insert(format!("score_{name}"), value.to_string());
    }
    let mut put = |k: &str, v: String| {
        if !v.is_empty() {
            extra.insert(k.to_string(), v);
        }
    };
    put("reason", s.reason.clone());
    put("harness_id", s.id.clone());
    put("log_file", log.file.clone());
    put("prediction", s.prediction.map(|i| i.to_string()).unwrap_or_default());
    put("prediction_norm", s.prediction_norm.map(|i| i.to_string()).unwrap_or_default());
    let harness = log.harness().as_str();
    let case_id = if s.task.is_empty() || s.task == log.task { s.id.clone() } else { format!("{}:{}", s.task, s.id) };
    let mut r = Record {
        format_version: FORMAT_VERSION,
        run_id: format!("{harness}:{}", super::stem(&log.file)),
        method: method.into(),
        case_id,
        template_id: s.cluster.clone(),
        concern: if s.task.is_empty() { log.task.clone() } else { s.task.clone() },
        prompt: s.input.clone(),
        provider: harness.into(),
        model: s.model.clone(),
        sample_index: s.epoch.saturating_sub(1),
        response: s.output.clone(),
        status: if s.error.is_empty() { Status::Ok } else { Status::Error },
        error: s.error.clone(),
        expected: s.target.clone(),
        choices: s.choices.clone(),
        gold: s.gold.map(|g| g as u32),
        logprobs: (!s.loglikelihoods.is_empty()).then(|| serde_json::json!(s.loglikelihoods)),
        extra,
        ..Record::default()
    };
    r.record_id = format!("{}:{}:{}", r.run_id, r.case_id, r.sample_index);
    r
}

/// Every sample of the logs as a graded row.
pub fn records(logs: &[Log]) -> Vec<Record> {
    logs.iter().flat_map(|log| log.samples.iter().map(move |s| record(log, s, METHOD))).collect()
}

/// One task's pass rate under one model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rate {
    pub task: String,
    pub model: String,
    /// Graded items; items the log does not grade (an error, a partial score) are counted apart.
    pub ungraded: u64,
    pub rate: ClusteredRate,
}

/// McNemar's test between two models on one task's items.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paired {
    pub task: String,
    pub model_a: String,
    pub model_b: String,
    pub test: PairedMcNemar,
    pub p_adjusted: f64,
    pub significant: bool,
    /// Graded items one model has and the other has not.
    pub only_a: u64,
    pub only_b: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    pub rates: Vec<Rate>,
    pub paired: Vec<Paired>,
    pub correction: Family,
    pub alpha: f64,
    pub notes: Vec<String>,
}

/// Pass rates and paired tests of graded rows (see the module doc).
pub fn analyse(records: &[Record], confidence: Confidence, alpha: f64, correction: Family) -> Analysis {
    // task -> model -> item -> (cluster, passed)
    type Items = BTreeMap<String, (String, bool)>;
    let mut by_task: BTreeMap<String, BTreeMap<String, Items>> = BTreeMap::new();
    let mut ungraded: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut models: Vec<String> = vec![];
    for r in records {
        if !models.contains(&r.model) {
            models.push(r.model.clone());
        }
        let passed = r.extra.get("passed").and_then(|p| p.parse::<bool>().ok());
        let Some(passed) = passed.filter(|_| r.status == Status::Ok) else {
            *ungraded.entry((r.concern.clone(), r.model.clone())).or_default() += 1;
            continue;
        };
        let item = format!("{}#{}", r.case_id, r.sample_index);
        let cluster = if r.template_id.is_empty() { item.clone() } else { r.template_id.clone() };
        by_task
            .entry(r.concern.clone())
            .or_default()
            .entry(r.model.clone())
            .or_default()
            .insert(item, (cluster, passed));
    }
    let mut rates = vec![];
    let mut paired = vec![];
    for (task, per_model) in &by_task {
        for m in models.iter().filter(|m| per_model.contains_key(*m)) {
            let mut clusters: BTreeMap<&str, ClusterCount> = BTreeMap::new();
            for (cluster, passed) in per_model[m].values() {
                let c = clusters.entry(cluster).or_insert(ClusterCount { successes: 0, n: 0 });
                c.n += 1;
                c.successes += u64::from(*passed);
            }
            let counts: Vec<ClusterCount> = clusters.into_values().collect();
            if let Ok(rate) = clustered_rate_with(&counts, confidence, Method::Wilson) {
                let ungraded = ungraded.get(&(task.clone(), m.clone())).copied().unwrap_or(0);
                rates.push(Rate { task: task.clone(), model: m.clone(), ungraded, rate });
            }
        }
        let present: Vec<&String> = models.iter().filter(|m| per_model.contains_key(*m)).collect();
        for (i, a) in present.iter().enumerate() {
            for b in &present[i + 1..] {
                let (ia, ib) = (&per_model[*a], &per_model[*b]);
                let shared: Vec<(bool, bool)> =
                    ia.iter().filter_map(|(k, (_, x))| ib.get(k).map(|(_, y)| (*x, *y))).collect();
                let only_a = ia.keys().filter(|k| !ib.contains_key(*k)).count() as u64;
                let only_b = ib.keys().filter(|k| !ia.contains_key(*k)).count() as u64;
                let (xa, xb): (Vec<bool>, Vec<bool>) = shared.into_iter().unzip();
                if let Ok(test) = paired_mcnemar(&xa, &xb, McNemarMethod::Exact) {
                    paired.push(Paired {
                        task: task.clone(),
                        model_a: (*a).clone(),
                        model_b: (*b).clone(),
                        test,
                        p_adjusted: f64::NAN,
                        significant: false,
                        only_a,
                        only_b,
                    });
                }
            }
        }
    }
    let adjusted = adjust(correction, &paired.iter().map(|p| p.test.p_value).collect::<Vec<_>>());
    for (p, q) in paired.iter_mut().zip(adjusted) {
        p.p_adjusted = q;
        p.significant = q < alpha;
    }
    let mut notes = vec![];
    for p in paired.iter().filter(|p| p.only_a + p.only_b > 0) {
        notes.push(format!(
            "{}: {} graded item(s) only {} has and {} only {} has are not in the paired test",
            p.task, p.only_a, p.model_a, p.only_b, p.model_b
        ));
    }
    for ((task, model), n) in &ungraded {
        notes.push(format!("{task}: {n} item(s) of {model} have no pass or fail (an error, or a partial score) and are left out of its rate"));
    }
    Analysis { rates, paired, correction, alpha, notes }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(model: &str, case: &str, cluster: &str, passed: bool) -> Record {
        let mut r = Record {
            model: model.into(),
            case_id: case.into(),
            template_id: cluster.into(),
            concern: "t".into(),
            ..Record::default()
        };
        r.extra.insert("passed".into(), passed.to_string());
        r
    }

    #[test]
    fn rates_cluster_and_pairs_are_matched_by_item() {
        let mut rows = vec![];
        for i in 0..20 {
            let c = format!("c{}", i % 4);
            rows.push(row("a", &format!("{i}"), &c, i % 2 == 0));
            rows.push(row("b", &format!("{i}"), &c, i % 4 == 0));
        }
        rows.push(row("a", "extra", "c9", true));
        let an = analyse(&rows, Confidence::NINETY_FIVE, 0.05, Family::Holm);
        assert_eq!(an.rates.len(), 2);
        assert_eq!((an.rates[0].rate.successes, an.rates[0].rate.n, an.rates[0].rate.clusters), (11, 21, 5));
        let p = &an.paired[0];
        assert_eq!((p.test.n, p.test.only_a, p.test.only_b, p.only_a, p.only_b), (20, 5, 0, 1, 0));
        // McNemar exact with 5 discordant pairs all one way: p = 2 * 0.5^5.
        assert!((p.test.p_value - 0.0625).abs() < 1e-12, "{}", p.test.p_value);
        assert!(an.notes[0].contains("1 graded item(s) only a has"), "{:?}", an.notes);
    }
}
