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

fn figure(f: &crate::trust::weighted::Figure) -> String {
    match (&f.value, &f.undefined) {
        (Some(e), _) => format!("{} [{}, {}]", pct(e.estimate), pct(e.low), pct(e.high)),
        (None, Some(why)) => format!("undefined: {why}"),
        _ => "undefined".into(),
    }
}

/// The two-phase figures per language, or why a language has none.
fn weighted(o: &mut String, t: &crate::trust::Trust) {
    for l in &t.labelled {
        let Some(w) = &l.weighted else {
            let _ = writeln!(
                o,
                "<p class=\"warn\">{}: no figures for all answers: {}</p>",
                escape(&l.language),
                escape(l.not_weighted.as_deref().unwrap_or(""))
            );
            continue;
        };
        let strata: Vec<String> = w
            .strata
            .iter()
            .map(|s| format!("{}: {} answers, {} labelled, {} refusals", s.stratum, s.answers, s.labelled, s.refusals))
            .collect();
        let _ = writeln!(
            o,
            "<p>{}, for all answers: true refusal rate {} ({}); PPV {}, NPV {}.</p>",
            escape(&l.language),
            escape(&figure(&w.rate)),
            escape(&strata.join("; ")),
            escape(&figure(&w.ppv)),
            escape(&figure(&w.npv))
        );
        o.push_str("<div class=\"wrap\"><table><thead><tr><th>Language</th><th>Detector</th><th>Sensitivity (weighted)</th><th>Specificity (weighted)</th><th>Kappa (weighted, point)</th></tr></thead><tbody>\n");
        for d in &w.detectors {
            let _ = writeln!(
                o,
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                escape(&l.language),
                escape(&d.detector),
                escape(&figure(&d.sensitivity)),
                escape(&figure(&d.specificity)),
                d.kappa.map_or("undefined".into(), |k| format!("{k:.3}"))
            );
        }
        o.push_str("</tbody></table></div>\n");
    }
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
            "<p>Against {} label(s) given by hand, per language (models pooled). The review sample takes up to k answers the deciding detector flagged and k it did not, per language, so it over-represents flagged answers when refusals are rare: where the labels were drawn by it, the figures for all answers weight each label by its stratum's answers over its labels (two-phase sampling, Cochran 1977; Wilson intervals on the Kish effective sample size, Korn and Graubard 1998).</p>",
            t.labels
        );
        weighted(o, t);
        o.push_str("<p>The labelled answers themselves (the sample's own figures, unweighted): sensitivity and specificity with Wilson intervals, kappa, and the refusal rate corrected for the detector's errors with them (Rogan and Gladen 1978, clipped to [0, 1]; Lang and Reiczigel 2014 interval).</p>\n");
        o.push_str("<div class=\"wrap\"><table><thead><tr><th>Language</th><th>Detector</th><th>Labels</th><th>Sensitivity (sample)</th><th>Specificity (sample)</th><th>Kappa (sample)</th><th>Raw rate</th><th>Corrected rate</th></tr></thead><tbody>\n");
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
