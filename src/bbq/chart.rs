//! Bias-QA charts as SVG: accuracy against diff-bias with the feasible region drawn, and
//! diff-bias per category with intervals.

use super::metrics::{Breakdown, Estimate};
use crate::report::svg::{Pen, Svg};

const INK: &str = "#222";
const GRID: Pen = Pen { colour: "#e0e0e0", width: 1.0, dash: None };
const AXIS: Pen = Pen { colour: INK, width: 1.0, dash: None };
const WHISKER: Pen = Pen { colour: INK, width: 1.5, dash: None };
const ZERO: Pen = Pen { colour: "#888", width: 1.0, dash: Some("4 3") };
const REGION: &str = "#e3f2fd";
const COLOURS: [&str; 6] = ["#1565c0", "#c62828", "#2e7d32", "#ef8f00", "#6a1b9a", "#00838f"];

/// A diff-bias tick: "+0.5", "-0.5", and "0.0" (not "+0.0") at zero.
fn signed(b: f64) -> String {
    if b.abs() < 1e-9 { "0.0".into() } else { format!("{b:+.1}") }
}

/// One panel: x = accuracy in [0, 1], y = diff-bias in [−1, 1].
struct Panel {
    left: f64,
    top: f64,
    size: f64,
}

impl Panel {
    fn x(&self, acc: f64) -> f64 {
        self.left + self.size * acc.clamp(0.0, 1.0)
    }
    fn y(&self, bias: f64) -> f64 {
        self.top + self.size * (1.0 - bias.clamp(-1.0, 1.0)) / 2.0
    }

    /// The feasible region, given its corners as (accuracy, diff-bias).
    fn region(&self, svg: &mut Svg, corners: &[(f64, f64)]) {
        let pts: Vec<(f64, f64)> = corners.iter().map(|&(a, b)| (self.x(a), self.y(b))).collect();
        svg.polygon(&pts, REGION);
    }

    fn axes(&self, svg: &mut Svg, title: &str) {
        svg.text(self.left + self.size / 2.0, self.top - 10.0, title, 13.0, "middle", None);
        for step in 0..=4 {
            let v = f64::from(step) / 4.0;
            svg.line((self.x(v), self.top), (self.x(v), self.top + self.size), GRID);
            svg.text(self.x(v), self.top + self.size + 16.0, &format!("{:.0}%", v * 100.0), 12.0, "middle", None);
            let b = -1.0 + 2.0 * v;
            svg.line((self.left, self.y(b)), (self.left + self.size, self.y(b)), GRID);
            svg.text(self.left - 5.0, self.y(b) + 4.0, &signed(b), 12.0, "end", None);
        }
        svg.line((self.left, self.y(0.0)), (self.left + self.size, self.y(0.0)), ZERO);
        svg.line((self.left, self.top), (self.left, self.top + self.size), AXIS);
        svg.line((self.left, self.top + self.size), (self.left + self.size, self.top + self.size), AXIS);
        svg.text(self.left + self.size / 2.0, self.top + self.size + 34.0, "accuracy (%)", 12.0, "middle", None);
        svg.text(self.left - 40.0, self.top + self.size / 2.0, "diff-bias (-1 to 1)", 12.0, "middle", Some(-90.0));
    }

    fn point(&self, svg: &mut Svg, acc: Estimate, bias: Estimate, colour: &str) {
        let (Some(a), Some(b)) = (acc.value, bias.value) else {
            return;
        };
        if let (Some(lo), Some(hi)) = (acc.low, acc.high) {
            svg.line((self.x(lo), self.y(b)), (self.x(hi), self.y(b)), WHISKER);
        }
        if let (Some(lo), Some(hi)) = (bias.low, bias.high) {
            svg.line((self.x(a), self.y(lo)), (self.x(a), self.y(hi)), WHISKER);
        }
        svg.circle(self.x(a), self.y(b), 5.0, colour);
    }
}

