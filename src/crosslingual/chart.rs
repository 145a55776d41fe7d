//! The refusal-rate chart: one bar per language (or language and model) with its Wilson
//! interval, as SVG.
//! (The McNemar heatmaps are HTML tables in the page, so every cell is readable text.)

use super::analysis::Rate;
use crate::report::svg::{Pen, Svg, label_margin};

const INK: &str = "#222";
const BAR: &str = "#5c7fb8";
const GRID: Pen = Pen { colour: "#e0e0e0", width: 1.0, dash: None };
const AXIS: Pen = Pen { colour: INK, width: 1.0, dash: None };
const WHISKER: Pen = Pen { colour: INK, width: 1.5, dash: None };

/// One bar per rate with its interval. Rates per model (the study's "per language and model")
/// are labelled "language · model", coloured by model, with a legend naming each colour.
pub fn refusal_rates(rates: &[Rate], title: &str) -> String {
    let mut models: Vec<&str> = vec![];
    for m in rates.iter().filter_map(|r| r.model.as_deref()) {
        if !models.contains(&m) {
            models.push(m);
        }
    }
    let labels: Vec<String> = rates
        .iter()
        .map(|r| match &r.model {
            Some(m) => format!("{} · {m}", r.language),
            None => r.language.clone(),
        })
        .collect();
    let colour = |r: &Rate| match &r.model {
        Some(m) => PALETTE[models.iter().position(|x| x == m).unwrap_or(0) % PALETTE.len()],
        None => BAR,
    };
    let left = label_margin(labels.iter().map(String::as_str), 12.0, 70.0, 240.0);
    let (top, row, width) = (40.0, 28.0, 420.0);
    let bottom = top + row * rates.len().max(1) as f64;
    let legend_h = if models.is_empty() { 0.0 } else { 18.0 * models.len() as f64 + 10.0 };
    let height = bottom + 50.0 + legend_h;
    let mut svg = Svg::new(left + width + 110.0, height, title);
    svg.text(left + width / 2.0, 20.0, title, 14.0, "middle", None);
    let x = |v: f64| left + width * v.clamp(0.0, 1.0);
    for step in 0..=4 {
        let v = f64::from(step) / 4.0;
        svg.line((x(v), top), (x(v), bottom), GRID);
        svg.text(x(v), bottom + 16.0, &format!("{:.0}%", v * 100.0), 12.0, "middle", None);
    }
    for (i, r) in rates.iter().enumerate() {
        let y = top + row * i as f64;
        svg.label((left - 8.0, y + row / 2.0 + 4.0), &labels[i], 12.0, "end", None, left - 12.0);
        let Some(p) = r.interval else {
            svg.text(x(0.0) + 4.0, y + row / 2.0 + 4.0, "no data", 12.0, "start", None);
            continue;
        };
        svg.rect(x(0.0), y + 5.0, x(p.rate) - x(0.0), row - 10.0, colour(r));
        let mid = y + row / 2.0;
        svg.line((x(p.low), mid), (x(p.high), mid), WHISKER);
        svg.line((x(p.low), mid - 5.0), (x(p.low), mid + 5.0), WHISKER);
        svg.line((x(p.high), mid - 5.0), (x(p.high), mid + 5.0), WHISKER);
        let label = format!("{:.1}% (n={})", p.rate * 100.0, p.n);
        svg.text(x(p.high) + 6.0, mid + 4.0, &label, 12.0, "start", None);
    }
    svg.line((left, top), (left, bottom), AXIS);
    svg.line((left, bottom), (left + width, bottom), AXIS);
    svg.text(left + width / 2.0, bottom + 34.0, "refusal rate (%), with Wilson interval", 12.0, "middle", None);
    for (k, m) in models.iter().enumerate() {
        let ly = bottom + 60.0 + 18.0 * k as f64;
        svg.rect(left, ly - 10.0, 12.0, 12.0, PALETTE[k % PALETTE.len()]);
        svg.text(left + 18.0, ly, m, 12.0, "start", None);
    }
    svg.finish()
}

/// Colours for up to eight languages (then they repeat), readable on white and for the
/// common colour-vision deficiencies (Okabe-Ito).
const PALETTE: [&str; 8] = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"];

/// At most this many points are drawn (every k-th, in record order), so the SVG stays small.
const MAX_POINTS: usize = 3000;

