//! McNemar's test for paired binary outcomes, in the variants people actually report.
//!
//! The table is `[[n00, n01], [n10, n11]]` (rows: outcome under condition A, columns: under
//! condition B); only the discordant cells b = n01 and c = n10 carry information. Under the null
//! hypothesis of marginal homogeneity, b | b + c ~ Binomial(b + c, ½).
//!
//! * [`Method::Exact`]: statistic m = min(b, c), p = min(1, 2·P(X ≤ m)), X ~ Bin(b + c, ½):
//!   statsmodels' default (`mcnemar(table, exact=True)`), the same p as R's `binom.test(b, b + c)`.
//! * [`Method::MidP`]: statistic m, p = min(1, 2·P(X ≤ m) − P(X = m)) = min(1, 2·[P(X < m) + ½·P(X = m)])
//!   (Lancaster's mid-p; less conservative than the exact test, recommended by Fagerland et al. 2013).
//! * [`Method::Chi2`]: x = (b − c)² / (b + c), p = P(χ²₁ ≥ x) = erfc(√(x/2)).
//! * [`Method::Chi2Cc`]: Edwards' continuity correction x = (|b − c| − 1)² / (b + c). When b = c,
//!   statsmodels still subtracts 1 (x = 1/(b + c)) while R's `mcnemar.test` leaves the correction
//!   out (x = 0, p = 1); [`Convention`] picks which, and the result's `note` says which applied.
//!
//! All maths is on `libm` so that native and wasm builds give the same bits.

use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    Exact,
    MidP,
    Chi2,
    Chi2Cc,
}

/// Whose continuity correction to follow; only matters for [`Method::Chi2Cc`] when b = c.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Convention {
    /// statsmodels: always subtract 1 from |b − c|.
    Statsmodels,
    /// R `mcnemar.test(correct = TRUE)`: no correction when b = c.
    R,
}

/// The largest cell count accepted: 2^53, the last integer an f64 holds exactly. Every formula
/// here turns counts into f64, and the exact test's tail sum grows with √(b + c), so larger
/// counts would be silently rounded (or take minutes); they are refused instead.
pub const MAX_COUNT: u64 = 1 << 53;

/// A cell of a table that is above [`MAX_COUNT`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{cell} = {value} is above 2^53 = {max}, the largest count McNemar's test takes (counts must be exact as 64-bit floats)", max = MAX_COUNT)]
pub struct CountTooLarge {
    pub cell: &'static str,
    pub value: u64,
}

/// A paired 2×2 table `[[n00, n01], [n10, n11]]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    pub n00: u64,
    pub n01: u64,
    pub n10: u64,
    pub n11: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McNemar {
    pub method: Method,
    pub convention: Convention,
    /// Discordant counts: b = n01, c = n10.
    pub b: u64,
    pub c: u64,
    /// min(b, c) for the exact and mid-p tests, the χ² value otherwise; `None` when undefined.
    pub statistic: Option<f64>,
    pub p_value: f64,
    /// b / c with a 95% Wald interval on the log scale; `None` when b or c is 0.
    pub odds_ratio: Option<f64>,
    pub odds_ratio_low: Option<f64>,
    pub odds_ratio_high: Option<f64>,
    /// What was computed and any edge case met, in words.
    pub note: String,
}

impl Table {
    /// The table, or the first cell above [`MAX_COUNT`].
    pub fn new(n00: u64, n01: u64, n10: u64, n11: u64) -> Result<Table, CountTooLarge> {
        for (cell, value) in [("N00", n00), ("N01", n01), ("N10", n10), ("N11", n11)] {
            if value > MAX_COUNT {
                return Err(CountTooLarge { cell, value });
            }
        }
        Ok(Table { n00, n01, n10, n11 })
    }
}

