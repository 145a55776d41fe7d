//! The study's own chart: a forest plot of figures (one row per figure and model, the value
//! with its interval), for the divergence section and the overview of paired differences.

use super::compare::Figure;
use crate::report::svg::{GREY, Pen, Svg};

const COLOURS: [&str; 6] = ["#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef8f00", "#00838f"];

/// One row per figure and model, coloured by model, with a zero line when 0 is in range.
pub fn forest(figures: &[Figure], title: &str) -> String {
    let rows: Vec<&Figure> = figures.iter().filter(|f| f.value.is_some_and(f64::is_finite)).collect();
    let mut models: Vec<&str> = vec![];
    for f in &rows {
        if !models.contains(&f.model.as_str()) {
            models.push(&f.model);
        }
    }
    let (left, right, top, row_h) = (230.0, 30.0, 50.0, 22.0);
    let width = 720.0;
    let height = top + row_h * rows.len().max(1) as f64 + 50.0;
    let mut svg = Svg::new(width, height, title);
    svg.text(width / 2.0, 22.0, title, 14.0, "middle", None);
    let values = rows.iter().flat_map(|f| {
        let v = f.value.unwrap_or(0.0);
        let (lo, hi) = f.interval.map_or((v, v), |i| (i.low, i.high));
        [v, lo, hi]
    });
    let (mut lo, mut hi) = values.filter(|x| x.is_finite()).fold((0.0f64, 0.0f64), |(a, b), x| (a.min(x), b.max(x)));
    if hi - lo < 1e-9 {
        (lo, hi) = (lo - 1.0, hi + 1.0);
    }
    let pad = (hi - lo) * 0.05;
    let (lo, hi) = (lo - pad, hi + pad);
    let x = |v: f64| left + (v - lo) / (hi - lo) * (width - left - right);
    let bottom = top + row_h * rows.len() as f64;
    svg.line((x(0.0), top - 6.0), (x(0.0), bottom), Pen { colour: GREY, width: 1.0, dash: Some("4 3") });
    for (i, f) in rows.iter().enumerate() {
        let y = top + row_h * (i as f64 + 0.5);
        let colour = COLOURS[models.iter().position(|m| *m == f.model).unwrap_or(0) % COLOURS.len()];
        svg.text(left - 8.0, y + 4.0, &format!("{} · {}", f.figure, f.model), 11.0, "end", None);
        if let Some(iv) = f.interval.filter(|i| i.low.is_finite() && i.high.is_finite()) {
            svg.line((x(iv.low), y), (x(iv.high), y), Pen { colour, width: 2.0, dash: None });
        }
        svg.circle(x(f.value.unwrap_or(0.0)), y, 4.0, colour);
    }
    svg.line((left, bottom + 4.0), (width - right, bottom + 4.0), Pen { colour: GREY, width: 1.0, dash: None });
    for k in 0..=4 {
        let v = lo + (hi - lo) * f64::from(k) / 4.0;
        svg.text(x(v), bottom + 20.0, &format!("{v:.2}"), 10.0, "middle", None);
    }
    svg.finish()
}
