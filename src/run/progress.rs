//! What a run reports while it goes: counts, speed, time left, tokens and cost so far, each
//! target's state, and the failures with their reasons.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    Running,
    Paused,
    Cancelled,
    Finished,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    pub state: RunState,
    pub total: u64,
    /// Calls with an answer (ok, refused or filtered): stored and never sent again.
    pub answered: u64,
    /// Calls that failed after their attempts (or with an error no retry can fix).
    pub failed: u64,
    /// Calls not yet answered or failed: queued, waiting to retry, or in flight.
    pub remaining: u64,
    pub in_flight: u64,
    /// Calls now waiting out a backoff.
    pub waiting: u64,
    /// Retries so far (attempts after the first).
    pub retries: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// Cost of the answers so far, for models the price table prices.
    pub cost: f64,
    pub currency: String,
    /// Seconds the run has been running (pauses excluded).
    pub elapsed_s: f64,
    /// Calls finished per second over the last few seconds.
    pub per_second: f64,
    /// Seconds left at the current speed; None before the speed is known.
    pub eta_s: Option<f64>,
    pub targets: Vec<TargetProgress>,
    /// The first failures (see `failures_total` for how many there are).
    pub failures: Vec<Failure>,
    pub failures_total: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetProgress {
    pub target: String,
    pub provider: String,
    pub answered: u64,
    pub failed: u64,
    pub remaining: u64,
    pub in_flight: u32,
    pub concurrency: u32,
    /// Seconds until the provider's requested pause ends (after a 429), if one is on.
    pub paused_for_s: Option<f64>,
    pub last_error: String,
    /// Mean seconds per answered call.
    pub mean_latency_s: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub record_id: String,
    pub case_id: String,
    pub target: String,
    pub model: String,
    pub attempts: u32,
    pub error: String,
}
