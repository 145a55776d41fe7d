//! The confidence level of a two-sided interval, checked once where settings are read.
//!
//! Accepted: 0.5 ≤ c < 1. Every level below 1 defines an interval, and so does any above 0,
//! but the page's inputs have always asked for 0.5 to 0.999, and a level under one half is
//! in practice a significance level typed into the wrong box (0.05 for 0.95): rejecting it
//! says so instead of drawing a 5 % interval. 1 itself would be an unbounded interval.

use serde::{Deserialize, Serialize};

/// The accepted range, as the error messages spell it.
pub const RANGE: &str = "from 0.5 up to (not including) 1";

/// A confidence level in [0.5, 1). (De)serialized as a plain number.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct Confidence(f64);

/// A confidence level out of range, with the field it was given in.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("{field}: expected a confidence level {RANGE} (such as 0.95), found {value}")]
pub struct ConfidenceError {
    pub field: String,
    pub value: f64,
}

impl ConfidenceError {
    /// The same error under the field's full name (a path such as `statistics.confidence`, or
    /// a command-line flag).
    pub fn in_field(self, field: impl Into<String>) -> ConfidenceError {
        ConfidenceError { field: field.into(), ..self }
    }
}

impl Confidence {
    /// The usual 95 %.
    pub const NINETY_FIVE: Confidence = Confidence(0.95);

    /// `value` as a confidence level; the error names the field `confidence` (see
    /// [`ConfidenceError::in_field`]).
    pub fn new(value: f64) -> Result<Confidence, ConfidenceError> {
        if (0.5..1.0).contains(&value) {
            Ok(Confidence(value))
        } else {
            Err(ConfidenceError { field: "confidence".into(), value })
        }
    }

    pub fn get(self) -> f64 {
        self.0
    }
}

impl Default for Confidence {
    fn default() -> Confidence {
        Confidence::NINETY_FIVE
    }
}

impl TryFrom<f64> for Confidence {
    type Error = ConfidenceError;
    fn try_from(value: f64) -> Result<Confidence, ConfidenceError> {
        Confidence::new(value)
    }
}

impl From<Confidence> for f64 {
    fn from(c: Confidence) -> f64 {
        c.0
    }
}

impl std::fmt::Display for Confidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_is_half_open_from_one_half_to_one() {
        assert_eq!(Confidence::new(0.5).map(Confidence::get), Ok(0.5));
        assert_eq!(Confidence::new(0.999).map(Confidence::get), Ok(0.999));
        for bad in [0.05, 0.4999, 1.0, 1.5, 95.0, -0.95, f64::NAN, f64::INFINITY] {
            assert!(Confidence::new(bad).is_err(), "{bad} accepted");
        }
        assert_eq!(Confidence::default().get(), 0.95);
    }

    #[test]
    fn errors_name_the_field_the_range_and_the_value() {
        let e = Confidence::new(0.05).unwrap_err();
        assert_eq!((e.field.as_str(), e.value), ("confidence", 0.05));
        let text = e.in_field("--confidence").to_string();
        assert!(text.starts_with("--confidence: ") && text.contains(RANGE) && text.ends_with("found 0.05"), "{text}");
    }

    #[test]
    fn serde_reads_and_writes_a_number_through_the_check() {
        #[derive(Debug, Serialize, Deserialize)]
        struct S {
            confidence: Confidence,
        }
        let s: S = serde_json::from_str(r#"{"confidence": 0.9}"#).unwrap();
        assert_eq!(s.confidence.get(), 0.9);
        assert_eq!(serde_json::to_string(&s).unwrap(), r#"{"confidence":0.9}"#);
        let e = serde_json::from_str::<S>(r#"{"confidence": 1.5}"#).unwrap_err().to_string();
        assert!(e.contains("confidence: expected a confidence level") && e.contains("1.5"), "{e}");
    }
}
