//! Statistics: deterministic, documented, and the same bits on every target.

pub mod normal;
pub mod power;
pub mod proportion;
