//! The report as one self-contained HTML file: inline CSS (with print rules, so it prints to
//! PDF cleanly), the charts as inline SVG from the methods' own chart writers, no script and no
//! external request. Every number is read from the [`Report`] (rounded for display), which is
//! also written beside it as `report.json`.

use super::compare::{Comparison, Figure};
use super::report::Report;
use super::units::{self, Kind};
use crate::report::svg::escape;
use std::fmt::Write;

/// The report carries no script and loads nothing: its policy says so, so that a browser
/// refuses both even if text in it were ever read as markup. Inline styles (the CSS below,
/// the charts' SVG attributes) and data: images are all it needs.
pub const CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const CSS: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid #ccc;padding-bottom:.2rem}
h3{font-size:1.05rem;margin-top:1.4rem}
.meta{color:#555;font-size:.9rem}.badge{display:inline-block;background:#ef8f00;color:#000;font-weight:600;padding:.1rem .5rem;border-radius:.3rem;font-size:.85rem}
.wrap{overflow-x:auto;max-width:100%}table{border-collapse:collapse;width:100%;font-size:.85rem;margin:.6rem 0}th,td{border:1px solid #d0d0d0;padding:.25rem .4rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.yes{font-weight:600;color:#b71c1c}.warn{color:#8a4b00}
figure{margin:.8rem 0}figure svg{display:block;width:100%;max-width:48rem;height:auto}
p.units{margin-top:-.3rem}
.question{font-size:1.1rem;font-style:italic}
ol.refs li{margin-bottom:.3rem}
@page{size:A4;margin:15mm}
@media print{body{max-width:none;margin:0;padding:0;font-size:10pt}.wrap{overflow:visible}h2,h3,h4{break-after:avoid}
figure{break-inside:avoid}figure svg{max-width:none}thead{display:table-header-group}tr{break-inside:avoid}
table{font-size:8pt}th,td{padding:.1rem .2rem}td{overflow-wrap:anywhere}td.num{overflow-wrap:normal}td .meta{font-size:.9em}td.num{white-space:normal}
a{color:inherit;text-decoration:none}.screen-only{display:none}.print-only{display:block}}
@media screen{.print-only{display:none}}
";

fn p(x: f64) -> String {
    if x < 0.0001 { "&lt; 0.0001".into() } else { format!("{x:.4}") }
}

fn figures_table(out: &mut String, figures: &[Figure]) {
    // Wide tables scroll inside their box on a narrow screen instead of being cut off.
    out.push_str("<div class=\"wrap\"><table><thead><tr><th>Figure</th><th>Model</th><th>Value</th><th>n</th><th>Interval</th><th>Interval method</th><th>Cluster-robust interval</th><th>Design effect (clusters)</th><th>Verdicts disagree</th></tr></thead><tbody>\n");
    for f in figures {
        let kind = Kind::of(&f.figure);
        let (robust, deff, disagree) = match &f.clustered {
            Some(c) => (
                units::interval(kind, Some(c.interval)),
                format!("{} ({})", c.design_effect.map_or_else(|| "–".into(), units::ratio), c.clusters),
                if c.verdict_disagrees { "<span class=\"yes\">yes</span>".to_string() } else { "no".into() },
            ),
            None => ("–".into(), "–".into(), "–".into()),
        };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            escape(&f.figure),
            escape(&f.model),
            f.value.map_or_else(|| "–".into(), |v| units::value(kind, v)),
            f.n,
            units::interval(kind, f.interval),
            escape(&f.interval_method),
            robust,
            deff,
            disagree
        );
    }
    out.push_str("</tbody></table></div>\n");
    units_note(out, figures.iter().map(|f| f.figure.as_str()));
}

/// The scale of each kind of figure in the table above (rates in percent, ...).
fn units_note<'a>(out: &mut String, figures: impl IntoIterator<Item = &'a str>) {
    let note = units::note(figures);
    if !note.is_empty() {
        let _ = writeln!(out, "<p class=\"meta units\">{}</p>", escape(&note));
    }
}

