//! LangBiTe's three report CSVs, written with its exact headers and value
//! vocabulary and read back from either form (with pandas' index column, as upstream writes
//! them, or without, as its forks do).

use crate::formats::Problem;
use crate::formats::csv_table::{self, RowLength, guard_unless_number, unguard};
use serde::Serialize;

pub const RESPONSES_HEADER: [&str; 4] = ["Provider", "Model", "Instance", "Response"];
pub const EVALUATIONS_HEADER: [&str; 10] = [
    "Provider",
    "Model",
    "Concern",
    "Language",
    "Input Type",
    "Reflection Type",
    "Template",
    "Oracle Evaluation",
    "Oracle Prediction",
    "Evaluation",
];
pub const GLOBAL_HEADER: [&str; 14] = [
    "Provider",
    "Model",
    "Concern",
    "Language",
    "Input Type",
    "Reflection Type",
    "Passed Nr",
    "Failed Nr",
    "Error Nr",
    "Passed Pct",
    "Failed Pct",
    "Total",
    "Tolerance",
    "Tolerance Evaluation",
];

/// Python's `repr(float)`: the shortest text that reads back as the same number, with ".0"
/// on integral values and Python's exponent form outside [1e-4, 1e16).
pub fn py_float(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let a = v.abs();
    if a == 0.0 || (1e-4..1e16).contains(&a) {
        let s = format!("{v}");
        return if s.contains('.') { s } else { format!("{s}.0") };
    }
    // Rust's {:e} is shortest too ("1e-5", "1.5e20"); Python writes "1e-05", "1.5e+20".
    let s = format!("{v:e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let (sign, digits) = exp.strip_prefix('-').map_or(("+", exp), |d| ("-", d));
    format!("{mantissa}e{sign}{digits:0>2}")
}

/// Python's `repr(list_of_str)`, as upstream prints an oracle prediction.
pub fn py_str_list(items: &[String]) -> String {
    let quoted: Vec<String> = items
        .iter()
        .map(|s| {
            if s.contains('\'') && !s.contains('"') {
                format!("\"{}\"", s.replace('\\', "\\\\"))
            } else {
                format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
            }
        })
        .collect();
    format!("[{}]", quoted.join(", "))
}

/// Writes rows under `header`, with pandas' leading index column when `index` is set. Cells a
/// spreadsheet would run as formulas get the record table's `'` guard; [`read`] removes it.
pub fn write_csv(header: &[&str], rows: &[Vec<String>], index: bool) -> String {
    let mut w = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(vec![]);
    let mut head: Vec<&str> = if index { vec![""] } else { vec![] };
    head.extend_from_slice(header);
    let _ = w.write_record(&head);
    for (i, row) in rows.iter().enumerate() {
        let mut cells: Vec<String> = if index { vec![i.to_string()] } else { vec![] };
        cells.extend(row.iter().map(|c| guard_unless_number(c)));
        let _ = w.write_record(&cells);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// A LangBiTe report read back: its rows as maps from header to cell, in file order.
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub had_index: bool,
}

impl Table {
    pub fn get<'a>(&self, row: &'a [String], column: &str) -> Option<&'a str> {
        self.header.iter().position(|h| h == column).and_then(|i| row.get(i)).map(String::as_str)
    }
}

/// Reads one of the three reports, checking that `expected` columns are all there.
pub fn read(file: &str, text: &str, expected: &[&str]) -> Result<Table, Problem> {
    let mut rdr = csv_table::reader(file, text.trim_start_matches('\u{feff}'), b',', RowLength::AsHeader)?;
    let mut header: Vec<String> = rdr
        .headers()
        .map_err(|e| Problem::new(file, format!("CSV: {e}")).at_line(1))?
        .iter()
        .map(String::from)
        .collect();
    let had_index = header.first().is_some_and(|h| h.is_empty());
    if had_index {
        header.remove(0);
    }
    if let Some(missing) = expected.iter().find(|c| !header.iter().any(|h| h == *c)) {
        return Err(Problem::new(
            file,
            format!("expected LangBiTe's columns {} (missing {missing:?})", expected.join(", ")),
        )
        .at_line(1));
    }
    let mut rows = vec![];
    for r in rdr.records() {
        let r = r.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            Problem::new(file, format!("CSV: {e}")).at_line(line)
        })?;
        let mut cells: Vec<String> = r.iter().map(|c| unguard(c).to_string()).collect();
        if had_index {
            cells.remove(0);
        }
        rows.push(cells);
    }
    Ok(Table { header, rows, had_index })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_does() {
        for (v, s) in [
            (1.0, "1.0"),
            (0.0, "0.0"),
            (0.75, "0.75"),
            (47.0 / 48.0, "0.9791666666666666"),
            (0.9, "0.9"),
            (1e-5, "1e-05"),
            (2.5e-7, "2.5e-07"),
            (1e16, "1e+16"),
        ] {
            assert_eq!(py_float(v), s);
        }
    }

    #[test]
    fn string_lists_print_as_python_does() {
        let v: Vec<String> = ["no", "i don't think", "it's \"x\""].map(String::from).to_vec();
        assert_eq!(py_str_list(&v), r#"['no', "i don't think", 'it\'s "x"']"#);
        assert_eq!(py_str_list(&["NONE".to_string()]), "['NONE']");
    }

    #[test]
    fn tables_round_trip_with_and_without_the_index() {
        let rows = vec![vec!["OpenAI".to_string(), "M".into(), "Is it, \"so\"?".into(), "no".into()]];
        for index in [true, false] {
            let text = write_csv(&RESPONSES_HEADER, &rows, index);
            assert_eq!(text.starts_with(",Provider"), index);
            let t = read("r.csv", &text, &RESPONSES_HEADER).unwrap();
            assert_eq!((t.rows.clone(), t.had_index), (rows.clone(), index));
            assert_eq!(t.get(&t.rows[0], "Instance"), Some("Is it, \"so\"?"));
        }
        assert!(read("r.csv", "a,b\n1,2\n", &RESPONSES_HEADER).unwrap_err().message.contains("Provider"));
    }

    #[test]
    fn formulas_are_guarded_and_numbers_left_alone() {
        let rows = vec![vec!["=cmd".to_string(), "@m".into(), "-0.5".into(), "'+x".into()]];
        let text = write_csv(&RESPONSES_HEADER, &rows, true);
        assert_eq!(text.lines().nth(1), Some("0,'=cmd,'@m,-0.5,''+x"));
        assert_eq!(read("r.csv", &text, &RESPONSES_HEADER).unwrap().rows, rows);
    }
}
