//! The CLI's journal: every stored record of a run, one JSON object a line, appended the
//! moment the engine hands it over. A run killed at any point leaves a journal whose lines
//! are whole records (but perhaps the last, cut mid-write), and the next run restores them
//! with [`super::Engine::restore`], so no stored call is paid for twice.
//!
//! Lines are serde's form of [`Record`] (every field, lossless), not the record table's
//! JSONL, which leaves empty fields out and would refuse an error record with no response.
//!
//! A record id may appear on several lines (a failed call retried by a later run). The
//! merge keeps the latest line, except that an answer is never replaced by an error, the
//! same rule as [`crate::providers::outcome`].

use crate::formats::Problem;
use crate::providers::outcome::is_answered;
use crate::record::Record;
use std::collections::HashMap;

/// One journal line for `record`, newline included.
pub fn line(record: &Record) -> String {
    // A Record is plain data (strings, numbers, maps of JSON values): it always serialises.
    let mut text = serde_json::to_string(record).unwrap_or_default();
    text.push('\n');
    text
}

/// What a journal holds: the merged records (in first-seen order) and warnings.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Journal {
    pub records: Vec<Record>,
    /// A cut last line is expected after a crash; it is reported, not fatal.
    pub warnings: Vec<Problem>,
    /// What the file needs before anything is appended to it (see [`Tail`]).
    pub tail: Tail,
}

/// The end of a journal file. A crash can leave the last line without its newline, whole or
/// cut; appending to it as it is would glue the next record onto that line, and the run after
/// would refuse the journal. So a writer first truncates a cut line or ends a whole one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tail {
    /// Empty, or ends with a newline: append as it is.
    #[default]
    Clean,
    /// The last line is a whole record without its newline: write one first.
    MissingNewline,
    /// The last line is cut: truncate the file to this many bytes (its whole lines) first.
    Cut { keep: u64 },
}

/// Reads a journal. A bad line other than the last is an error naming it: the file was
/// edited or corrupted, and guessing could resend calls that were paid for.
pub fn read(file: &str, text: &str) -> Result<Journal, Problem> {
    let mut order: Vec<String> = vec![];
    let mut by_id: HashMap<String, Record> = HashMap::new();
    let mut warnings = vec![];
    let mut tail = if text.is_empty() || text.ends_with('\n') { Tail::Clean } else { Tail::MissingNewline };
    let lines: Vec<(usize, &str)> = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).collect();
    for (k, &(i, l)) in lines.iter().enumerate() {
        let rec: Record = match serde_json::from_str(l) {
            Ok(r) => r,
            Err(e) if k + 1 == lines.len() && !text.ends_with('\n') => {
                tail = Tail::Cut { keep: text.rfind('\n').map_or(0, |n| n as u64 + 1) };
                warnings.push(
                    Problem::new(file, format!("the last line is cut off ({e}); its call will be sent again"))
                        .at_line(i as u64 + 1),
                );
                continue;
            }
            Err(e) => {
                return Err(Problem::new(file, format!("expected one journal record (JSON) per line: {e}"))
                    .at_line(i as u64 + 1)
                    .at_column(e.column() as u64));
            }
        };
        if rec.record_id.is_empty() {
            return Err(Problem::new(file, "expected a record_id").at_line(i as u64 + 1).in_field("record_id"));
        }
        match by_id.get(&rec.record_id) {
            None => {
                order.push(rec.record_id.clone());
                by_id.insert(rec.record_id.clone(), rec);
            }
            Some(old) if is_answered(old) && !is_answered(&rec) => {}
            Some(_) => {
                by_id.insert(rec.record_id.clone(), rec);
            }
        }
    }
    let records = order.into_iter().filter_map(|id| by_id.remove(&id)).collect();
    Ok(Journal { records, warnings, tail })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Status;

    fn rec(id: &str, status: Status, response: &str) -> Record {
        Record { record_id: id.into(), status, response: response.into(), ..Default::default() }
    }

    #[test]
    fn lines_round_trip_and_the_latest_wins_unless_it_would_erase_an_answer() {
        let mut text = String::new();
        text += &line(&rec("a", Status::Error, ""));
        text += &line(&rec("b", Status::Ok, "B"));
        text += &line(&rec("a", Status::Ok, "A"));
        text += &line(&rec("b", Status::Error, ""));
        let j = read("j.jsonl", &text).unwrap();
        assert_eq!(j.records.len(), 2);
        assert_eq!((j.records[0].record_id.as_str(), j.records[0].status), ("a", Status::Ok));
        assert_eq!((j.records[1].status, j.records[1].response.as_str()), (Status::Ok, "B"));
        assert!(j.warnings.is_empty());
    }

    #[test]
    fn a_cut_last_line_is_a_warning_and_a_bad_middle_line_an_error() {
        let whole = line(&rec("a", Status::Ok, "A"));
        let cut = format!("{whole}{}", &whole[..whole.len() / 2]);
        let j = read("j.jsonl", &cut).unwrap();
        assert_eq!((j.records.len(), j.warnings.len(), j.warnings[0].line), (1, 1, Some(2)));
        let bad = format!("{}\n{whole}", &whole[..whole.len() / 2]);
        let e = read("j.jsonl", &bad).unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("j.jsonl", Some(1)));
        let no_id = line(&rec("", Status::Ok, "A"));
        assert!(read("j.jsonl", &no_id).is_err_and(|e| e.field.as_deref() == Some("record_id")));
    }

    #[test]
    fn the_tail_says_how_to_append_after_a_crash() {
        let whole = line(&rec("a", Status::Ok, "yes"));
        assert_eq!(read("j", "").unwrap().tail, Tail::Clean);
        assert_eq!(read("j", &whole).unwrap().tail, Tail::Clean);
        let unterminated = whole.trim_end();
        let j = read("j", unterminated).unwrap();
        assert_eq!((j.records.len(), j.tail), (1, Tail::MissingNewline));
        let cut = format!("{whole}{}", &whole[..whole.len() / 2]);
        let j = read("j", &cut).unwrap();
        assert_eq!((j.records.len(), j.tail), (1, Tail::Cut { keep: whole.len() as u64 }));
    }
}
