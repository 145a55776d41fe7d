//! A small SVG writer. Charts are drawn by hand rather than with plotters because plotters,
//! on wasm32, measures text through the DOM: it panics in a Web Worker (where our charts are
//! drawn) and would lay out differently in the browser than natively.

use std::fmt::Write;

// The verdict colours every chart shares: meets, fails, inconclusive, no data.
pub const GREEN: &str = "#2e7d32";
pub const RED: &str = "#c62828";
pub const AMBER: &str = "#ef8f00";
pub const GREY: &str = "#9e9e9e";

/// Escapes text for SVG content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
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

    pub fn finish(self) -> String {
        let (w, h) = (self.width, self.height);
        let title = escape(&self.title);
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" role=\"img\" aria-label=\"{title}\" font-family=\"system-ui, sans-serif\">\n<title>{title}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n{}</svg>\n",
            self.body
        )
    }
}
