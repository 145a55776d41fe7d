//! One target's gate: how many calls may be in flight, how many may start per minute, how
//! many tokens may be sent per minute, and a pause the provider asked for (a 429 with
//! Retry-After holds back every call to that provider, not only the one that got it).
//!
//! The per-minute limits are sliding windows over the last 60 s of starts. A single call
//! estimated above the whole token budget still goes when the window is empty, or it could
//! never run.

use std::collections::VecDeque;

const WINDOW_MS: f64 = 60_000.0;

#[derive(Debug, Clone)]
pub struct Gate {
    pub concurrency: u32,
    pub requests_per_minute: Option<u32>,
    pub tokens_per_minute: Option<u32>,
    pub in_flight: u32,
    /// No call starts before this time (ms), set from a provider's Retry-After.
    pub paused_until: f64,
    starts: VecDeque<(f64, u64)>,
    tokens_in_window: u64,
}

impl Gate {
    pub fn new(concurrency: u32, requests_per_minute: Option<u32>, tokens_per_minute: Option<u32>) -> Gate {
        Gate {
            concurrency: concurrency.max(1),
            requests_per_minute,
            tokens_per_minute,
            in_flight: 0,
            paused_until: 0.0,
            starts: VecDeque::new(),
            tokens_in_window: 0,
        }
    }

    fn expire(&mut self, now: f64) {
        while let Some(&(t, tokens)) = self.starts.front() {
            if t + WINDOW_MS > now {
                break;
            }
            self.starts.pop_front();
            self.tokens_in_window -= tokens;
        }
    }

    /// Whether a call of `tokens` may start at `now`; `Err(t)` says when to look again
    /// (`f64::INFINITY` when only a finishing call can free a slot).
    pub fn admit(&mut self, now: f64, tokens: u64) -> Result<(), f64> {
        if self.paused_until > now {
            return Err(self.paused_until);
        }
        if self.in_flight >= self.concurrency {
            return Err(f64::INFINITY);
        }
        self.expire(now);
        let oldest = || self.starts.front().map_or(now, |&(t, _)| t + WINDOW_MS);
        if let Some(rpm) = self.requests_per_minute
            && self.starts.len() as u64 >= u64::from(rpm)
        {
            return Err(oldest());
        }
        if let Some(tpm) = self.tokens_per_minute
            && !self.starts.is_empty()
            && self.tokens_in_window + tokens > u64::from(tpm)
        {
            return Err(oldest());
        }
        Ok(())
    }

    /// Records a call starting now (after a successful [`Gate::admit`]).
    pub fn start(&mut self, now: f64, tokens: u64) {
        self.in_flight += 1;
        if self.requests_per_minute.is_some() || self.tokens_per_minute.is_some() {
            self.starts.push_back((now, tokens));
            self.tokens_in_window += tokens;
        }
    }

    pub fn finish(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrency_caps_calls_in_flight() {
        let mut g = Gate::new(2, None, None);
        for _ in 0..2 {
            g.admit(0.0, 1).unwrap();
            g.start(0.0, 1);
        }
        assert_eq!(g.admit(0.0, 1), Err(f64::INFINITY));
        g.finish();
        assert!(g.admit(0.0, 1).is_ok());
    }

    #[test]
    fn per_minute_windows_slide() {
        let mut g = Gate::new(100, Some(2), None);
        g.start(0.0, 0);
        g.finish();
        g.start(10_000.0, 0);
        g.finish();
        assert_eq!(g.admit(20_000.0, 0), Err(60_000.0));
        assert!(g.admit(60_000.0, 0).is_ok());

        let mut t = Gate::new(100, None, Some(1000));
        assert!(t.admit(0.0, 5000).is_ok(), "an oversized call still runs alone");
        t.start(0.0, 600);
        assert_eq!(t.admit(1.0, 500), Err(60_000.0));
        assert!(t.admit(1.0, 400).is_ok());
    }

    #[test]
    fn a_pause_holds_everything_until_it_ends() {
        let mut g = Gate::new(4, None, None);
        g.paused_until = 5_000.0;
        assert_eq!(g.admit(1_000.0, 1), Err(5_000.0));
        assert!(g.admit(5_000.0, 1).is_ok());
    }
}
