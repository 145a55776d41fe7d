//! Runs: sending a plan of calls to LLM providers without losing a response.
//!
//! The pieces, in the order a run uses them:
//! - [`spec`]: what the user asked for (targets, models, samples, parameters, limits);
//! - [`cases`]: the prompts, read from a cases file or handed over by a method, and
//!   [`embed_texts`], the texts of an embedding run;
//! - [`plan`]: cases x models x samples as calls, with an estimate of tokens and cost
//!   ([`price`]) shown before anything is sent; [`dry_run`], the same estimate read case by
//!   case from a cases file without building the plan;
//! - [`engine`]: the queue. It decides what to send next (per-target concurrency and rate
//!   limits, [`limits`]), what to do with each answer (store it, retry it after a
//!   [`backoff`], or give up), and reports [`progress`];
//! - [`driver`]: the one loop that runs the engine, over a transport, a clock and a store
//!   that each target supplies (the CLI's ureq and journal, the page's fetch and IndexedDB),
//!   and [`overhead`], what the loop itself costs per call;
//! - [`journal`]: the CLI's append-only store of finished records, read back on resume;
//! - [`batch`]: the same plan through the providers' batch APIs instead of live calls, and
//!   [`batch_plan`], the page's way to it (one provider and model plus a cases file).
//!
//! Nothing here does I/O or reads a clock: the driver reaches both through traits whose
//! implementations live at the edges (`src/cli/transport.rs`, `src/web/fetch.rs`), so the CLI
//! and the page run the same loop over the same engine, and tests can play a whole run with a
//! fake clock.

pub mod backoff;
pub mod batch;
pub mod batch_plan;
pub mod cases;
pub mod driver;
pub mod dry_run;
pub mod embed_texts;
pub mod engine;
pub mod journal;
pub mod limits;
pub mod overhead;
pub mod plan;
pub mod price;
pub mod progress;
pub mod spec;

pub use engine::{CallResult, Completion, Dispatch, Engine, TransportError};
pub use plan::{Estimate, Plan};
pub use spec::RunSpec;

/// An RFC 3339 UTC timestamp (to the millisecond) for a Unix time in milliseconds. Records
/// carry one; the page passes `Date.now()` and the CLI the system clock.
pub fn rfc3339(unix_ms: i64) -> String {
    let (secs, ms) = (unix_ms.div_euclid(1000), unix_ms.rem_euclid(1000));
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{ms:03}Z", rem / 3600, (rem / 60) % 60, rem % 60)
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_are_utc_rfc3339() {
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(super::rfc3339(1_795_430_096_789), "2026-11-23T10:34:56.789Z");
        assert_eq!(super::rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }
}
