//! Pass rates per group of records, each with n, a Wilson interval and a verdict against the
//! tolerance. Generic over methods: any record with an `expected` answer can be judged.

use crate::record::{Record, Status};
use crate::stats::confidence::Confidence;
use crate::stats::interval::{self, Interval};
use crate::stats::proportion::{Proportion, Wilson};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Fields a table can be grouped by; `community` joins the communities filled in.
pub const GROUP_FIELDS: &[&str] = &[
    "concern",
    "language",
    "community",
    "model",
    "provider",
    "template_id",
    "method",
    "input_type",
    "reflection_type",
    "question_id",
    "run_id",
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub group_by: Vec<String>,
    /// Confidence level of the intervals.
    pub confidence: Confidence,
    /// Minimum pass rate a group must reach.
    pub tolerance: f64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            group_by: vec!["concern".into(), "language".into()],
            confidence: Confidence::NINETY_FIVE,
            tolerance: 0.9,
        }
    }
}

/// Where a group stands against the tolerance, given its interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The whole interval is at or above the tolerance.
    Meets,
    /// The whole interval is below the tolerance.
    Fails,
    /// The interval straddles the tolerance: more cases are needed to decide.
    Inconclusive,
    /// No judged response in the group.
    NoData,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub key: Vec<String>,
    pub label: String,
    pub records: u64,
    pub refused: u64,
    /// Calls that gave no usable answer: error, filtered, unparseable, pending, skipped.
    pub unanswered: u64,
    pub pass: Option<Proportion>,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    pub settings: Settings,
    pub records: u64,
    /// Records judged against an expected answer.
    pub judged: u64,
    pub status_counts: BTreeMap<String, u64>,
    pub models: Vec<String>,
    /// True when any record came from the simulated provider: every output says so.
    pub simulated: bool,
    pub overall: Option<Proportion>,
    pub groups: Vec<Group>,
    /// Records left out because an earlier record has the same record_id: a record is never
    /// counted twice (the loader warns about each repeat). Absent when there are none, so
    /// analyses of clean tables are unchanged.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub repeated_ids_left_out: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
