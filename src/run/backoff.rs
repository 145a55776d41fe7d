//! How long to wait before trying a call again.
//!
//! Exponential backoff with "equal jitter": attempt n (1 = the first retry) waits
//! d = min(max, base * 2^(n-1)) scaled by a factor drawn uniformly from [0.5, 1), so
//! concurrent calls that failed together do not come back together, and no wait is shorter
//! than half the nominal one. The factor comes from the run's seeded RNG keyed by the
//! record id and the attempt, so a replayed run waits exactly the same way.
//!
//! A provider's Retry-After is honoured: the wait is never shorter than what it asked for.

use super::spec::RetryPolicy;
use crate::rng::rng_for;
use rand::RngExt;

/// Milliseconds to wait before attempt `next_attempt` (2 = the first retry) of `record_id`.
pub fn delay_ms(
    policy: &RetryPolicy,
    seed: u64,
    record_id: &str,
    next_attempt: u32,
    retry_after_s: Option<f64>,
) -> f64 {
    let n = next_attempt.saturating_sub(2).min(30);
    let nominal = (policy.backoff_base_s * f64::from(1u32 << n)).min(policy.backoff_max_s) * 1000.0;
    let factor: f64 =
        0.5 + 0.5 * rng_for(seed, &[b"backoff", record_id.as_bytes(), &next_attempt.to_le_bytes()]).random::<f64>();
    let jittered = nominal * factor;
    match retry_after_s.filter(|s| s.is_finite() && *s >= 0.0) {
        // Capped at an hour: a misbehaving header must not park a run forever.
        Some(s) => jittered.max(s.min(3600.0) * 1000.0),
        None => jittered,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_within_jitter_up_to_the_cap_and_respect_retry_after() {
        let p = RetryPolicy { backoff_base_s: 1.0, backoff_max_s: 8.0, ..RetryPolicy::default() };
        for attempt in 2..8 {
            let nominal = (1000.0 * f64::from(1u32 << (attempt - 2))).min(8000.0);
            let d = delay_ms(&p, 7, "r:c:1", attempt, None);
            assert!(d >= nominal * 0.5 && d < nominal, "attempt {attempt}: {d} vs {nominal}");
        }
        assert_eq!(delay_ms(&p, 7, "x", 3, None), delay_ms(&p, 7, "x", 3, None));
        assert_ne!(delay_ms(&p, 7, "x", 3, None), delay_ms(&p, 7, "y", 3, None));
        assert_eq!(delay_ms(&p, 7, "x", 2, Some(30.0)), 30_000.0);
        assert!(delay_ms(&p, 7, "x", 2, Some(f64::NAN)) < 1000.0);
    }
}
