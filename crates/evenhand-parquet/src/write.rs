//! JSON objects to one Parquet file (Snappy, as pandas and polars write by default).
//!
//! A column's type is what its values share: booleans, 64-bit integers, or numbers (64-bit
//! floats); anything else is text, where strings are written as they are and other values
//! (arrays, objects, numbers among strings) as JSON text. Missing keys and nulls are nulls.

use crate::Error;
use arrow_array::{ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use serde_json::{Map, Value};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Empty,
    Bool,
    Int,
    Float,
    Text,
}

fn kind_of(v: &Value) -> Kind {
    match v {
        Value::Null => Kind::Empty,
        Value::Bool(_) => Kind::Bool,
        Value::Number(n) if n.is_i64() => Kind::Int,
        // A u64 above i64::MAX would lose digits as a float: text keeps them.
        Value::Number(n) if n.is_u64() => Kind::Text,
        Value::Number(_) => Kind::Float,
        _ => Kind::Text,
    }
}

fn join(a: Kind, b: Kind) -> Kind {
    use Kind::*;
    match (a, b) {
        (Empty, k) | (k, Empty) => k,
        (x, y) if x == y => x,
        (Int, Float) | (Float, Int) => Float,
        _ => Text,
    }
}

/// Writes JSON Lines text (one object per line, blank lines skipped) as Parquet.
pub fn from_jsonl(text: &str) -> Result<Vec<u8>, Error> {
    let mut rows = vec![];
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(obj)) => rows.push(obj),
            Ok(_) => return Err(Error::Json { line: i as u64 + 1, message: "expected a JSON object".into() }),
            Err(e) => return Err(Error::Json { line: i as u64 + 1, message: format!("invalid JSON: {e}") }),
        }
    }
    from_rows(&rows)
}

/// Writes rows as Parquet, columns in the order their keys first appear.
pub fn from_rows(rows: &[Map<String, Value>]) -> Result<Vec<u8>, Error> {
    let mut names: Vec<&str> = vec![];
    let mut kinds: Vec<Kind> = vec![];
    let mut index: std::collections::HashMap<&str, usize> = Default::default();
    for row in rows {
        for (k, v) in row {
            let at = *index.entry(k.as_str()).or_insert_with(|| {
                names.push(k.as_str());
                kinds.push(Kind::Empty);
                names.len() - 1
            });
            kinds[at] = join(kinds[at], kind_of(v));
        }
    }
    let mut fields = vec![];
    let mut columns: Vec<ArrayRef> = vec![];
    for (name, kind) in names.iter().zip(&kinds) {
        let cells = rows.iter().map(|r| r.get(*name).filter(|v| !v.is_null()));
        let (t, column): (DataType, ArrayRef) = match kind {
            Kind::Bool => {
                (DataType::Boolean, Arc::new(cells.map(|v| v.and_then(Value::as_bool)).collect::<BooleanArray>()))
            }
            Kind::Int => (DataType::Int64, Arc::new(cells.map(|v| v.and_then(Value::as_i64)).collect::<Int64Array>())),
            Kind::Float => {
                (DataType::Float64, Arc::new(cells.map(|v| v.and_then(Value::as_f64)).collect::<Float64Array>()))
            }
            Kind::Text | Kind::Empty => (
                DataType::Utf8,
                Arc::new(
                    cells
                        .map(|v| {
                            v.map(|v| match v {
                                Value::String(s) => s.clone(),
                                other => other.to_string(),
                            })
                        })
                        .collect::<StringArray>(),
                ),
            ),
        };
        fields.push(Field::new(*name, t, true));
        columns.push(column);
    }
    let schema = Arc::new(Schema::new(fields));
    let batch = if columns.is_empty() {
        RecordBatch::new_empty(schema.clone())
    } else {
        RecordBatch::try_new(schema.clone(), columns).map_err(|e| Error::Write(e.to_string()))?
    };
    let props = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
    let mut out = vec![];
    let mut writer = ArrowWriter::try_new(&mut out, schema, Some(props)).map_err(|e| Error::Write(e.to_string()))?;
    writer.write(&batch).map_err(|e| Error::Write(e.to_string()))?;
    writer.close().map_err(|e| Error::Write(e.to_string()))?;
    Ok(out)
}
