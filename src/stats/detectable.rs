//! The power note of a comparison: with n items per model, the smallest difference from a base
//! rate that a two-sided two-proportion z-test at level α detects with 80 % power.
//!
//! The difference is searched from the base rate towards ½, the harder direction (the
//! binomial variance grows towards ½), so the note errs on the cautious side. Power at a
//! candidate difference comes from:
//! - n ≤ [`SIMULATION_LIMIT`]: [`super::power::power`], the seeded simulation the Design tab
//!   uses ([`POWER_REPETITIONS`] experiments per point), searched by bisection in
//!   [`SIMULATED_STEPS`] steps. Small samples are where the normal approximation is poor.
//! - larger n: the normal approximation of the same pooled test,
//!   power(d) = Φ((|d| − z₁₋α/₂·√(2·p̄(1 − p̄)/n)) / √((p₁q₁ + p₂q₂)/n)), p̄ = (p₁ + p₂)/2,
//!   bisected to full precision: the simulation would cost n × 2,000 draws per point, too slow
//!   in a browser for thousands of items, and the approximation is accurate there (a test
//!   checks the two agree at n = 200 and 400).
//!
//! Both treat the two models' outcomes as independent samples. A paired test on positively
//! correlated outcomes has more power, so the real detectable difference is at most the one
//! given. With clustered items, pass the effective n (see [`super::cluster`]).

use super::normal;
use super::power::{PowerError, PowerQuery, power};
use serde::{Deserialize, Serialize};

/// The power the detectable difference is read at.
pub const TARGET_POWER: f64 = 0.8;
/// Up to this many items per model the power is simulated; above it, approximated.
pub const SIMULATION_LIMIT: u32 = 200;
/// Simulated experiments per power evaluation.
pub const POWER_REPETITIONS: u32 = 1000;
/// Bisection steps with simulated power: the difference is found to within (largest possible
/// difference) / 2^10.
pub const SIMULATED_STEPS: u32 = 10;
const APPROXIMATED_STEPS: u32 = 60;

/// The power note for one comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Detectable {
    /// Items (or effective items) per model.
    pub n: u32,
    pub base_rate: f64,
    pub alpha: f64,
    /// [`TARGET_POWER`].
    pub target_power: f64,
    /// The smallest difference from the base rate (towards ½) found to reach the target power;
    /// `None` when even the largest possible difference does not.
    pub difference: Option<f64>,
    /// The power at that difference.
    pub power: Option<f64>,
    /// Simulated experiments per point (0 when approximated).
    pub repetitions: u32,
    pub seed: u64,
    /// "simulated" or "normal-approximation", with the test, in words.
    pub method: String,
}

/// The smallest difference from `base_rate` a two-sided test at `alpha` on `n` items per model
/// detects with 80 % power (module doc). Errors name the field, as [`power`]'s do.
pub fn detectable_difference(n: u32, base_rate: f64, alpha: f64, seed: u64) -> Result<Detectable, PowerError> {
    let field = |field, expected: &'static str, found: String| Err(PowerError::Field { field, expected, found });
    if !(0.0..=1.0).contains(&base_rate) {
        return field("base_rate", "a rate between 0 and 1", base_rate.to_string());
    }
    if !(alpha > 0.0 && alpha < 1.0) {
        return field("alpha", "a level between 0 and 1", alpha.to_string());
    }
    if n == 0 {
        return field("n", "at least 1 item", n.to_string());
    }
    search(n, base_rate, alpha, seed, n <= SIMULATION_LIMIT)
}

