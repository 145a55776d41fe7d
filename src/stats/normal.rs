//! The standard normal distribution, on libm so that every target computes the same bits
//! (std's `ln`/`exp` call the platform's libm natively but a Rust port on wasm, and those
//! may differ in the last place).

use std::f64::consts::{FRAC_1_SQRT_2, PI};

/// Φ(x), the cumulative distribution function.
pub fn cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x * FRAC_1_SQRT_2)
}

/// The density φ(x).
pub fn pdf(x: f64) -> f64 {
    libm::exp(-0.5 * x * x) / libm::sqrt(2.0 * PI)
}

/// The two-sided p-value of a z statistic.
pub fn two_sided_p(z: f64) -> f64 {
    libm::erfc(z.abs() * FRAC_1_SQRT_2)
}

/// Φ⁻¹(p) for p in (0, 1): a rational start (Abramowitz & Stegun 26.2.23, error below
/// 4.5e-4) polished by Newton steps on `cdf`, which converge to full double precision.
pub fn quantile(p: f64) -> f64 {
    debug_assert!(p > 0.0 && p < 1.0);
    let q = if p < 0.5 { p } else { 1.0 - p };
    let t = libm::sqrt(-2.0 * libm::log(q));
    let start = t
        - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
    let mut x = if p < 0.5 { -start } else { start };
    for _ in 0..4 {
        let step = (cdf(x) - p) / pdf(x);
        x -= step;
        if step.abs() < 1e-15 * x.abs().max(1.0) {
            break;
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_match_published_values() {
        // Reference values: R's qnorm, to 15 significant digits.
        for (p, z) in [
            (0.975, 1.959963984540054),
            (0.995, 2.575829303548901),
            (0.95, 1.644853626951472),
            (0.5, 0.0),
            (0.001, -3.090232306167814),
        ] {
            assert!((quantile(p) - z).abs() < 1e-12, "quantile({p}) = {} not {z}", quantile(p));
        }
        assert!((cdf(1.959963984540054) - 0.975).abs() < 1e-15);
        assert!((two_sided_p(1.959963984540054) - 0.05).abs() < 1e-14);
    }
}
