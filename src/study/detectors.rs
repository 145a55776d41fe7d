//! Every refusal detector side by side, per model and language, for the methods that detect
//! refusals (requirements and cross-lingual): the phrase lexicon ([`crate::text::refusal`]),
//! which decides the study's figures, the stricter opening rule
//! ([`crate::text::refusal_opening`]), and wherever the records carry their verdicts the NLI
//! model (columns `nli_p_refuse`, `nli_rule`, `nli_model`, the cascade rule included), the LLM
//! judge (`judge_verdict`) and uploaded labels (`refusal_label`), all read by
//! [`crate::crosslingual::detect`]. A provider's own refusal (status `refused`) counts as a
//! refusal for the lexicon and the opening rule. Per cell: each detector's refusals, every
//! pair's agreement (the 2x2 counts and Cohen's kappa with Fleiss, Cohen and Everitt's
//! interval, [`crate::trust`]), and where two detectors judge more than [`DEPENDS_SHARE`] of a
//! language's answers differently, the sentence that its refusal figures depend on the
//! detector.

use crate::crosslingual::detect::{self, Verdicts};
use crate::crosslingual::trust::{JUDGE, LEXICON, NLI, OPENING, nli_sentence_of};
use crate::record::Record;
use crate::text::refusal::Lexicon;
use crate::trust::{self, Cell, Item, Panel};
use serde::Serialize;

/// The detector whose verdicts the study's figures use.
pub const DECIDES: &str = LEXICON;
/// The records' own `refusal_label` column as a detector column.
pub const LABELS: &str = "uploaded labels";
/// Two detectors judging more than this share of a model's answers in a language differently
/// make that language's refusal figures depend on the detector. The tools' default
/// ([`crate::trust::DEFAULT_THRESHOLD`], one answer in ten), so a study says what the
/// Cross-lingual tool would: below it, a swap of detector moves a rate by less than ten points
/// even if every disagreement went one way.
pub const DEPENDS_SHARE: f64 = trust::DEFAULT_THRESHOLD;

/// The detector table of one method.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DetectorTable {
    /// The detector that decided the figures.
    pub decides: String,
    /// The detectors with verdicts in the records, in the cells' order.
    pub detectors: Vec<String>,
    /// [`DEPENDS_SHARE`].
    pub threshold: f64,
    pub confidence: f64,
    /// Per model and language: each detector's refusals, every pair's agreement.
    pub cells: Vec<Cell>,
    /// "M in L: the refusal figures depend on the detector: ..." for each cell past the share.
    pub statements: Vec<String>,
    /// What the methods text says about a model detector (the NLI model and its rule).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub about: Vec<String>,
}

/// A detector's name and how to read its verdict.
type Column = fn(&Verdicts) -> Option<bool>;

/// The detectors' panel over `records` (every answered record; the verdicts of
/// [`detect::detect_all`]). `with_labels` adds the records' `refusal_label` column as a
/// detector (the trust section measures against labels instead).
pub fn panel(records: &[Record], lexicon: &Lexicon, with_labels: bool) -> Panel {
    let (verdicts, _) = detect::detect_all("records", records, lexicon);
    let any = |f: fn(&Verdicts) -> Option<bool>| verdicts.iter().any(|v| f(v).is_some());
    let mut columns: Vec<(&str, Column)> = vec![(LEXICON, |v| v.lexicon), (OPENING, |v| v.opening)];
    if any(|v| v.nli) {
        columns.push((NLI, |v| v.nli));
    }
    if any(|v| v.judge) {
        columns.push((JUDGE, |v| v.judge));
    }
    if with_labels && any(|v| v.label) {
        columns.push((LABELS, |v| v.label));
    }
    let items = records
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| v.lexicon.is_some())
        .map(|(r, v)| Item {
            record_id: r.record_id.clone(),
            model: r.model.clone(),
            language: r.language.clone(),
            verdicts: columns.iter().map(|(_, f)| f(v)).collect(),
        })
        .collect();
    let judged_by_nli = records.iter().zip(&verdicts).filter(|(_, v)| v.nli.is_some()).map(|(r, _)| r);
    let about = if any(|v| v.nli) { vec![nli_sentence_of(judged_by_nli)] } else { vec![] };
    Panel {
        detectors: columns.iter().map(|(n, _)| n.to_string()).collect(),
        decides: DECIDES.into(),
        items,
        about,
        sample: None,
    }
}