/// A 2-D projection of the responses (the embeddings' PCA, axes "PC", or a distance
/// matrix's principal coordinates, axes "PCo"), one colour per language, with a legend and an
/// optional note under the title.
pub fn projection(p: &super::permanova::LanguageProjection, title: &str, axis: &str, note: Option<&str>) -> String {
    let (left, top, size) = (40.0, 40.0, 360.0);
    let mut svg = Svg::new(left + size + 140.0, top + size + 50.0, title);
    svg.text(left + size / 2.0, 20.0, title, 13.0, "middle", None);
    if let Some(note) = note {
        svg.text(left + size / 2.0, 34.0, note, 10.0, "middle", None);
    }
    let points = &p.projection.points;
    let range = |axis: usize| {
        points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| (lo.min(q[axis]), hi.max(q[axis])))
    };
    let ((x0, x1), (y0, y1)) = (range(0), range(1));
    // One scale for both axes: distances read the same across and up, and an axis with almost
    // no variance does not spread its rounding noise over the whole height.
    let half = (x1 - x0).max(y1 - y0) / 2.0;
    let half = if half.is_finite() && half > 0.0 { half } else { 1.0 };
    let mid = |lo: f64, hi: f64| if lo.is_finite() && hi.is_finite() { (lo + hi) / 2.0 } else { 0.0 };
    let (cx, cy) = (mid(x0, x1), mid(y0, y1));
    let x = |v: f64| left + size * (0.5 + (v - cx) / (2.0 * half));
    let y = |v: f64| top + size - size * (0.5 + (v - cy) / (2.0 * half));
    let languages: Vec<&String> = p.languages.iter().collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let colour = |l: &String| PALETTE[languages.iter().position(|k| *k == l).unwrap_or(0) % PALETTE.len()];
    // One point in `step` of each language (striding over record order would follow the
    // order of languages in the records and could drop whole languages).
    let step = points.len().div_ceil(MAX_POINTS).max(1);
    let mut seen: std::collections::BTreeMap<&String, usize> = std::collections::BTreeMap::new();
    for (q, l) in points.iter().zip(&p.languages) {
        let k = seen.entry(l).or_default();
        if (*k).is_multiple_of(step) {
            svg.circle(x(q[0]), y(q[1]), 2.2, colour(l));
        }
        *k += 1;
    }
    svg.line((left, top + size), (left + size, top + size), AXIS);
    svg.line((left, top), (left, top + size), AXIS);
    let [e1, e2] = p.projection.explained;
    let axes = format!("{axis}1 ({:.0}% of variance) across, {axis}2 ({:.0}%) up", e1 * 100.0, e2 * 100.0);
    svg.text(left + size / 2.0, top + size + 20.0, &axes, 11.0, "middle", None);
    if step > 1 {
        svg.text(
            left + size / 2.0,
            top + size + 36.0,
            &format!("one in {step} responses of each language shown ({} in all)", points.len()),
            10.0,
            "middle",
            None,
        );
    }
    for (i, l) in languages.iter().enumerate() {
        let ly = top + 10.0 + 18.0 * i as f64;
        svg.circle(left + size + 20.0, ly - 4.0, 5.0, colour(l));
        svg.text(left + size + 32.0, ly, l, 12.0, "start", None);
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(language: &str, model: Option<&str>, refused: u64) -> Rate {
        let interval = crate::stats::proportion::wilson(refused, 20, 0.95);
        Rate { language: language.into(), topic: None, model: model.map(String::from), refused, n: 20, interval }
    }

    #[test]
    fn rates_per_model_are_labelled_and_coloured_with_a_legend() {
        let rates =
            [rate("en", Some("sim:fair"), 2), rate("en", Some("sim:skewed"), 9), rate("es", Some("sim:fair"), 3)];
        let svg = refusal_rates(&rates, "t");
        assert!(svg.contains(">en · sim:fair</text>") && svg.contains(">en · sim:skewed</text>"), "{svg}");
        assert!(svg.contains(">es · sim:fair</text>"));
        // Each model's bars in its colour, and a legend swatch of that colour beside its name.
        let bars = |c: &str| svg.matches(&format!("fill=\"{c}\"")).count();
        assert_eq!((bars(PALETTE[0]), bars(PALETTE[1])), (3, 2), "two bars and a swatch, one bar and a swatch");
        assert!(svg.contains(">sim:fair</text>") && svg.contains(">sim:skewed</text>"));
        // Without models: one colour, language labels, no legend.
        let plain = refusal_rates(&[rate("en", None, 2)], "t");
        assert!(plain.contains(">en</text>") && plain.contains(BAR));
    }
}
