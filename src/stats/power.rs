//! How many cases a test needs: the power of a two-proportion z-test to tell two
//! communities apart, estimated by seeded simulation.

use crate::rng;
use rand::Rng as _;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PowerQuery {
    /// Rate of biased answers for the first and the second community.
    pub rate_a: f64,
    pub rate_b: f64,
    /// Cases per community to try.
    pub sizes: Vec<u32>,
    pub alpha: f64,
    /// Simulated experiments per size.
    pub repetitions: u32,
    pub seed: u64,
}

impl Default for PowerQuery {
    fn default() -> PowerQuery {
        PowerQuery {
            rate_a: 0.05,
            rate_b: 0.15,
            sizes: vec![10, 20, 40, 80, 160, 320],
            alpha: 0.05,
            repetitions: 2000,
            seed: 1,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PowerPoint {
    pub size: u32,
    /// Share of simulated experiments in which the test found the difference.
    pub power: f64,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
pub enum PowerError {
    #[error("field {field}: expected {expected}, found {found}")]
    Field { field: &'static str, expected: &'static str, found: String },
}

fn check(field: &'static str, ok: bool, expected: &'static str, found: impl ToString) -> Result<(), PowerError> {
    if ok { Ok(()) } else { Err(PowerError::Field { field, expected, found: found.to_string() }) }
}

/// Pooled two-proportion z-test, two-sided; no difference is found when the pooled rate is 0 or 1.
fn detects(k_a: u32, k_b: u32, n: u32, alpha: f64) -> bool {
    let n = f64::from(n);
    let pooled = f64::from(k_a + k_b) / (2.0 * n);
    if pooled <= 0.0 || pooled >= 1.0 {
        return false;
    }
    let se = libm::sqrt(pooled * (1.0 - pooled) * 2.0 / n);
    let z = (f64::from(k_a) - f64::from(k_b)) / n / se;
    super::normal::two_sided_p(z) < alpha
}

fn threshold(rate: f64) -> u64 {
    (rate * 4_294_967_296.0) as u64
}

/// Estimated power per size. Each (size, repetition) draws from its own seeded stream.
pub fn power(q: &PowerQuery) -> Result<Vec<PowerPoint>, PowerError> {
    check("rate_a", (0.0..=1.0).contains(&q.rate_a), "a rate between 0 and 1", q.rate_a)?;
    check("rate_b", (0.0..=1.0).contains(&q.rate_b), "a rate between 0 and 1", q.rate_b)?;
    check("alpha", q.alpha > 0.0 && q.alpha < 1.0, "a level between 0 and 1", q.alpha)?;
    check("repetitions", (1..=1_000_000).contains(&q.repetitions), "between 1 and 1000000", q.repetitions)?;
    check(
        "sizes",
        !q.sizes.is_empty() && q.sizes.iter().all(|&s| (1..=100_000).contains(&s)),
        "sizes between 1 and 100000",
        format!("{:?}", q.sizes),
    )?;
    let points = q
        .sizes
        .iter()
        .map(|&n| {
            let mut rng = rng::rng_for(q.seed, &[b"power", &n.to_le_bytes()]);
            // A Bernoulli(p) draw is a u32 below p·2³²: integer work, several times faster
            // than drawing an f64, and exact on every target.
            let (t_a, t_b) = (threshold(q.rate_a), threshold(q.rate_b));
            let mut hits = 0u32;
            for _ in 0..q.repetitions {
                let k_a = (0..n).filter(|_| u64::from(rng.next_u32()) < t_a).count() as u32;
                let k_b = (0..n).filter(|_| u64::from(rng.next_u32()) < t_b).count() as u32;
                hits += u32::from(detects(k_a, k_b, n, q.alpha));
            }
            PowerPoint { size: n, power: f64::from(hits) / f64::from(q.repetitions) }
        })
        .collect();
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_grows_with_size_and_matches_the_normal_approximation() {
        let q = PowerQuery {
            rate_a: 0.1,
            rate_b: 0.3,
            sizes: vec![10, 62, 400],
            repetitions: 4000,
            ..PowerQuery::default()
        };
        let pts = power(&q).unwrap();
        assert!(pts[0].power < pts[1].power && pts[1].power < pts[2].power);
        // The textbook size for 80% power at these rates is about 62 per group.
        assert!((pts[1].power - 0.8).abs() < 0.05, "power at 62: {}", pts[1].power);
        assert!(pts[2].power > 0.99);
    }

    #[test]
    fn equal_rates_give_the_false_positive_rate() {
        let q = PowerQuery { rate_a: 0.3, rate_b: 0.3, sizes: vec![200], repetitions: 4000, ..PowerQuery::default() };
        let p = power(&q).unwrap()[0].power;
        assert!((p - 0.05).abs() < 0.015, "size of the test: {p}");
    }

    #[test]
    fn bad_queries_are_refused_with_the_field() {
        let q = PowerQuery { alpha: 2.0, ..PowerQuery::default() };
        assert!(matches!(power(&q), Err(PowerError::Field { field: "alpha", .. })));
        let q = PowerQuery { sizes: vec![], ..PowerQuery::default() };
        assert!(power(&q).is_err());
    }
}