/// McNemar's test on `t` with the given variant. Never fails: every edge case (no discordant
/// pairs, a zero cell) gives a defined p-value and is explained in `note`.
pub fn mcnemar(t: &Table, method: Method, convention: Convention) -> McNemar {
    let (b, c) = (t.n01, t.n10);
    // b + c in 128 bits: two u64 counts can overflow a u64 sum (a wrapped sum once read
    // 2^64 − 1 + 1 as "no discordant pairs").
    let wide = u128::from(b) + u128::from(c);
    let n = u64::try_from(wide).unwrap_or(u64::MAX);
    let m = b.min(c);
    let mut notes: Vec<String> = vec![];
    let (statistic, p_value) = match method {
        Method::Exact | Method::MidP => {
            let tail = BinomialHalfTail::new(m, n);
            let p = if method == Method::Exact {
                notes.push("exact: p = min(1, 2·P(X ≤ min(b,c))), X ~ Bin(b+c, 1/2) (statsmodels exact=True)".into());
                tail.two_sided()
            } else {
                notes.push("mid-p: p = min(1, 2·P(X ≤ min(b,c)) − P(X = min(b,c))), X ~ Bin(b+c, 1/2)".into());
                tail.mid_p()
            };
            if wide == 0 {
                notes.push("no discordant pairs (b + c = 0): p = 1".into());
            }
            (Some(m as f64), p)
        }
        Method::Chi2 | Method::Chi2Cc if wide == 0 => {
            notes.push("no discordant pairs (b + c = 0): the chi-squared statistic is undefined (0/0); p = 1".into());
            (None, 1.0)
        }
        Method::Chi2 => {
            notes.push("chi2: (b − c)²/(b + c), 1 df, no continuity correction".into());
            let d = b.abs_diff(c) as f64;
            let x = d * d / wide as f64;
            (Some(x), chi2_1_sf(x))
        }
        Method::Chi2Cc => {
            let skip = b == c && convention == Convention::R;
            let d = if skip { 0.0 } else { b.abs_diff(c) as f64 - 1.0 };
            notes.push("chi2-cc: (|b − c| − 1)²/(b + c), 1 df, Edwards' continuity correction".into());
            if b == c {
                notes.push(match convention {
                    Convention::Statsmodels => {
                        "b = c: correction applied anyway as statsmodels does, statistic = 1/(b + c)".into()
                    }
                    Convention::R => "b = c: correction skipped as R mcnemar.test does, statistic = 0, p = 1".into(),
                });
            }
            let x = d * d / wide as f64;
            (Some(x), chi2_1_sf(x))
        }
    };
    let (odds_ratio, odds_ratio_low, odds_ratio_high) = if b == 0 || c == 0 {
        notes.push("odds ratio b/c not given: b or c is 0".into());
        (None, None, None)
    } else {
        let (bf, cf) = (b as f64, c as f64);
        let z = super::normal::quantile(0.975);
        let log_or = libm::log(bf / cf);
        let se = libm::sqrt(1.0 / bf + 1.0 / cf);
        (Some(bf / cf), Some(libm::exp(log_or - z * se)), Some(libm::exp(log_or + z * se)))
    };
    McNemar {
        method,
        convention,
        b,
        c,
        statistic,
        p_value,
        odds_ratio,
        odds_ratio_low,
        odds_ratio_high,
        note: notes.join("; "),
    }
}

/// P(χ²₁ ≥ x) = P(|Z| ≥ √x) = erfc(√(x/2)).
fn chi2_1_sf(x: f64) -> f64 {
    libm::erfc(libm::sqrt(x / 2.0))
}

