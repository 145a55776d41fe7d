//! The two refusal detectors side by side, per model, for the methods that detect refusals
//! (requirements and cross-lingual): the phrase lexicon ([`crate::text::refusal`]), which
//! decides the figures, and the stricter opening rule ([`crate::text::refusal_opening`]). A
//! provider's own refusal (status `refused`) counts as a refusal for both. The report gives
//! the counts and the disagreement, so a reader sees how much a refusal figure hangs on the
//! detector chosen.

use crate::record::{Record, Status};
use crate::text::refusal::Lexicon;
use serde::Serialize;

/// The detector whose verdict the figures use.
pub const DECIDES: &str = "lexicon";
/// The detector it is compared with.
pub const SECOND: &str = "opening rule";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DetectorRow {
    pub model: String,
    /// Answers both detectors judged (status ok or refused).
    pub judged: u64,
    /// Refusals by the lexicon (the deciding detector).
    pub lexicon: u64,
    /// Refusals by the opening rule.
    pub opening: u64,
    /// Answers the two judge differently.
    pub disagree: u64,
}

/// One row per model in `models` that has answers among `records`.
pub fn tally(records: &[Record], models: &[String]) -> Vec<DetectorRow> {
    static LEXICON: std::sync::OnceLock<Lexicon> = std::sync::OnceLock::new();
    let lexicon = LEXICON.get_or_init(Lexicon::builtin);
    models
        .iter()
        .filter_map(|m| {
            let mut row = DetectorRow { model: m.clone(), judged: 0, lexicon: 0, opening: 0, disagree: 0 };
            for r in records.iter().filter(|r| &r.model == m) {
                let (a, b) = match r.status {
                    Status::Refused => (true, true),
                    Status::Ok => {
                        // The opening rule looks for the lexicon's phrases in a prefix of the
                        // reply, so it can only say "refusal" where the lexicon does.
                        let lex = lexicon.find(&r.response, &r.language).is_some();
                        (lex, lex && crate::text::refusal_opening::refuses(lexicon, &r.response, &r.language))
                    }
                    _ => continue,
                };
                row.judged += 1;
                row.lexicon += u64::from(a);
                row.opening += u64::from(b);
                row.disagree += u64::from(a != b);
            }
            (row.judged > 0).then_some(row)
        })
        .collect()
}

/// The rows as one sentence for a section's notes.
pub fn note(rows: &[DetectorRow]) -> Option<String> {
    if rows.is_empty() {
        return None;
    }
    let parts: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{}: {} of {} answers refused by the {DECIDES}, {} by the {SECOND}, {} judged differently",
                r.model, r.lexicon, r.judged, r.opening, r.disagree
            )
        })
        .collect();
    Some(format!("Refusal detectors ({DECIDES} decides): {}.", parts.join("; ")))
}
