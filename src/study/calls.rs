//! What became of every planned call, per model and language: answered (an answer the method
//! read and placed), out of choice (an answer it could not place: none of the choices, or
//! unreadable), refused (only where the method detects refusals) and failed (the call failed,
//! gave no usable response, is pending, or was never run). The four add up to the total, which
//! is at least the calls the study planned; each section states which columns its figures
//! count, so a reader sees every answer the figures leave out.

use crate::record::{Record, Status};
use serde::Serialize;
use std::collections::BTreeMap;

/// How the method took one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Answered,
    OutOfChoice,
    Refused,
    Failed,
    /// A call the method could not analyse at all (divergence: its aspect has no reference, or
    /// the probe set does not name its context): in no figure, whatever its answer.
    LeftOut,
}

impl Kind {
    /// A record the method did not read: a call with no usable response.
    pub fn unread(r: &Record) -> Kind {
        match r.status {
            Status::Unparseable => Kind::OutOfChoice,
            _ => Kind::Failed,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CallRow {
    pub model: String,
    pub language: String,
    pub answered: u64,
    pub out_of_choice: u64,
    /// None where the method does not detect refusals (its answers are answered or out of choice).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<u64>,
    /// Failed calls, including the planned calls with no record (`not_run`).
    pub failed: u64,
    /// Planned calls of this model and language without a record (pending, never sent).
    pub not_run: u64,
    /// Calls the method could not analyse (see [`Kind::LeftOut`]); None where it has no such case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_out: Option<u64>,
    /// answered + out_of_choice + refused + failed + left_out.
    pub total: u64,
    /// The calls the study planned for this model and language; None for a model it does not
    /// name (uploaded records), whose total is its records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planned: Option<u64>,
}

/// One section's table.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Calls {
    /// Which columns the section's figures count, in words.
    pub figures_count: String,
    pub rows: Vec<CallRow>,
}

/// Counts per (model, language) as a section classifies its records.
#[derive(Debug, Default)]
pub struct Tally {
    refusals: bool,
    cells: BTreeMap<(String, String), CallRow>,
}

impl Tally {
    /// `refusals`: whether the method detects refusals (else the column is left out).
    pub fn new(refusals: bool) -> Tally {
        Tally { refusals, cells: BTreeMap::new() }
    }

    pub fn add(&mut self, model: &str, language: &str, kind: Kind) {
        let row = self.cells.entry((model.to_string(), language.to_string())).or_insert_with(|| CallRow {
            model: model.into(),
            language: language.into(),
            refused: self.refusals.then_some(0),
            ..CallRow::default()
        });
        match kind {
            Kind::Answered => row.answered += 1,
            Kind::OutOfChoice => row.out_of_choice += 1,
            // A method without a refusal detector never classifies a call so; kept visible anyway.
            Kind::Refused => *row.refused.get_or_insert(0) += 1,
            Kind::Failed => row.failed += 1,
            Kind::LeftOut => *row.left_out.get_or_insert(0) += 1,
        }
        row.total += 1;
    }

    /// The table, models in `order`, languages in order of name.
    pub fn finish(self, order: &[String], figures_count: &str) -> Calls {
        let rank = |m: &str| order.iter().position(|o| o == m).unwrap_or(order.len());
        let mut rows: Vec<CallRow> = self.cells.into_values().collect();
        rows.sort_by(|a, b| (rank(&a.model), &a.model, &a.language).cmp(&(rank(&b.model), &b.model, &b.language)));
        Calls { figures_count: figures_count.into(), rows }
    }
}

/// Adds the planned calls to `calls`: per model in `targets` (report names of the study's
/// targets) and language, `planned` calls; those without a record are failed (not run), and a
/// target or language with no record at all gets a row of its own.
pub fn plan(calls: &mut Calls, targets: &[String], planned: &BTreeMap<String, u64>, refusals: bool) {
    for model in targets {
        for (language, &n) in planned {
            let at = calls.rows.iter().position(|r| &r.model == model && &r.language == language);
            let row = match at {
                Some(i) => &mut calls.rows[i],
                None => {
                    calls.rows.push(CallRow {
                        model: model.clone(),
                        language: language.clone(),
                        refused: refusals.then_some(0),
                        ..CallRow::default()
                    });
                    calls.rows.last_mut().expect("just pushed")
                }
            };
            // Left-out calls are never planned (the study plans no call it cannot analyse).
            let missing = n.saturating_sub(row.total - row.left_out.unwrap_or(0));
            row.not_run = missing;
            row.failed += missing;
            row.total += missing;
            row.planned = Some(n);
        }
    }
    let rank = |m: &str| targets.iter().position(|o| o == m).unwrap_or(targets.len());
    calls.rows.sort_by(|a, b| (rank(&a.model), &a.model, &a.language).cmp(&(rank(&b.model), &b.model, &b.language)));
}

/// The study's planned calls per method and language (its run cases, samples included).
pub fn planned(cases: &[Record]) -> BTreeMap<String, BTreeMap<String, u64>> {
    let mut out: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for c in cases {
        *out.entry(c.method.clone()).or_default().entry(c.language.clone()).or_default() += 1;
    }
    out
}

/// BBQ: each record by how the judge read it (`placed`: the judged answers with their record
/// index), under its example's language; a response that names no example of the data (or
/// repeats one) is out of choice, a record with no response failed. No refusal detector.
pub fn bbq(
    examples: &[crate::bbq::Example],
    records: &[Record],
    placed: &[(usize, u32, crate::bbq::metrics::Judged)],
) -> Tally {
    let mut read = vec![None; records.len()];
    for (i, _, j) in placed {
        read[*i] = Some(j);
    }
    let mut t = Tally::new(false);
    for (r, j) in records.iter().zip(read) {
        match j {
            Some(j) => {
                let kind = if j.prediction.is_some() { Kind::Answered } else { Kind::OutOfChoice };
                t.add(&r.model, &examples[j.example].language, kind);
            }
            None if matches!(r.status, Status::Ok | Status::Refused) => t.add(&r.model, &r.language, Kind::OutOfChoice),
            None => t.add(&r.model, &r.language, Kind::unread(r)),
        }
    }
    t
}

/// Requirements: each record by its oracle's outcome (passed or failed: answered; refused by
/// the provider or the lexicon: refused; unreadable: out of choice; error or not judged: failed).
pub fn requirements(records: &[Record], evaluations: &[crate::requirements::outcome::Evaluation]) -> Tally {
    use crate::requirements::outcome::Outcome;
    let by_id: BTreeMap<&str, Outcome> = evaluations.iter().map(|e| (e.record_id.as_str(), e.outcome)).collect();
    let mut t = Tally::new(true);
    for r in records {
        let kind = match by_id.get(r.record_id.as_str()) {
            Some(Outcome::Passed | Outcome::Failed) => Kind::Answered,
            Some(Outcome::Refused) => Kind::Refused,
            Some(Outcome::Unparseable) => Kind::OutOfChoice,
            Some(Outcome::Error) => Kind::Failed,
            None => Kind::unread(r),
        };
        t.add(&r.model, &r.language, kind);
    }
    t
}

/// Cross-lingual: each record by the deciding detector's verdict (`refused`, None where it gave
/// none): refused or answered; a response it could not read is out of choice.
pub fn crosslingual<'a>(judged: impl Iterator<Item = (&'a Record, Option<bool>)>) -> Tally {
    let mut t = Tally::new(true);
    for (r, refused) in judged {
        let kind = match refused {
            Some(true) => Kind::Refused,
            Some(false) => Kind::Answered,
            None if r.status == Status::Ok => Kind::OutOfChoice,
            None => Kind::unread(r),
        };
        t.add(&r.model, &r.language, kind);
    }
    t
}

