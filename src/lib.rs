//! Evenhand: an LLM bias lab. The core (everything but `web`) is plain Rust that knows
//! nothing about browsers; `web` is the thin wasm facade over it.

pub mod analysis;
pub mod bbq;
pub mod bundle;
pub mod crosslingual;
pub mod demo;
pub mod divergence;
pub mod fasthash;
pub mod formats;
pub mod langbite;
pub mod oracle;
pub mod providers;
pub mod record;
pub mod report;
pub mod rng;
pub mod run;
pub mod share;
pub mod simulate;
pub mod stats;
pub mod web;
pub mod workspace;

/// The tool version written into bundles and reports.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
