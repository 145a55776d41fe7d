//! A minimal reader of uploaded response embeddings: CSV `record_id,embedding` with a JSON
//! array in the embedding cell, or JSONL `{"record_id": ..., "embedding": [...]}`.
//!
//! NOTE for the integrator: src/formats/embeddings.rs (another branch) is the project's
//! embeddings-table reader; once merged, route [`read`] through it and delete this module.
//! The contract the cross-lingual analysis needs is only `record_id -> Vec<f64>`.

use crate::formats::Problem;
use std::collections::BTreeMap;

/// Record id -> vector. All vectors have the same dimension.
pub type Embeddings = BTreeMap<String, Vec<f64>>;

/// Guards the page against a file that would exhaust memory.
const MAX_DIM: usize = 16_384;

fn vector(file: &str, line: u64, v: &serde_json::Value) -> Result<Vec<f64>, Problem> {
    let bad = |m: &str| Problem::new(file, m.to_string()).at_line(line).in_field("embedding");
    let items = v.as_array().ok_or_else(|| bad("expected a JSON array of numbers"))?;
    if items.is_empty() || items.len() > MAX_DIM {
        return Err(bad(&format!("expected 1 to {MAX_DIM} numbers, found {}", items.len())));
    }
    items
        .iter()
        .map(|x| x.as_f64().filter(|f| f.is_finite()).ok_or_else(|| bad("expected finite numbers only")))
        .collect()
}

pub fn read(file: &str, bytes: &[u8]) -> Result<Embeddings, Problem> {
    let text = crate::formats::decode(file, bytes).map_err(|e| Problem::new(file, e.to_string()))?;
    let mut out = Embeddings::new();
    let mut dim: Option<usize> = None;
    let mut add = |line: u64, id: String, v: Vec<f64>, out: &mut Embeddings| -> Result<(), Problem> {
        if id.trim().is_empty() {
            return Err(Problem::new(file, "expected a record_id").at_line(line).in_field("record_id"));
        }
        match dim {
            None => dim = Some(v.len()),
            Some(d) if d != v.len() => {
                return Err(Problem::new(file, format!("dimension {} differs from the first vector's {d}", v.len()))
                    .at_line(line)
                    .in_field("embedding"));
            }
            _ => {}
        }
        if out.insert(id.clone(), v).is_some() {
            return Err(Problem::new(file, format!("duplicate record_id {id:?}")).at_line(line).in_field("record_id"));
        }
        Ok(())
    };
    let first = text.trim_start().chars().next();
    if first == Some('{') {
        for (i, l) in text.lines().enumerate() {
            let line = i as u64 + 1;
            if l.trim().is_empty() {
                continue;
            }
            let obj: serde_json::Value = serde_json::from_str(l).map_err(|e| {
                Problem::new(file, format!("invalid JSON: {e}")).at_line(line).at_column(e.column() as u64)
            })?;
            let id = obj.get("record_id").and_then(|v| v.as_str()).unwrap_or("").to_string();
            let v = vector(file, line, obj.get("embedding").unwrap_or(&serde_json::Value::Null))?;
            add(line, id, v, &mut out)?;
        }
    } else {
        let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
        let headers = rdr.headers().map_err(|e| Problem::new(file, format!("CSV: {e}")).at_line(1))?.clone();
        let col = |name: &str| headers.iter().position(|h| h.trim().eq_ignore_ascii_case(name));
        let (Some(ic), Some(ec)) = (col("record_id"), col("embedding")) else {
            return Err(Problem::new(file, "expected the columns record_id and embedding").at_line(1));
        };
        for row in rdr.records() {
            let row = row.map_err(|e| Problem::new(file, format!("CSV: {e}")))?;
            let line = row.position().map_or(0, |p| p.line());
            let cell = row.get(ec).unwrap_or("");
            let v: serde_json::Value = serde_json::from_str(cell).map_err(|e| {
                Problem::new(file, format!("expected a JSON array: {e}")).at_line(line).in_field("embedding")
            })?;
            add(line, row.get(ic).unwrap_or("").to_string(), vector(file, line, &v)?, &mut out)?;
        }
    }
    if out.is_empty() {
        return Err(Problem::new(file, "no embedding in the file"));
    }
    Ok(out)
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
