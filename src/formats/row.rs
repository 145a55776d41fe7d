//! Converting between one record and its cells, shared by every reader and writer so that
//! CSV, JSONL and JSON agree on what each column holds.

use crate::record::{Field, Record, Status};
use serde_json::{Map, Value};

/// A cell as a reader found it: text from CSV, or a typed JSON value.
#[derive(Debug, Clone, Copy)]
pub enum Cell<'a> {
    Text(&'a str),
    Json(&'a Value),
}

#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    pub field: &'static str,
    pub expected: &'static str,
    pub found: String,
}

impl FieldError {
    pub fn message(&self) -> String {
        format!("expected {}, found {}", self.expected, self.found)
    }
}

fn shown(text: &str) -> String {
    let mut s: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        s.push('…');
    }
    format!("{s:?}")
}

fn bad(field: &Field, found: String) -> FieldError {
    FieldError { field: field.name, expected: field.kind.expected(), found }
}

/// The cell as text; JSON strings unwrap, other JSON values print as JSON.
fn as_text<'a>(cell: Cell<'a>) -> std::borrow::Cow<'a, str> {
    match cell {
        Cell::Text(t) => t.into(),
        Cell::Json(Value::String(s)) => s.as_str().into(),
        Cell::Json(Value::Null) => "".into(),
        Cell::Json(v) => v.to_string().into(),
    }
}

fn integer(field: &Field, cell: Cell) -> Result<Option<u64>, FieldError> {
    if let Cell::Json(Value::Number(n)) = cell {
        return n.as_u64().map(Some).ok_or_else(|| bad(field, n.to_string()));
    }
    let text = as_text(cell);
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    t.parse::<u64>().map(Some).map_err(|_| bad(field, shown(t)))
}

fn number(field: &Field, cell: Cell) -> Result<Option<f64>, FieldError> {
    if let Cell::Json(Value::Number(n)) = cell {
        return Ok(n.as_f64());
    }
    let text = as_text(cell);
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        _ => Err(bad(field, shown(t))),
    }
}

/// A JSON cell: typed JSON is taken as is, text is parsed as JSON.
fn json(field: &Field, cell: Cell) -> Result<Option<Value>, FieldError> {
    match cell {
        Cell::Json(Value::Null) => Ok(None),
        Cell::Json(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Cell::Json(Value::String(s)) => serde_json::from_str(s).map(Some).map_err(|_| bad(field, shown(s))),
        Cell::Json(v) => Ok(Some(v.clone())),
        Cell::Text(t) if t.trim().is_empty() => Ok(None),
        Cell::Text(t) => serde_json::from_str(t).map(Some).map_err(|_| bad(field, shown(t))),
    }
}

fn u32_of(field: &Field, v: Option<u64>) -> Result<Option<u32>, FieldError> {
    v.map(|n| u32::try_from(n).map_err(|_| bad(field, n.to_string()))).transpose()
}

/// Sets one field of `rec` from a cell, or says what was expected.
pub fn set_field(rec: &mut Record, field: &Field, cell: Cell) -> Result<(), FieldError> {
    // A JSON object, array or boolean where text belongs is a mistake in the file (a nested
    // response, a misplaced field); printing it as JSON text would hide that.
    if field.kind == crate::record::Kind::Text
        && let Cell::Json(v @ (Value::Object(_) | Value::Array(_) | Value::Bool(_))) = &cell
    {
        let what = match v {
            Value::Object(_) => "an object",
            Value::Array(_) => "an array",
            _ => "a boolean",
        };
        return Err(bad(field, what.to_string()));
    }
    let text = || as_text(cell).into_owned();
    match field.name {
        "format_version" => rec.format_version = u32_of(field, integer(field, cell)?)?.unwrap_or(1),
        "record_id" => rec.record_id = text(),
        "run_id" => rec.run_id = text(),
        "method" => rec.method = text(),
        "case_id" => rec.case_id = text(),
        "template_id" => rec.template_id = text(),
        "language" => rec.language = text(),
        "concern" => rec.concern = text(),
        "communities" => {
            // Usually a flat object of strings: read straight into the map, without a JSON value
            // in between. Anything else goes the general way, which says what is wrong.
            if let Cell::Text(t) = cell
                && let Ok(map) = serde_json::from_str(t)
            {
                rec.communities = map;
                return Ok(());
            }
            rec.communities = match json(field, cell)? {
                None => Default::default(),
                Some(Value::Object(map)) => map
                    .into_iter()
                    .map(|(k, v)| match v {
                        Value::String(s) => Ok((k, s)),
                        other => Err(FieldError {
                            field: field.name,
                            expected: "a JSON object of strings, such as {\"GENDER\":\"women\"}",
                            found: format!("{k}: {other}"),
                        }),
                    })
                    .collect::<Result<_, _>>()?,
                Some(other) => return Err(bad_obj(field, &other)),
            }
        }
        "input_type" => rec.input_type = text(),
        "reflection_type" => rec.reflection_type = text(),
        "prompt" => rec.prompt = text(),
        "provider" => rec.provider = text(),
        "model" => rec.model = text(),
        "params" => {
            rec.params = match json(field, cell)? {
                None => Default::default(),
                Some(Value::Object(map)) => map.into_iter().collect(),
                Some(other) => return Err(bad_obj(field, &other)),
            }
        }
        "sample_index" => rec.sample_index = u32_of(field, integer(field, cell)?)?.unwrap_or(0),
        "response" => rec.response = text(),
        "status" => {
            // Read in place: every row has one, and a copy of it per row added up.
            let t = as_text(cell);
            rec.status =
                if t.trim().is_empty() { Status::Ok } else { Status::parse(&t).ok_or_else(|| bad(field, shown(&t)))? }
        }
        "error" => rec.error = text(),
        "latency_ms" => rec.latency_ms = number(field, cell)?,
        "tokens_in" => rec.tokens_in = integer(field, cell)?,
        "tokens_out" => rec.tokens_out = integer(field, cell)?,
        "timestamp" => rec.timestamp = text(),
        "expected" => rec.expected = text(),
        "choices" => {
            rec.choices = match json(field, cell)? {
                None => vec![],
                Some(Value::Array(items)) => items
                    .into_iter()
                    .map(|v| match v {
                        Value::String(s) => Ok(s),
                        other => Err(FieldError {
                            field: field.name,
                            expected: "a JSON array of strings",
                            found: other.to_string(),
                        }),
                    })
                    .collect::<Result<_, _>>()?,
                Some(other) => {
                    return Err(FieldError {
                        field: field.name,
                        expected: "a JSON array of strings",
                        found: other.to_string(),
                    });
                }
            }
        }
        "gold" => rec.gold = u32_of(field, integer(field, cell)?)?,
        "question_id" => rec.question_id = text(),
        "logprobs" => rec.logprobs = json(field, cell)?,
        "embedding_ref" => rec.embedding_ref = text(),
        other => unreachable!("field {other} is in FIELDS but not converted"),
    }
    Ok(())
}

fn bad_obj(field: &Field, found: &Value) -> FieldError {
    FieldError { field: field.name, expected: "a JSON object", found: found.to_string() }
}

fn text_opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map(|x| x.to_string()).unwrap_or_default()
}

