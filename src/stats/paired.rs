//! Two models compared on the same items: McNemar's test on per-item pass/fail, a paired
//! cluster bootstrap for any statistic of the items, and the smallest difference a comparison
//! of that size could have detected.
//!
//! **McNemar** ([`paired_mcnemar`]): item i passes or fails under model A and under model B;
//! the table is `[[n00, n01], [n10, n11]]` with rows A's outcome and columns B's (0 = fail,
//! 1 = pass), and [`super::mcnemar::mcnemar`] runs on it with statsmodels' convention. The
//! difference reported is rate_A − rate_B = (n10 − n01) / n.
//!
//! **Paired bootstrap** ([`paired_bootstrap`]): the items come in G clusters (template groups,
//! contexts). Each resample draws G clusters uniformly with replacement and concatenates their
//! items (a cluster drawn twice contributes its items twice); the caller's statistic returns
//! (value_A, value_B) on that multiset, and the replicate is value_A − value_B. Both models see
//! the same draw: that is the pairing. Draws come from one ChaCha8 stream
//! `rng_for(seed, ["paired-bootstrap"])`, G calls of `random_range(0..G)` per resample, in
//! resample order, so a seed gives the same bits natively and in the browser.
//! - The interval is the percentile interval of the replicates, read with
//!   [`Percentile::Linear`] at (1 − c)/2 and (1 + c)/2.
//! - The two-sided p-value for "no difference" is
//!   p = min(1, 2·min(1 + #{d* ≤ 0}, 1 + #{d* ≥ 0}) / (B + 1)),
//!   the share of replicates on the far side of 0 with the +1 correction that keeps p above 0
//!   (Davison and Hinkley 1997, ch. 4; North et al. 2002); it is below α about when the
//!   percentile interval at 1 − α leaves out 0.
//! - A replicate whose statistic is undefined (NaN: a resample with no ambiguous example, say)
//!   is left out of both and counted in `undefined_resamples`.
//!
//! The power note for a comparison is [`super::detectable`] (re-exported here).

use super::bootstrap::Percentile;
use super::confidence::Confidence;
use super::interval::Interval;
use super::mcnemar::{Convention, McNemar, Method, Table, mcnemar};
use crate::rng;
use rand::RngExt as _;
use serde::{Deserialize, Serialize};

pub use super::detectable::{Detectable, detectable_difference};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
pub enum PairedError {
    #[error("model A has {a} items and model B {b}: paired tests need the same items for both")]
    LengthMismatch { a: usize, b: usize },
    #[error("no items to compare")]
    NoItems,
    #[error("resamples: expected between 1 and {max}, found {found}")]
    Resamples { found: u32, max: u32 },
    #[error("the statistic is undefined (NaN) on the observed items")]
    ObservedUndefined,
    #[error("the statistic is undefined (NaN) on every one of the {resamples} resamples")]
    AllResamplesUndefined { resamples: u32 },
}

/// The most resamples accepted.
pub const MAX_RESAMPLES: u32 = 1_000_000;

/// McNemar's test on two models' per-item outcomes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedMcNemar {
    pub n: u64,
    /// Both pass (n11), only A passes (n10), only B passes (n01), both fail (n00).
    pub both_pass: u64,
    pub only_a: u64,
    pub only_b: u64,
    pub both_fail: u64,
    pub rate_a: f64,
    pub rate_b: f64,
    /// rate_a − rate_b.
    pub difference: f64,
    pub p_value: f64,
    /// "mcnemar-exact", "mcnemar-mid-p", "mcnemar-chi2", "mcnemar-chi2-cc".
    pub test: String,
    /// The full test result (statistic, odds ratio, note).
    pub mcnemar: McNemar,
}

/// McNemar's test of `a[i]` (model A passed item i) against `b[i]`, with the given variant
/// ([`Method::Exact`] is the default the study uses) and statsmodels' convention.
pub fn paired_mcnemar(a: &[bool], b: &[bool], method: Method) -> Result<PairedMcNemar, PairedError> {
    if a.len() != b.len() {
        return Err(PairedError::LengthMismatch { a: a.len(), b: b.len() });
    }
    if a.is_empty() {
        return Err(PairedError::NoItems);
    }
    let mut cells = [[0u64; 2]; 2];
    for (&x, &y) in a.iter().zip(b) {
        cells[usize::from(x)][usize::from(y)] += 1;
    }
    let table = Table { n00: cells[0][0], n01: cells[0][1], n10: cells[1][0], n11: cells[1][1] };
    let result = mcnemar(&table, method, Convention::Statsmodels);
    let n = a.len() as u64;
    let nf = n as f64;
    let (pass_a, pass_b) = (table.n10 + table.n11, table.n01 + table.n11);
    let test = match method {
        Method::Exact => "mcnemar-exact",
        Method::MidP => "mcnemar-mid-p",
        Method::Chi2 => "mcnemar-chi2",
        Method::Chi2Cc => "mcnemar-chi2-cc",
    };
    Ok(PairedMcNemar {
        n,
        both_pass: table.n11,
        only_a: table.n10,
        only_b: table.n01,
        both_fail: table.n00,
        rate_a: pass_a as f64 / nf,
        rate_b: pass_b as f64 / nf,
        difference: (table.n10 as f64 - table.n01 as f64) / nf,
        p_value: result.p_value,
        test: test.into(),
        mcnemar: result,
    })
}