/// The lower tail of X ~ Bin(n, ½) at m ≤ n/2, kept as P(X = m) · S with
/// S = Σ_{k=0}^{m} P(X = k)/P(X = m), so that P(X ≤ m) = pmf·S and P(X < m) = pmf·(S − 1)
/// need no subtraction of nearly equal numbers.
///
/// * P(X = m) is Loader's saddle-point form (as in R's `dbinom`, Loader 2000):
///   P(X = m) = √(n / (2π m (n−m))) · exp(δ(n) − δ(m) − δ(n−m) − D(m, n/2) − D(n−m, n/2)),
///   with δ the Stirling error ln k! − (k + ½) ln k + k − ½ ln 2π and D(x, μ) = x ln(x/μ) + μ − x
///   the deviance (computed by a series when x ≈ μ). This keeps full relative precision for
///   large n, where ln C(n, m) from lgamma differences would lose digits to cancellation.
/// * S is summed downwards with the ratio P(X = k−1)/P(X = k) = k / (n − k + 1) ≤ 1, stopping
///   once a term no longer changes the sum (so large tables cost far fewer than m steps).
struct BinomialHalfTail {
    pmf: f64,
    sum: f64,
}

impl BinomialHalfTail {
    fn new(m: u64, n: u64) -> BinomialHalfTail {
        debug_assert!(2 * m <= n);
        let pmf = binom_half_pmf(m, n);
        let (mut sum, mut term) = (1.0f64, 1.0f64);
        let mut k = m;
        while k > 0 {
            term *= k as f64 / (n - k + 1) as f64;
            let next = sum + term;
            if next == sum {
                break;
            }
            sum = next;
            k -= 1;
        }
        BinomialHalfTail { pmf, sum }
    }

    /// min(1, 2·P(X ≤ m)).
    fn two_sided(&self) -> f64 {
        (2.0 * self.pmf * self.sum).min(1.0)
    }

    /// min(1, 2·P(X < m) + P(X = m)) = min(1, pmf·(2S − 1)).
    fn mid_p(&self) -> f64 {
        (self.pmf * (2.0 * self.sum - 1.0)).min(1.0)
    }
}

/// P(X = k) for X ~ Bin(n, ½); see [`BinomialHalfTail`].
fn binom_half_pmf(k: u64, n: u64) -> f64 {
    if n == 0 {
        return 1.0;
    }
    if k == 0 || k == n {
        // ½ⁿ exactly (0 once it underflows).
        return libm::ldexp(1.0, -(n.min(2000) as i32));
    }
    let (nf, kf) = (n as f64, k as f64);
    let mu = nf / 2.0;
    let lc = stirling_error(n) - stirling_error(k) - stirling_error(n - k) - deviance(kf, mu) - deviance(nf - kf, mu);
    libm::sqrt(nf / (2.0 * PI * kf * (nf - kf))) * libm::exp(lc)
}

/// δ(k) = ln k! − (k + ½) ln k + k − ½ ln 2π: directly from lgamma for k ≤ 15 (where the
/// values are small and lgamma is accurate), by the Stirling series above.
fn stirling_error(k: u64) -> f64 {
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    let x = k as f64;
    if k <= 15 {
        let half_ln_2pi = 0.5 * libm::log(2.0 * PI);
        return libm::lgamma_r(x + 1.0).0 - (x + 0.5) * libm::log(x) + x - half_ln_2pi;
    }
    let xx = x * x;
    if k > 500 {
        (S0 - S1 / xx) / x
    } else if k > 80 {
        (S0 - (S1 - S2 / xx) / xx) / x
    } else if k > 35 {
        (S0 - (S1 - (S2 - S3 / xx) / xx) / xx) / x
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / xx) / xx) / xx) / xx) / x
    }
}

