//! A located problem in an input file: which file, where, and what was expected.

use serde::Serialize;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    pub file: String,
    /// 1-based line where the row starts (CSV, JSONL, JSON syntax errors).
    pub line: Option<u64>,
    /// 1-based column: a character position for syntax errors.
    pub column: Option<u64>,
    /// The record field concerned, with the file's own header in brackets when it differs.
    pub field: Option<String>,
    pub message: String,
}

impl Problem {
    pub fn new(file: &str, message: impl Into<String>) -> Problem {
        Problem { file: file.to_string(), line: None, column: None, field: None, message: message.into() }
    }
    pub fn at_line(mut self, line: u64) -> Problem {
        self.line = Some(line);
        self
    }
    pub fn at_column(mut self, column: u64) -> Problem {
        self.column = Some(column);
        self
    }
    pub fn in_field(mut self, field: impl Into<String>) -> Problem {
        self.field = Some(field.into());
        self
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(col) = self.column {
                write!(f, ":{col}")?;
            }
        }
        if let Some(field) = &self.field {
            write!(f, ": field {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}
