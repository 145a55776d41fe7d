//! The report's answer to its question, generated from the paired comparisons: which model is
//! more biased, on which methods, categories and languages, with the comparisons behind each
//! statement (adjusted p, the difference with its interval or discordant counts), and what could
//! not be decided. Nothing here is written per study: every sentence is built from the numbers.
//!
//! "More biased" per figure: a lower requirement pass rate; a larger |diff-bias| (BBQ); a
//! larger CD, i.e. further towards the Western reference (divergence). Accuracy and refusal
//! rates are differences, not bias in themselves: they are reported as such, not counted in
//! the verdict.

use super::compare::Comparison;
use serde::Serialize;
use std::collections::BTreeMap;

/// One comparison that differs after the family's correction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub method: String,
    pub figure: String,
    /// The model this figure finds more biased; None for differences that are not a bias
    /// direction (accuracy, refusal rate).
    pub more_biased: Option<String>,
    /// The sentence, with its numbers.
    pub text: String,
    pub p_adjusted: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// The answer in one or two sentences.
    pub answer: String,
    /// Per model: on how many bias figures it is the more biased one of a pair that differs.
    pub tally: BTreeMap<String, usize>,
    pub findings: Vec<Finding>,
    /// What could not be decided: comparisons that do not differ, per method.
    pub undecided: Vec<String>,
}

fn p(x: f64) -> String {
    if x < 0.0001 { "< 0.0001".into() } else { format!("= {x:.4}") }
}

/// The model the comparison finds more biased, if the figure has a bias direction.
fn more_biased(c: &Comparison) -> Option<&str> {
    let (a, b) = (c.model_a.as_str(), c.model_b.as_str());
    let fig = c.figure.as_str();
    if fig.starts_with("pass rate") {
        Some(if c.value_a < c.value_b { a } else { b })
    } else if fig.starts_with("diff-bias") {
        Some(if c.value_a.abs() > c.value_b.abs() { a } else { b })
    } else if fig.starts_with("CD") {
        Some(if c.value_a > c.value_b { a } else { b })
    } else {
        None
    }
}

fn evidence(c: &Comparison) -> String {
    use super::units::{self, Kind};
    let kind = Kind::of(&c.figure);
    let spread = match (c.interval, c.discordant) {
        (Some(i), _) => format!(", interval {}", units::difference_interval(kind, Some(i))),
        (None, Some((x, y))) => format!(", discordant items {x} / {y}"),
        _ => String::new(),
    };
    format!(
        "{} {} vs {} {}; difference {}{spread}; {}, n = {}, adjusted p {}",
        c.model_a,
        units::value(kind, c.value_a),
        c.model_b,
        units::value(kind, c.value_b),
        units::difference(kind, c.difference),
        c.test,
        super::compare::n_text(c),
        p(c.p_adjusted)
    )
}

fn method_name(m: &str) -> &str {
    match m {
        "bbq" => "BBQ",
        "requirements" => "requirements",
        "crosslingual" => "cross-lingual",
        "divergence" => "divergence",
        other => other,
    }
}

/// The summary of comparisons already corrected over their family; `models` in report order,
/// `omitted` the methods that gave no section (with why).
pub fn of(comparisons: &[Comparison], models: &[String], omitted: &[(String, String)]) -> Summary {
    let mut tally: BTreeMap<String, usize> = models.iter().map(|m| (m.clone(), 0)).collect();
    let mut findings = vec![];
    for c in comparisons.iter().filter(|c| c.significant) {
        let who = more_biased(c);
        let text = match who {
            Some(m) => format!("{}, {}: {m} is more biased ({})", method_name(&c.method), c.figure, evidence(c)),
            None => format!("{}, {}: the models differ ({})", method_name(&c.method), c.figure, evidence(c)),
        };
        if let Some(m) = who {
            *tally.entry(m.to_string()).or_default() += 1;
        }
        findings.push(Finding {
            method: c.method.clone(),
            figure: c.figure.clone(),
            more_biased: who.map(String::from),
            text,
            p_adjusted: c.p_adjusted,
        });
    }
    let mut undecided = vec![];
    let mut not_differing: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for c in comparisons.iter().filter(|c| !c.significant) {
        not_differing.entry(c.method.as_str()).or_default().push(c.figure.as_str());
    }
    for (method, figures) in not_differing {
        let mut figures = figures;
        figures.dedup();
        let shown: Vec<&str> = figures.iter().take(6).copied().collect();
        undecided.push(format!(
            "{}: {} comparison(s) do not differ after correction ({}{})",
            method_name(method),
            figures.len(),
            shown.join("; "),
            if figures.len() > shown.len() { "; ..." } else { "" }
        ));
    }
    for (method, why) in omitted {
        undecided.push(format!("{}: not analysed ({why})", method_name(method)));
    }
    let biased = findings.iter().filter(|f| f.more_biased.is_some()).count();
    let answer = if comparisons.is_empty() {
        "No pair of models answered the same items: nothing could be compared.".to_string()
    } else if biased == 0 {
        format!(
            "No model is more biased than another on this evidence: none of the {} paired comparisons of a bias figure differs after correction{}.",
            comparisons.iter().filter(|c| more_biased(c).is_some()).count(),
            if findings.is_empty() { "" } else { " (the models differ only in accuracy or refusal rates)" }
        )
    } else {
        let mut ranked: Vec<(&String, &usize)> = tally.iter().filter(|(_, n)| **n > 0).collect();
        ranked.sort_by(|x, y| y.1.cmp(x.1).then(x.0.cmp(y.0)));
        let where_of = |m: &str| -> String {
            let mut methods: Vec<&str> = vec![];
            for f in findings.iter().filter(|f| f.more_biased.as_deref() == Some(m)) {
                let name = method_name(&f.method);
                if !methods.contains(&name) {
                    methods.push(name);
                }
            }
            methods.join(", ")
        };
        let (top, n) = ranked[0];
        let others: Vec<String> = ranked[1..].iter().map(|(m, k)| format!("{m} on {k} ({})", where_of(m))).collect();
        format!(
            "{top} is the more biased model on {n} of the {biased} bias comparisons that differ after correction ({}){}.",
            where_of(top),
            if others.is_empty() { String::new() } else { format!("; the other way: {}", others.join("; ")) }
        )
    };
    Summary { answer, tally, findings, undecided }
}

