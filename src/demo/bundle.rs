//! The reproducibility bundle: one versioned JSON file with the experiment, seeds, tool
//! version, records (inline or by URL), analysis settings, and the numbers they gave. Loading
//! it recomputes the numbers and says whether they are bit-identical to the stored ones.

use crate::demo::analysis::{self, Analysis, Settings};
use crate::demo::{self, Experiment};
use crate::record::Record;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const FORMAT: &str = "evenhand-bundle";
pub const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    pub format: String,
    pub version: u32,
    pub tool_version: String,
    /// The simulated experiment that produced the records, if they were simulated.
    #[serde(default)]
    pub experiment: Option<Experiment>,
    pub analysis: Settings,
    /// The records, as JSON objects of the record table.
    #[serde(default)]
    pub records: Option<Vec<Value>>,
    /// Where to fetch the records from when they are not inline.
    #[serde(default)]
    pub records_url: Option<String>,
    /// The numbers as computed when the bundle was made.
    #[serde(default)]
    pub results: Option<Analysis>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BundleError {
    #[error("{file}:{line}:{column}: not a bundle: {message}")]
    Json { file: String, line: usize, column: usize, message: String },
    #[error("{file}: field format: expected \"{FORMAT}\", found {found:?}")]
    Format { file: String, found: String },
    #[error("{file}: field version: this Evenhand reads bundle version {VERSION}, found {found}")]
    Version { file: String, found: u32 },
    #[error("{file}: the bundle has neither records nor an experiment to rebuild them from")]
    NoData { file: String },
    #[error("{file}: {message}")]
    Content { file: String, message: String },
}

/// Makes a bundle: records inline, results computed now.
pub fn make(
    experiment: Option<Experiment>,
    records: &[Record],
    settings: &Settings,
) -> Result<Bundle, analysis::AnalysisError> {
    let results = analysis::analyze(records, settings)?;
    Ok(Bundle {
        format: FORMAT.into(),
        version: VERSION,
        tool_version: crate::VERSION.into(),
        experiment,
        analysis: settings.clone(),
        records: Some(records.iter().map(|r| Value::Object(crate::formats::row::to_json(r))).collect()),
        records_url: None,
        results: Some(results),
    })
}

pub fn parse(file: &str, text: &str) -> Result<Bundle, BundleError> {
    let value: Value = serde_json::from_str(text.trim_start_matches('\u{feff}')).map_err(|e| BundleError::Json {
        file: file.into(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let format = value.get("format").and_then(Value::as_str).unwrap_or("");
    if format != FORMAT {
        return Err(BundleError::Format { file: file.into(), found: format.into() });
    }
    let version = value.get("version").and_then(Value::as_u64).unwrap_or(0) as u32;
    if version != VERSION {
        return Err(BundleError::Version { file: file.into(), found: version });
    }
    serde_json::from_value(value).map_err(|e| BundleError::Json {
        file: file.into(),
        line: 0,
        column: 0,
        message: e.to_string(),
    })
}

/// What loading a bundle gives: its records, the recomputed numbers, and whether they match.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reproduction {
    pub records: Vec<Record>,
    pub analysis: Analysis,
    /// Some(true) when the stored numbers were recomputed bit for bit.
    pub identical: Option<bool>,
    /// For a simulated bundle: whether rerunning the experiment rebuilt the same records.
    pub records_rebuilt: Option<bool>,
    pub problems: Vec<crate::formats::Problem>,
}

/// Recomputes a bundle. `fetched` holds the records when they came from `records_url`.
pub fn reproduce(file: &str, bundle: &Bundle, fetched: Option<Vec<Record>>) -> Result<Reproduction, BundleError> {
    let content = |message: String| BundleError::Content { file: file.into(), message };
    let rebuilt = match &bundle.experiment {
        Some(exp) => Some(demo::run(exp).map_err(|e| content(format!("experiment: {e}")))?),
        None => None,
    };
    let mut problems = vec![];
    let records = match (fetched, &bundle.records) {
        (Some(r), _) => r,
        (None, Some(items)) => {
            let text = serde_json::to_string(items).unwrap_or_default();
            let loaded = crate::formats::json_records::read_json(file, &text).map_err(|e| content(e.to_string()))?;
            problems = loaded.errors;
            loaded.records
        }
        (None, None) => rebuilt.clone().ok_or(BundleError::NoData { file: file.into() })?,
    };
    let analysis = analysis::analyze(&records, &bundle.analysis).map_err(|e| content(e.to_string()))?;
    Ok(Reproduction {
        identical: bundle.results.as_ref().map(|r| r == &analysis),
        records_rebuilt: rebuilt.map(|r| r == records),
        records,
        analysis,
        problems,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_round_trips_to_identical_numbers() {
        let exp = Experiment::default();
        let records = demo::run(&exp).unwrap();
        let b = make(Some(exp), &records, &Settings::default()).unwrap();
        let text = serde_json::to_string_pretty(&b).unwrap();
        let back = parse("b.json", &text).unwrap();
        assert!(back == b, "the bundle changed on its way through JSON");
        let r = reproduce("b.json", &back, None).unwrap();
        assert_eq!(r.identical, Some(true));
        assert_eq!(r.records_rebuilt, Some(true));
        assert_eq!(r.records, records);
    }

    #[test]
    fn tampered_numbers_are_noticed() {
        let exp = Experiment { samples: 2, ..Experiment::default() };
        let records = demo::run(&exp).unwrap();
        let mut b = make(None, &records, &Settings::default()).unwrap();
        b.records.as_mut().unwrap()[0]["response"] = "Yes".into();
        let r = reproduce("b.json", &b, None).unwrap();
        assert_eq!(r.identical, Some(false));
    }

    #[test]
    fn wrong_files_get_precise_errors() {
        assert!(matches!(parse("x.json", "{\"format\":\"other\"}"), Err(BundleError::Format { .. })));
        assert!(matches!(
            parse("x.json", "{\"format\":\"evenhand-bundle\",\"version\":9}"),
            Err(BundleError::Version { found: 9, .. })
        ));
        match parse("x.json", "{\n  \"format\": ") {
            Err(BundleError::Json { line: 2, .. }) => {}
            other => panic!("{other:?}"),
        }
    }
}