/// The bisection, with simulated or approximated power; arguments already checked.
fn search(n: u32, base_rate: f64, alpha: f64, seed: u64, simulated: bool) -> Result<Detectable, PowerError> {
    let towards_half = if base_rate <= 0.5 { 1.0 } else { -1.0 };
    let largest = if base_rate <= 0.5 { 1.0 - base_rate } else { base_rate };
    let other = |d: f64| (base_rate + towards_half * d).clamp(0.0, 1.0);
    let power_at = |d: f64| -> Result<f64, PowerError> {
        if simulated {
            let q = PowerQuery {
                rate_a: base_rate,
                rate_b: other(d),
                sizes: vec![n],
                alpha,
                repetitions: POWER_REPETITIONS,
                seed,
            };
            Ok(power(&q)?[0].power)
        } else {
            Ok(approximate_power(base_rate, other(d), n, alpha))
        }
    };
    let mut found = None;
    let top = power_at(largest)?;
    if top >= TARGET_POWER {
        let (mut lo, mut hi, mut hi_power) = (0.0f64, largest, top);
        for _ in 0..if simulated { SIMULATED_STEPS } else { APPROXIMATED_STEPS } {
            let mid = (lo + hi) / 2.0;
            let p = power_at(mid)?;
            if p >= TARGET_POWER {
                (hi, hi_power) = (mid, p);
            } else {
                lo = mid;
            }
        }
        found = Some((hi, hi_power));
    }
    let method = if simulated {
        "simulated power of a two-sided pooled two-proportion z-test, independent samples, bisection towards 1/2"
    } else {
        "normal approximation to the power of a two-sided pooled two-proportion z-test, independent samples, bisection towards 1/2"
    };
    Ok(Detectable {
        n,
        base_rate,
        alpha,
        target_power: TARGET_POWER,
        difference: found.map(|f| f.0),
        power: found.map(|f| f.1),
        repetitions: if simulated { POWER_REPETITIONS } else { 0 },
        seed,
        method: method.into(),
    })
}

/// The normal approximation of the pooled z-test's power (module doc); the far tail, which
/// rejects in the wrong direction, is left out as it is negligible at 80 % power.
fn approximate_power(p1: f64, p2: f64, n: u32, alpha: f64) -> f64 {
    let n = f64::from(n);
    let pooled = (p1 + p2) / 2.0;
    let null_se = libm::sqrt(2.0 * pooled * (1.0 - pooled) / n);
    let se = libm::sqrt((p1 * (1.0 - p1) + p2 * (1.0 - p2)) / n);
    if se == 0.0 {
        // Both rates at 0 or 1: a difference is either certain (1 vs 0) or absent.
        return if (p1 - p2).abs() > 0.0 { 1.0 } else { 0.0 };
    }
    let z = normal::quantile(1.0 - alpha / 2.0);
    normal::cdf(((p1 - p2).abs() - z * null_se) / se)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_approximation_matches_the_textbook_formula() {
        // 0.1 vs 0.3, α = 0.05: the textbook n for 80 % power is about 62 per group.
        let p = approximate_power(0.1, 0.3, 62, 0.05);
        assert!((p - 0.8).abs() < 0.02, "{p}");
        assert_eq!(approximate_power(0.0, 1.0, 1000, 0.05), 1.0);
        assert_eq!(approximate_power(0.0, 0.0, 1000, 0.05), 0.0);
    }

    #[test]
    fn simulation_and_approximation_agree_where_they_meet() {
        for (n, rate) in [(400, 0.3), (200, 0.8)] {
            let sim = search(n, rate, 0.05, 1, true).unwrap().difference.unwrap();
            let approx = search(n, rate, 0.05, 1, false).unwrap().difference.unwrap();
            assert!((sim - approx).abs() < 0.01, "n = {n}, rate {rate}: simulated {sim}, approximated {approx}");
        }
    }

    #[test]
    fn bad_arguments_name_the_field() {
        for (n, rate, alpha, name) in [(0, 0.5, 0.05, "n"), (10, 1.5, 0.05, "base_rate"), (10, 0.5, 0.0, "alpha")] {
            match detectable_difference(n, rate, alpha, 1) {
                Err(PowerError::Field { field, .. }) => assert_eq!(field, name),
                other => panic!("{other:?}"),
            }
        }
    }
}
