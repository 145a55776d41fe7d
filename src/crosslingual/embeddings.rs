//! Uploaded response embeddings for the cross-lingual analysis, as `record_id -> vector`.
//!
//! The file is read by the project's embedding-table reader ([`crate::formats::embeddings`]:
//! CSV `record_id,embedding` with a JSON array per cell, or `id,v0,v1,…`, or JSONL
//! `{"record_id": …, "embedding": […]}`); this module only turns the table into the map the
//! analysis attaches by record id, with a bound on the dimension the page will hold.

use crate::formats::Problem;
use crate::formats::embeddings::read_embeddings;
use std::collections::BTreeMap;

/// Record id -> vector. All vectors have the same dimension.
pub type Embeddings = BTreeMap<String, Vec<f64>>;

/// Guards the page against a file that would exhaust memory.
pub const MAX_DIM: usize = 16_384;

pub fn read(file: &str, bytes: &[u8]) -> Result<Embeddings, Problem> {
    let table = read_embeddings(file, bytes)?;
    if table.dim > MAX_DIM {
        return Err(Problem::new(file, format!("expected at most {MAX_DIM} numbers per vector, found {}", table.dim))
            .at_line(table.lines.first().copied().unwrap_or(0))
            .in_field("embedding"));
    }
    Ok(table.ids.iter().enumerate().map(|(i, id)| (id.clone(), table.row(i).to_vec())).collect())
}

/// JSONL, one `{"record_id", "embedding"}` per line (what the CLI writes beside records).
pub fn write_jsonl(e: &Embeddings) -> String {
    let mut s = String::new();
    for (id, v) in e {
        s.push_str(&serde_json::json!({"record_id": id, "embedding": v}).to_string());
        s.push('\n');
    }
    s
}
