//! What the analyses turn into: charts now; report tables and exports per method later.

pub mod chart;
pub mod requirements_chart;
pub mod svg;
