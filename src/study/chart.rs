//! The study's own chart: a forest plot of figures (one row per figure and model, the value
//! with its interval), for the divergence section, on an axis with round ticks and its unit.

use super::compare::Figure;
use crate::report::svg::{GREY, Pen, Svg};

const COLOURS: [&str; 6] = ["#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef8f00", "#00838f"];

/// Round ticks for an axis over [lo, hi]: steps of 1, 2 or 5 × 10^k, about `target` of them,
/// from the last round value at or below `lo` to the first at or above `hi` (the axis ends on
/// ticks), with the decimals their labels need.
pub fn ticks(lo: f64, hi: f64, target: usize) -> (Vec<f64>, usize) {
    let span = hi - lo;
    if !(span.is_finite() && span > 0.0) {
        return (vec![lo], 0);
    }
    let raw = span / target.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * magnitude).find(|s| *s >= raw * (1.0 - 1e-9));
    let step = step.unwrap_or(10.0 * magnitude);
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let (first, last) = ((lo / step + 1e-9).floor() as i64, (hi / step - 1e-9).ceil() as i64);
    // A tick at 0 is 0.0, never -0.0 (which would print with a sign).
    let values = (first..=last).map(|k| if k == 0 { 0.0 } else { k as f64 * step }).collect();
    (values, decimals)
}

/// One row per figure and model, coloured by model, with a zero line when 0 is in range; the
/// axis carries round ticks and `axis` (what the values are, in which unit) under them.
pub fn forest(figures: &[Figure], title: &str, axis: &str) -> String {
    let rows: Vec<&Figure> = figures.iter().filter(|f| f.value.is_some_and(f64::is_finite)).collect();
    let mut models: Vec<&str> = vec![];
    for f in &rows {
        if !models.contains(&f.model.as_str()) {
            models.push(&f.model);
        }
    }
    let (left, right, top, row_h) = (230.0, 30.0, 50.0, 22.0);
    let width = 720.0;
    let height = top + row_h * rows.len().max(1) as f64 + 64.0;
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
    let (marks, decimals) = ticks(lo - pad, hi + pad, 5);
    let (lo, hi) = (marks[0], marks[marks.len() - 1]);
    let x = |v: f64| left + (v - lo) / (hi - lo) * (width - left - right);
    let bottom = top + row_h * rows.len() as f64;
    svg.line((x(0.0), top - 6.0), (x(0.0), bottom), Pen { colour: GREY, width: 1.0, dash: Some("4 3") });
    for (i, f) in rows.iter().enumerate() {
        let y = top + row_h * (i as f64 + 0.5);
        let colour = COLOURS[models.iter().position(|m| *m == f.model).unwrap_or(0) % COLOURS.len()];
        svg.label((left - 8.0, y + 4.0), &format!("{} · {}", f.figure, f.model), 12.0, "end", None, left - 12.0);
        if let Some(iv) = f.interval.filter(|i| i.low.is_finite() && i.high.is_finite()) {
            svg.line((x(iv.low), y), (x(iv.high), y), Pen { colour, width: 2.0, dash: None });
        }
        svg.circle(x(f.value.unwrap_or(0.0)), y, 4.0, colour);
    }
    svg.line((left, bottom + 4.0), (width - right, bottom + 4.0), Pen { colour: GREY, width: 1.0, dash: None });
    for v in marks {
        svg.line((x(v), bottom + 4.0), (x(v), bottom + 9.0), Pen { colour: GREY, width: 1.0, dash: None });
        svg.text(x(v), bottom + 22.0, &format!("{v:.decimals$}"), 12.0, "middle", None);
    }
    svg.text(left + (width - left - right) / 2.0, bottom + 42.0, axis, 12.0, "middle", None);
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_steps_of_one_two_or_five() {
        // The axis: ticks at -12.62, -7.52, ... before.
        let (t, d) = ticks(-12.62, 7.9, 5);
        assert_eq!(t, vec![-15.0, -10.0, -5.0, 0.0, 5.0, 10.0]);
        assert_eq!(d, 0);
        let (t, d) = ticks(-0.137, 0.41, 5);
        let text: Vec<String> = t.iter().map(|v| format!("{v:.d$}")).collect();
        assert_eq!(text, ["-0.2", "0.0", "0.2", "0.4", "0.6"]);
        let (t, d) = ticks(0.0, 0.05, 5);
        let text: Vec<String> = t.iter().map(|v| format!("{v:.d$}")).collect();
        assert_eq!(text, ["0.00", "0.01", "0.02", "0.03", "0.04", "0.05"]);
        assert_eq!(ticks(1.0, 1.0, 5).0, vec![1.0]);
    }

    #[test]
    fn the_forest_axis_has_round_ticks_and_its_unit() {
        let f = |model: &str, v: f64| Figure {
            method: "divergence".into(),
            figure: "CD · total".into(),
            model: model.into(),
            value: Some(v),
            n: 10,
            successes: None,
            interval: Some(crate::stats::interval::Interval { low: v - 2.1, high: v + 3.3 }),
            interval_method: "bootstrap".into(),
            clustered: None,
            threshold: None,
        };
        let svg = forest(&[f("a", -9.7), f("b", 3.2)], "t", "CD (nats)");
        let labels: Vec<&str> = svg
            .lines()
            .filter(|l| l.contains("font-size=\"12\" text-anchor=\"middle\""))
            .filter_map(|l| l.split('>').nth(1)?.split('<').next())
            .collect();
        assert_eq!(labels, ["-15", "-10", "-5", "0", "5", "10", "CD (nats)"], "{svg}");
    }
}
