//! Reading and writing the record table: CSV, JSONL and JSON, with every problem located.

pub mod csv_table;
pub mod embeddings;
pub mod json_records;
pub mod mapping;
pub mod nonfinite;
pub mod problem;
pub mod row;

pub use mapping::{ColumnMapping, MappingRequest};
pub use problem::Problem;

use crate::record::Record;
use serde::Serialize;

/// The good rows of a file, and the bad ones listed (a bad row never loses the good ones).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Loaded {
    pub file: String,
    pub format: &'static str,
    pub records: Vec<Record>,
    /// Rows that were not loaded, each with where and why.
    pub errors: Vec<Problem>,
    /// Loaded, but worth a look (ragged rows, duplicate ids).
    pub warnings: Vec<Problem>,
    /// The line (or record number) each record came from, until [`Loaded::finish`].
    #[serde(skip)]
    lines: Vec<u64>,
}

impl Loaded {
    fn new(file: &str, format: &'static str) -> Loaded {
        Loaded { file: file.to_string(), format, ..Loaded::default() }
    }

    fn push(&mut self, rec: Record, line: u64) {
        self.lines.push(line);
        self.records.push(rec);
    }

    /// Warns of every record whose id an earlier one has, once all rows are in. Looking each id
    /// up as it came cost a hash and a whole-id comparison per row (slow byte by byte in wasm);
    /// distinct hashes prove the ids distinct, so the lookups run only when some hashes agree.
    /// The warnings come out as they did when checked row by row: in line order, after the
    /// row's other warnings.
    fn finish(mut self) -> Loaded {
        let lines = std::mem::take(&mut self.lines);
        if crate::fasthash::surely_distinct(self.records.iter().map(|r| r.record_id.as_str())) {
            return self;
        }
        let what = if self.format == "json" { "record" } else { "line" };
        let mut first_at: crate::fasthash::FastMap<&str, u64> = crate::fasthash::map();
        let mut repeats = vec![];
        for (rec, &line) in self.records.iter().zip(&lines) {
            match first_at.get(rec.record_id.as_str()) {
                Some(first) => repeats.push(
                    Problem::new(
                        &self.file,
                        format!("duplicate record_id {:?} (first at {what} {first})", rec.record_id),
                    )
                    .at_line(line)
                    .in_field("record_id"),
                ),
                None => {
                    first_at.insert(rec.record_id.as_str(), line);
                }
            }
        }
        // Both lists are in line order; on one line the row's own warnings came first.
        let mut merged = Vec::with_capacity(self.warnings.len() + repeats.len());
        let mut repeats = repeats.into_iter().peekable();
        for w in std::mem::take(&mut self.warnings) {
            while let Some(r) = repeats.next_if(|r| r.line < w.line) {
                merged.push(r);
            }
            merged.push(w);
        }
        merged.extend(repeats);
        self.warnings = merged;
        self
    }
}

/// Why a whole file could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LoadError {
    #[error("{file}: the file is empty")]
    Empty { file: String },
    #[error("{file}:{line}:{column}: expected UTF-8 text, found an invalid byte")]
    Encoding { file: String, line: u64, column: u64 },
    #[error("{0}")]
    Syntax(Problem),
    #[error("{0}")]
    Mapping(Problem),
    #[error("{}: the columns need mapping to record fields (missing: {})", .0.file, .0.missing.join(", "))]
    NeedsMapping(MappingRequest),
}

/// The file formats the record readers know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    Csv,
    Jsonl,
    Json,
}

impl FileFormat {
    /// By extension first, then by the first character of the content.
    pub fn detect(name: &str, text: &str) -> FileFormat {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".jsonl") || lower.ends_with(".ndjson") {
            return FileFormat::Jsonl;
        }
        let start = text.trim_start().chars().next();
        if lower.ends_with(".json") || start == Some('[') {
            // A .json file of one object per line is JSONL in disguise.
            let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
            return if start == Some('{')
                && lines > 1
                && text.lines().next().is_some_and(|l| l.trim_end().ends_with('}'))
            {
                FileFormat::Jsonl
            } else {
                FileFormat::Json
            };
        }
        if start == Some('{') { FileFormat::Jsonl } else { FileFormat::Csv }
    }
}

/// Decodes bytes as UTF-8 (a BOM is dropped), naming the line and column of a bad byte.
pub fn decode<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str, LoadError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        let line_start = good.iter().rposition(|&b| b == b'\n').map(|i| i + 1).unwrap_or(0);
        let column = String::from_utf8_lossy(&good[line_start..]).chars().count() as u64 + 1;
        LoadError::Encoding { file: file.to_string(), line, column }
    })
}

/// Reads a record file of any known format. `mapping` is used for CSV only.
pub fn load(file: &str, bytes: &[u8], mapping: Option<&ColumnMapping>) -> Result<Loaded, LoadError> {
    let text = decode(file, bytes)?;
    if text.trim().is_empty() {
        return Err(LoadError::Empty { file: file.to_string() });
    }
    match FileFormat::detect(file, text) {
        FileFormat::Csv => csv_table::read(file, text, mapping),
        FileFormat::Jsonl => Ok(json_records::read_jsonl(file, text)),
        FileFormat::Json => json_records::read_json(file, text),
    }
}

/// Writes records in a format named by extension: csv, jsonl or json.
pub fn write(records: &[Record], format: FileFormat) -> String {
    match format {
        FileFormat::Csv => csv_table::write(records),
        FileFormat::Jsonl => json_records::write_jsonl(records),
        FileFormat::Json => json_records::write_json(records),
    }
}
