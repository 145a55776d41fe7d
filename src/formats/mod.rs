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
    /// When only checking ([`check`]): the ids of the records read, which are not kept.
    #[serde(skip)]
    ids: Option<IdList>,
}

/// Record ids end to end in one string: a million short ids take a few megabytes this way,
/// where a million records with owned fields took most of a gigabyte.
#[derive(Debug, Clone, Default)]
struct IdList {
    text: String,
    ends: Vec<usize>,
}

impl IdList {
    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }
}

impl Loaded {
    fn new(file: &str, format: &'static str, keep: bool) -> Loaded {
        let ids = (!keep).then(IdList::default);
        Loaded { file: file.to_string(), format, ids, ..Loaded::default() }
    }

    fn push(&mut self, rec: Record, line: u64) {
        self.lines.push(line);
        match &mut self.ids {
            Some(ids) => {
                ids.text.push_str(&rec.record_id);
                ids.ends.push(ids.text.len());
            }
            None => self.records.push(rec),
        }
    }

    /// How many records were read: those kept, or those counted by [`check`].
    pub fn count(&self) -> usize {
        self.ids.as_ref().map_or(self.records.len(), |ids| ids.ends.len())
    }

    fn id(&self, i: usize) -> &str {
        match &self.ids {
            Some(ids) => ids.get(i),
            None => &self.records[i].record_id,
        }
    }

    /// Warns of every record whose id an earlier one has, once all rows are in. Looking each id
    /// up as it came cost a hash and a whole-id comparison per row (slow byte by byte in wasm);
    /// distinct hashes prove the ids distinct, so the lookups run only when some hashes agree.
    /// The warnings come out as they did when checked row by row: in line order, after the
    /// row's other warnings.
    fn finish(mut self) -> Loaded {
        let lines = std::mem::take(&mut self.lines);
        let count = self.count();
        if crate::fasthash::surely_distinct((0..count).map(|i| self.id(i))) {
            return self;
        }
        let what = if self.format == "json" { "record" } else { "line" };
        let mut first_at: crate::fasthash::FastMap<&str, u64> = crate::fasthash::map();
        let mut repeats = vec![];
        for (i, &line) in lines.iter().enumerate() {
            let id = self.id(i);
            match first_at.get(id) {
                Some(first) => repeats.push(
                    Problem::new(&self.file, format!("duplicate record_id {id:?} (first at {what} {first})"))
                        .at_line(line)
                        .in_field("record_id"),
                ),
                None => {
                    first_at.insert(id, line);
                }
            }
        }
        drop(first_at);
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
    // simdutf8 checks 16 bytes at a time (wasm simd128, SSE, NEON) where std's check takes a
    // word at a time, or a byte past the first non-ASCII one; a whole record file passes
    // through here. Its error says nothing of where, so a bad file is checked again by std.
    if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
        return Ok(text);
    }
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
    read_records(file, bytes, mapping, true)
}

/// Reads a record file as [`load`] does, with the same errors and warnings, but keeps no
/// record: [`Loaded::count`] says how many there were. A table of a million rows is checked
/// in the memory of its text and its ids, not of a million records.
pub fn check(file: &str, bytes: &[u8], mapping: Option<&ColumnMapping>) -> Result<Loaded, LoadError> {
    read_records(file, bytes, mapping, false)
}

fn read_records(file: &str, bytes: &[u8], mapping: Option<&ColumnMapping>, keep: bool) -> Result<Loaded, LoadError> {
    let text = decode(file, bytes)?;
    if text.trim().is_empty() {
        return Err(LoadError::Empty { file: file.to_string() });
    }
    match FileFormat::detect(file, text) {
        FileFormat::Csv => csv_table::read_into(Loaded::new(file, "csv", keep), text, mapping),
        FileFormat::Jsonl => Ok(json_records::read_jsonl_into(Loaded::new(file, "jsonl", keep), text)),
        FileFormat::Json => json_records::read_json_into(Loaded::new(file, "json", keep), text),
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
