//! Scoring-mode input: the model's log-probability of each filled context, summed over the
//! context's tokens, as a table with one row per (context, filler, model):
//!
//! | column | also accepted as | meaning |
//! |---|---|---|
//! | `context_id` | context, case_id | a context id of the probe set |
//! | `filler` | name, value | the filler as it was put in the slot (any form) |
//! | `logprob` | log_probability, logprob_sum, lp, log_prob | natural-log probability, <= 0 |
//! | `model` | model_name, llm | optional; the file's name when absent |
//!
//! CSV or TSV (delimiter sniffed), UTF-8, header required. Bad rows are listed with line and
//! column; the good rows load.

use super::DivergenceError;
use super::normalise::key;
use crate::formats::Problem;
use crate::formats::csv_table::{self, RowLength, guard, sniff_delimiter};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogprobRow {
    pub context: String,
    pub filler: String,
    pub logprob: f64,
    pub model: String,
}

const CONTEXT: [&str; 4] = ["context id", "context", "case id", "context_id"];
const FILLER: [&str; 3] = ["filler", "name", "value"];
const LOGPROB: [&str; 6] = ["logprob", "log probability", "logprob sum", "lp", "log prob", "logp"];
const MODEL: [&str; 3] = ["model", "model name", "llm"];

/// Reads a log-probability table. `default_model` names the model when there is no model column.
pub fn read(file: &str, bytes: &[u8], default_model: &str) -> Result<(Vec<LogprobRow>, Vec<Problem>), DivergenceError> {
    let text = crate::formats::decode(file, bytes).map_err(|e| DivergenceError::input(file, e.to_string()))?;
    if text.trim().is_empty() {
        return Err(DivergenceError::input(file, "the log-probability table is empty"));
    }
    let mut rdr =
        csv_table::reader(file, text, sniff_delimiter(text), RowLength::Ragged).map_err(DivergenceError::Input)?;
    let headers: Vec<String> = rdr
        .headers()
        .map_err(|e| DivergenceError::Input(Problem::new(file, format!("CSV header: {e}")).at_line(1)))?
        .iter()
        .map(str::to_string)
        .collect();
    let find = |known: &[&str]| known.iter().find_map(|k| headers.iter().position(|h| key(h) == key(k)));
    let need = |known: &[&str], what: &str| {
        find(known).ok_or_else(|| {
            DivergenceError::Input(
                Problem::new(
                    file,
                    format!("expected a {what} column ({}); the header has: {}", known.join(", "), headers.join(", ")),
                )
                .at_line(1)
                .in_field(what),
            )
        })
    };
    let (c_col, f_col, l_col) = (need(&CONTEXT, "context_id")?, need(&FILLER, "filler")?, need(&LOGPROB, "logprob")?);
    let m_col = find(&MODEL);
    let mut rows = vec![];
    let mut problems = vec![];
    // (context, filler, model) -> first line: a second row for the same key would otherwise
    // silently replace the first one's log-probability further on.
    let mut seen: std::collections::HashMap<(String, String, String), u64> = std::collections::HashMap::new();
    for row in rdr.records() {
        let row = match row {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map(|p| p.line()).unwrap_or(0);
                problems.push(Problem::new(file, format!("CSV: {e}")).at_line(line));
                continue;
            }
        };
        let line = row.position().map(|p| p.line()).unwrap_or(0);
        let cell = |i: usize| crate::formats::csv_table::unguard(row.get(i).unwrap_or("").trim()).to_string();
        let at = |col: usize, field: &str, msg: String| {
            Problem::new(file, msg).at_line(line).at_column(col as u64 + 1).in_field(field)
        };
        let (context, filler, lp_text) = (cell(c_col), cell(f_col), cell(l_col));
        if context.is_empty() {
            problems.push(at(c_col, "context_id", "expected a context id, found an empty cell".into()));
            continue;
        }
        if filler.is_empty() {
            problems.push(at(f_col, "filler", "expected a filler, found an empty cell".into()));
            continue;
        }
        let logprob = match lp_text.parse::<f64>() {
            Ok(x) if x.is_finite() && x <= 1e-9 => x.min(0.0),
            _ => {
                problems.push(at(
                    l_col,
                    "logprob",
                    format!("expected a finite log-probability <= 0, found {lp_text:?}"),
                ));
                continue;
            }
        };
        let model = m_col.map(cell).filter(|m| !m.is_empty()).unwrap_or_else(|| default_model.to_string());
        if let Some(first) = seen.insert((context.clone(), filler.clone(), model.clone()), line) {
            seen.insert((context.clone(), filler.clone(), model.clone()), first);
            problems.push(at(
                f_col,
                "filler",
                format!(
                    "a second row for context {context:?}, filler {filler:?}, model {model:?} (first at line {first}); the first is used"
                ),
            ));
            continue;
        }
        rows.push(LogprobRow { context, filler, logprob, model });
    }
    if rows.is_empty() {
        let first = problems.first().map(|p| format!(" First problem: {p}")).unwrap_or_default();
        return Err(DivergenceError::input(file, format!("no row of the log-probability table could be read.{first}")));
    }
    Ok((rows, problems))
}

