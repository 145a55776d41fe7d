//! The prompts of a run. A cases file is a record table without answers: CSV (comma, tab or
//! semicolon), JSONL or a JSON array, with a `prompt` column (or one of its aliases) and any
//! other record columns (case_id, language, concern, question_id, expected, choices, ...),
//! which are copied into every record the case produces; an extra `system` column sets that
//! case's system prompt (otherwise the spec's applies). A method (BBQ, cross-lingual, the
//! requirements designer) hands its cases over as records directly ([`from_records`]).

use crate::formats::csv_table::{self, RowLength, sniff_delimiter};
use crate::formats::mapping::field_for_header;
use crate::formats::row::{Cell, set_field};
use crate::formats::{FileFormat, LoadError, Problem, decode};
use crate::record::{Record, Status};
use serde_json::Value;
use std::collections::HashSet;

/// The cases of a file, or every problem found in it (a cases file is small and should be
/// fixed whole, so one bad row stops the run from starting).
pub fn read(file: &str, bytes: &[u8]) -> Result<Vec<Record>, Vec<Problem>> {
    let mut cases = vec![];
    let problems = scan(file, bytes, &mut |case| cases.push(case));
    if problems.is_empty() { Ok(cases) } else { Err(problems) }
}

/// Reads the cases of a file one at a time: `each` gets every case [`read`] would return, in
/// file order, and none is kept here (a run's estimate over a million cases needs their
/// prompts one by one, not all at once). The problems [`read`] would report are returned, in
/// its order; when there are any, the cases given to `each` are not a plan to run.
pub fn scan(file: &str, bytes: &[u8], each: &mut dyn FnMut(Record)) -> Vec<Problem> {
    let text = match decode(file, bytes) {
        Ok(text) => text,
        Err(e) => return vec![load_problem(file, e)],
    };
    if text.trim().is_empty() {
        return vec![Problem::new(file, "the file is empty: expected a prompt column and one case per row")];
    }
    let mut checks = Checks { file, seen: HashSet::new(), rows: 0, kept: 0, problems: vec![], each };
    let mut problems = vec![];
    match FileFormat::detect(file, text) {
        FileFormat::Csv => csv_rows(file, text, &mut problems, &mut checks),
        FileFormat::Jsonl => jsonl_rows(file, text, &mut problems, &mut checks),
        FileFormat::Json => json_rows(file, text, &mut problems, &mut checks),
    }
    // Problems of the rows' cells first, then those of the cases (prompt, case id).
    problems.append(&mut checks.problems);
    if checks.kept == 0 && problems.is_empty() {
        problems.push(Problem::new(file, "no cases: expected one row per prompt"));
    }
    problems
}

/// Cases handed over by a method: every record with a prompt, reset to pending.
pub fn from_records(records: &[Record]) -> Vec<Record> {
    records
        .iter()
        .filter(|r| !r.prompt.trim().is_empty())
        .map(|r| Record {
            response: String::new(),
            status: Status::Pending,
            error: String::new(),
            latency_ms: None,
            tokens_in: None,
            tokens_out: None,
            logprobs: None,
            ..r.clone()
        })
        .collect()
}

fn load_problem(file: &str, e: LoadError) -> Problem {
    match e {
        LoadError::Syntax(p) | LoadError::Mapping(p) => p,
        other => Problem::new(file, other.to_string()),
    }
}

fn csv_rows(file: &str, text: &str, problems: &mut Vec<Problem>, checks: &mut Checks) {
    let mut rdr = match csv_table::reader(file, text, sniff_delimiter(text), RowLength::Ragged) {
        Ok(r) => r,
        Err(p) => {
            problems.push(p);
            return;
        }
    };
    let headers: Vec<String> = match rdr.headers() {
        Ok(h) => h.iter().map(String::from).collect(),
        Err(e) => {
            problems.push(Problem::new(file, format!("CSV: {e}")));
            return;
        }
    };
    let fields: Vec<_> = headers.iter().map(|h| field_for_header(h)).collect();
    let mut row = csv::StringRecord::new();
    loop {
        match rdr.read_record(&mut row) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                problems.push(Problem::new(file, format!("CSV: {e}")).at_line(line));
                continue;
            }
        }
        let line = row.position().map_or(0, |p| p.line());
        let mut rec = Record::default();
        for (i, cell) in row.iter().enumerate() {
            match fields.get(i).copied().flatten() {
                Some(field) => {
                    if let Err(e) = set_field(&mut rec, field, Cell::Text(cell)) {
                        problems.push(Problem::new(file, e.message()).at_line(line).in_field(field.name));
                    }
                }
                None if !cell.is_empty() => {
                    rec.extra
                        .insert(headers.get(i).cloned().unwrap_or_else(|| format!("column{}", i + 1)), cell.into());
                }
                None => {}
            }
        }
        checks.take(line, rec);
    }
}

fn object_row(file: &str, line: u64, v: &Value, problems: &mut Vec<Problem>) -> Option<Record> {
    let Some(obj) = v.as_object() else {
        problems.push(Problem::new(file, "expected an object with a prompt").at_line(line));
        return None;
    };
    let mut rec = Record::default();
    for (key, value) in obj {
        match field_for_header(key) {
            Some(field) => {
                if let Err(e) = set_field(&mut rec, field, Cell::Json(value)) {
                    problems.push(Problem::new(file, e.message()).at_line(line).in_field(field.name));
                }
            }
            None => {
                let text = value.as_str().map_or_else(|| value.to_string(), str::to_string);
                rec.extra.insert(key.clone(), text);
            }
        }
    }
    Some(rec)
}

