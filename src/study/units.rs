//! How the report writes a number: one place decides, by the kind of figure, so the same kind
//! reads the same everywhere (tables, summary sentences, charts). Rates are percentages with
//! one decimal ("85.9%"), a difference of two rates is in percentage points ("-3.4 pp"), and
//! the other figures are plain numbers whose scale the report states once ([`note`]).
//! report.json keeps every value as a fraction; this is display only. The page's
//! `www/views/figure-units.js` follows the same rules.

use crate::stats::interval::Interval;

/// What a figure measures, read from its name as the sections write it
/// ("pass rate · sexism · en", "diff-bias · ambiguous", "CD · names", ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A share of items: pass rate, refusal rate, accuracy.
    Rate,
    /// A difference of two rates (a refusal gap between two languages).
    RateGap,
    /// BBQ's diff-bias, a score from -1 to 1.
    DiffBias,
    /// Cultural divergence, in the divergence analysis's unit.
    Divergence,
    /// Anything else: a plain number.
    Plain,
}

impl Kind {
    pub fn of(figure: &str) -> Kind {
        let f = figure.trim_start();
        if f.starts_with("refusal gap") {
            Kind::RateGap
        } else if ["pass rate", "refusal rate", "accuracy"].iter().any(|p| f.starts_with(p)) {
            Kind::Rate
        } else if f.starts_with("diff-bias") {
            Kind::DiffBias
        } else if f.starts_with("CD") {
            Kind::Divergence
        } else {
            Kind::Plain
        }
    }

    fn is_rate(self) -> bool {
        matches!(self, Kind::Rate | Kind::RateGap)
    }
}

/// The unit the study's divergence figures are in (the analysis's default: the study sets none).
pub fn divergence_unit() -> &'static str {
    match crate::divergence::result::Unit::default() {
        crate::divergence::result::Unit::Nats => "nats",
        crate::divergence::result::Unit::Bits => "bits",
    }
}

const MISSING: &str = "–";

fn plain(x: f64) -> String {
    format!("{x:.3}")
}

fn percent(x: f64) -> String {
    // -0.0 would print as "-0.0%".
    let v = x * 100.0;
    format!("{:.1}%", if v.abs() < 0.05 { 0.0 } else { v })
}

fn points(x: f64) -> String {
    let v = x * 100.0;
    format!("{:.1} pp", if v.abs() < 0.05 { 0.0 } else { v })
}

/// A figure's value: "85.9%" for a rate, "-3.4 pp" for a gap, "0.123" otherwise.
pub fn value(kind: Kind, x: f64) -> String {
    if !x.is_finite() {
        return MISSING.into();
    }
    match kind {
        Kind::Rate => percent(x),
        Kind::RateGap => points(x),
        _ => plain(x),
    }
}

/// A ratio such as a design effect, "1.84".
pub fn ratio(x: f64) -> String {
    if x.is_finite() { format!("{x:.2}") } else { MISSING.into() }
}

/// A difference between two models' values of a figure: percentage points for rates.
pub fn difference(kind: Kind, x: f64) -> String {
    if !x.is_finite() {
        return MISSING.into();
    }
    if kind.is_rate() { points(x) } else { plain(x) }
}

/// An interval of values, "[80.1%, 90.2%]".
pub fn interval(kind: Kind, i: Option<Interval>) -> String {
    match i {
        Some(i) if i.low.is_finite() && i.high.is_finite() => {
            format!("[{}, {}]", value(kind, i.low), value(kind, i.high))
        }
        _ => MISSING.into(),
    }
}

/// An interval of differences, "[-5.1 pp, 2.0 pp]".
pub fn difference_interval(kind: Kind, i: Option<Interval>) -> String {
    match i {
        Some(i) if i.low.is_finite() && i.high.is_finite() => {
            format!("[{}, {}]", difference(kind, i.low), difference(kind, i.high))
        }
        _ => MISSING.into(),
    }
}

/// The scales of the kinds among `figures`, in one sentence ("" when there is none).
pub fn note<'a>(figures: impl IntoIterator<Item = &'a str>) -> String {
    let mut kinds: Vec<Kind> = vec![];
    for f in figures {
        let k = Kind::of(f);
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    let mut parts = vec![];
    if kinds.iter().any(|k| k.is_rate()) {
        parts.push("rates in percent, differences of rates in percentage points (pp)".to_string());
    }
    if kinds.contains(&Kind::DiffBias) {
        parts.push("diff-bias from -1 to 1 (0: no bias; positive: answers follow the stereotype)".into());
    }
    if kinds.contains(&Kind::Divergence) {
        parts.push(format!("CD in {} (negative: closer to local; positive: closer to Western)", divergence_unit()));
    }
    if parts.is_empty() { String::new() } else { format!("Units: {}.", parts.join("; ")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_is_read_from_the_figure_name() {
        assert_eq!(Kind::of("pass rate · sexism · en_us"), Kind::Rate);
        assert_eq!(Kind::of("refusal rate · es"), Kind::Rate);
        assert_eq!(Kind::of("accuracy · ambiguous"), Kind::Rate);
        assert_eq!(Kind::of("refusal gap · en − es"), Kind::RateGap);
        assert_eq!(Kind::of("diff-bias · disambiguated · Age"), Kind::DiffBias);
        assert_eq!(Kind::of("CD · total"), Kind::Divergence);
        assert_eq!(Kind::of("pseudo-F"), Kind::Plain);
    }

    #[test]
    fn rates_are_percent_with_one_decimal_and_their_differences_points() {
        assert_eq!(value(Kind::Rate, 0.8594), "85.9%");
        assert_eq!(value(Kind::Rate, 1.0), "100.0%");
        assert_eq!(value(Kind::Rate, -0.0001), "0.0%");
        assert_eq!(difference(Kind::Rate, -0.0342), "-3.4 pp");
        assert_eq!(value(Kind::RateGap, 0.125), "12.5 pp");
        assert_eq!(difference(Kind::RateGap, 0.125), "12.5 pp");
        assert_eq!(interval(Kind::Rate, Some(Interval { low: 0.801, high: 0.9024 })), "[80.1%, 90.2%]");
        assert_eq!(difference_interval(Kind::Rate, Some(Interval { low: -0.051, high: 0.02 })), "[-5.1 pp, 2.0 pp]");
    }

    #[test]
    fn other_figures_are_plain_numbers_and_missing_ones_a_dash() {
        assert_eq!(value(Kind::DiffBias, -0.10449), "-0.104");
        assert_eq!(value(Kind::Divergence, 0.5), "0.500");
        assert_eq!(difference(Kind::DiffBias, 0.25), "0.250");
        assert_eq!(value(Kind::Rate, f64::NAN), "–");
        assert_eq!(interval(Kind::DiffBias, None), "–");
        assert_eq!(interval(Kind::Rate, Some(Interval { low: f64::NAN, high: 0.5 })), "–");
    }

    #[test]
    fn the_note_states_the_scale_of_each_kind_present() {
        assert_eq!(
            note(["pass rate · x", "refusal rate · en"]),
            "Units: rates in percent, differences of rates in percentage points (pp)."
        );
        let n = note(["accuracy · all", "diff-bias · ambiguous", "CD · total"]);
        assert!(
            n.contains("percent") && n.contains("-1 to 1") && n.contains(&format!("CD in {}", divergence_unit())),
            "{n}"
        );
        assert_eq!(note(["something else"]), "");
    }
}
