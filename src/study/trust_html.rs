//! The report's "Refusal detectors" section ([`super::trust`]): per method, model and
//! language, each detector's refusals, every pair's disagreement and kappa with its interval,
//! the statements where the figures depend on the detector, and each detector against the
//! study's labels with the corrected refusal rate.

use super::trust::MethodTrust;
use crate::report::svg::escape;
use std::fmt::Write;

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn kappa(k: Option<&crate::stats::agreement::KappaInterval>, point: Option<f64>) -> String {
    match (k, point) {
        (Some(k), _) => format!("{:.3} [{:.3}, {:.3}]", k.kappa, k.low, k.high),
        (None, Some(p)) => format!("{p:.3}"),
        _ => "undefined".into(),
    }
}

fn interval(p: Option<&crate::stats::proportion::Proportion>) -> String {
    p.map_or("–".into(), |p| format!("{} [{}, {}] ({}/{})", pct(p.rate), pct(p.low), pct(p.high), p.successes, p.n))
}

pub fn render(o: &mut String, all: &[MethodTrust]) {
    if all.is_empty() {
        return;
    }
    o.push_str("<section id=\"detector-trust\">\n<h2>Refusal detectors</h2>\n");
    for m in all {
        let t = &m.trust;
        let _ = writeln!(
            o,
            "<h3>{}</h3>\n<p>The {} detector decides the figures; detectors compared: {}. A language's figures depend on the detector when two detectors judge more than {} of its answers differently. Kappa with its {} interval (Fleiss, Cohen and Everitt 1969).</p>",
            escape(&m.method),
            escape(&t.decides),
            escape(&t.detectors.join(", ")),
            pct(t.threshold),
            pct(t.confidence)
        );
        for s in &t.statements {
            let _ = writeln!(o, "<p class=\"warn\">{}</p>", escape(s));
        }
        o.push_str("<div class=\"wrap\"><table><thead><tr><th>Model</th><th>Language</th><th>Refusals per detector</th><th>Pair</th><th>Judged differently</th><th>Kappa</th></tr></thead><tbody>\n");
        for c in &t.cells {
            let counts: Vec<String> =
                c.counts.iter().map(|k| format!("{} {} of {}", k.detector, k.refused, k.judged)).collect();
            for p in &c.pairs {
                let _ = writeln!(
                    o,
                    "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{} – {}</td><td class=\"num\">{} of {} ({})</td><td class=\"num\">{}</td></tr>",
                    if c.depends_on_detector { " class=\"warn\"" } else { "" },
                    escape(&c.model),
                    escape(&c.language),
                    escape(&counts.join("; ")),
                    escape(&p.a),
                    escape(&p.b),
                    p.disagree,
                    p.n,
                    p.disagree_share.map_or("–".into(), pct),
                    kappa(p.kappa_interval.as_ref(), p.kappa)
                );
            }
        }
        o.push_str("</tbody></table></div>\n");
        if t.labelled.is_empty() {
            o.push_str("<p class=\"meta\">No labels: label the review sample in the Cross-lingual tab (or import a labels CSV) to measure each detector against them.</p>\n");
            continue;
        }
        let _ = writeln!(
            o,
            "<p>Against {} label(s) given by hand, per language (models pooled): sensitivity and specificity with Wilson intervals, kappa, and the refusal rate corrected for the detector's errors (Rogan and Gladen 1978, clipped to [0, 1]; Lang and Reiczigel 2014 interval). The review sample takes up to k answers the deciding detector flagged and k it did not, per language: when refusals are rare it over-represents flagged answers, so these figures hold for that sample, not for all answers, unless the labels are a random sample of the answers.</p>",
            t.labels
        );
        o.push_str("<div class=\"wrap\"><table><thead><tr><th>Language</th><th>Detector</th><th>Labels</th><th>Sensitivity</th><th>Specificity</th><th>Kappa</th><th>Raw rate</th><th>Corrected rate</th></tr></thead><tbody>\n");
        for l in &t.labelled {
            for d in &l.detectors {
                let raw = if d.judged > 0 { pct(d.refused as f64 / d.judged as f64) } else { "–".into() };
                let corrected = match (&d.corrected, &d.not_corrected) {
                    (Some(c), _) => format!(
                        "{} [{}, {}]{}",
                        pct(c.estimate),
                        pct(c.interval.low),
                        pct(c.interval.high),
                        if c.clipped { " (clipped to [0, 1])" } else { "" }
                    ),
                    (None, Some(why)) => format!("none: {why}"),
                    _ => "–".into(),
                };
                let _ = writeln!(
                    o,
                    "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                    escape(&l.language),
                    escape(&d.detector),
                    d.accuracy.confusion.n(),
                    interval(d.accuracy.sensitivity.as_ref()),
                    interval(d.accuracy.specificity.as_ref()),
                    kappa(d.accuracy.kappa.as_ref(), d.accuracy.agreement.kappa),
                    raw,
                    escape(&corrected)
                );
            }
        }
        o.push_str("</tbody></table></div>\n");
    }
    o.push_str("</section>\n");
}
