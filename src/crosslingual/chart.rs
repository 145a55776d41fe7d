//! The refusal-rate chart: one bar per language with its Wilson interval, as SVG.
//! (The McNemar heatmaps are HTML tables in the page, so every cell is readable text.)

use super::analysis::Rate;
use crate::report::svg::{Pen, Svg};

const INK: &str = "#222";
const BAR: &str = "#5c7fb8";
const GRID: Pen = Pen { colour: "#e0e0e0", width: 1.0, dash: None };
const AXIS: Pen = Pen { colour: INK, width: 1.0, dash: None };
const WHISKER: Pen = Pen { colour: INK, width: 1.5, dash: None };

pub fn refusal_rates(rates: &[Rate], title: &str) -> String {
    let (left, top, row, width) = (70.0, 40.0, 28.0, 420.0);
    let height = top + row * rates.len().max(1) as f64 + 50.0;
    let mut svg = Svg::new(left + width + 90.0, height, title);
    svg.text(left + width / 2.0, 20.0, title, 13.0, "middle", None);
    let x = |v: f64| left + width * v.clamp(0.0, 1.0);
    let bottom = top + row * rates.len().max(1) as f64;
    for step in 0..=4 {
        let v = f64::from(step) / 4.0;
        svg.line((x(v), top), (x(v), bottom), GRID);
        svg.text(x(v), bottom + 14.0, &format!("{:.0}%", v * 100.0), 10.0, "middle", None);
    }
    for (i, r) in rates.iter().enumerate() {
        let y = top + row * i as f64;
        svg.text(left - 8.0, y + row / 2.0 + 4.0, &r.language, 12.0, "end", None);
        let Some(p) = r.interval else {
            svg.text(x(0.0) + 4.0, y + row / 2.0 + 4.0, "no data", 10.0, "start", None);
            continue;
        };
        svg.rect(x(0.0), y + 5.0, x(p.rate) - x(0.0), row - 10.0, BAR);
        let mid = y + row / 2.0;
        svg.line((x(p.low), mid), (x(p.high), mid), WHISKER);
        svg.line((x(p.low), mid - 5.0), (x(p.low), mid + 5.0), WHISKER);
        svg.line((x(p.high), mid - 5.0), (x(p.high), mid + 5.0), WHISKER);
        let label = format!("{:.1}% (n={})", p.rate * 100.0, p.n);
        svg.text(x(p.high) + 6.0, mid + 4.0, &label, 10.0, "start", None);
    }
    svg.line((left, top), (left, bottom), AXIS);
    svg.line((left, bottom), (left + width, bottom), AXIS);
    svg.text(left + width / 2.0, bottom + 32.0, "refusal rate, with Wilson interval", 11.0, "middle", None);
    svg.finish()
}
