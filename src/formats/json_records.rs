//! The record table as JSONL (one object a line) and JSON (an array of objects, or an
//! object with a `records` array). Keys are the record fields; other keys are kept as extras.

use super::mapping::field_for_header;
use super::row::{self, Cell};
use super::{LoadError, Loaded, Problem};
use crate::record::Record;
use serde_json::{Map, Value};

/// One JSON object to a record; `Err` lists every field that was wrong.
fn from_object(file: &str, obj: &Map<String, Value>, n: usize, line: Option<u64>) -> Result<Record, Vec<Problem>> {
    let mut rec = Record { format_version: 1, ..Record::default() };
    let mut problems = vec![];
    let locate = |p: Problem| match line {
        Some(l) => p.at_line(l),
        None => p,
    };
    for (key, value) in obj {
        match field_for_header(key) {
            Some(field) => {
                if let Err(e) = row::set_field(&mut rec, field, Cell::Json(value)) {
                    let name = if key == field.name { key.clone() } else { format!("{} (key \"{key}\")", field.name) };
                    let mut p = locate(Problem::new(file, e.message())).in_field(name);
                    if line.is_none() {
                        p.message = format!("record {}: {}", n + 1, p.message);
                    }
                    problems.push(p);
                }
            }
            None => {
                let text = match value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                rec.extra.insert(key.clone(), text);
            }
        }
    }
    if !obj.keys().any(|k| field_for_header(k).is_some_and(|f| f.name == "response")) {
        let mut p = locate(Problem::new(file, "expected a \"response\" key")).in_field("response");
        if line.is_none() {
            p.message = format!("record {}: {}", n + 1, p.message);
        }
        problems.push(p);
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let has = |name: &str| obj.keys().any(|k| field_for_header(k).is_some_and(|f| f.name == name));
    row::complete(&mut rec, n + 1, &has);
    Ok(rec)
}

pub fn read_jsonl(file: &str, text: &str) -> Loaded {
    read_jsonl_into(Loaded::new(file, "jsonl", true), text)
}

/// [`read_jsonl`] into `loaded`, which keeps the records or only counts them.
pub(super) fn read_jsonl_into(mut loaded: Loaded, text: &str) -> Loaded {
    let file = &*loaded.file.clone();
    let mut n = 0;
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u64 + 1;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(obj)) => {
                match from_object(file, &obj, n, Some(line_no)) {
                    Ok(rec) => loaded.push(rec, line_no),
                    Err(problems) => loaded.errors.extend(problems),
                }
                n += 1;
            }
            Ok(other) => loaded.errors.push(
                Problem::new(file, format!("expected a JSON object, found {}", kind_of(&other)))
                    .at_line(line_no)
                    .at_column(1),
            ),
            Err(e) => loaded.errors.push(
                Problem::new(file, format!("invalid JSON: {}", strip_position(&e)))
                    .at_line(line_no)
                    .at_column(e.column() as u64),
            ),
        }
    }
    loaded.finish()
}

pub fn read_json(file: &str, text: &str) -> Result<Loaded, LoadError> {
    read_json_into(Loaded::new(file, "json", true), text)
}

/// [`read_json`] into `loaded`, which keeps the records or only counts them (the JSON value
/// of the whole file is held either way: a JSON array is not read item by item).
pub(super) fn read_json_into(mut loaded: Loaded, text: &str) -> Result<Loaded, LoadError> {
    let file = &*loaded.file.clone();
    let value: Value = serde_json::from_str(text).map_err(|e| {
        LoadError::Syntax(
            Problem::new(file, format!("invalid JSON: {}", strip_position(&e)))
                .at_line(e.line() as u64)
                .at_column(e.column() as u64),
        )
    })?;
    let items = match value {
        Value::Array(items) => items,
        Value::Object(mut obj) => match obj.remove("records") {
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(LoadError::Syntax(
                    Problem::new(file, format!("expected \"records\" to be an array, found {}", kind_of(&other)))
                        .in_field("records"),
                ));
            }
            None => vec![Value::Object(obj)],
        },
        other => {
            return Err(LoadError::Syntax(Problem::new(
                file,
                format!("expected an array of records or an object with \"records\", found {}", kind_of(&other)),
            )));
        }
    };
    for (n, item) in items.iter().enumerate() {
        match item {
            Value::Object(obj) => match from_object(file, obj, n, None) {
                Ok(rec) => loaded.push(rec, n as u64 + 1),
                Err(problems) => loaded.errors.extend(problems),
            },
            other => loaded.errors.push(Problem::new(
                file,
                format!("record {}: expected a JSON object, found {}", n + 1, kind_of(other)),
            )),
        }
    }
    Ok(loaded.finish())
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// serde_json appends " at line L column C"; the Problem carries those separately.
fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// JSONL: one record object per line, empty optional fields left out.
pub fn write_jsonl(records: &[Record]) -> String {
    let mut out = String::new();
    for rec in records {
        out.push_str(&Value::Object(row::to_json(rec)).to_string());
        out.push('\n');
    }
    out
}

/// JSON: an array of record objects.
pub fn write_json(records: &[Record]) -> String {
    let items: Vec<Value> = records.iter().map(|r| Value::Object(row::to_json(r))).collect();
    serde_json::to_string_pretty(&items).unwrap_or_default()
}
