//! Charts as SVG text, drawn with plotters. The page shows them as images (an SVG inside an
//! <img> can run no script), and the CLI writes them next to its reports.

use crate::analysis::{Analysis, Verdict};
use crate::stats::power::PowerPoint;
use plotters::prelude::*;

const GREEN: RGBColor = RGBColor(46, 125, 50);
const RED_: RGBColor = RGBColor(198, 40, 40);
const AMBER: RGBColor = RGBColor(239, 160, 0);
const GREY: RGBColor = RGBColor(158, 158, 158);

fn colour(v: Verdict) -> RGBColor {
    match v {
        Verdict::Meets => GREEN,
        Verdict::Fails => RED_,
        Verdict::Inconclusive => AMBER,
        Verdict::NoData => GREY,
    }
}

#[derive(Debug, thiserror::Error)]
#[error("chart: {0}")]
pub struct ChartError(String);

fn err<E: std::fmt::Debug>(e: E) -> ChartError {
    ChartError(format!("{e:?}"))
}

/// Pass rate per group as bars, with the interval as whiskers and the tolerance as a dashed line.
pub fn pass_rates(a: &Analysis) -> Result<String, ChartError> {
    let groups: Vec<_> = a.groups.iter().collect();
    let n = groups.len().max(1);
    let width = (110 + 64 * n as u32).max(520);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, 380)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let by = if a.settings.group_by.is_empty() {
            "all records".to_string()
        } else {
            a.settings.group_by.join(" · ")
        };
        let caption = format!(
            "Pass rate by {by} ({:.0}% Wilson intervals){}",
            a.settings.confidence * 100.0,
            if a.simulated {
                " — SIMULATED model"
            } else {
                ""
            }
        );
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(if n > 6 { 70 } else { 40 })
            .y_label_area_size(48)
            .build_cartesian_2d((0..n).into_segmented(), 0f64..1.0f64)
            .map_err(err)?;
        let labels: Vec<String> = groups.iter().map(|g| g.label.clone()).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .y_desc("pass rate")
            .y_label_formatter(&|v| format!("{:.0}%", v * 100.0))
            .x_labels(n)
            .x_label_style(if n > 6 {
                ("sans-serif", 11)
                    .into_font()
                    .transform(FontTransform::Rotate90)
                    .into_text_style(&root)
            } else {
                ("sans-serif", 12).into_font().into_text_style(&root)
            })
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .draw()
            .map_err(err)?;
        chart
            .draw_series(groups.iter().enumerate().filter_map(|(i, g)| {
                let p = g.pass?;
                let mut bar = Rectangle::new(
                    [
                        (SegmentValue::Exact(i), 0.0),
                        (SegmentValue::Exact(i + 1), p.rate),
                    ],
                    colour(g.verdict).filled(),
                );
                bar.set_margin(0, 0, 10, 10);
                Some(bar)
            }))
            .map_err(err)?;
        chart
            .draw_series(groups.iter().enumerate().filter_map(|(i, g)| {
                let p = g.pass?;
                Some(ErrorBar::new_vertical(
                    SegmentValue::CenterOf(i),
                    p.low,
                    p.rate,
                    p.high,
                    BLACK.stroke_width(2),
                    10,
                ))
            }))
            .map_err(err)?;
        let tol = a.settings.tolerance;
        chart
            .draw_series(DashedLineSeries::new(
                vec![(SegmentValue::Exact(0), tol), (SegmentValue::Exact(n), tol)],
                6,
                4,
                BLUE.stroke_width(2),
            ))
            .map_err(err)?
            .label(format!("tolerance {:.0}%", tol * 100.0))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], BLUE.stroke_width(2)));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Power against cases per community, with the conventional 80% line.
pub fn power_curve(points: &[PowerPoint], caption: &str) -> Result<String, ChartError> {
    let max = points.iter().map(|p| p.size).max().unwrap_or(1).max(1);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (560, 340)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 15))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(48)
            .build_cartesian_2d(0u32..max, 0f64..1.0f64)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("cases per community")
            .y_desc("power")
            .y_label_formatter(&|v| format!("{:.0}%", v * 100.0))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|p| (p.size, p.power)),
                BLUE.stroke_width(2),
            ))
            .map_err(err)?;
        chart
            .draw_series(
                points
                    .iter()
                    .map(|p| Circle::new((p.size, p.power), 4, BLUE.filled())),
            )
            .map_err(err)?;
        chart
            .draw_series(DashedLineSeries::new(
                vec![(0, 0.8), (max, 0.8)],
                6,
                4,
                GREY.stroke_width(1),
            ))
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{analysis, demo};

    #[test]
    fn the_pass_rate_chart_names_groups_and_says_simulated() {
        let records = demo::run(&demo::Experiment::default()).unwrap();
        let a = analysis::analyze(&records, &analysis::Settings::default()).unwrap();
        let svg = pass_rates(&a).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("SIMULATED"));
        assert!(svg.contains("gender · es"));
        assert_eq!(svg.matches("<rect").count() >= a.groups.len(), true);
    }

    #[test]
    fn labels_from_files_are_escaped() {
        let recs = vec![crate::record::Record {
            concern: "<script>x</script>".into(),
            response: "No".into(),
            expected: "No".into(),
            ..Default::default()
        }];
        let a = analysis::analyze(
            &recs,
            &analysis::Settings {
                group_by: vec!["concern".into()],
                ..Default::default()
            },
        )
        .unwrap();
        let svg = pass_rates(&a).unwrap();
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;"));
    }
}
