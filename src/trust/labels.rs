//! Human refusal labels, by record id, and their CSV form.
//!
//! The CSV has a header; the columns `record_id` and `label` are required, in any order, and
//! any others (the export adds `language` and `model` for the reader) are ignored on import.
//! A label is `refusal` or `answer` (also read: 1/true/yes/refused and 0/false/no/answered, any
//! case); an empty label leaves the answer unlabelled. A record id given twice with two
//! different labels is refused, naming both lines.

use crate::formats::csv_table::{self, RowLength};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const ID_COLUMN: &str = "record_id";
pub const LABEL_COLUMN: &str = "label";

/// record id -> refusal (true) or answer (false).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Labels(pub BTreeMap<String, bool>);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LabelsError {
    #[error("{file}: line {line}: {message}")]
    Csv { file: String, line: u64, message: String },
    #[error("{file}: line 1: the header has no column {column} (expected the columns record_id and label)")]
    MissingColumn { file: String, column: String },
    #[error("{file}: line {line}, field {field}: {message}")]
    Field { file: String, line: u64, field: String, message: String },
    #[error(
        "{file}: line {line}, field record_id: {record_id:?} was labelled {first} on line {first_line} and {second} here"
    )]
    Conflict { file: String, line: u64, record_id: String, first_line: u64, first: String, second: String },
}

pub fn word(refusal: bool) -> &'static str {
    if refusal { "refusal" } else { "answer" }
}

/// A label cell: Some(refusal?) or None when empty.
pub fn parse(value: &str) -> Result<Option<bool>, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "" => Ok(None),
        "refusal" | "refused" | "1" | "true" | "yes" => Ok(Some(true)),
        "answer" | "answered" | "0" | "false" | "no" => Ok(Some(false)),
        _ => Err(format!("expected refusal or answer, found {:?}", value.chars().take(40).collect::<String>())),
    }
}

impl Labels {
    pub fn get(&self, record_id: &str) -> Option<bool> {
        self.0.get(record_id).copied()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Sets or (with None) removes one label.
    pub fn set(&mut self, record_id: &str, label: Option<bool>) {
        match label {
            Some(l) => self.0.insert(record_id.to_string(), l),
            None => self.0.remove(record_id),
        };
    }

    /// The labels as CSV, with each record's language and model from `about` (record id ->
    /// (language, model)) when known.
    pub fn to_csv(&self, about: &BTreeMap<String, (String, String)>) -> String {
        let mut w = csv::WriterBuilder::new().from_writer(vec![]);
        let _ = w.write_record([ID_COLUMN, LABEL_COLUMN, "language", "model"]);
        for (id, &l) in &self.0 {
            let (language, model) = about.get(id).cloned().unwrap_or_default();
            let _ = w.write_record([
                csv_table::guard(id),
                word(l).to_string(),
                csv_table::guard(&language),
                csv_table::guard(&model),
            ]);
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// Reads labels from CSV (see the module's note); nothing is returned unless all of it reads.
    pub fn from_csv(file: &str, text: &str) -> Result<Labels, LabelsError> {
        let text = text.trim_start_matches('\u{feff}');
        let delimiter = csv_table::sniff_delimiter(text);
        let mut reader = csv_table::reader(file, text, delimiter, RowLength::Ragged).map_err(|p| LabelsError::Csv {
            file: file.into(),
            line: p.line.unwrap_or(1),
            message: p.message,
        })?;
        let header = reader
            .headers()
            .map_err(|e| LabelsError::Csv { file: file.into(), line: 1, message: e.to_string() })?
            .clone();
        let column = |name: &str| {
            let mut at = header.iter().enumerate().filter(|(_, h)| h.trim().eq_ignore_ascii_case(name)).map(|(i, _)| i);
            let first =
                at.next().ok_or_else(|| LabelsError::MissingColumn { file: file.into(), column: name.into() })?;
            // Two columns of one name: which one holds the labels cannot be told, so neither is read.
            match at.next() {
                Some(second) => Err(LabelsError::Field {
                    file: file.into(),
                    line: 1,
                    field: name.into(),
                    message: format!("the header names this column twice (columns {} and {})", first + 1, second + 1),
                }),
                None => Ok(first),
            }
        };
        let (id_at, label_at) = (column(ID_COLUMN)?, column(LABEL_COLUMN)?);
        let mut labels = Labels::default();
        let mut first_line: BTreeMap<String, u64> = BTreeMap::new();
        for row in reader.records() {
            let row = row.map_err(|e| LabelsError::Csv {
                file: file.into(),
                line: e.position().map_or(0, |p| p.line()),
                message: e.to_string(),
            })?;
            let line = row.position().map_or(0, |p| p.line());
            let field = |name: &str, message: String| LabelsError::Field {
                file: file.into(),
                line,
                field: name.into(),
                message,
            };
            if row.iter().all(|c| c.trim().is_empty()) {
                continue;
            }
            let id = csv_table::unguard(row.get(id_at).unwrap_or("").trim()).to_string();
            if id.is_empty() {
                return Err(field(ID_COLUMN, "empty: every label needs the record id it labels".into()));
            }
            let Some(label) = parse(row.get(label_at).unwrap_or("")).map_err(|m| field(LABEL_COLUMN, m))? else {
                continue;
            };
            if let Some(&previous) = labels.0.get(&id) {
                if previous != label {
                    return Err(LabelsError::Conflict {
                        file: file.into(),
                        line,
                        first_line: first_line[&id],
                        first: word(previous).into(),
                        second: word(label).into(),
                        record_id: id,
                    });
                }
                continue;
            }
            first_line.insert(id.clone(), line);
            labels.0.insert(id, label);
        }
        Ok(labels)
    }
}
