//! The demo method: a small yes/no bias test run against the simulated model (needs no key),
//! its analysis (pass rates with intervals against a tolerance), the workspace the page's
//! Results tab drives, and the bundle and share link that rebuild the same numbers elsewhere.

pub mod analysis;
pub mod bundle;
pub mod chart;
mod experiment;
pub mod share;
pub mod workspace;

pub use experiment::*;
