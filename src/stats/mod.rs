//! Statistics: deterministic, documented, and the same bits on every target.

pub mod correction;
pub mod mcnemar;
pub mod normal;
pub mod power;
pub mod proportion;
