//! Charts as SVG text. The page shows them as images (an SVG inside an <img> can run no
//! script), and the CLI writes them next to its reports. Same input, same bytes, everywhere.

use crate::demo::analysis::{Analysis, Verdict};
use crate::report::svg::{AMBER, GREEN, GREY, Pen, RED, Svg};
use crate::stats::power::{self, PowerError, PowerPoint, PowerQuery};

const INK: &str = "#222";
const GRID: &str = "#e0e0e0";
const BLUE: &str = "#1565c0";
const GRID_PEN: Pen = Pen { colour: GRID, width: 1.0, dash: None };
const AXIS_PEN: Pen = Pen { colour: INK, width: 1.0, dash: None };
const WHISKER_PEN: Pen = Pen { colour: INK, width: 2.0, dash: None };
const TOLERANCE_PEN: Pen = Pen { colour: BLUE, width: 2.0, dash: Some("6 4") };
const GUIDE_PEN: Pen = Pen { colour: GREY, width: 1.0, dash: Some("6 4") };

fn colour(v: Verdict) -> &'static str {
    match v {
        Verdict::Meets => GREEN,
        Verdict::Fails => RED,
        Verdict::Inconclusive => AMBER,
        Verdict::NoData => GREY,
    }
}

/// The plotting area of a chart whose y axis is a rate from 0 to 1.
struct Frame {
    left: f64,
    top: f64,
    width: f64,
    height: f64,
}

impl Frame {
    fn y(&self, rate: f64) -> f64 {
        self.top + self.height * (1.0 - rate.clamp(0.0, 1.0))
    }

    /// Grid lines and labels at every 20%.
    fn rate_axis(&self, svg: &mut Svg, label: &str) {
        for step in 0..=5 {
            let rate = f64::from(step) * 0.2;
            let y = self.y(rate);
            svg.line((self.left, y), (self.left + self.width, y), GRID_PEN);
            svg.text(self.left - 6.0, y + 4.0, &format!("{:.0}%", rate * 100.0), 11.0, "end", None);
        }
        svg.line((self.left, self.top), (self.left, self.top + self.height), AXIS_PEN);
        svg.text(14.0, self.top + self.height / 2.0, label, 12.0, "middle", Some(-90.0));
    }
}

/// Pass rate per group as bars, with the interval as whiskers and the tolerance as a dashed line.
pub fn pass_rates(a: &Analysis) -> String {
    let n = a.groups.len().max(1);
    // About 6.5 px per character at 11 px: rotate labels that would not fit under their bar.
    let longest = a.groups.iter().map(|g| g.label.chars().count()).max().unwrap_or(0);
    let rotate = n > 6 || longest as f64 * 6.5 > 60.0;
    let slot = 64.0;
    let width = (96.0 + slot * n as f64).max(560.0);
    let bottom = if rotate { 84.0 } else { 48.0 };
    let height = 300.0 + bottom;
    let by = if a.settings.group_by.is_empty() { "all records".to_string() } else { a.settings.group_by.join(" · ") };
    let title = format!(
        "Pass rate by {by}, {:.0}% Wilson intervals{}",
        a.settings.confidence.get() * 100.0,
        if a.simulated { " (SIMULATED model)" } else { "" }
    );
    let mut svg = Svg::new(width, height, &title);
    svg.text(width / 2.0, 20.0, &title, 14.0, "middle", None);
    let frame = Frame { left: 56.0, top: 56.0, width: width - 72.0, height: height - 56.0 - bottom };
    let legend = [(GREEN, "meets"), (AMBER, "inconclusive"), (RED, "fails")];
    for (i, (fill, name)) in legend.iter().enumerate() {
        let x = frame.left + 4.0 + 110.0 * i as f64;
        svg.rect(x, 30.0, 10.0, 10.0, fill);
        svg.text(x + 14.0, 39.0, name, 11.0, "start", None);
    }
    frame.rate_axis(&mut svg, "pass rate");
    let slot = frame.width / n as f64;
    for (i, g) in a.groups.iter().enumerate() {
        let centre = frame.left + slot * (i as f64 + 0.5);
        if let Some(p) = g.pass {
            let bar = slot * 0.62;
            svg.rect(centre - bar / 2.0, frame.y(p.rate), bar, frame.y(0.0) - frame.y(p.rate), colour(g.verdict));
            svg.line((centre, frame.y(p.low)), (centre, frame.y(p.high)), WHISKER_PEN);
            for rate in [p.low, p.high] {
                svg.line((centre - 6.0, frame.y(rate)), (centre + 6.0, frame.y(rate)), WHISKER_PEN);
            }
        }
        let base = frame.top + frame.height + 16.0;
        if rotate {
            svg.text(centre + 4.0, base, &shorten(&g.label, 24), 11.0, "end", Some(-40.0));
        } else {
            svg.text(centre, base, &g.label, 11.0, "middle", None);
        }
    }
    let tol = frame.y(a.settings.tolerance);
    svg.line((frame.left, tol), (frame.left + frame.width, tol), TOLERANCE_PEN);
    svg.text(
        frame.left + frame.width - 4.0,
        tol - 5.0,
        &format!("tolerance {:.0}%", a.settings.tolerance * 100.0),
        11.0,
        "end",
        None,
    );
    svg.finish()
}

