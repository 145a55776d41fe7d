//! The Student-t interval of a mean: mean ± t_{n−1, (1+c)/2} · s / √n, with s the sample
//! standard deviation (n − 1 in the denominator). It assumes roughly normal values or enough
//! of them; it is the textbook interval of R's `t.test` and `scipy.stats.t.interval`.

use super::fdist::beta_inc;

/// A mean with its interval; the bounds are NaN below two values (no spread to estimate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanInterval {
    pub n: usize,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

/// The mean of `xs` (0 when there are none) with its two-sided Student-t interval at
/// `confidence`.
pub fn mean_interval(xs: &[f64], confidence: f64) -> MeanInterval {
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n.max(1) as f64;
    let (low, high) = if n >= 2 {
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let t = quantile(0.5 + confidence / 2.0, (n - 1) as f64);
        let half = t * (var / n as f64).sqrt();
        (mean - half, mean + half)
    } else {
        (f64::NAN, f64::NAN)
    };
    MeanInterval { n, mean, low, high }
}

/// P(T ≥ t) for Student's t with `df` degrees of freedom, through the incomplete beta function
/// on libm (statrs, used before, computes with std's `ln`/`exp`, which natively call the
/// platform's libm and so cannot promise the wasm build's bits).
pub fn sf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t < 0.0 {
        return 1.0 - sf(-t, df);
    }
    if t.is_infinite() {
        return 0.0;
    }
    let t2 = t * t;
    // P(|T| ≥ t) = I_x(df/2, 1/2) with x = df / (df + t²). Near t = 0, x is close to 1, so the
    // complement I_{1−x}(1/2, df/2) is taken with 1 − x = t² / (df + t²) formed directly.
    if t2 < df {
        0.5 - 0.5 * beta_inc(0.5, df / 2.0, t2 / (df + t2))
    } else {
        0.5 * beta_inc(df / 2.0, 0.5, df / (df + t2))
    }
}

/// The density of Student's t with `df` degrees of freedom.
pub fn pdf(t: f64, df: f64) -> f64 {
    let ln_norm = libm::lgamma((df + 1.0) / 2.0) - libm::lgamma(df / 2.0) - 0.5 * libm::log(df * std::f64::consts::PI);
    libm::exp(ln_norm - (df + 1.0) / 2.0 * libm::log1p(t * t / df))
}

/// The quantile t with P(T ≤ t) = p, for p in (0, 1) and df > 0 (NaN otherwise): Newton steps
/// on [`sf`] kept inside a bracket that bisection shrinks whenever a step would leave it, so
/// the heavy tails of small df cannot throw the iteration off.
pub fn quantile(p: f64, df: f64) -> f64 {
    if !(p > 0.0 && p < 1.0) || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if p == 0.5 {
        return 0.0;
    }
    // Solve on the upper half: P(T ≥ t) = q with q < 1/2, then mirror.
    let q = if p < 0.5 { p } else { 1.0 - p };
    let mut low = 0.0;
    let mut high = 1.0;
    while sf(high, df) > q {
        low = high;
        high *= 2.0;
        if high.is_infinite() {
            return if p < 0.5 { f64::NEG_INFINITY } else { f64::INFINITY };
        }
    }
    let mut t = super::normal::quantile(1.0 - q).clamp(low, high);
    for _ in 0..200 {
        let excess = sf(t, df) - q;
        if excess == 0.0 {
            break;
        }
        if excess > 0.0 {
            low = t;
        } else {
            high = t;
        }
        let newton = t + excess / pdf(t, df);
        let next = if newton > low && newton < high { newton } else { low + (high - low) / 2.0 };
        if (next - t).abs() <= 1e-15 * t.abs() {
            t = next;
            break;
        }
        t = next;
    }
    if p < 0.5 { -t } else { t }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_match_published_values() {
        // R's qt; for 1000 df the expansion of t in powers of 1/df around z, to 1e-11.
        for (p, df, t) in [
            (0.975, 1.0, 12.706_204_736_174_7),
            (0.975, 4.0, 2.776_445_105_197_8),
            (0.995, 10.0, 3.169_272_672_616_95),
            (0.9, 30.0, 1.310_415_025_017_19),
            (0.975, 1000.0, 1.962_339_080_8),
            (0.025, 4.0, -2.776_445_105_197_8),
        ] {
            let got = quantile(p, df);
            assert!((got - t).abs() < 1e-9 * t.abs(), "qt({p}, {df}) = {got} not {t}");
        }
        assert_eq!(quantile(0.5, 3.0), 0.0);
        assert!(quantile(0.0, 3.0).is_nan() && quantile(0.9, 0.0).is_nan());
        // Two df have a closed form: t = (2p − 1) / √(2p(1 − p)).
        for p in [0.6, 0.975, 0.999_999, 1e-9] {
            let exact = (2.0 * p - 1.0) / libm::sqrt(2.0 * p * (1.0 - p));
            assert!((quantile(p, 2.0) - exact).abs() < 1e-12 * exact.abs(), "{p}");
        }
        // One df is the Cauchy: P(T ≥ t) = 1/2 − atan(t)/π.
        for t in [0.2, 1.0, 7.0, 300.0] {
            assert!((sf(t, 1.0) - (0.5 - libm::atan(t) / std::f64::consts::PI)).abs() < 1e-14, "{t}");
        }
    }

    #[test]
    fn matches_the_textbook_interval() {
        // scipy.stats.t.interval(0.95, 4, loc=3, scale=sqrt(2.5)/sqrt(5)) = (1.0367, 4.9633)
        let m = mean_interval(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95);
        assert_eq!((m.n, m.mean), (5, 3.0));
        assert!((m.low - 1.036_756_838_522_439).abs() < 1e-9, "{m:?}");
        assert!((m.high - 4.963_243_161_477_561).abs() < 1e-9, "{m:?}");
        let narrow = mean_interval(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.5);
        assert!(narrow.low > m.low && narrow.high < m.high);
    }

    #[test]
    fn one_value_has_no_interval() {
        let m = mean_interval(&[7.0], 0.95);
        assert_eq!((m.n, m.mean), (1, 7.0));
        assert!(m.low.is_nan() && m.high.is_nan());
        assert_eq!(mean_interval(&[], 0.95).mean, 0.0);
    }
}
