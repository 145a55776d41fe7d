//! A small SVG writer. Charts are drawn by hand rather than with plotters because plotters,
//! on wasm32, measures text through the DOM: it panics in a Web Worker (where our charts are
//! drawn) and would lay out differently in the browser than natively.

use std::fmt::Write;

// The verdict colours every chart shares: meets, fails, inconclusive, no data.
pub const GREEN: &str = "#2e7d32";
pub const RED: &str = "#c62828";
pub const AMBER: &str = "#ef8f00";
pub const GREY: &str = "#9e9e9e";

/// Escapes text for SVG (and HTML) content and attribute values. Bidirectional controls are
/// written visibly (`[U+202E]`): text from a model or a user must not reorder what follows it.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            c if crate::text::bidi::is_control(c) => {
                let _ = write!(out, "[U+{:04X}]", c as u32);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// How a line is drawn.
#[derive(Debug, Clone, Copy)]
pub struct Pen {
    pub colour: &'static str,
    pub width: f64,
    /// An SVG dash pattern such as "6 4", or solid.
    pub dash: Option<&'static str>,
}

/// An SVG document being written; numbers are rounded to 0.1 px so output is stable.
pub struct Svg {
    body: String,
    width: f64,
    height: f64,
    title: String,
}

impl Svg {
    pub fn new(width: f64, height: f64, title: &str) -> Svg {
        Svg { body: String::new(), width, height, title: title.to_string() }
    }

    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        let _ = writeln!(self.body, r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{fill}"/>"#);
    }

    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), pen: Pen) {
        let dash = pen.dash.map(|d| format!(r#" stroke-dasharray="{d}""#)).unwrap_or_default();
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{}" stroke-width="{}"{dash}/>"#,
            pen.colour, pen.width
        );
    }

    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str) {
        let pts: Vec<String> = points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        let _ = writeln!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{stroke}" stroke-width="2"/>"#,
            pts.join(" ")
        );
    }

    pub fn polygon(&mut self, points: &[(f64, f64)], fill: &str) {
        let pts: Vec<String> = points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        let _ = writeln!(self.body, r#"<polygon points="{}" fill="{fill}"/>"#, pts.join(" "));
    }

    pub fn circle(&mut self, x: f64, y: f64, r: f64, fill: &str) {
        let _ = writeln!(self.body, r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{fill}"/>"#);
    }

    /// Text anchored at (x, y); `rotate` turns it about that point, in degrees.
    pub fn text(&mut self, x: f64, y: f64, text: &str, size: f64, anchor: &str, rotate: Option<f64>) {
        let transform = rotate.map(|r| format!(r#" transform="rotate({r} {x:.1} {y:.1})""#)).unwrap_or_default();
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" font-size="{size}" text-anchor="{anchor}"{transform}>{}</text>"#,
            escape(text)
        );
    }

    /// Text no wider than `max` (estimated, see [`text_width`]): a longer one is cut at the end
    /// with "…" and keeps its whole wording in a tooltip, so a label never runs off the chart.
    pub fn label(&mut self, (x, y): (f64, f64), text: &str, size: f64, anchor: &str, rotate: Option<f64>, max: f64) {
        if text_width(text, size) <= max {
            return self.text(x, y, text, size, anchor, rotate);
        }
        let mut cut = String::new();
        for c in text.chars() {
            if text_width(&cut, size) + text_width(&format!("{c}…"), size) > max {
                break;
            }
            cut.push(c);
        }
        let transform = rotate.map(|r| format!(r#" transform="rotate({r} {x:.1} {y:.1})""#)).unwrap_or_default();
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" font-size="{size}" text-anchor="{anchor}"{transform}><title>{}</title>{}…</text>"#,
            escape(text),
            escape(cut.trim_end())
        );
    }

    pub fn finish(self) -> String {
        let (w, h) = (self.width, self.height);
        let title = escape(&self.title);
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" role=\"img\" aria-label=\"{title}\" font-family=\"system-ui, sans-serif\">\n<title>{title}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n{}</svg>\n",
            self.body
        )
    }
}

/// An estimate of how wide `text` is drawn at `size` px in a sans-serif face, erring wide: the
/// writer cannot measure text (see the module docs), and a margin sized from this keeps labels
/// inside the picture. The widths (in em) are DejaVu Sans's, the widest of the usual fallbacks
/// for system-ui; wide scripts (CJK, Hangul, emoji) count as one em.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars()
        .map(|c| match c {
            '\u{1100}'..='\u{115F}'
            | '\u{2E80}'..='\u{A4CF}'
            | '\u{AC00}'..='\u{D7A3}'
            | '\u{F900}'..='\u{FAFF}'
            | '\u{FE30}'..='\u{FE4F}'
            | '\u{FF00}'..='\u{FF60}'
            | '\u{1F300}'..='\u{1FAFF}' => 1.0,
            'i' | 'l' | 'j' | '.' | ',' | ' ' | '\'' | '|' | '!' | ':' | ';' => 0.33,
            't' | 'f' | 'r' | '(' | ')' | '/' | '[' | ']' | '-' => 0.43,
            'm' => 0.98,
            'w' | 'W' | 'M' => 0.9,
            c if c.is_uppercase() => 0.75,
            _ => 0.64,
        })
        .sum::<f64>()
        * size
}

/// The left margin for right-aligned row labels: as wide as the widest one (plus a gap), at
/// least `min` and at most `max`; labels past `max` are cut by [`Svg::label`].
pub fn label_margin<'a>(labels: impl IntoIterator<Item = &'a str>, size: f64, min: f64, max: f64) -> f64 {
    let widest = labels.into_iter().map(|l| text_width(l, size)).fold(0.0, f64::max);
    (widest + 18.0).clamp(min, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_label_is_cut_to_fit_and_keeps_its_words_in_a_tooltip() {
        let long = "gpt-4o-mini-2024-07-18 gender_bias en_us sentence_completion/observational (n=12)";
        let mut svg = Svg::new(400.0, 100.0, "t");
        svg.label((200.0, 20.0), long, 11.0, "end", None, 150.0);
        svg.label((200.0, 40.0), "short", 11.0, "end", None, 150.0);
        let out = svg.finish();
        assert!(out.contains(&format!("<title>{long}</title>gpt-4o")), "{out}");
        let cut = out.split(&format!("<title>{long}</title>")).nth(1).unwrap().split('<').next().unwrap();
        assert!(cut.ends_with('…') && text_width(cut, 11.0) <= 150.0, "{cut}");
        assert!(out.contains(">short</text>"));
        // Hangul counts as wide: five syllables at 10 px need 50 px.
        assert_eq!(text_width("한국어입니", 10.0), 50.0);
        assert_eq!(label_margin(["ab", long], 11.0, 120.0, 400.0), 400.0);
        assert_eq!(label_margin(["ab"], 11.0, 120.0, 400.0), 120.0);
    }
}