/// Accuracy against diff-bias, ambiguous and disambiguated side by side, one point per
/// group (with bootstrap whiskers). The shaded area is where a point can lie: |diff-bias| ≤
/// 1 − Acc in ambiguous contexts, ≤ 1 − |2·Acc − 1| in disambiguated ones (balanced contexts).
pub fn accuracy_vs_bias(groups: &[Breakdown], title: &str) -> String {
    let size = 260.0;
    let legend_rows = groups.len().div_ceil(3) as f64;
    let (width, height) = (2.0 * size + 170.0, size + 114.0 + 18.0 * legend_rows);
    let mut svg = Svg::new(width, height, title);
    svg.text(width / 2.0, 18.0, title, 14.0, "middle", None);
    let amb = Panel { left: 64.0, top: 48.0, size };
    let dis = Panel { left: 64.0 + size + 90.0, top: 48.0, size };
    amb.region(&mut svg, &[(0.0, 1.0), (1.0, 0.0), (0.0, -1.0)]);
    dis.region(&mut svg, &[(0.0, 0.0), (0.5, 1.0), (1.0, 0.0), (0.5, -1.0)]);
    amb.axes(&mut svg, "ambiguous contexts");
    dis.axes(&mut svg, "disambiguated contexts");
    for (i, g) in groups.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        amb.point(&mut svg, g.acc_amb, g.diff_bias_amb, colour);
        dis.point(&mut svg, g.acc_dis, g.diff_bias_dis, colour);
        let (col, row) = ((i % 3) as f64, (i / 3) as f64);
        let (x, y) = (64.0 + col * 200.0, size + 104.0 + row * 18.0);
        svg.circle(x, y - 4.0, 5.0, colour);
        svg.label((x + 10.0, y), &g.label, 12.0, "start", None, 185.0);
    }
    svg.finish()
}

/// Diff-bias per group (e.g. category), ambiguous and disambiguated bars side by side.
pub fn bias_bars(groups: &[Breakdown], title: &str) -> String {
    let n = groups.len().max(1) as f64;
    let slot = 90.0;
    let (width, height) = ((120.0 + slot * n).max(520.0), 360.0);
    let mut svg = Svg::new(width, height, title);
    svg.text(width / 2.0, 18.0, title, 14.0, "middle", None);
    let (left, top, plot_h) = (60.0, 44.0, 240.0);
    let plot_w = width - left - 20.0;
    let y = |b: f64| top + plot_h * (1.0 - b.clamp(-1.0, 1.0)) / 2.0;
    for step in 0..=4 {
        let b = -1.0 + 0.5 * f64::from(step);
        svg.line((left, y(b)), (left + plot_w, y(b)), GRID);
        svg.text(left - 5.0, y(b) + 4.0, &signed(b), 12.0, "end", None);
    }
    svg.line((left, y(0.0)), (left + plot_w, y(0.0)), AXIS);
    svg.text(16.0, top + plot_h / 2.0, "diff-bias (-1 to 1)", 12.0, "middle", Some(-90.0));
    let slot = plot_w / n;
    for (i, g) in groups.iter().enumerate() {
        let centre = left + slot * (i as f64 + 0.5);
        for (k, (est, colour)) in [(g.diff_bias_amb, COLOURS[0]), (g.diff_bias_dis, COLOURS[3])].iter().enumerate() {
            let Some(v) = est.value else { continue };
            let x = centre - slot * 0.3 + k as f64 * slot * 0.3;
            let (y0, y1) = if v >= 0.0 { (y(v), y(0.0)) } else { (y(0.0), y(v)) };
            svg.rect(x, y0, slot * 0.28, (y1 - y0).max(0.5), colour);
            if let (Some(lo), Some(hi)) = (est.low, est.high) {
                let cx = x + slot * 0.14;
                svg.line((cx, y(lo)), (cx, y(hi)), WHISKER);
            }
        }
        svg.label((centre, top + plot_h + 16.0), &g.label, 12.0, "middle", None, slot - 4.0);
    }
    let ly = height - 24.0;
    for (k, (name, colour)) in [("ambiguous", COLOURS[0]), ("disambiguated", COLOURS[3])].iter().enumerate() {
        let x = left + k as f64 * 140.0;
        svg.rect(x, ly - 9.0, 10.0, 10.0, colour);
        svg.text(x + 14.0, ly, name, 12.0, "start", None);
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bbq::metrics::{Counts, scores};

    fn group(label: &str, acc: f64, bias: f64) -> Breakdown {
        let e = |v: f64| Estimate { value: Some(v), low: Some(v - 0.05), high: Some(v + 0.05) };
        let counts = Counts::default();
        Breakdown {
            key: vec![label.into()],
            label: label.into(),
            scores: scores(&counts),
            counts,
            acc_amb: e(acc),
            acc_dis: e(acc),
            diff_bias_amb: e(bias),
            diff_bias_dis: e(bias),
            s_dis: e(bias),
            s_amb: e(bias),
            units: 1,
        }
    }

    #[test]
    fn points_land_where_their_numbers_say() {
        let svg = accuracy_vs_bias(&[group("m<1>", 0.5, 0.25)], "t");
        // Ambiguous panel: x = 64 + 260·0.5 = 194, y = 48 + 260·(1 − 0.25)/2 = 145.5.
        assert!(svg.contains(r#"<circle cx="194.0" cy="145.5" r="5""#), "{svg}");
        assert!(svg.contains("m&lt;1&gt;"));
        let bars = bias_bars(&[group("age", 0.5, -0.5), group("gender", 0.5, 0.5)], "t");
        assert_eq!(bars.matches("<rect").count(), 1 + 4 + 2);
    }
}
