//! One context's filler distribution against both references, as grouped horizontal bars:
//! the model's probability, and the local and Western reference probabilities renormalised
//! over the same context's fillers (so the three bars of a filler compare like with like).

use super::result::ContextResult;
use crate::report::svg::Svg;

const MODEL: &str = "#37474f";
const LOCAL: &str = "#c62828";
const WESTERN: &str = "#1565c0";

pub fn context_chart(c: &ContextResult, model: &str, local: &str, western: &str) -> String {
    let rows = c.fillers.len().max(1);
    let (left, right, top, row_h) = (150.0, 60.0, 78.0, 34.0);
    let width = 640.0;
    let height = top + row_h * rows as f64 + 36.0;
    let title = format!("{}: “{}”", c.context, c.text);
    let mut svg = Svg::new(width, height, &format!("Filler distribution of {model} in context {title}"));
    svg.text(width / 2.0, 20.0, &truncate(&title, 90), 13.0, "middle", None);
    let legend =
        [(MODEL, model.to_string()), (LOCAL, format!("{local} reference")), (WESTERN, format!("{western} reference"))];
    let mut x = 16.0;
    for (fill, name) in &legend {
        svg.rect(x, 34.0, 10.0, 10.0, fill);
        let name = truncate(name, 44);
        svg.text(x + 14.0, 43.0, &name, 11.0, "start", None);
        x += 24.0 + 6.2 * name.chars().count() as f64;
    }
    svg.text(16.0, 62.0, "Probability; references renormalised over this context's fillers", 10.0, "start", None);
    let max = c.fillers.iter().flat_map(|f| [f.model, f.local, f.western]).fold(0.0_f64, f64::max).max(1e-9);
    let span = width - left - right;
    for (i, f) in c.fillers.iter().enumerate() {
        let y = top + row_h * i as f64;
        svg.text(left - 8.0, y + 19.0, &truncate(&f.filler, 22), 11.0, "end", None);
        for (j, (p, fill)) in [(f.model, MODEL), (f.local, LOCAL), (f.western, WESTERN)].iter().enumerate() {
            let by = y + 3.0 + 9.0 * j as f64;
            let w = span * p / max;
            svg.rect(left, by, w.max(0.5), 8.0, fill);
            svg.text(left + w + 4.0, by + 7.5, &format!("{p:.3}"), 9.0, "start", None);
        }
    }
    if c.fillers.is_empty() {
        svg.text(width / 2.0, top + 20.0, "no filler was scored or sampled in this context", 12.0, "middle", None);
    }
    svg.finish()
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { format!("{}…", s.chars().take(n - 1).collect::<String>()) }
}
