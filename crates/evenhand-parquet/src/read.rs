//! Parquet bytes to JSON Lines: one object per row, missing values left out.
//!
//! Scalars become JSON scalars (a float that is not finite becomes missing, as JSON has no
//! such number); dates and timestamps become ISO 8601 text; lists become arrays and structs
//! and maps become objects, so BBQ's nested `answer_info` reads as it does from BBQ's JSONL.
//! Every column's type is checked before any row is read: a type we do not convert is an
//! error naming the column, never a silent gap.

use crate::{CODECS, Error};
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, TimeUnit};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use serde_json::{Map, Number, Value};

/// A Parquet file as JSON Lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub jsonl: String,
    pub rows: usize,
    pub columns: Vec<String>,
}

fn corrupt(e: impl std::fmt::Display) -> Error {
    // The parquet crate prefixes its messages with "Parquet error: ", which ours already says.
    let text = e.to_string();
    Error::Corrupt(text.strip_prefix("Parquet error: ").unwrap_or(&text).to_string())
}

fn supported(c: Compression) -> bool {
    let native = cfg!(not(target_arch = "wasm32"));
    matches!(
        c,
        Compression::UNCOMPRESSED
            | Compression::SNAPPY
            | Compression::GZIP(_)
            | Compression::LZ4
            | Compression::LZ4_RAW
    ) || (native && matches!(c, Compression::ZSTD(_)))
}

fn codec_name(c: Compression) -> String {
    match c {
        Compression::ZSTD(_) => "Zstandard (zstd)".into(),
        Compression::BROTLI(_) => "Brotli".into(),
        Compression::LZO => "LZO".into(),
        other => other.to_string(),
    }
}

/// Reads a whole Parquet file into JSON Lines text.
pub fn to_jsonl(bytes: &[u8]) -> Result<Table, Error> {
    if !crate::is_parquet(bytes) {
        return Err(Error::NotParquet);
    }
    let builder = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::copy_from_slice(bytes)).map_err(corrupt)?;
    for group in builder.metadata().row_groups() {
        for column in group.columns() {
            // The reader asserts these (a panic, a trap in wasm) rather than refusing them.
            let start = column.dictionary_page_offset().unwrap_or(column.data_page_offset());
            let len = column.compressed_size();
            if start < 0 || len < 0 || start.checked_add(len).is_none_or(|end| end as u64 > bytes.len() as u64) {
                return Err(corrupt(format!(
                    "column {:?} claims bytes {start}..+{len}, outside the file's {} bytes",
                    column.column_path().string(),
                    bytes.len()
                )));
            }
            if !supported(column.compression()) {
                return Err(Error::Codec {
                    column: column.column_path().string(),
                    codec: codec_name(column.compression()),
                    supported: CODECS,
                });
            }
        }
    }
    let declared = crate::limits::check_footer(builder.metadata(), bytes.len())?;
    crate::pages::check_pages(builder.metadata(), bytes)?;
    let max_text = crate::limits::ceiling(crate::limits::TEXT_FLOOR, crate::limits::TEXT_PER_BYTE, bytes.len());
    let fields = builder.schema().fields().clone();
    for f in fields.iter() {
        check(f.name(), f.data_type())?;
    }
    let names: Vec<String> = fields.iter().map(|f| f.name().clone()).collect();
    let reader = builder.with_batch_size(4096).build().map_err(corrupt)?;
    let mut jsonl = String::new();
    let mut rows = 0;
    for batch in reader {
        let batch = batch.map_err(corrupt)?;
        if batch.num_columns() != names.len() {
            return Err(corrupt("a row group's columns differ from the schema"));
        }
        if rows + batch.num_rows() > declared.iter().sum::<u64>() as usize {
            return Err(Error::Rows {
                group: group_of(&declared, rows as u64),
                message: "holds more rows than the footer declares".into(),
            });
        }
        for row in 0..batch.num_rows() {
            let mut obj = Map::new();
            for (name, column) in names.iter().zip(batch.columns()) {
                let v = value(column, row);
                if !v.is_null() {
                    obj.insert(name.clone(), v);
                }
            }
            jsonl.push_str(&Value::Object(obj).to_string());
            jsonl.push('\n');
            rows += 1;
        }
        if jsonl.len() as u64 > max_text {
            return Err(Error::Limit {
                place: format!("row group {}", group_of(&declared, rows as u64 - 1)),
                message: format!(
                    "the rows as JSON Lines exceed {max_text} bytes ({} per byte of this {}-byte file, plus {})",
                    crate::limits::TEXT_PER_BYTE,
                    bytes.len(),
                    crate::limits::TEXT_FLOOR
                ),
            });
        }
    }
    let total: u64 = declared.iter().sum();
    if rows as u64 != total {
        return Err(Error::Rows {
            group: group_of(&declared, rows as u64),
            message: format!("the footer declares {total} rows in all, but the pages hold {rows}"),
        });
    }
    Ok(Table { jsonl, rows, columns: names })
}

/// The 1-based row group holding row `row` (0-based), by the declared counts.
fn group_of(declared: &[u64], row: u64) -> usize {
    let mut end = 0u64;
    for (g, n) in declared.iter().enumerate() {
        end += n;
        if row < end {
            return g + 1;
        }
    }
    declared.len().max(1)
}

