//! The run driver's own cost ([`super::driver`]): sums over a run, and the spread of each
//! call's turn, the stretch of the critical path the driver owns between a call's answer and
//! the calls it lets start.

use serde::Serialize;

/// Turns are kept in buckets this wide (ms): finer than the page's clock, which Chromium
/// coarsens to 0.1 ms outside a cross-origin isolated page.
const BUCKET_MS: f64 = 0.01;
/// Turns longer than this many buckets (10 ms) share the last one.
const BUCKETS: usize = 1000;

/// The driver's own cost, summed over a run (ms on the driver's clock).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overhead {
    /// Records settled (and stored).
    pub calls: u64,
    /// Inside the engine's `next`.
    pub next_ms: f64,
    /// Inside the engine's `complete`.
    pub complete_ms: f64,
    /// Inside the store's `store`.
    pub store_ms: f64,
    /// Inside the transport's `send` (the page builds each request and issues its fetch there).
    pub send_ms: f64,
    /// Each result's share of its turn: from the driver taking the result to the calls that
    /// turn started being sent (a turn that took k results counts its time / k, k times).
    turns: Vec<u32>,
    turns_n: u64,
}

/// [`Overhead`] per settled call, with the median and 90th percentile of the turns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PerCall {
    pub calls: u64,
    pub next_ms: f64,
    pub complete_ms: f64,
    pub store_ms: f64,
    pub send_ms: f64,
    /// `next`, `complete` and `store` together: the driver's own work. `send` stays apart: in
    /// the page it is almost all the browser's own `fetch()` call, which plain fetch pays too.
    pub per_call_ms: f64,
    pub turn_p50_ms: Option<f64>,
    pub turn_p90_ms: Option<f64>,
}

impl Overhead {
    /// Counts a turn of `ms` that took `results` results.
    pub fn turn(&mut self, ms: f64, results: u32) {
        if results == 0 || !ms.is_finite() {
            return;
        }
        if self.turns.is_empty() {
            self.turns = vec![0; BUCKETS];
        }
        let share = (ms / f64::from(results)).max(0.0);
        let bucket = ((share / BUCKET_MS).round() as usize).min(BUCKETS - 1);
        self.turns[bucket] += results;
        self.turns_n += u64::from(results);
    }

    /// The turn below which a share `q` (0 to 1) of the results' turns fall, to a bucket.
    pub fn turn_quantile(&self, q: f64) -> Option<f64> {
        if self.turns_n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.turns_n as f64).ceil() as u64).max(1);
        let mut seen = 0u64;
        let bucket = self.turns.iter().position(|&n| {
            seen += u64::from(n);
            seen >= rank
        })?;
        Some(bucket as f64 * BUCKET_MS)
    }

    pub fn per_call(&self) -> PerCall {
        let n = self.calls.max(1) as f64;
        let (next_ms, complete_ms, store_ms, send_ms) =
            (self.next_ms / n, self.complete_ms / n, self.store_ms / n, self.send_ms / n);
        PerCall {
            calls: self.calls,
            next_ms,
            complete_ms,
            store_ms,
            send_ms,
            per_call_ms: next_ms + complete_ms + store_ms,
            turn_p50_ms: self.turn_quantile(0.5),
            turn_p90_ms: self.turn_quantile(0.9),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Overhead;

    #[test]
    fn turn_quantiles_come_from_the_buckets() {
        let mut o = Overhead::default();
        assert_eq!(o.turn_quantile(0.5), None);
        for i in 1..=10 {
            o.turn(f64::from(i) * 0.1, 1);
        }
        // A turn that took two results counts half its time twice.
        o.turn(0.4, 2);
        let near = |x: Option<f64>, y: f64| x.is_some_and(|x| (x - y).abs() < 1e-9);
        assert!(near(o.turn_quantile(0.5), 0.4), "{:?}", o.turn_quantile(0.5));
        assert!(near(o.turn_quantile(0.9), 0.9), "{:?}", o.turn_quantile(0.9));
        assert!(near(o.turn_quantile(1.0), 1.0));
        o.turn(50.0, 1);
        assert!(near(o.turn_quantile(1.0), 9.99), "a turn above 10 ms lands in the last bucket");
        let p = o.per_call();
        assert_eq!(p.turn_p50_ms, o.turn_quantile(0.5));
    }
}