fn comparisons_table(out: &mut String, comparisons: &[Comparison]) {
    if comparisons.is_empty() {
        out.push_str("<p>No paired comparison: fewer than two models answered the same items.</p>\n");
        return;
    }
    out.push_str("<div class=\"wrap\"><table><thead><tr><th>Figure</th><th>A</th><th>B</th><th>A</th><th>B</th><th>A − B</th><th>Interval / discordant</th><th>n</th><th>Test</th><th>p</th><th>p adjusted</th><th>Differs</th><th>Detectable at 80 % power</th></tr></thead><tbody>\n");
    for c in comparisons {
        let kind = Kind::of(&c.figure);
        let spread = match (c.interval, c.discordant) {
            (Some(i), _) => units::difference_interval(kind, Some(i)),
            (None, Some((a, b))) => format!("{a} / {b}"),
            _ => "–".into(),
        };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
            escape(&c.figure),
            escape(&c.model_a),
            escape(&c.model_b),
            units::value(kind, c.value_a),
            units::value(kind, c.value_b),
            units::difference(kind, c.difference),
            spread,
            super::compare::n_text(c),
            escape(&c.test),
            p(c.p_value),
            p(c.p_adjusted),
            if c.significant { "<span class=\"yes\">yes</span>" } else { "no" },
            c.detectable.map_or_else(|| "–".into(), |d| units::difference(kind, d))
        );
    }
    out.push_str("</tbody></table></div>\n");
}

/// What became of the planned calls, per model and language (`study::calls`).
fn calls_table(out: &mut String, calls: &super::calls::Calls) {
    if calls.rows.is_empty() {
        return;
    }
    let refusals = calls.rows.iter().any(|r| r.refused.is_some());
    out.push_str("<h3>Calls per model and language</h3>\n<div class=\"wrap\"><table class=\"calls\"><thead><tr><th>Model</th><th>Language</th><th>Answered</th><th>Out of choice</th>");
    let left_out = calls.rows.iter().any(|r| r.left_out.is_some());
    if refusals {
        out.push_str("<th>Refused</th>");
    }
    out.push_str("<th>Failed</th>");
    if left_out {
        out.push_str("<th>Left out</th>");
    }
    out.push_str("<th>Total</th></tr></thead><tbody>\n");
    for r in &calls.rows {
        let refused =
            if refusals { format!("<td class=\"num\">{}</td>", r.refused.unwrap_or(0)) } else { String::new() };
        let not_run = if r.not_run > 0 { format!(" ({} not run)", r.not_run) } else { String::new() };
        let left = if left_out { format!("<td class=\"num\">{}</td>", r.left_out.unwrap_or(0)) } else { String::new() };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>{refused}<td class=\"num\">{}{not_run}</td>{left}<td class=\"num\">{}</td></tr>",
            escape(&r.model),
            escape(if r.language.is_empty() { "–" } else { &r.language }),
            r.answered,
            r.out_of_choice,
            r.failed,
            r.total
        );
    }
    out.push_str("</tbody></table></div>\n");
    let _ = writeln!(out, "<p class=\"meta\">{}</p>", escape(&calls.figures_count));
}