pub enum AnalysisError {
    #[error("settings field {field}: expected {expected}, found {found}")]
    Setting { field: &'static str, expected: String, found: String },
}

fn key_value(rec: &Record, field: &str) -> String {
    let v = match field {
        "concern" => rec.concern.clone(),
        "language" => rec.language.clone(),
        "community" => rec.communities.values().cloned().collect::<Vec<_>>().join(" + "),
        "model" => rec.model.clone(),
        "provider" => rec.provider.clone(),
        "template_id" => rec.template_id.clone(),
        "method" => rec.method.clone(),
        "input_type" => rec.input_type.clone(),
        "reflection_type" => rec.reflection_type.clone(),
        "question_id" => rec.question_id.clone(),
        "run_id" => rec.run_id.clone(),
        _ => String::new(),
    };
    if v.is_empty() { "(none)".into() } else { v }
}

fn check(s: &Settings) -> Result<(), AnalysisError> {
    let err =
        |field, expected: &str, found: String| Err(AnalysisError::Setting { field, expected: expected.into(), found });
    if !(0.0..=1.0).contains(&s.tolerance) {
        return err("tolerance", "a rate between 0 and 1", s.tolerance.to_string());
    }
    if let Some(bad) = s.group_by.iter().find(|g| !GROUP_FIELDS.contains(&g.as_str())) {
        return err("group_by", &format!("fields among {}", GROUP_FIELDS.join(", ")), format!("{bad:?}"));
    }
    Ok(())
}

/// The statistics' one rule ([`Interval::verdict`]), with the demo's fourth state for a group
/// without a judged response.
fn verdict(pass: &Option<Proportion>, tolerance: f64) -> Verdict {
    match pass.as_ref().map(|p| Interval { low: p.low, high: p.high }.verdict(tolerance)) {
        None => Verdict::NoData,
        Some(interval::Verdict::Meets) => Verdict::Meets,
        Some(interval::Verdict::Fails) => Verdict::Fails,
        Some(interval::Verdict::Inconclusive) => Verdict::Inconclusive,
    }
}

#[derive(Default)]
struct Tally {
    records: u64,
    refused: u64,
    unanswered: u64,
    judged: u64,
    passed: u64,
}

impl Tally {
    fn add(&mut self, rec: &Record) {
        self.records += 1;
        match rec.status {
            Status::Ok if !rec.expected.trim().is_empty() => {
                self.judged += 1;
                self.passed += u64::from(crate::text::matches_expected(&rec.response, &rec.expected));
            }
            Status::Ok => {}
            Status::Refused => self.refused += 1,
            _ => self.unanswered += 1,
        }
    }
}

/// Pass rates per group. Refusals and failed calls are counted beside the rate, not in it.
pub fn analyze(records: &[Record], settings: &Settings) -> Result<Analysis, AnalysisError> {
    check(settings)?;
    let mut groups: BTreeMap<Vec<String>, Tally> = BTreeMap::new();
    let mut total = Tally::default();
    let mut status_counts = BTreeMap::new();
    let mut models: Vec<String> = vec![];
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut repeated = 0u64;
    for rec in records {
        if !rec.record_id.is_empty() && !seen.insert(rec.record_id.as_str()) {
            repeated += 1;
            continue;
        }
        let key: Vec<String> = settings.group_by.iter().map(|g| key_value(rec, g)).collect();
        groups.entry(key).or_default().add(rec);
        total.add(rec);
        *status_counts.entry(rec.status.as_str().to_string()).or_insert(0) += 1;
        if !models.contains(&rec.model) {
            models.push(rec.model.clone());
        }
    }
    models.sort();
    let wilson = Wilson::new(settings.confidence.get());
    let groups = groups
        .into_iter()
        .map(|(key, t)| {
            let pass = wilson.interval(t.passed, t.judged);
            Group {
                label: if key.is_empty() { "all".into() } else { key.join(" · ") },
                key,
                records: t.records,
                refused: t.refused,
                unanswered: t.unanswered,
                verdict: verdict(&pass, settings.tolerance),
                pass,
            }
        })
        .collect();
    Ok(Analysis {
        settings: settings.clone(),
        records: total.records,
        judged: total.judged,
        status_counts,
        simulated: records.iter().any(|r| r.provider == crate::simulate::PROVIDER),
        models,
        overall: wilson.interval(total.passed, total.judged),
        groups,
        repeated_ids_left_out: repeated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(concern: &str, response: &str, status: Status) -> Record {
        Record {
            concern: concern.into(),
            language: "en".into(),
            response: response.into(),
            expected: "No".into(),
            status,
            ..Record::default()
        }
    }

    #[test]
    fn groups_count_passes_refusals_and_failures_apart() {
        let mut records: Vec<Record> = (0..18).map(|_| rec("age", "No.", Status::Ok)).collect();
        records.extend((0..2).map(|_| rec("age", "Yes", Status::Ok)));
        records.push(rec("age", "I won't answer", Status::Refused));
        records.push(rec("age", "", Status::Error));
        records.push(rec("gender", "No", Status::Ok));
        let a = analyze(&records, &Settings::default()).unwrap();
        assert_eq!(a.groups.len(), 2);
        let age = &a.groups[0];
        assert_eq!((age.records, age.refused, age.unanswered), (22, 1, 1));
        let p = age.pass.unwrap();
        assert_eq!((p.successes, p.n), (18, 20));
        assert_eq!(age.verdict, Verdict::Inconclusive); // 0.9 sits inside its interval
        assert_eq!(a.judged, 21);
        assert_eq!(a.status_counts["refused"], 1);
    }

    #[test]
    fn verdicts_follow_the_interval() {
        let many = |n_pass, n_fail| {
            let mut v: Vec<Record> = (0..n_pass).map(|_| rec("x", "No", Status::Ok)).collect();
            v.extend((0..n_fail).map(|_| rec("x", "Yes", Status::Ok)));
            analyze(&v, &Settings::default()).unwrap().groups[0].verdict
        };
        assert_eq!(many(1000, 5), Verdict::Meets);
        assert_eq!(many(500, 500), Verdict::Fails);
        let only_open = vec![Record { response: "text".into(), ..Record::default() }];
        assert_eq!(analyze(&only_open, &Settings::default()).unwrap().groups[0].verdict, Verdict::NoData);
    }

    #[test]
    fn bad_settings_name_the_field() {
        let s = Settings { group_by: vec!["colour".into()], ..Settings::default() };
        assert!(matches!(analyze(&[], &s), Err(AnalysisError::Setting { field: "group_by", .. })));
        // A confidence level out of range cannot be a Settings: reading one names the field.
        let e = serde_json::from_str::<Settings>(r#"{"group_by": [], "confidence": 1.5, "tolerance": 0.9}"#);
        assert!(e.unwrap_err().to_string().starts_with("confidence: expected a confidence level"));
    }
}