/// A paired cluster bootstrap of a difference between two models.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedBootstrap {
    /// The statistic on all items.
    pub value_a: f64,
    pub value_b: f64,
    /// value_a − value_b.
    pub difference: f64,
    pub confidence: f64,
    /// Percentile interval of the replicated differences.
    pub interval: Interval,
    /// Two-sided, with the +1 correction (module doc).
    pub p_value: f64,
    /// Resamples drawn, and those left out because the statistic was undefined on them.
    pub resamples: u32,
    pub undefined_resamples: u32,
    /// Non-empty clusters resampled, and items in them.
    pub clusters: usize,
    pub items: usize,
    pub seed: u64,
    pub method: String,
}

/// The method, as reports name it.
pub const BOOTSTRAP_METHOD: &str = "paired-cluster-bootstrap-percentile";

/// Resamples whole clusters of item indices, the same draw for both models, and returns the
/// observed difference with its percentile interval and bootstrap p-value (module doc).
/// `statistic` receives item indices (from `clusters`, repeated as drawn) and returns
/// (value_A, value_B); NaN marks an undefined value.
pub fn paired_bootstrap<F>(
    clusters: &[Vec<usize>],
    resamples: u32,
    confidence: Confidence,
    seed: u64,
    mut statistic: F,
) -> Result<PairedBootstrap, PairedError>
where
    F: FnMut(&[usize]) -> (f64, f64),
{
    let sizes: Vec<usize> = clusters.iter().map(Vec::len).collect();
    let mut items: Vec<usize> = Vec::with_capacity(sizes.iter().sum::<usize>() * 2);
    paired_bootstrap_by_cluster(&sizes, resamples, confidence, seed, |drawn| {
        items.clear();
        for &c in drawn {
            items.extend_from_slice(&clusters[c]);
        }
        statistic(&items)
    })
}

/// [`paired_bootstrap`] for a statistic computed from per-cluster summaries: `sizes[c]` is
/// cluster c's item count (0 leaves it out), and `statistic` receives the drawn cluster
/// indices (repeated as drawn; all non-empty clusters in order for the observed value). The
/// draws are the same, so a statistic that agrees with an item-level one gives the same bits,
/// at a cost per resample in clusters rather than items.
pub fn paired_bootstrap_by_cluster<F>(
    sizes: &[usize],
    resamples: u32,
    confidence: Confidence,
    seed: u64,
    mut statistic: F,
) -> Result<PairedBootstrap, PairedError>
where
    F: FnMut(&[usize]) -> (f64, f64),
{
    if !(1..=MAX_RESAMPLES).contains(&resamples) {
        return Err(PairedError::Resamples { found: resamples, max: MAX_RESAMPLES });
    }
    // Empty clusters are left out: drawing one would only shrink the resample.
    let clusters: Vec<usize> = (0..sizes.len()).filter(|&c| sizes[c] > 0).collect();
    let items: usize = sizes.iter().sum();
    if clusters.is_empty() {
        return Err(PairedError::NoItems);
    }
    let (value_a, value_b) = statistic(&clusters);
    let difference = value_a - value_b;
    if difference.is_nan() {
        return Err(PairedError::ObservedUndefined);
    }
    let g = clusters.len();
    let mut rng = rng::rng_for(seed, &[b"paired-bootstrap"]);
    let mut draw: Vec<usize> = Vec::with_capacity(g);
    let mut replicates: Vec<f64> = Vec::with_capacity(resamples as usize);
    for _ in 0..resamples {
        draw.clear();
        draw.extend((0..g).map(|_| clusters[rng.random_range(0..g)]));
        let (a, b) = statistic(&draw);
        let d = a - b;
        if !d.is_nan() {
            replicates.push(d);
        }
    }
    if replicates.is_empty() {
        return Err(PairedError::AllResamplesUndefined { resamples });
    }
    replicates.sort_by(f64::total_cmp);
    let c = confidence.get();
    let quantile = |q: f64| Percentile::Linear.of(&replicates, q).unwrap_or(f64::NAN);
    let interval = Interval { low: quantile((1.0 - c) / 2.0), high: quantile((1.0 + c) / 2.0) };
    Ok(PairedBootstrap {
        value_a,
        value_b,
        difference,
        confidence: c,
        interval,
        p_value: bootstrap_p_value(&replicates),
        resamples,
        undefined_resamples: resamples - replicates.len() as u32,
        clusters: g,
        items,
        seed,
        method: BOOTSTRAP_METHOD.into(),
    })
}

/// min(1, 2·min(1 + #{d ≤ 0}, 1 + #{d ≥ 0}) / (B + 1)) over the B replicates.
pub fn bootstrap_p_value(replicates: &[f64]) -> f64 {
    let below = replicates.iter().filter(|&&d| d <= 0.0).count();
    let above = replicates.iter().filter(|&&d| d >= 0.0).count();
    let b = replicates.len() as f64;
    (2.0 * (below.min(above) + 1) as f64 / (b + 1.0)).min(1.0)
}
