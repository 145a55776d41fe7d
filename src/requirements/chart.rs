//! The requirement-testing charts: a forest plot of community means and a heatmap of the
//! pairwise McNemar tests. Same input, same bytes, on the page and in the CLI.

use crate::report::svg::{AMBER, GREEN, GREY, Pen, RED, Svg, label_margin, text_width};
use crate::requirements::community::Communities;
use crate::requirements::group::Group;
use crate::requirements::outcome::{GroupStats, Verdict};

const INK: Pen = Pen { colour: "#222", width: 1.0, dash: None };
const GRID: Pen = Pen { colour: "#e0e0e0", width: 1.0, dash: None };
const WHISKER: Pen = Pen { colour: "#222", width: 2.0, dash: None };
const TOLERANCE: Pen = Pen { colour: "#6a1b9a", width: 2.0, dash: Some("3 2") };
/// The widest left margin for row labels; longer labels are cut, with the whole in a tooltip.
const MAX_LABEL: f64 = 520.0;

/// One row per group: the pass rate with its interval, coloured by the three-valued verdict
/// (green pass, red fail, amber inconclusive), and the group's tolerance as a dashed tick, so
/// it shows at a glance which intervals clear the tolerance and which straddle it.
pub fn pass_rates(groups: &[GroupStats]) -> String {
    let labels: Vec<String> = groups
        .iter()
        .map(|g| {
            let n = g.pass_rate.as_ref().map_or(0, |p| p.n);
            let Group { model, concern, language, input_type, reflection_type, .. } = &g.group;
            format!("{model} {concern} {language} {input_type}/{reflection_type} (n={n})")
        })
        .collect();
    let left = label_margin(labels.iter().map(String::as_str), 12.0, 160.0, MAX_LABEL);
    let (top, width, row_h) = (40.0, 300.0, 20.0);
    let rows = groups.len().max(1) as f64;
    let bottom = top + row_h * rows;
    let legend = "green: the interval clears the tolerance; red: below it; amber: it straddles it";
    let chart_w = (left + width + 30.0).max(text_width(legend, 12.0) + 20.0);
    let mut svg = Svg::new(chart_w, bottom + 48.0, "Pass rate per group with its interval and tolerance");
    svg.text(10.0, 20.0, "Pass rate per group (dot, interval) against its tolerance (dashed)", 13.0, "start", None);
    let x = |v: f64| left + width * v.clamp(0.0, 1.0);
    for step in 0..=5 {
        let v = f64::from(step) * 0.2;
        svg.line((x(v), top - 6.0), (x(v), bottom), GRID);
        svg.text(x(v), bottom + 16.0, &format!("{:.0}%", v * 100.0), 12.0, "middle", None);
    }
    if groups.is_empty() {
        svg.text(left, top + 12.0, "no group with a passed or failed answer", 12.0, "start", None);
    }
    for (i, g) in groups.iter().enumerate() {
        let y = top + row_h * i as f64 + row_h / 2.0;
        svg.label((left - 8.0, y + 4.0), &labels[i], 12.0, "end", None, left - 16.0);
        svg.line((x(g.tolerance), y - 7.0), (x(g.tolerance), y + 7.0), TOLERANCE);
        let Some(p) = &g.pass_rate else { continue };
        svg.line((x(p.low), y), (x(p.high), y), WHISKER);
        let colour = match g.verdict {
            Verdict::Pass => GREEN,
            Verdict::Fail => RED,
            Verdict::Inconclusive => AMBER,
            Verdict::NotEvaluated => GREY,
        };
        svg.circle(x(p.rate), y, 4.5, colour);
    }
    svg.line((left, bottom), (left + width, bottom), INK);
    svg.text(10.0, bottom + 36.0, legend, 12.0, "start", None);
    svg.finish()
}