/// Divergence (sampling mode): a completion that starts with a known filler is answered (a
/// sample of m_c), one that does not is out of choice; refused by the provider is refused;
/// a call of an aspect without both references, or of a context the probe set does not name,
/// is left out. Scoring mode (log-probabilities) makes no calls of this kind: no table.
pub fn divergence(records: &[Record], analysis: &crate::divergence::result::Analysis) -> Tally {
    use crate::divergence::result::Read;
    let mut t = Tally::new(false);
    for r in records {
        let kind = match r.status {
            Status::Ok => match analysis.reads.get(&(r.model.clone(), r.record_id.clone())) {
                Some(Read::Matched) => Kind::Answered,
                Some(Read::Unmatched) => Kind::OutOfChoice,
                None => Kind::LeftOut,
            },
            Status::Refused => Kind::Refused,
            _ => Kind::unread(r),
        };
        t.add(&r.model, &r.language, kind);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planned_calls_without_a_record_are_failed_and_the_columns_add_up() {
        let mut t = Tally::new(true);
        for k in [Kind::Answered, Kind::Answered, Kind::OutOfChoice, Kind::Refused, Kind::Failed] {
            t.add("a", "en", k);
        }
        let mut calls = t.finish(&["a".into()], "answered");
        let planned = BTreeMap::from([("en".to_string(), 8), ("de".to_string(), 2)]);
        plan(&mut calls, &["a".into(), "b".into()], &planned, true);
        let row = |m: &str, l: &str| calls.rows.iter().find(|r| r.model == m && r.language == l).unwrap().clone();
        let en = row("a", "en");
        assert_eq!((en.answered, en.out_of_choice, en.refused, en.failed, en.not_run), (2, 1, Some(1), 4, 3));
        assert_eq!(en.total, 8);
        assert_eq!(row("b", "de").failed, 2);
        assert_eq!(calls.rows.len(), 4, "every target and language has a row");
        for r in &calls.rows {
            assert_eq!(r.answered + r.out_of_choice + r.refused.unwrap_or(0) + r.failed, r.total);
        }
    }
}
