//! The CSV reader shared by every generator input (templates, vocabularies, proper names,
//! unknown strings): a column is found by any of its accepted header spellings, so BBQ's,
//! GG-BBQ's and our own files read alike, and every bad row is reported with its place.

use super::GenerateError;
use crate::formats::Problem;
use crate::formats::csv_table::{self, RowLength, sniff_delimiter};

/// Header names compare in this form, so "Ambiguous_Context", "ambiguous_context " (GG-BBQ's
/// trailing space) and "Ambiguous Context" are the same column.
pub(super) fn header_key(header: &str) -> String {
    header.trim_start_matches('\u{feff}').trim().to_lowercase().replace([' ', '-'], "_")
}

/// Category names compare without case or separators: BBQ's templates say "GenderIdentity"
/// where its vocabulary says "Gender_identity".
pub(super) fn category_key(category: &str) -> String {
    category.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

// "de_DE", "de-de" and " DE " all become "de".
pub(super) use crate::text::primary_language as language_code;

pub(super) fn same_language(a: &str, b: &str) -> bool {
    language_code(a) == language_code(b)
}

pub(super) struct Table {
    file: String,
    pub(super) headers: Vec<String>,
    keys: Vec<String>,
    /// (line where the row starts, cells)
    pub(super) rows: Vec<(u64, Vec<String>)>,
}

/// One field the readers look for: the name used in messages, and the header spellings
/// accepted for it, in order of preference.
pub(super) struct Column {
    pub(super) field: &'static str,
    pub(super) aliases: &'static [&'static str],
}

pub(super) fn read_table(file: &str, text: &str) -> Result<(Table, Vec<Problem>), GenerateError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(GenerateError::Empty { file: file.into() });
    }
    let mut reader = csv_table::reader(file, text, sniff_delimiter(text), RowLength::Ragged)
        .map_err(|p| GenerateError::Csv { file: file.into(), line: p.line.unwrap_or(1), message: p.message })?;
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| GenerateError::Csv {
            file: file.into(),
            line: e.position().map(|p| p.line()).unwrap_or(1),
            message: e.to_string(),
        })?
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').to_string())
        .collect();
    let mut problems = Vec::new();
    let mut rows = Vec::new();
    for (n, record) in reader.records().enumerate() {
        let fallback_line = n as u64 + 2;
        match record {
            Ok(record) => {
                if record.iter().all(|c| c.trim().is_empty()) {
                    continue;
                }
                let line = record.position().map(|p| p.line()).unwrap_or(fallback_line);
                rows.push((line, record.iter().map(String::from).collect()));
            }
            Err(e) => problems.push(
                Problem::new(file, format!("CSV: {e}"))
                    .at_line(e.position().map(|p| p.line()).unwrap_or(fallback_line)),
            ),
        }
    }
    let keys = headers.iter().map(|h| header_key(h)).collect();
    Ok((Table { file: file.into(), headers, keys, rows }, problems))
}

impl Table {
    pub(super) fn find(&self, column: &Column) -> Option<usize> {
        column.aliases.iter().find_map(|alias| self.keys.iter().position(|k| k == alias))
    }

    pub(super) fn require(&self, column: &Column) -> Result<usize, GenerateError> {
        self.find(column).ok_or_else(|| GenerateError::MissingColumn {
            file: self.file.clone(),
            field: column.field.into(),
            expected: column.aliases.join(" or "),
        })
    }

    /// How a field is named in a problem: our name, plus the file's header when it differs.
    fn label(&self, field: &str, index: usize) -> String {
        let header = self.headers.get(index).map(|h| h.trim()).unwrap_or_default();
        if header_key(header) == header_key(field) {
            field.to_string()
        } else {
            format!("{field} (column \"{header}\")")
        }
    }

    pub(super) fn problem(&self, line: u64, field: &str, index: usize, message: impl Into<String>) -> Problem {
        Problem::new(&self.file, message).at_line(line).at_column(index as u64 + 1).in_field(self.label(field, index))
    }
}

pub(super) fn cell(cells: &[String], index: Option<usize>) -> &str {
    index.and_then(|i| cells.get(i)).map(|c| c.trim()).unwrap_or_default()
}
