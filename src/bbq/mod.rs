//! Bias QA benchmarks (BBQ, GG-BBQ, KoBBQ-style): examples, import, generation, prompts,
//! answer parsing and the accuracy / diff-bias metrics.

pub mod bias;
pub mod chart;
pub mod example;
pub mod generate;
pub mod harness;
pub mod import;
pub mod metrics;
pub mod parse;
mod phrases;
pub mod prompt;
pub mod pyliteral;
pub mod score;
pub mod select;
pub mod session;

pub use example::{Condition, Example, Polarity, Subset};