fn json_text<T: serde::Serialize>(v: &T, empty: bool) -> String {
    if empty { String::new() } else { serde_json::to_string(v).unwrap_or_default() }
}

/// The field as a CSV cell.
pub fn field_text(rec: &Record, field: &Field) -> String {
    match field.name {
        "format_version" => rec.format_version.to_string(),
        "record_id" => rec.record_id.clone(),
        "run_id" => rec.run_id.clone(),
        "method" => rec.method.clone(),
        "case_id" => rec.case_id.clone(),
        "template_id" => rec.template_id.clone(),
        "language" => rec.language.clone(),
        "concern" => rec.concern.clone(),
        "communities" => json_text(&rec.communities, rec.communities.is_empty()),
        "input_type" => rec.input_type.clone(),
        "reflection_type" => rec.reflection_type.clone(),
        "prompt" => rec.prompt.clone(),
        "provider" => rec.provider.clone(),
        "model" => rec.model.clone(),
        "params" => json_text(&rec.params, rec.params.is_empty()),
        "sample_index" => rec.sample_index.to_string(),
        "response" => rec.response.clone(),
        "status" => rec.status.as_str().to_string(),
        "error" => rec.error.clone(),
        "latency_ms" => text_opt(&rec.latency_ms),
        "tokens_in" => text_opt(&rec.tokens_in),
        "tokens_out" => text_opt(&rec.tokens_out),
        "timestamp" => rec.timestamp.clone(),
        "expected" => rec.expected.clone(),
        "choices" => json_text(&rec.choices, rec.choices.is_empty()),
        "gold" => text_opt(&rec.gold),
        "question_id" => rec.question_id.clone(),
        "logprobs" => rec.logprobs.as_ref().map(|v| v.to_string()).unwrap_or_default(),
        "embedding_ref" => rec.embedding_ref.clone(),
        other => unreachable!("field {other} is in FIELDS but not written"),
    }
}

/// The record as one JSON object: typed values, empty optional fields left out, extra
/// columns at the top level (as in a CSV), so JSON and CSV carry the same information.
pub fn to_json(rec: &Record) -> Map<String, Value> {
    let mut map = Map::new();
    let full = serde_json::to_value(rec).unwrap_or(Value::Null);
    for field in crate::record::FIELDS {
        let v = full.get(field.name).cloned().unwrap_or(Value::Null);
        let empty = match &v {
            Value::Null => true,
            Value::String(s) => s.is_empty() && !field.required,
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty(),
            _ => false,
        };
        if !empty {
            map.insert(field.name.to_string(), v);
        }
    }
    for (k, v) in &rec.extra {
        map.entry(k.clone()).or_insert_with(|| Value::String(v.clone()));
    }
    map
}

/// Fills in what a file may leave out: derived ids, and `error` status when an error is given.
pub fn complete(rec: &mut Record, row_number: usize, kinds_present: &dyn Fn(&str) -> bool) {
    if rec.case_id.is_empty() {
        rec.case_id = format!("row-{row_number}");
    }
    if rec.record_id.is_empty() {
        rec.record_id = rec.derived_id();
    }
    if !kinds_present("status") && !rec.error.is_empty() {
        rec.status = Status::Error;
    }
}
