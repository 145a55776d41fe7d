//! Multiple-comparison corrections: adjusted p-values, returned in the input order.
//!
//! Let m be the number of p-values that are not NaN and p₍₁₎ ≤ … ≤ p₍ₘ₎ those values sorted.
//!
//! * Holm (1979), step-down, controls the family-wise error rate:
//!   p̃₍ᵢ₎ = min(1, max_{j ≤ i} (m − j + 1)·p₍ⱼ₎).
//! * Benjamini–Hochberg (1995), step-up, controls the false discovery rate:
//!   p̃₍ᵢ₎ = min(1, min_{j ≥ i} m/j·p₍ⱼ₎).
//!
//! These are the values of R's `p.adjust(p, "holm" | "BH")` and statsmodels'
//! `multipletests(p, method="holm" | "fdr_bh")`.
//!
//! **NaN**: a NaN p-value stays NaN in the output and is left out of the family, so m counts only
//! the others (as R's `p.adjust` does with `NA`). **Ties**: equal p-values always get equal adjusted
//! values (the running max / min makes the order among them irrelevant). The inputs are otherwise
//! taken as given; values outside [0, 1] are not checked.

use serde::{Deserialize, Serialize};

/// The non-NaN p-values' indices, sorted by value (stably, so ties keep input order).
fn ranked(p: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    idx
}

/// Holm's step-down adjusted p-values, in input order; monotone in p, capped at 1.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let mut out = p.to_vec();
    let idx = ranked(p);
    let m = idx.len();
    let mut running = 0.0f64;
    for (j, &i) in idx.iter().enumerate() {
        running = running.max((m - j) as f64 * p[i]).min(1.0);
        out[i] = running;
    }
    out
}

/// Benjamini–Hochberg step-up (FDR) adjusted p-values, in input order; monotone in p, capped at 1.
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let mut out = p.to_vec();
    let idx = ranked(p);
    let m = idx.len();
    let mut running = 1.0f64;
    for (j, &i) in idx.iter().enumerate().rev() {
        running = running.min(p[i] * m as f64 / (j + 1) as f64);
        out[i] = running;
    }
    out
}

/// A correction named in settings and reports: `"holm"`, `"bh"` or `"none"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    #[default]
    Holm,
    #[serde(rename = "bh")]
    BenjaminiHochberg,
    /// Raw p-values, reported as such.
    None,
}

impl Family {
    /// The name as settings spell it.
    pub fn name(self) -> &'static str {
        match self {
            Family::Holm => "holm",
            Family::BenjaminiHochberg => "bh",
            Family::None => "none",
        }
    }

    /// What the adjusted values control, for a report's prose.
    pub fn controls(self) -> &'static str {
        match self {
            Family::Holm => "the family-wise error rate (Holm 1979)",
            Family::BenjaminiHochberg => "the false discovery rate (Benjamini and Hochberg 1995)",
            Family::None => "nothing: p-values are not adjusted",
        }
    }
}

/// The family's adjusted p-values, in input order (a copy of `p` for [`Family::None`]).
pub fn adjust(family: Family, p: &[f64]) -> Vec<f64> {
    match family {
        Family::Holm => holm(p),
        Family::BenjaminiHochberg => benjamini_hochberg(p),
        Family::None => p.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!((g.is_nan() && w.is_nan()) || (g - w).abs() < 1e-15, "{got:?} != {want:?}");
        }
    }

    #[test]
    fn known_values() {
        // Sorted: 0.005, 0.01, 0.03, 0.04 (m = 4).
        // Holm: 4·0.005 = 0.02, 3·0.01 = 0.03, 2·0.03 = 0.06, max(0.06, 1·0.04) = 0.06.
        // BH: 0.005·4/1 = 0.02, 0.01·4/2 = 0.02, 0.03·4/3 = 0.04, 0.04·4/4 = 0.04 (running min from the top).
        let p = [0.01, 0.04, 0.03, 0.005];
        assert_close(&holm(&p), &[0.03, 0.06, 0.06, 0.02]);
        assert_close(&benjamini_hochberg(&p), &[0.02, 0.04, 0.04, 0.02]);
        // R: p.adjust(c(0.2, 0.5, 0.9), "holm") = 0.6 1.0 1.0; "BH" = 0.6 0.75 0.9.
        assert_close(&holm(&[0.2, 0.5, 0.9]), &[0.6, 1.0, 1.0]);
        assert_close(&benjamini_hochberg(&[0.2, 0.5, 0.9]), &[0.6, 0.75, 0.9]);
        assert!(holm(&[]).is_empty() && benjamini_hochberg(&[]).is_empty());
        assert_close(&holm(&[0.3]), &[0.3]);
    }

    #[test]
    fn ties_get_equal_values() {
        let p = [0.02, 0.01, 0.02, 0.02];
        let h = holm(&p);
        assert_close(&h, &[0.06, 0.04, 0.06, 0.06]);
        let b = benjamini_hochberg(&p);
        assert_close(&b, &[0.02, 0.02, 0.02, 0.02]);
    }

    #[test]
    fn nan_stays_nan_and_is_not_counted() {
        let p = [0.01, f64::NAN, 0.04, 0.03, 0.005];
        let h = holm(&p);
        assert!(h[1].is_nan());
        assert_close(&h, &[0.03, f64::NAN, 0.06, 0.06, 0.02]);
        assert_close(&benjamini_hochberg(&p), &[0.02, f64::NAN, 0.04, 0.04, 0.02]);
        assert!(holm(&[f64::NAN])[0].is_nan());
    }

    #[test]
    fn monotone_order_preserving_and_bounded() {
        // A deterministic pseudo-random family, including values that adjust past 1.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let p: Vec<f64> = (0..200)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect();
        for adj in [holm(&p), benjamini_hochberg(&p)] {
            for i in 0..p.len() {
                assert!(adj[i] >= p[i] && adj[i] <= 1.0, "{} -> {}", p[i], adj[i]);
                for j in 0..p.len() {
                    if p[i] <= p[j] {
                        assert!(adj[i] <= adj[j], "not monotone at {i}, {j}");
                    }
                }
            }
        }
        // BH is never more conservative than Holm.
        let (h, b) = (holm(&p), benjamini_hochberg(&p));
        assert!(h.iter().zip(&b).all(|(h, b)| b <= h));
    }

    #[test]
    fn families_by_name() {
        let p = [0.01, 0.04, 0.03, 0.005];
        assert_eq!(adjust(Family::Holm, &p), holm(&p));
        assert_eq!(adjust(Family::BenjaminiHochberg, &p), benjamini_hochberg(&p));
        assert_eq!(adjust(Family::None, &p), p.to_vec());
        for f in [Family::Holm, Family::BenjaminiHochberg, Family::None] {
            let json = serde_json::to_string(&f).unwrap();
            assert_eq!(json, format!("\"{}\"", f.name()));
            assert_eq!(serde_json::from_str::<Family>(&json).unwrap(), f);
        }
        assert!(serde_json::from_str::<Family>("\"bonferroni\"").is_err());
        assert_eq!(Family::default(), Family::Holm);
    }
}