/// The label cut to `max` characters, with an ellipsis; the full text is in the table beside.
fn shorten(label: &str, max: usize) -> String {
    if label.chars().count() <= max {
        return label.to_string();
    }
    let mut s: String = label.chars().take(max - 1).collect();
    s.push('…');
    s
}

/// Power against cases per community, with the conventional 80% line.
pub fn power_curve(points: &[PowerPoint], title: &str) -> String {
    let (width, height) = (560.0, 340.0);
    let mut svg = Svg::new(width, height, title);
    svg.text(width / 2.0, 20.0, title, 13.0, "middle", None);
    let frame = Frame { left: 56.0, top: 36.0, width: width - 80.0, height: height - 36.0 - 52.0 };
    frame.rate_axis(&mut svg, "power");
    let max = f64::from(points.iter().map(|p| p.size).max().unwrap_or(1).max(1));
    let x = |size: u32| frame.left + frame.width * f64::from(size) / max;
    let eighty = frame.y(0.8);
    svg.line((frame.left, eighty), (frame.left + frame.width, eighty), GUIDE_PEN);
    svg.text(frame.left + 4.0, eighty - 5.0, "80%", 11.0, "start", None);
    let pts: Vec<(f64, f64)> = points.iter().map(|p| (x(p.size), frame.y(p.power))).collect();
    svg.polyline(&pts, BLUE);
    let mut last_label = f64::NEG_INFINITY;
    for (p, (px, py)) in points.iter().zip(&pts) {
        svg.circle(*px, *py, 4.0, BLUE);
        // Sizes close together on the axis would print over each other: skip those.
        if *px - last_label >= 28.0 {
            svg.text(*px, frame.top + frame.height + 16.0, &p.size.to_string(), 11.0, "middle", None);
            last_label = *px;
        }
    }
    svg.text(frame.left + frame.width / 2.0, height - 10.0, "cases per community", 12.0, "middle", None);
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::{self, analysis};

    #[test]
    fn the_pass_rate_chart_draws_every_group_and_says_simulated() {
        let records = demo::run(&demo::Experiment::default()).unwrap();
        let a = analysis::analyze(&records, &analysis::Settings::default()).unwrap();
        let svg = pass_rates(&a);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("SIMULATED"));
        assert!(svg.contains(">gender · es</text>"));
        // One bar per group (plus the background and the three legend swatches).
        assert_eq!(svg.matches("<rect").count(), a.groups.len() + 4);
        // Nine groups turn their labels, so the chart is 300 + 84 px high and the plot 244 px from y = 56;
        // so the tolerance line at 90% sits at y = 56 + 244·0.1 = 80.4.
        assert!(svg.contains(r#"y1="80.4" x2=""#) && svg.contains("tolerance 90%"), "tolerance line misplaced");
    }

    /// The chart of one record whose concern is `concern`.
    fn chart_for_concern(concern: &str) -> String {
        let recs = vec![crate::record::Record {
            concern: concern.into(),
            response: "No".into(),
            expected: "No".into(),
            ..Default::default()
        }];
        let settings = analysis::Settings { group_by: vec!["concern".into()], ..Default::default() };
        pass_rates(&analysis::analyze(&recs, &settings).unwrap())
    }

    #[test]
    fn long_labels_turn_and_shorten_and_close_ticks_are_skipped() {
        let svg = chart_for_concern("a concern with a very long name indeed");
        assert!(svg.contains("rotate(-40"), "a long label should be turned");
        assert!(svg.contains(">a concern with a very l…</text>"));
        let points: Vec<PowerPoint> = [10, 20, 40, 320].iter().map(|&size| PowerPoint { size, power: 0.5 }).collect();
        let svg = power_curve(&points, "t");
        assert!(svg.contains(">10</text>") && !svg.contains(">20</text>") && svg.contains(">320</text>"));
    }

    #[test]
    fn labels_from_files_are_escaped() {
        let svg = chart_for_concern("<script>x</script>\"");
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;x&lt;/script&gt;&quot;"));
    }
}

/// Power by simulation with its chart, as the Design view shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PowerCurve {
    pub chart_svg: String,
    pub points: Vec<PowerPoint>,
}

/// The power points of `q` and their chart.
pub fn power_with_chart(q: &PowerQuery) -> Result<PowerCurve, PowerError> {
    let points = power::power(q)?;
    Ok(PowerCurve { chart_svg: power_figure(q, &points), points })
}

/// The chart of points computed earlier (one size at a time), captioned with the two rates
/// and the level of `q`.
pub fn power_figure(q: &PowerQuery, points: &[PowerPoint]) -> String {
    let caption = format!(
        "Power to tell {:.0}% from {:.0}% biased answers (α = {})",
        q.rate_a * 100.0,
        q.rate_b * 100.0,
        q.alpha
    );
    power_curve(points, &caption)
}
