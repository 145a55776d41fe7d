//! Field-by-field reading of a JSON object with located problems: each problem names the
//! file and the field path (`requirements[2].tolerance`) and says what was expected.

use crate::formats::Problem;
use serde_json::{Map, Value};

/// Collects problems with the file name and field path filled in.
pub(super) struct Check<'a> {
    pub file: &'a str,
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
}

impl Check<'_> {
    pub fn error(&mut self, path: &str, message: impl Into<String>) {
        self.errors.push(Problem::new(self.file, message).in_field(path));
    }
    pub fn warn(&mut self, path: &str, message: impl Into<String>) {
        self.warnings.push(Problem::new(self.file, message).in_field(path));
    }
    pub fn get<'v>(&mut self, obj: &'v Map<String, Value>, path: &str, key: &str) -> Option<&'v Value> {
        let v = obj.get(key);
        if v.is_none() {
            self.error(&format!("{path}{key}"), "missing (upstream raises KeyError)");
        }
        v
    }
    pub fn string(&mut self, obj: &Map<String, Value>, path: &str, key: &str) -> String {
        match self.get(obj, path, key) {
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                self.error(&format!("{path}{key}"), format!("expected a string, found {}", kind(other)));
                String::new()
            }
            None => String::new(),
        }
    }
    pub fn unit(&mut self, obj: &Map<String, Value>, path: &str, key: &str) -> f64 {
        let field = format!("{path}{key}");
        match self.get(obj, path, key) {
            Some(Value::Number(n)) => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                if !(0.0..=1.0).contains(&x) {
                    self.error(&field, format!("expected a number from 0 to 1, found {x}"));
                }
                x
            }
            Some(other) => {
                self.error(&field, format!("expected a number from 0 to 1, found {}", kind(other)));
                f64::NAN
            }
            None => f64::NAN,
        }
    }
    pub fn count(&mut self, v: Option<&Value>, field: &str) -> u64 {
        match v {
            Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64().unwrap_or(0),
            Some(other) => {
                self.error(field, format!("expected a non-negative integer, found {other}"));
                0
            }
            None => 0,
        }
    }
    pub fn strings(&mut self, v: Option<&Value>, field: &str) -> Vec<String> {
        match v {
            Some(Value::Array(items)) => {
                let mut out = vec![];
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) => out.push(s.clone()),
                        other => {
                            self.error(&format!("{field}[{i}]"), format!("expected a string, found {}", kind(other)))
                        }
                    }
                }
                out
            }
            Some(other) => {
                self.error(field, format!("expected a list of strings, found {}", kind(other)));
                vec![]
            }
            None => vec![],
        }
    }
}

pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