fn jsonl_rows(file: &str, text: &str, problems: &mut Vec<Problem>, checks: &mut Checks) {
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let line_no = n as u64 + 1;
        match serde_json::from_str::<Value>(line) {
            Ok(v) => {
                if let Some(rec) = object_row(file, line_no, &v, problems) {
                    checks.take(line_no, rec);
                }
            }
            Err(e) => problems
                .push(Problem::new(file, format!("not JSON: {e}")).at_line(line_no).at_column(e.column() as u64)),
        }
    }
}

fn json_rows(file: &str, text: &str, problems: &mut Vec<Problem>, checks: &mut Checks) {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => {
            for (i, v) in items.iter().enumerate() {
                if let Some(rec) = object_row(file, i as u64 + 1, v, problems) {
                    checks.take(i as u64 + 1, rec);
                }
            }
        }
        Ok(_) => problems.push(Problem::new(file, "expected a JSON array of cases")),
        Err(e) => problems
            .push(Problem::new(file, format!("not JSON: {e}")).at_line(e.line() as u64).at_column(e.column() as u64)),
    }
}

/// The checks every format shares, row by row: a prompt on every row, case ids present (the
/// row number when absent) and unique.
struct Checks<'a> {
    file: &'a str,
    seen: HashSet<Box<str>>,
    /// Rows read so far (with or without a prompt): a case without an id is named after its row.
    rows: usize,
    /// Cases handed to `each`.
    kept: usize,
    problems: Vec<Problem>,
    each: &'a mut dyn FnMut(Record),
}

impl Checks<'_> {
    fn take(&mut self, line: u64, mut rec: Record) {
        self.rows += 1;
        if rec.prompt.trim().is_empty() {
            self.problems
                .push(Problem::new(self.file, "expected a prompt, found none").at_line(line).in_field("prompt"));
            return;
        }
        if rec.case_id.trim().is_empty() {
            rec.case_id = format!("case-{}", self.rows);
        }
        // A case's own parameters are checked here, where the file and line are known (the plan
        // checks them again for cases a method hands over).
        if let Err((field, expected)) = super::plan::check_case_params(&rec.params) {
            self.problems.push(
                Problem::new(self.file, format!("expected {expected}"))
                    .at_line(line)
                    .in_field(format!("params.{field}")),
            );
        }
        if !self.seen.insert(rec.case_id.as_str().into()) {
            self.problems.push(
                Problem::new(self.file, format!("case_id {:?} is used twice; each case needs its own", rec.case_id))
                    .at_line(line)
                    .in_field("case_id"),
            );
        }
        rec.status = Status::Pending;
        rec.format_version = crate::record::FORMAT_VERSION;
        self.kept += 1;
        (self.each)(rec);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cases_keep_their_columns() {
        let text = "id,prompt,language,topic,note\nq1,Is it fair?,en,health,first\n,Ist es fair?,de,health,\n";
        let cases = read("c.csv", text.as_bytes()).unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!((cases[0].record_id.as_str(), cases[0].case_id.as_str()), ("q1", "case-1"));
        assert_eq!((cases[1].language.as_str(), cases[1].concern.as_str()), ("de", "health"));
        assert_eq!(cases[0].extra["note"], "first");
        assert_eq!(cases[1].status, Status::Pending);
    }

    #[test]
    fn jsonl_and_json_read_alike() {
        let jsonl = "{\"case_id\":\"a\",\"prompt\":\"P\",\"choices\":[\"x\",\"y\"],\"gold\":1}\n";
        let json = "[{\"case_id\":\"a\",\"prompt\":\"P\",\"choices\":[\"x\",\"y\"],\"gold\":1}]";
        let a = read("c.jsonl", jsonl.as_bytes()).unwrap();
        let b = read("c.json", json.as_bytes()).unwrap();
        assert_eq!(a, b);
        assert_eq!((a[0].choices.len(), a[0].gold), (2, Some(1)));
    }

    #[test]
    fn problems_are_located() {
        let p = read("c.csv", b"case_id,prompt\na,hello\na,again\nb,\n").unwrap_err();
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!((p[0].line, p[0].field.as_deref()), (Some(3), Some("case_id")));
        assert_eq!((p[1].line, p[1].field.as_deref()), (Some(4), Some("prompt")));
        let p = read("c.jsonl", b"{\"prompt\":\"ok\"}\n{\"prompt\":\n").unwrap_err();
        assert_eq!(p[0].line, Some(2));
        let p = read("c.jsonl", b"{\"prompt\":\"ok\",\"gold\":\"two\"}\n").unwrap_err();
        assert_eq!(p[0].field.as_deref(), Some("gold"));
        assert!(read("c.csv", b"").is_err());
    }

    /// Regression (issue 28): a case's `max_tokens: 0` was accepted and sent.
    #[test]
    fn a_cases_params_a_provider_would_reject_are_refused_at_their_line() {
        let text =
            "{\"prompt\":\"ok\",\"params\":{\"max_tokens\":5}}\n{\"prompt\":\"P\",\"params\":{\"max_tokens\":0}}\n";
        let p = read("c.jsonl", text.as_bytes()).unwrap_err();
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(
            (p[0].file.as_str(), p[0].line, p[0].field.as_deref()),
            ("c.jsonl", Some(2), Some("params.max_tokens"))
        );
        for bad in
            ["\"max_tokens\":-1", "\"max_tokens\":1.5", "\"max_tokens\":\"many\"", "\"temperature\":9", "\"top_p\":0"]
        {
            let text = format!("{{\"prompt\":\"P\",\"params\":{{{bad}}}}}\n");
            let p = read("c.jsonl", text.as_bytes()).unwrap_err();
            assert_eq!(p[0].line, Some(1), "{bad}: {p:?}");
            assert!(p[0].field.as_deref().unwrap().starts_with("params."), "{bad}: {p:?}");
        }
    }
}
