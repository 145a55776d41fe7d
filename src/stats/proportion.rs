//! A proportion with its interval. Wilson's score interval is the default because it stays
//! inside [0, 1] and keeps its coverage for small n and rates near 0 or 1, where the Wald
//! interval fails. [`Method`] offers two others a study may name: Clopper-Pearson (the "exact"
//! interval from beta quantiles, conservative: coverage at least the level) and Agresti-Coull
//! (Wald's on the counts plus z²/2 successes and z²/2 failures). Their formulas follow
//! statsmodels' `proportion_confint` (methods "wilson", "beta", "agresti_coull"), including its
//! clipping of Agresti-Coull to [0, 1]; tests/fixtures/proportion_confint.json holds its values.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Proportion {
    pub successes: u64,
    pub n: u64,
    pub rate: f64,
    pub low: f64,
    pub high: f64,
    pub confidence: f64,
}

/// Wilson score intervals at one confidence level (z is computed once, not per interval).
#[derive(Debug, Clone, Copy)]
pub struct Wilson {
    confidence: f64,
    z: f64,
}

impl Wilson {
    pub fn new(confidence: f64) -> Wilson {
        Wilson { confidence, z: super::normal::quantile(0.5 + confidence / 2.0) }
    }

    /// Centre (p + z²/2n) / (1 + z²/n), half-width z / (1 + z²/n) · sqrt(p(1−p)/n + z²/4n²).
    /// `None` when n = 0 or successes > n.
    pub fn interval(&self, successes: u64, n: u64) -> Option<Proportion> {
        if n == 0 || successes > n {
            return None;
        }
        let nf = n as f64;
        let p = successes as f64 / nf;
        let (low, high) = self.bounds(p, nf);
        Some(Proportion { successes, n, rate: p, low, high, confidence: self.confidence })
    }

    /// The Wilson bounds for rate `p` observed on `n` items, where n need not be a whole number
    /// (an effective sample size, see [`super::cluster`]). As n goes to 0 the bounds go to 0
    /// and 1. `p` in [0, 1] and n > 0 are the caller's to ensure.
    pub fn bounds(&self, p: f64, n: f64) -> (f64, f64) {
        let z = self.z;
        let z2 = z * z;
        let denom = 1.0 + z2 / n;
        let centre = (p + z2 / (2.0 * n)) / denom;
        let half = z / denom * libm::sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n));
        // At 0 and n the bounds are exactly 0 and 1; rounding would leave 1e-16 off.
        let low = if p == 0.0 { 0.0 } else { (centre - half).max(0.0) };
        let high = if p == 1.0 { 1.0 } else { (centre + half).min(1.0) };
        (low, high)
    }
}

/// A binomial interval method.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    #[default]
    Wilson,
    ClopperPearson,
    AgrestiCoull,
}

impl Method {
    pub const ALL: [Method; 3] = [Method::Wilson, Method::ClopperPearson, Method::AgrestiCoull];

    /// As reports and the study format name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Wilson => "wilson",
            Method::ClopperPearson => "clopper_pearson",
            Method::AgrestiCoull => "agresti_coull",
        }
    }

    /// The name prose uses ("Wilson", "Clopper-Pearson", "Agresti-Coull").
    pub fn title(self) -> &'static str {
        match self {
            Method::Wilson => "Wilson",
            Method::ClopperPearson => "Clopper-Pearson",
            Method::AgrestiCoull => "Agresti-Coull",
        }
    }

    /// The bounds for rate `p` on `n` items at `confidence`; n may be fractional (an effective
    /// sample size): Clopper-Pearson then takes x = p·n successes in its beta parameters.
    /// `p` in [0, 1] and n > 0 are the caller's to ensure.
    pub fn bounds(self, p: f64, n: f64, confidence: f64) -> (f64, f64) {
        match self {
            Method::Wilson => Wilson::new(confidence).bounds(p, n),
            Method::ClopperPearson => {
                let half = (1.0 - confidence) / 2.0;
                let x = p * n;
                // At 0 (or n) successes the beta quantile's parameter is 0: the bound is the
                // end of [0, 1], as statsmodels sets it.
                let low = if p <= 0.0 { 0.0 } else { beta_quantile(half, x, n - x + 1.0) };
                let high = if p >= 1.0 { 1.0 } else { beta_quantile(1.0 - half, x + 1.0, n - x) };
                (low, high)
            }
            Method::AgrestiCoull => {
                let z = super::normal::quantile(0.5 + confidence / 2.0);
                let z2 = z * z;
                let n_c = n + z2;
                let q = (p * n + z2 / 2.0) / n_c;
                let half = z * libm::sqrt(q * (1.0 - q) / n_c);
                ((q - half).clamp(0.0, 1.0), (q + half).clamp(0.0, 1.0))
            }
        }
    }

    /// The interval of `successes` among `n`; `None` when n = 0 or successes > n.
    pub fn interval(self, successes: u64, n: u64, confidence: f64) -> Option<Proportion> {
        if n == 0 || successes > n {
            return None;
        }
        let p = successes as f64 / n as f64;
        let (low, high) = self.bounds(p, n as f64, confidence);
        Some(Proportion { successes, n, rate: p, low, high, confidence })
    }
}

/// The `q` quantile of Beta(a, b), by bisection on the regularised incomplete beta function
/// (monotone in x), to the last representable step.
fn beta_quantile(q: f64, a: f64, b: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if super::fdist::beta_inc(a, b, mid) < q {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// One Wilson interval; for many at the same level, build a [`Wilson`] once.
pub fn wilson(successes: u64, n: u64, confidence: f64) -> Option<Proportion> {
    Wilson::new(confidence).interval(successes, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_reference_values() {
        // statsmodels proportion_confint(81, 263, method="wilson") = (0.2553, 0.3662)
        let p = wilson(81, 263, 0.95).unwrap();
        assert!((p.low - 0.255_3).abs() < 1e-4 && (p.high - 0.366_2).abs() < 1e-4, "{p:?}");
        // All successes: the upper bound is 1, the lower is n / (n + z²).
        let all = wilson(10, 10, 0.95).unwrap();
        assert_eq!(all.high, 1.0);
        assert!((all.low - 10.0 / (10.0 + 1.959963984540054f64.powi(2))).abs() < 1e-12);
        assert!(wilson(0, 0, 0.95).is_none());
        assert!(wilson(3, 2, 0.95).is_none());
    }
}
