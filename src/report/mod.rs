//! What every method's charts share: the SVG writer and the verdict colours. Each method
//! draws its own charts in its folder (`bbq/chart.rs`, `requirements/chart.rs`, ...).

pub mod svg;
