//! A rate whose items come in clusters (the instances expanded from one template, the BBQ
//! examples built from one template): beside the Wilson interval, which treats every item as
//! independent, a cluster-robust interval that widens by the design effect.
//!
//! **Method (design effect, CR1).** With G non-empty clusters, cluster g holding s_g successes
//! among n_g items, N = Σ n_g and p = Σ s_g / N, the rate is the intercept of an OLS regression
//! of the 0/1 outcomes on a constant. Its cluster-robust (sandwich) variance with the G/(G−1)
//! small-sample factor is
//!
//!   V_cl = G/(G−1) · Σ_g (s_g − n_g·p)² / N²,
//!
//! which is what statsmodels' `OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": g})`
//! reports (its other factor, (N−1)/(N−K), is 1 for the intercept-only model, K = 1; Liang
//! and Zeger 1986, Cameron and Miller 2015). The design effect (Kish 1965) is that variance over the binomial one, deff = V_cl / (p(1−p)/N), the
//! effective sample size is N / max(deff, 1), and the robust interval is Wilson's on the
//! effective size (the same formula, n no longer a whole number; an effective sample size in a
//! binomial interval as in Korn and Graubard 1998). The max keeps the robust
//! interval never narrower than Wilson's: a deff below 1 (clusters more alike across than
//! within, or chance) is reported as computed but not used to narrow anything.
//!
//! When every cluster holds one item, Σ (y_i − p)² = N·p(1−p) and deff = G/(G−1) = N/(N−1):
//! the small-sample factor alone, slightly above 1.
//!
//! [`clustered_rate_with`] takes another binomial interval method (Clopper-Pearson,
//! Agresti-Coull; see [`super::proportion::Method`]) for both intervals, the robust one on the
//! effective n, so a study's named interval method holds for both.
//!
//! No random draws: the interval is a formula of the counts, so it is the same on every run
//! and target. (A cluster bootstrap over templates was the alternative; it needs a seed and
//! many resamples per rate, and with few templates its percentile interval is too narrow.)
//!
//! **Degenerate cases.** Empty clusters are left out (they carry no item, and counting them in
//! G would shrink the factor). With one cluster the between-cluster variance cannot be
//! estimated (G/(G−1) is undefined): no design effect, effective n = 0, robust interval [0, 1]
//! (the limit of Wilson's as n → 0), since one template says nothing about the others. With a
//! rate of 0 or 1 (and G ≥ 2) every residual is 0, so V_cl = 0 and deff = 0/0: no design effect
//! is reported, the robust interval is Wilson's on N, and the note says the clustering could not
//! be measured.

use super::confidence::Confidence;
use super::interval::Interval;
use super::proportion::Method;
use serde::{Deserialize, Serialize};

/// The method, as reports name it.
pub const METHOD: &str = "design-effect-wilson";

/// One cluster's items: how many, and how many of them are successes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterCount {
    pub successes: u64,
    pub n: u64,
}

/// A clustered rate with its two intervals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusteredRate {
    pub successes: u64,
    pub n: u64,
    pub rate: f64,
    /// Non-empty clusters (G).
    pub clusters: usize,
    pub confidence: f64,
    /// The interval method's (Wilson's by default) on n, items taken as independent.
    pub plain: Interval,
    /// The same method's on the effective n.
    pub robust: Interval,
    /// V_cl / (p(1−p)/n); `None` with one cluster or a rate of 0 or 1.
    pub design_effect: Option<f64>,
    /// n / max(deff, 1); n when no design effect could be computed, 0 with one cluster.
    pub effective_n: f64,
    /// √V_cl, statsmodels' clustered standard error of the mean; `None` with one cluster.
    pub robust_se: Option<f64>,
    /// [`METHOD`].
    pub method: String,
    /// The formula and any degenerate case met, in words.
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
pub enum ClusterError {
    #[error("cluster {index}: {successes} successes among {n} items (more successes than items)")]
    SuccessesAboveN { index: usize, successes: u64, n: u64 },
    #[error("no items: every cluster is empty")]
    NoItems,
    #[error("{n} items in all, above 2^53 (counts must be exact as 64-bit floats)")]
    TooManyItems { n: u128 },
}

/// The rate over all clusters with its Wilson and cluster-robust intervals (see the module doc).
pub fn clustered_rate(clusters: &[ClusterCount], confidence: Confidence) -> Result<ClusteredRate, ClusterError> {
    clustered_rate_with(clusters, confidence, Method::Wilson)
}

/// As [`clustered_rate`], both intervals by `method` (the robust one on the effective n).
pub fn clustered_rate_with(
    clusters: &[ClusterCount],
    confidence: Confidence,
    method: Method,
) -> Result<ClusteredRate, ClusterError> {
    let (mut s_total, mut n_total) = (0u128, 0u128);
    for (index, c) in clusters.iter().enumerate() {
        if c.successes > c.n {
            return Err(ClusterError::SuccessesAboveN { index, successes: c.successes, n: c.n });
        }
        s_total += u128::from(c.successes);
        n_total += u128::from(c.n);
    }
    if n_total == 0 {
        return Err(ClusterError::NoItems);
    }
    if n_total > 1 << 53 {
        return Err(ClusterError::TooManyItems { n: n_total });
    }
    let (successes, n) = (s_total as u64, n_total as u64);
    let g = clusters.iter().filter(|c| c.n > 0).count();
    let nf = n as f64;
    let p = successes as f64 / nf;
    let bounds = |n: f64| method.bounds(p, n, confidence.get());
    let (low, high) = bounds(nf);
    let wilson_interval = Interval { low, high };
    let mut notes = vec![format!(
        "deff = V_cl / (p(1-p)/n) with V_cl = G/(G-1) * sum_g (s_g - n_g p)^2 / n^2 (CR1, as statsmodels OLS cov_type=\"cluster\"); robust interval = {m} on n / max(deff, 1); G = {g}",
        m = method.title()
    )];
    let (design_effect, effective_n, robust_se, robust) = if g == 1 {
        notes.push("one cluster: the between-cluster variance cannot be estimated, robust interval [0, 1]".into());
        (None, 0.0, None, Interval { low: 0.0, high: 1.0 })
    } else if successes == 0 || successes == n {
        notes.push(format!(
            "rate {p}: every item agrees, so the clustering cannot be measured (deff = 0/0); robust interval = {} on n",
            method.title()
        ));
        (None, nf, Some(0.0), wilson_interval)
    } else {
        let gf = g as f64;
        let squares: f64 = clusters
            .iter()
            .map(|c| {
                let r = c.successes as f64 - c.n as f64 * p;
                r * r
            })
            .sum();
        let v_cl = gf / (gf - 1.0) * squares / (nf * nf);
        let deff = v_cl / (p * (1.0 - p) / nf);
        let n_eff = nf / deff.max(1.0);
        if deff < 1.0 {
            notes.push(format!("deff {deff} below 1: the robust interval is {}'s on n, not narrower", method.title()));
        }
        let (low, high) = bounds(n_eff);
        (Some(deff), n_eff, Some(libm::sqrt(v_cl)), Interval { low, high })
    };
    Ok(ClusteredRate {
        successes,
        n,
        rate: p,
        clusters: g,
        confidence: confidence.get(),
        plain: wilson_interval,
        robust,
        design_effect,
        effective_n,
        robust_se,
        method: METHOD.into(),
        note: notes.join("; "),
    })
}