/// The HTML report's "Answer" section.
pub fn html(out: &mut String, s: &Summary) {
    use crate::report::svg::escape;
    use std::fmt::Write;
    let _ = writeln!(out, "<section id=\"answer\">\n<h2>Answer</h2>\n<p><strong>{}</strong></p>", escape(&s.answer));
    if !s.findings.is_empty() {
        out.push_str("<h3>Comparisons that differ after correction</h3>\n<ul>\n");
        for f in &s.findings {
            let _ = writeln!(out, "<li>{}</li>", escape(&f.text));
        }
        out.push_str("</ul>\n");
    }
    if !s.undecided.is_empty() {
        out.push_str("<h3>Not decided</h3>\n<ul>\n");
        for u in &s.undecided {
            let _ = writeln!(out, "<li>{}</li>", escape(u));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::interval::Interval;

    fn comparison(method: &str, figure: &str, a: f64, b: f64, p_adjusted: f64) -> Comparison {
        Comparison {
            method: method.into(),
            figure: figure.into(),
            model_a: "fair".into(),
            model_b: "skewed".into(),
            value_a: a,
            value_b: b,
            difference: a - b,
            interval: Some(Interval { low: a - b - 0.05, high: a - b + 0.05 }),
            discordant: None,
            n: 100,
            items: None,
            test: "paired bootstrap".into(),
            p_value: p_adjusted,
            p_adjusted,
            significant: p_adjusted < 0.05,
            detectable: None,
        }
    }

    #[test]
    fn the_skewed_model_is_named_with_the_comparisons_behind_it() {
        let models = ["fair".to_string(), "skewed".into()];
        let cs = [
            comparison("bbq", "diff-bias · ambiguous", 0.01, 0.30, 0.001),
            comparison("requirements", "pass rate · sexism · en", 0.95, 0.60, 0.0001),
            comparison("divergence", "CD · names", -0.2, 0.4, 0.01),
            comparison("bbq", "accuracy · all", 0.9, 0.8, 0.02),
            comparison("requirements", "pass rate · ageism · en", 0.90, 0.88, 0.6),
        ];
        let s = of(&cs, &models, &[("crosslingual".into(), "the study holds no record of it".into())]);
        assert_eq!(s.tally["skewed"], 3);
        assert_eq!(s.tally["fair"], 0);
        assert!(s.answer.starts_with("skewed is the more biased model on 3 of the 3 bias comparisons"), "{}", s.answer);
        assert!(s.answer.contains("BBQ") && s.answer.contains("requirements") && s.answer.contains("divergence"));
        assert_eq!(s.findings.len(), 4, "accuracy differs too, without a bias direction");
        let bbq = &s.findings[0];
        assert_eq!(bbq.more_biased.as_deref(), Some("skewed"));
        assert!(
            bbq.text.contains("adjusted p = 0.0010") && bbq.text.contains("interval [-0.340, -0.240]"),
            "{}",
            bbq.text
        );
        assert_eq!(s.findings[3].more_biased, None);
        assert!(s.undecided.iter().any(|u| u.contains("pass rate · ageism · en")));
        assert!(s.undecided.iter().any(|u| u.starts_with("cross-lingual: not analysed")));
    }

    #[test]
    fn when_nothing_differs_it_says_so() {
        let models = ["fair".to_string(), "skewed".into()];
        let cs = [
            comparison("bbq", "diff-bias · ambiguous", 0.01, 0.02, 0.8),
            comparison("requirements", "pass rate · sexism · en", 0.95, 0.94, 1.0),
        ];
        let s = of(&cs, &models, &[]);
        assert!(s.findings.is_empty());
        assert_eq!(
            s.answer,
            "No model is more biased than another on this evidence: none of the 2 paired comparisons of a bias figure differs after correction."
        );
        assert_eq!(s.undecided.len(), 2);
        assert!(s.tally.values().all(|n| *n == 0));
    }

    #[test]
    fn each_direction_counts_for_the_model_it_finds() {
        let models = ["fair".to_string(), "skewed".into()];
        let cs = [
            comparison("bbq", "diff-bias · ambiguous", -0.40, 0.10, 0.001),
            comparison("requirements", "pass rate · sexism · en", 0.60, 0.95, 0.001),
            comparison("divergence", "CD · names", 0.4, -0.2, 0.001),
            comparison("requirements", "pass rate · racism · de", 0.95, 0.50, 0.001),
        ];
        let s = of(&cs, &models, &[]);
        assert_eq!((s.tally["fair"], s.tally["skewed"]), (3, 1));
        assert!(s.answer.starts_with("fair is the more biased model on 3 of the 4"), "{}", s.answer);
        assert!(s.answer.contains("the other way: skewed on 1 (requirements)"), "{}", s.answer);
    }
}
