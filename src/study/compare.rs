//! The study's comparison statistics, shared by the four methods' sections: a headline figure
//! per model (a rate with its Wilson and cluster-robust intervals, or a bootstrap estimate),
//! paired differences between models on the same items, the correction over the whole family
//! of model pairs x figures, and the power note. The arithmetic lives in `stats`; this module
//! only shapes its results for the report.

use crate::stats::cluster::{ClusterCount, clustered_rate_with};
use crate::stats::confidence::Confidence;
use crate::stats::correction::{Family, adjust};
use crate::stats::interval::{Interval, verdict_disagrees};
use crate::stats::paired::{self, PairedBootstrap};
use crate::stats::proportion::Method;
use serde::Serialize;
use std::collections::BTreeMap;

/// One model's value of one figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    pub method: String,
    /// What is measured, e.g. "pass rate · sexism · en_us".
    pub figure: String,
    pub model: String,
    pub value: Option<f64>,
    /// Items behind the value (judged records, examples, contexts).
    pub n: u64,
    /// Rates: successes among `n`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub successes: Option<u64>,
    /// The study's interval method on n (rates) or the method's own bootstrap interval.
    pub interval: Option<Interval>,
    /// "wilson", "clopper_pearson", "agresti_coull", or the bootstrap's name.
    pub interval_method: String,
    /// Rates with clustered items: the cluster-robust interval, the clusters and the design effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clustered: Option<Clustered>,
    /// A threshold the figure is judged against (a requirement's tolerance), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Clustered {
    pub interval: Interval,
    pub clusters: usize,
    pub design_effect: Option<f64>,
    pub effective_n: f64,
    /// The two intervals give different verdicts against the threshold.
    pub verdict_disagrees: bool,
}

/// A rate from per-cluster counts, with both intervals; None when there is no item.
pub fn rate(
    method: &str,
    figure: &str,
    model: &str,
    clusters: &BTreeMap<String, ClusterCount>,
    (confidence, interval_method): (Confidence, Method),
    threshold: Option<f64>,
) -> Figure {
    let counts: Vec<ClusterCount> = clusters.values().copied().collect();
    let n: u64 = counts.iter().map(|c| c.n).sum();
    let successes: u64 = counts.iter().map(|c| c.successes).sum();
    let mut f = Figure {
        method: method.into(),
        figure: figure.into(),
        model: model.into(),
        value: None,
        n,
        successes: Some(successes),
        interval: None,
        interval_method: interval_method.as_str().into(),
        clustered: None,
        threshold,
    };
    if let Ok(r) = clustered_rate_with(&counts, confidence, interval_method) {
        f.value = Some(r.rate);
        f.interval = Some(r.plain);
        f.clustered = Some(Clustered {
            verdict_disagrees: threshold.is_some_and(|t| verdict_disagrees(&r.plain, &r.robust, t).disagree),
            interval: r.robust,
            clusters: r.clusters,
            design_effect: r.design_effect,
            effective_n: r.effective_n,
        });
    }
    f
}

/// A paired difference between two models on one figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub method: String,
    pub figure: String,
    pub model_a: String,
    pub model_b: String,
    pub value_a: f64,
    pub value_b: f64,
    /// a − b.
    pub difference: f64,
    /// Bootstrap tests: the percentile interval of a − b.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// McNemar: (only A passed, only B passed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discordant: Option<(u64, u64)>,
    /// Paired items (McNemar) or resampled clusters (bootstrap).
    pub n: u64,
    /// Cluster bootstraps: the paired items inside the `n` clusters (None where items are the units).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<u64>,
    pub test: String,
    pub p_value: f64,
    /// After the family's correction (filled by [`correct`]).
    pub p_adjusted: f64,
    pub significant: bool,
    /// The smallest difference detectable at 80 % power with this many items (rates only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detectable: Option<f64>,
}

/// McNemar (exact) on the items both models answered; None when they share none.
pub fn mcnemar(
    method: &str,
    figure: &str,
    (model_a, a): (&str, &BTreeMap<String, bool>),
    (model_b, b): (&str, &BTreeMap<String, bool>),
) -> Option<Comparison> {
    let (xa, xb): (Vec<bool>, Vec<bool>) = a.iter().filter_map(|(k, va)| b.get(k).map(|vb| (*va, *vb))).unzip();
    let t = paired::paired_mcnemar(&xa, &xb, crate::stats::mcnemar::Method::Exact).ok()?;
    Some(Comparison {
        method: method.into(),
        figure: figure.into(),
        model_a: model_a.into(),
        model_b: model_b.into(),
        value_a: t.rate_a,
        value_b: t.rate_b,
        difference: t.difference,
        interval: None,
        discordant: Some((t.only_a, t.only_b)),
        n: t.n,
        items: None,
        test: t.test,
        p_value: t.p_value,
        p_adjusted: t.p_value,
        significant: false,
        detectable: None,
    })
}

/// A comparison from a paired cluster bootstrap.
pub fn bootstrap(method: &str, figure: &str, model_a: &str, model_b: &str, b: &PairedBootstrap) -> Comparison {
    Comparison {
        method: method.into(),
        figure: figure.into(),
        model_a: model_a.into(),
        model_b: model_b.into(),
        value_a: b.value_a,
        value_b: b.value_b,
        difference: b.difference,
        interval: Some(b.interval),
        discordant: None,
        n: b.clusters as u64,
        items: None,
        test: b.method.clone(),
        p_value: b.p_value,
        p_adjusted: b.p_value,
        significant: false,
        detectable: None,
    }
}

/// The n of a comparison as a reader sees it: the clusters, with the items beside them where
/// clusters were resampled.
pub fn n_text(c: &Comparison) -> String {
    match c.items {
        Some(items) => format!("{} clusters ({items} items)", c.n),
        None => c.n.to_string(),
    }
}

/// Adjusts every comparison's p-value over the whole family and marks those below alpha.
pub fn correct(comparisons: &mut [Comparison], family: Family, alpha: f64) {
    let p: Vec<f64> = comparisons.iter().map(|c| c.p_value).collect();
    for (c, q) in comparisons.iter_mut().zip(adjust(family, &p)) {
        c.p_adjusted = q;
        c.significant = q < alpha;
    }
}

/// Fills the power note of rate comparisons: the detectable difference at model A's rate, on
/// the paired items. Sizes and rates repeat across figures, so each (n, rate) is computed once.
pub fn power_notes(comparisons: &mut [Comparison], alpha: f64, seed: u64) {
    let mut cache: BTreeMap<(u64, u64), Option<f64>> = BTreeMap::new();
    for c in comparisons.iter_mut().filter(|c| c.discordant.is_some()) {
        // Rates to two decimals: the note is a rough guide, and the cache then hits.
        let base = (c.value_a * 100.0).round() / 100.0;
        let key = (c.n, base.to_bits());
        let d = *cache.entry(key).or_insert_with(|| {
            u32::try_from(c.n).ok().and_then(|n| paired::detectable_difference(n, base, alpha, seed).ok()?.difference)
        });
        c.detectable = d;
    }
}