/// The table as CSV (cells a spreadsheet would run as formulas are guarded, as in record tables).
pub fn write(rows: &[LogprobRow]) -> String {
    let mut w = csv::WriterBuilder::new().from_writer(vec![]);
    let _ = w.write_record(["context_id", "filler", "logprob", "model"]);
    for r in rows {
        let lp = format!("{:?}", r.logprob);
        let _ = w.write_record([
            guard(&r.context).as_str(),
            guard(&r.filler).as_str(),
            lp.as_str(),
            guard(&r.model).as_str(),
        ]);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_aliases_and_locates_bad_cells() {
        let text = "Context;Filler;LP\nc1;Krakowie;-3.5\nc1;Gdańsku;zero\nc2;Warszawie;0.7\n;x;-1\n";
        let (rows, problems) = read("lp.csv", text.as_bytes(), "m1").unwrap();
        assert_eq!(
            rows,
            vec![LogprobRow { context: "c1".into(), filler: "Krakowie".into(), logprob: -3.5, model: "m1".into() }]
        );
        assert_eq!(problems.len(), 3);
        assert_eq!(
            problems[0].to_string(),
            "lp.csv:3:3: field logprob: expected a finite log-probability <= 0, found \"zero\""
        );
        assert_eq!((problems[1].line, problems[1].column), (Some(4), Some(3)));
        assert_eq!(problems[2].field.as_deref(), Some("context_id"));
        let e = read("lp.csv", b"context_id,value\nc,x\n", "m").unwrap_err().to_string();
        assert!(e.contains("lp.csv:1: field logprob: expected a logprob column"), "{e}");
        assert!(read("lp.csv", b"context_id,filler,logprob\nc,x,NaN\n", "m").is_err());
    }

    #[test]
    fn write_then_read_round_trips() {
        let rows = vec![
            LogprobRow { context: "c1".into(), filler: "=Kraków".into(), logprob: -1.25e-3, model: "m".into() },
            LogprobRow { context: "c2".into(), filler: "Łódź, \"x\"".into(), logprob: -40.0, model: "m".into() },
        ];
        let (back, problems) = read("w.csv", write(&rows).as_bytes(), "other").unwrap();
        assert!(problems.is_empty());
        assert_eq!(back, rows);
    }

    #[test]
    fn a_repeated_context_filler_model_row_is_reported_and_the_first_kept() {
        let text = "context_id,filler,logprob,model\nc1,Paris,-1.0,m\nc1,Paris,-2.0,m\nc1,Paris,-3.0,other\n";
        let (rows, problems) = read("lp.csv", text.as_bytes(), "m").unwrap();
        assert_eq!(rows.iter().map(|r| r.logprob).collect::<Vec<_>>(), [-1.0, -3.0]);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].line, Some(3));
        assert!(problems[0].message.contains("first at line 2"), "{}", problems[0]);
    }
}
