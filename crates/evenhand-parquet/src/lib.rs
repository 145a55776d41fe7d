//! Parquet in and out for Evenhand, over the Apache Arrow `parquet` crate.
//!
//! Reading turns a Parquet file into JSON Lines text, one object per row, so every Evenhand
//! reader that takes JSONL (the record table, the BBQ family, question sets) takes Parquet
//! through it unchanged, and a problem is located at the row's line (row 1 is line 1).
//! Writing goes the other way: JSON objects (or JSONL text) to one Parquet file.
//!
//! The crate knows nothing of Evenhand's records, so that the page can load it as a second,
//! small wasm module only when a Parquet file is picked or asked for.

pub mod limits;
pub mod pages;
mod read;
mod write;

#[cfg(target_arch = "wasm32")]
mod web;

pub use read::{Table, to_jsonl};
pub use write::{from_jsonl, from_rows};

/// What could not be read or written. The caller adds the file name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("not a Parquet file (a Parquet file starts and ends with the bytes PAR1)")]
    NotParquet,
    #[error("the Parquet file is damaged or truncated: {0}")]
    Corrupt(String),
    #[error("column {column:?} is compressed with {codec}, which this build cannot read (it reads {supported})")]
    Codec { column: String, codec: String, supported: &'static str },
    #[error("column {column:?} has type {data_type}, which Evenhand does not read; cast it to text or a number")]
    Type { column: String, data_type: String },
    /// The footer's row counts disagree with each other or with the pages.
    #[error("row group {group}: {message}; the file contradicts itself, so it is refused")]
    Rows { group: usize, message: String },
    /// More work than a file of this size can honestly ask for (see [`limits`]).
    #[error("{place}: {message}; the file is refused")]
    Limit { place: String, message: String },
    #[error("line {line}: {message}")]
    Json { line: u64, message: String },
    #[error("cannot write Parquet: {0}")]
    Write(String),
}

/// Whether `bytes` look like a Parquet file: the magic "PAR1" at both ends.
pub fn is_parquet(bytes: &[u8]) -> bool {
    bytes.len() >= 8 && bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1")
}

/// Whether a file name says Parquet (`.parquet`, `.parq`, `.pq`).
pub fn is_parquet_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".parquet", ".parq", ".pq"].iter().any(|ext| lower.ends_with(ext))
}

/// The compression codecs this build reads (and names in its errors).
pub const CODECS: &str = if cfg!(target_arch = "wasm32") {
    "uncompressed, Snappy, gzip, LZ4"
} else {
    "uncompressed, Snappy, gzip, LZ4, Zstandard"
};