/// The table over `records` (the report's target names as models); None without answers.
pub fn table(records: &[Record], confidence: f64) -> Option<DetectorTable> {
    static LEXICON_: std::sync::OnceLock<Lexicon> = std::sync::OnceLock::new();
    let lexicon = LEXICON_.get_or_init(Lexicon::builtin);
    let p = panel(records, lexicon, true);
    let t =
        trust::assess(&p, &trust::labels::Labels::default(), trust::Settings { threshold: DEPENDS_SHARE, confidence });
    (!t.cells.is_empty()).then_some(DetectorTable {
        decides: t.decides,
        detectors: t.detectors,
        threshold: t.threshold,
        confidence: t.confidence,
        cells: t.cells,
        statements: t.statements,
        about: t.about,
    })
}

/// The table in words for a section's notes: per model and language each detector's refusals,
/// then the cells whose figures depend on the detector.
pub fn notes(t: &DetectorTable) -> Vec<String> {
    let cells: Vec<String> = t
        .cells
        .iter()
        .map(|c| {
            let judged = c.counts.first().map_or(0, |k| k.judged);
            // A detector with verdicts on fewer answers (an NLI column filled for some records)
            // comes after, with its own n, so no count is read against the wrong one.
            let (same, fewer): (Vec<&trust::Count>, Vec<&trust::Count>) =
                c.counts.iter().partition(|k| k.judged == judged);
            let same: Vec<String> = same.iter().map(|k| format!("{} {}", k.detector, k.refused)).collect();
            let fewer: String =
                fewer.iter().map(|k| format!(", {} {} of {}", k.detector, k.refused, k.judged)).collect();
            format!("{} in {}: {} of {judged} answers{fewer}", c.model, c.language, same.join(", "))
        })
        .collect();
    let mut out = vec![format!("Refusal detectors (the {} decides): {}.", t.decides, cells.join("; "))];
    out.extend(t.statements.iter().cloned());
    out
}

/// The section's detector table as HTML (escaped): per model and language, each detector's
/// refusals and every pair's kappa with its interval.
pub fn html(o: &mut String, t: &DetectorTable) {
    use crate::report::svg::escape;
    use std::fmt::Write;
    let _ = writeln!(
        o,
        "<h3>Refusal detectors</h3>\n<p>The {} decides the figures. A language's refusal figures depend on the detector when two detectors judge more than {:.1}% of its answers differently (marked).</p>",
        escape(&t.decides),
        100.0 * t.threshold
    );
    o.push_str("<div class=\"wrap\"><table><thead><tr><th>Model</th><th>Language</th>");
    for d in &t.detectors {
        let _ = write!(o, "<th>{}</th>", escape(d));
    }
    let _ = writeln!(o, "<th>Kappa ({:.0}% interval)</th></tr></thead><tbody>", 100.0 * t.confidence);
    for c in &t.cells {
        let _ = write!(
            o,
            "<tr{}><td>{}</td><td>{}</td>",
            if c.depends_on_detector { " class=\"warn\"" } else { "" },
            escape(&c.model),
            escape(&c.language)
        );
        for k in &c.counts {
            let _ = write!(o, "<td class=\"num\">{} of {}</td>", k.refused, k.judged);
        }
        let pairs: Vec<String> = c
            .pairs
            .iter()
            .map(|p| {
                let k = match (&p.kappa_interval, p.kappa) {
                    (Some(k), _) => format!("{:.3} [{:.3}, {:.3}]", k.kappa, k.low, k.high),
                    (None, Some(k)) => format!("{k:.3}"),
                    _ => "undefined".into(),
                };
                format!("{}–{}: {k} ({} of {} differ)", p.a, p.b, p.disagree, p.n)
            })
            .collect();
        let _ = writeln!(o, "<td>{}</td></tr>", escape(&pairs.join("; ")));
    }
    // The statements are among the section's notes, printed above.
    o.push_str("</tbody></table></div>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_detector_that_judged_fewer_answers_names_its_own_n() {
        let count = |d: &str, judged, refused| trust::Count { detector: d.into(), judged, refused };
        let t = DetectorTable {
            decides: LEXICON.into(),
            detectors: vec![LEXICON.into(), NLI.into()],
            threshold: DEPENDS_SHARE,
            confidence: 0.95,
            cells: vec![Cell {
                model: "m".into(),
                language: "en".into(),
                counts: vec![count(LEXICON, 40, 4), count(OPENING, 40, 3), count(NLI, 25, 6)],
                pairs: vec![],
                depends_on_detector: false,
            }],
            statements: vec![],
            about: vec![],
        };
        let line = &notes(&t)[0];
        assert!(line.contains(&format!("m in en: {LEXICON} 4, {OPENING} 3 of 40 answers, {NLI} 6 of 25")), "{line}");
    }
}
