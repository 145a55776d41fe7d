//! Evenhand: an LLM bias lab. The core (everything but `web`) is plain Rust that knows
//! nothing about browsers; `web` is the thin wasm facade over it.
//!
//! Base layers, which know nothing of the methods: `formats` (reading tables), `record` (the
//! record table every run produces), `rng` and `fasthash`, `stats`, `text` (answer folding,
//! refusal lexicon), `providers` (wire formats), `run` (plans, journals, the run engine),
//! `report` (the SVG writer), `simulate` (the simulated model), `catalogue` (the public
//! datasets the methods read, pinned by URL and sha256) and `builtin` (our own datasets' text).
//! Methods, one folder each: `bbq`, `crosslingual`, `divergence`, `requirements`, and `demo`.
//! Above them, `study`: one question across the four methods and several models, one report.

pub mod bbq;
pub mod builtin;
pub mod catalogue;
pub mod crosslingual;
pub mod demo;
pub mod divergence;
pub mod fasthash;
pub mod formats;
pub mod logs;
pub mod providers;
pub mod record;
pub mod report;
pub mod requirements;
pub mod rng;
pub mod run;
pub mod simulate;
pub mod stats;
pub mod study;
pub mod text;
pub mod trust;
pub mod web;

/// The tool version written into bundles and reports.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