/// Refuses, by column name, any type [`value`] does not convert.
fn check(column: &str, t: &DataType) -> Result<(), Error> {
    use DataType::*;
    let ok = match t {
        Null | Boolean | Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => true,
        Float16 | Float32 | Float64 | Utf8 | LargeUtf8 | Utf8View | Date32 | Date64 => true,
        Timestamp(_, _) | Decimal128(_, _) | Decimal256(_, _) => true,
        List(f) | LargeList(f) | FixedSizeList(f, _) => return check(column, f.data_type()),
        Struct(fs) => return fs.iter().try_for_each(|f| check(column, f.data_type())),
        Map(f, _) => return check(column, f.data_type()),
        Dictionary(_, v) => return check(column, v),
        _ => false,
    };
    if ok { Ok(()) } else { Err(Error::Type { column: column.to_string(), data_type: t.to_string() }) }
}

fn float(v: f64) -> Value {
    Number::from_f64(v).map_or(Value::Null, Value::Number)
}

/// One cell as JSON. Types were checked by [`check`]; anything else is missing.
fn value(a: &ArrayRef, i: usize) -> Value {
    if a.is_null(i) {
        return Value::Null;
    }
    use DataType::*;
    match a.data_type() {
        Boolean => Value::Bool(a.as_boolean().value(i)),
        Int8 => a.as_primitive::<Int8Type>().value(i).into(),
        Int16 => a.as_primitive::<Int16Type>().value(i).into(),
        Int32 => a.as_primitive::<Int32Type>().value(i).into(),
        Int64 => a.as_primitive::<Int64Type>().value(i).into(),
        UInt8 => a.as_primitive::<UInt8Type>().value(i).into(),
        UInt16 => a.as_primitive::<UInt16Type>().value(i).into(),
        UInt32 => a.as_primitive::<UInt32Type>().value(i).into(),
        UInt64 => a.as_primitive::<UInt64Type>().value(i).into(),
        Float16 => float(a.as_primitive::<Float16Type>().value(i).to_f64()),
        Float32 => float(f64::from(a.as_primitive::<Float32Type>().value(i))),
        Float64 => float(a.as_primitive::<Float64Type>().value(i)),
        Utf8 => a.as_string::<i32>().value(i).into(),
        LargeUtf8 => a.as_string::<i64>().value(i).into(),
        Utf8View => a.as_string_view().value(i).into(),
        Date32 => text(a.as_primitive::<Date32Type>().value_as_date(i)),
        Date64 => text(a.as_primitive::<Date64Type>().value_as_date(i)),
        Timestamp(unit, tz) => {
            let t = match unit {
                TimeUnit::Second => a.as_primitive::<TimestampSecondType>().value_as_datetime(i),
                TimeUnit::Millisecond => a.as_primitive::<TimestampMillisecondType>().value_as_datetime(i),
                TimeUnit::Microsecond => a.as_primitive::<TimestampMicrosecondType>().value_as_datetime(i),
                TimeUnit::Nanosecond => a.as_primitive::<TimestampNanosecondType>().value_as_datetime(i),
            };
            // With a time zone the stored instant is UTC.
            match t {
                Some(t) if tz.is_some() => format!("{}Z", t.format("%Y-%m-%dT%H:%M:%S%.f")).into(),
                Some(t) => t.format("%Y-%m-%dT%H:%M:%S%.f").to_string().into(),
                None => Value::Null,
            }
        }
        Decimal128(_, _) => a.as_primitive::<Decimal128Type>().value_as_string(i).into(),
        Decimal256(_, _) => a.as_primitive::<Decimal256Type>().value_as_string(i).into(),
        List(_) => items(&a.as_list::<i32>().value(i)),
        LargeList(_) => items(&a.as_list::<i64>().value(i)),
        FixedSizeList(_, _) => items(&a.as_fixed_size_list().value(i)),
        Struct(fields) => {
            let s = a.as_struct();
            let mut obj = serde_json::Map::new();
            for (f, column) in fields.iter().zip(s.columns()) {
                let v = value(column, i);
                if !v.is_null() {
                    obj.insert(f.name().clone(), v);
                }
            }
            Value::Object(obj)
        }
        Map(_, _) => {
            let entries = a.as_map().value(i);
            let (keys, values) = (entries.column(0), entries.column(1));
            let mut obj = serde_json::Map::new();
            for j in 0..entries.len() {
                let key = match value(keys, j) {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                obj.insert(key, value(values, j));
            }
            Value::Object(obj)
        }
        Dictionary(key, _) => {
            let values = a.as_any_dictionary().values();
            match dictionary_key(a, key, i) {
                Some(k) if k < values.len() => value(values, k),
                _ => Value::Null,
            }
        }
        _ => Value::Null,
    }
}

/// The row's index into a dictionary's values (a negative key is no index).
fn dictionary_key(a: &ArrayRef, key: &DataType, i: usize) -> Option<usize> {
    fn at<K: ArrowDictionaryKeyType>(a: &ArrayRef, i: usize) -> Option<usize> {
        a.as_dictionary::<K>().keys().value(i).to_usize()
    }
    use arrow_buffer::ArrowNativeType as _;
    match key {
        DataType::Int8 => at::<Int8Type>(a, i),
        DataType::Int16 => at::<Int16Type>(a, i),
        DataType::Int32 => at::<Int32Type>(a, i),
        DataType::Int64 => at::<Int64Type>(a, i),
        DataType::UInt8 => at::<UInt8Type>(a, i),
        DataType::UInt16 => at::<UInt16Type>(a, i),
        DataType::UInt32 => at::<UInt32Type>(a, i),
        DataType::UInt64 => at::<UInt64Type>(a, i),
        _ => None,
    }
}

fn text<T: std::fmt::Display>(v: Option<T>) -> Value {
    v.map_or(Value::Null, |v| Value::String(v.to_string()))
}

fn items(a: &ArrayRef) -> Value {
    Value::Array((0..a.len()).map(|j| value(a, j)).collect())
}