/// One row per (group, community): its mean with the interval. Categorical groups show the
/// pass share (0-100%); number groups (`allSameValue`) the mean value on 0-100.
pub fn forest(c: &Communities) -> String {
    // (label, mean, whether it is a number group's mean value rather than a pass share)
    let rows: Vec<(String, &crate::requirements::community::CommunityMean, bool)> = c
        .groups
        .iter()
        .flat_map(|g| {
            g.means.iter().map(move |m| {
                let numeric = g.kind == "numeric";
                let value = if numeric { " (value)" } else { "" };
                (format!("{} {} {} · {}{value} (n={})", g.model, g.concern, g.language, m.community, m.n), m, numeric)
            })
        })
        .collect();
    let left = label_margin(rows.iter().map(|(l, _, _)| l.as_str()), 11.0, 160.0, MAX_LABEL);
    let (top, width, row_h) = (40.0, 360.0, 18.0);
    let height = top + 30.0 + row_h * rows.len().max(1) as f64;
    let mut svg = Svg::new(left + width + 30.0, height, "Community means with intervals");
    svg.text(10.0, 20.0, "Community means (pass share or value) with intervals", 13.0, "start", None);
    let x = |v: f64| left + width * (v / 100.0).clamp(0.0, 1.0);
    let bottom = top + row_h * rows.len().max(1) as f64;
    for step in 0..=5 {
        let v = f64::from(step) * 20.0;
        svg.line((x(v), top - 6.0), (x(v), bottom), GRID);
        svg.text(x(v), bottom + 16.0, &format!("{v:.0}"), 11.0, "middle", None);
    }
    if rows.is_empty() {
        svg.text(left, top + 12.0, "no community statistics (no complete blocks)", 12.0, "start", None);
    }
    for (i, (label, m, numeric)) in rows.iter().enumerate() {
        let y = top + row_h * i as f64 + row_h / 2.0;
        // Categorical means are shares on 0-1; number means are already on 0-100.
        let scale = if *numeric { 1.0 } else { 100.0 };
        svg.label((left - 8.0, y + 4.0), label, 11.0, "end", None, left - 16.0);
        if m.low.is_finite() && m.high.is_finite() {
            svg.line((x(m.low * scale), y), (x(m.high * scale), y), WHISKER);
        }
        if m.mean.is_finite() {
            svg.circle(x(m.mean * scale), y, 4.0, "#1565c0");
        }
    }
    svg.line((left, bottom), (left + width, bottom), INK);
    svg.finish()
}

/// One heatmap per group with McNemar tests: cell colour by p-value, a star when the Holm-
/// corrected p-value is below `alpha`, "·" when only the uncorrected one is.
pub fn mcnemar_heatmap(c: &Communities, alpha: f64) -> String {
    let groups: Vec<_> = c
        .groups
        .iter()
        .filter(|g| g.tests.iter().any(|t| t.test.starts_with("mcnemar")))
        .map(|g| {
            let names: Vec<&str> = g.means.iter().map(|m| m.community.as_str()).collect();
            (g, names)
        })
        .collect();
    let cell = 26.0;
    let label_w = label_margin(groups.iter().flat_map(|(_, names)| names.iter().copied()), 10.0, 100.0, 260.0);
    let mut y = 40.0;
    let mut blocks = vec![];
    for (_, names) in &groups {
        blocks.push(y);
        y += 30.0 + label_w * 0.72 + cell * names.len() as f64 + 20.0;
    }
    let width = (label_w + cell * groups.iter().map(|(_, n)| n.len()).max().unwrap_or(0) as f64 + 40.0).max(420.0);
    let mut svg = Svg::new(width, y.max(80.0) + 30.0, "Pairwise McNemar tests");
    svg.text(
        10.0,
        20.0,
        &format!("Pairwise McNemar p-values (★ Holm < {alpha}, · raw < {alpha})"),
        13.0,
        "start",
        None,
    );
    if groups.is_empty() {
        svg.text(
            10.0,
            56.0,
            "no pairwise tests (categorical groups with two or more communities)",
            12.0,
            "start",
            None,
        );
    }
    for ((g, names), top) in groups.iter().zip(blocks) {
        svg.text(10.0, top + 12.0, &format!("{} {} {}", g.model, g.concern, g.language), 12.0, "start", None);
        let grid_top = top + 24.0 + label_w * 0.72;
        for (j, name) in names.iter().enumerate() {
            let cx = label_w + cell * j as f64 + cell / 2.0;
            svg.label((cx, grid_top - 4.0), name, 10.0, "start", Some(-45.0), label_w - 12.0);
            let y = grid_top + cell * j as f64 + cell / 2.0 + 4.0;
            svg.label((label_w - 6.0, y), name, 10.0, "end", None, label_w - 12.0);
        }
        for (i, a) in names.iter().enumerate() {
            for (j, b) in names.iter().enumerate() {
                let (x0, y0) = (label_w + cell * j as f64, grid_top + cell * i as f64);
                let t = g.tests.iter().find(|t| {
                    t.test.starts_with("mcnemar")
                        && t.communities.len() == 2
                        && ((t.communities[0] == *a && t.communities[1] == *b)
                            || (t.communities[0] == *b && t.communities[1] == *a))
                });
                let Some(t) = t else {
                    svg.rect(x0, y0, cell - 1.0, cell - 1.0, if i == j { "#f5f5f5" } else { "#eeeeee" });
                    continue;
                };
                let fill = if t.p_holm < alpha {
                    RED
                } else if t.p_value < alpha {
                    AMBER
                } else if t.p_value < 0.5 {
                    GREY
                } else {
                    GREEN
                };
                svg.rect(x0, y0, cell - 1.0, cell - 1.0, fill);
                let mark = if t.p_holm < alpha {
                    "★"
                } else if t.p_value < alpha {
                    "·"
                } else {
                    ""
                };
                if !mark.is_empty() {
                    svg.text(x0 + cell / 2.0, y0 + cell / 2.0 + 4.0, mark, 12.0, "middle", None);
                }
            }
        }
    }
    svg.finish()
}