/// The HTML report.
pub fn render(r: &Report) -> String {
    let mut o = String::with_capacity(64 * 1024);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        escape(&r.title)
    );
    let _ = writeln!(o, "<h1>{}</h1>", escape(&r.title));
    if !r.question.is_empty() {
        let _ = writeln!(o, "<p class=\"question\">{}</p>", escape(&r.question));
    }
    if r.models.iter().any(|m| m.simulated) {
        o.push_str("<p><span class=\"badge\">SIMULATED</span> Some models here are Evenhand's simulated model, not real ones.</p>\n");
    }
    let _ = writeln!(
        o,
        "<p class=\"meta\">Evenhand {} · report generated {} · study SHA-256 {} · every number below is in report.json beside this file.</p>",
        escape(&r.tool_version),
        escape(&r.generated_at),
        escape(&r.study_sha256)
    );
    o.push_str("<h2>Models</h2>\n<table><thead><tr><th>Target</th><th>Model</th><th>Simulated</th><th>Records</th><th>Failed</th><th>Refused</th></tr></thead><tbody>\n");
    for m in &r.models {
        let _ = writeln!(
            o,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(&m.target),
            escape(&m.model),
            if m.simulated { "yes" } else { "no" },
            m.records,
            m.failed,
            m.refused
        );
    }
    o.push_str("</tbody></table>\n");
    let _ = writeln!(
        o,
        "<p>{} paired comparison(s) across all methods form one family, corrected with {} (controls {}) at α = {}; {} differ after correction.</p>",
        r.family.size,
        escape(&r.family.correction),
        escape(&r.family.controls),
        r.family.alpha,
        r.family.significant
    );
    let _ = writeln!(o, "<p id=\"replicates-note\">{}</p>", escape(&r.family.replicates_note));
    super::summary::html(&mut o, &r.answer);
    for s in &r.sections {
        let _ = writeln!(
            o,
            "<section id=\"{}\">\n<h2>{}</h2>\n<p>{}</p>",
            escape(&s.method),
            escape(&s.title),
            escape(&s.summary)
        );
        // Our own chart writers' SVG, its text escaped where written.
        let _ = writeln!(o, "<figure>{}</figure>", s.chart_svg);
        o.push_str("<h3>Per model</h3>\n");
        figures_table(&mut o, &s.figures);
        calls_table(&mut o, &s.calls);
        o.push_str("<h3>Paired differences</h3>\n");
        comparisons_table(&mut o, &s.comparisons);
        for n in &s.notes {
            let _ = writeln!(o, "<p>{}</p>", escape(n));
        }
        if let Some(t) = &s.detectors {
            super::detectors::html(&mut o, t);
        }
        let statuses: Vec<String> = s.statuses.iter().map(|(k, v)| format!("{v} {k}")).collect();
        let _ = writeln!(o, "<p class=\"meta\">Records: {}.</p>\n</section>", escape(&statuses.join(", ")));
    }
    if !r.breakdowns.is_empty() {
        o.push_str("<h2>Breakdowns</h2>\n<p>BBQ per category and language, cross-lingual refusals per topic and per language pair (a model's gap is its refusal rate in the first language minus the second), with the paired model differences; these comparisons are corrected as a family of their own.</p>\n");
        for b in &r.breakdowns {
            let _ = writeln!(o, "<h3>{} by {}</h3>", escape(&b.method), escape(&b.by));
            if let Some(n) = b.paired_replicates {
                let _ = writeln!(
                    o,
                    "<p class=\"meta\">Paired bootstraps: {n} replicates, as many as this family needs.</p>"
                );
            }
            figures_table(&mut o, &b.figures);
            comparisons_table(&mut o, &b.comparisons);
        }
    }
    super::items_html::render(&mut o, &r.changes);
    super::trust_html::render(&mut o, &r.trust);
    o.push_str("<h2>Methods</h2>\n");
    for para in &r.methods_text {
        let _ = writeln!(o, "<p>{}</p>", escape(para));
    }
    o.push_str("<h2>Limitations</h2>\n<ul>\n");
    for l in &r.limitations {
        let _ = writeln!(o, "<li class=\"warn\">{}</li>", escape(l));
    }
    o.push_str("</ul>\n<h2>References</h2>\n<ol class=\"refs\">\n");
    for c in &r.references {
        let _ = writeln!(o, "<li>{}</li>", escape(&c.text));
    }
    o.push_str("</ol>\n</body>\n</html>\n");
    o
}

/// `report.json`: the report as pretty JSON, the same bytes from the page and the CLI.
pub fn report_json(r: &Report) -> String {
    let mut s = serde_json::to_string_pretty(r).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_html_is_self_contained() {
        let s = crate::study::example::session().unwrap();
        let html = render(&s.report("2026-01-01T00:00:00Z").unwrap());
        let lower = html.to_lowercase();
        assert!(!lower.contains("<script"), "no script");
        for attr in ["src=\"http", "href=\"http", "src='http", "href='http", "url(http", "@import"] {
            assert!(!lower.contains(attr), "external reference {attr}");
        }
        assert_eq!(lower.matches("<svg").count(), 4, "one chart per method");
        assert!(html.contains("SIMULATED"));
        assert!(html.contains("@media print"));
    }
}