/// D(x, μ) = x ln(x/μ) + μ − x, by the series 2x Σ v^(2j+1)/(2j+1) − (x − μ)v with
/// v = (x − μ)/(x + μ) when x is close to μ (where the direct form cancels).
fn deviance(x: f64, mu: f64) -> f64 {
    if (x - mu).abs() < 0.1 * (x + mu) {
        let mut v = (x - mu) / (x + mu);
        let mut s = (x - mu) * v;
        let mut ej = 2.0 * x * v;
        v *= v;
        for j in 1..1000 {
            ej *= v;
            let s1 = s + ej / (2 * j + 1) as f64;
            if s1 == s {
                return s1;
            }
            s = s1;
        }
        s
    } else {
        x * libm::log(x / mu) + mu - x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(b: u64, c: u64) -> Table {
        Table { n00: 7, n01: b, n10: c, n11: 3 }
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn exact_and_mid_p_on_hand_cases() {
        // b = 1, c = 4: n = 5, P(X ≤ 1) = (1 + 5)/32, exact p = 12/32, mid-p = 12/32 − 5/32 = 7/32.
        let r = mcnemar(&table(1, 4), Method::Exact, Convention::Statsmodels);
        assert_eq!(r.statistic, Some(1.0));
        assert!(close(r.p_value, 12.0 / 32.0, 1e-14), "{r:?}");
        let r = mcnemar(&table(4, 1), Method::MidP, Convention::Statsmodels);
        assert!(close(r.p_value, 7.0 / 32.0, 1e-14), "{r:?}");
        // b = 0, c = 7: exact p = 2/128, mid-p = 1/128.
        assert!(close(mcnemar(&table(0, 7), Method::Exact, Convention::R).p_value, 2.0 / 128.0, 1e-14));
        assert!(close(mcnemar(&table(0, 7), Method::MidP, Convention::R).p_value, 1.0 / 128.0, 1e-14));
        // b = c: exact and mid-p are both capped at 1.
        assert_eq!(mcnemar(&table(6, 6), Method::Exact, Convention::R).p_value, 1.0);
        assert_eq!(mcnemar(&table(6, 6), Method::MidP, Convention::R).p_value, 1.0);
        // b = 3, c = 17, n = 20: P(X ≤ 3) = (1 + 20 + 190 + 1140)/2^20.
        let r = mcnemar(&table(3, 17), Method::Exact, Convention::R);
        assert!(close(r.p_value, 2.0 * 1351.0 / 1048576.0, 1e-14), "{r:?}");
    }

    #[test]
    fn chi2_on_hand_cases() {
        // b = 5, c = 15: (10)²/20 = 5, corrected 9²/20 = 4.05.
        let r = mcnemar(&table(5, 15), Method::Chi2, Convention::Statsmodels);
        assert_eq!(r.statistic, Some(5.0));
        assert!(close(r.p_value, libm::erfc(libm::sqrt(2.5)), 1e-15));
        let r = mcnemar(&table(5, 15), Method::Chi2Cc, Convention::R);
        assert_eq!(r.statistic, Some(4.05));
        // χ²₁ at 3.841458820694124 is the 95% point.
        assert!(close(chi2_1_sf(3.841458820694124), 0.05, 1e-12));
        assert_eq!(chi2_1_sf(0.0), 1.0);
    }

    #[test]
    fn no_discordant_pairs() {
        for method in [Method::Chi2, Method::Chi2Cc] {
            let r = mcnemar(&table(0, 0), method, Convention::Statsmodels);
            assert_eq!(r.statistic, None);
            assert_eq!(r.p_value, 1.0);
            assert!(r.note.contains("undefined"), "{}", r.note);
        }
        for method in [Method::Exact, Method::MidP] {
            let r = mcnemar(&table(0, 0), method, Convention::Statsmodels);
            assert_eq!((r.statistic, r.p_value), (Some(0.0), 1.0));
        }
        assert_eq!(mcnemar(&table(0, 0), Method::Exact, Convention::R).odds_ratio, None);
    }

    #[test]
    fn equal_discordant_counts_follow_the_convention() {
        let sm = mcnemar(&table(12, 12), Method::Chi2Cc, Convention::Statsmodels);
        assert_eq!(sm.statistic, Some(1.0 / 24.0));
        assert!(close(sm.p_value, libm::erfc(libm::sqrt(1.0 / 48.0)), 1e-15));
        assert!(sm.note.contains("statsmodels"), "{}", sm.note);
        let r = mcnemar(&table(12, 12), Method::Chi2Cc, Convention::R);
        assert_eq!((r.statistic, r.p_value), (Some(0.0), 1.0));
        assert!(r.note.contains("R mcnemar.test"), "{}", r.note);
        // Unequal counts: both conventions agree.
        let (a, b) = (
            mcnemar(&table(12, 13), Method::Chi2Cc, Convention::Statsmodels),
            mcnemar(&table(12, 13), Method::Chi2Cc, Convention::R),
        );
        assert_eq!((a.statistic, a.p_value), (b.statistic, b.p_value));
        assert_eq!(a.statistic, Some(0.0));
    }

    #[test]
    fn odds_ratio_and_wald_interval() {
        let r = mcnemar(&table(10, 20), Method::Exact, Convention::R);
        assert_eq!(r.odds_ratio, Some(0.5));
        let se = libm::sqrt(0.1 + 0.05);
        let z = 1.959963984540054;
        assert!(close(r.odds_ratio_low.unwrap(), 0.5 * libm::exp(-z * se), 1e-12));
        assert!(close(r.odds_ratio_high.unwrap(), 0.5 * libm::exp(z * se), 1e-12));
        let r = mcnemar(&table(0, 9), Method::Chi2, Convention::R);
        assert_eq!((r.odds_ratio, r.odds_ratio_low, r.odds_ratio_high), (None, None, None));
        assert!(r.note.contains("odds ratio"));
    }

    #[test]
    fn discordant_counts_near_u64_max_do_not_wrap() {
        // Regression: b + c wrapped to 0 ("no discordant pairs", p = 1) and b = c = 2^64 − 1
        // gave chi2-cc 5.42e-20 instead of 1/(b + c) = 2.71e-20.
        let r = mcnemar(&table(0, u64::MAX), Method::Chi2, Convention::Statsmodels);
        assert!(!r.note.contains("no discordant"), "{}", r.note);
        assert!(r.statistic.unwrap() > 1e19 && r.p_value == 0.0, "{r:?}");
        let r = mcnemar(&table(u64::MAX, u64::MAX), Method::Chi2Cc, Convention::Statsmodels);
        assert!(close(r.statistic.unwrap(), 1.0 / (2.0 * u64::MAX as f64), 1e-12), "{r:?}");
    }

    #[test]
    fn tables_refuse_counts_above_2_to_the_53() {
        assert!(Table::new(0, MAX_COUNT, MAX_COUNT, 0).is_ok());
        let e = Table::new(0, u64::MAX, 1, 0).unwrap_err();
        assert_eq!((e.cell, e.value), ("N01", u64::MAX));
        assert!(e.to_string().contains("N01 = 18446744073709551615 is above 2^53"), "{e}");
    }

    #[test]
    fn large_tables_stay_finite_and_ordered() {
        // n = 10^6 near the centre and in the far tail.
        for (b, c) in [(500_000, 500_000), (499_000, 501_000), (499_999, 500_001), (10, 999_990), (0, 1_000_000)] {
            let e = mcnemar(&table(b, c), Method::Exact, Convention::R).p_value;
            let m = mcnemar(&table(b, c), Method::MidP, Convention::R).p_value;
            assert!((0.0..=1.0).contains(&e) && (0.0..=1.0).contains(&m) && m <= e, "{b} {c}: {e} {m}");
        }
        // Near the centre the exact p approaches the chi-squared one: b − c = −2000, n = 10^6,
        // z = 2 → p ≈ 0.0455; the continuity-corrected chi² is within 1e-4 of the exact p.
        let e = mcnemar(&table(499_000, 501_000), Method::Exact, Convention::R).p_value;
        let cc = mcnemar(&table(499_000, 501_000), Method::Chi2Cc, Convention::R).p_value;
        assert!((e - cc).abs() < 1e-4, "{e} {cc}");
        // pmf at the centre of Bin(10^6, ½) ≈ √(2/(π n)).
        assert!(close(binom_half_pmf(500_000, 1_000_000), libm::sqrt(2.0 / (PI * 1e6)), 1e-6));
    }
}
