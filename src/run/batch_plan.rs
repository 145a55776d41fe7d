//! The batch route from the page: one provider and model's settings plus a cases file,
//! planned exactly as the run engine plans them ([`Plan::chat`]), then written and read back
//! through [`super::batch`], so the page and `evenhand batch` produce the same files and the
//! same custom_ids ([`super::batch::custom_id`]). Importing re-plans from the same cases and
//! settings, so the ids match without the page keeping anything between export and import.

use super::batch::{self, RouteError};
use super::plan::{Plan, PlanError};
use super::spec::{Params, RetryPolicy, RunSpec, Target};
use crate::formats::Problem;
use crate::providers::ProviderKind;
use crate::record::{Record, Status};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// What the user chose for a batch: one provider (OpenAI or Anthropic), one model, the
/// parameters (sent exactly as set) and the samples per case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchSettings {
    pub provider: ProviderKind,
    pub model: String,
    #[serde(default = "default_run_id")]
    pub run_id: String,
    #[serde(default)]
    pub params: Params,
    #[serde(default = "one")]
    pub samples: u32,
}

fn default_run_id() -> String {
    "batch".into()
}
fn one() -> u32 {
    1
}

/// The most requests one batch takes: OpenAI 50,000 per file, Anthropic 100,000 per batch
/// (their documentation, not tried live). A larger plan is still written, with a warning.
pub fn provider_limit(kind: ProviderKind) -> usize {
    if kind == ProviderKind::Anthropic { 100_000 } else { 50_000 }
}

#[derive(Debug, Clone, PartialEq, Error, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BatchRouteError {
    #[error("provider {found:?}: the batch route writes OpenAI or Anthropic batch files; expected openai or anthropic")]
    Provider { found: String },
    #[error("{file}: the cases could not be read ({} problem(s)); the first: {}", problems.len(), first(problems))]
    Cases { file: String, problems: Vec<Problem> },
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error("{message}")]
    Batch { message: String },
    #[error("{file}: {message}")]
    Results { file: String, message: String },
}

fn first(problems: &[Problem]) -> String {
    problems.first().map(|p| p.to_string()).unwrap_or_default()
}

/// The planned run with each call's custom_id, in plan order.
pub struct Prepared {
    pub plan: Plan,
    pub custom_ids: Vec<String>,
}

/// Plans the batch from a cases file (CSV, JSONL or JSON with a prompt column).
pub fn prepare(settings: &BatchSettings, cases_name: &str, cases_bytes: &[u8]) -> Result<Prepared, BatchRouteError> {
    if !matches!(settings.provider, ProviderKind::OpenAi | ProviderKind::Anthropic) {
        let found = serde_json::to_value(settings.provider)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        return Err(BatchRouteError::Provider { found });
    }
    let cases = super::cases::read(cases_name, cases_bytes)
        .map_err(|problems| BatchRouteError::Cases { file: cases_name.to_string(), problems })?;
    let mut spec = RunSpec {
        run_id: settings.run_id.trim().to_string(),
        method: String::new(),
        targets: vec![Target {
            id: String::new(),
            provider: settings.provider,
            base_url: None,
            models: vec![settings.model.trim().to_string()],
            key_env: None,
            concurrency: 1,
            requests_per_minute: None,
            tokens_per_minute: None,
        }],
        samples: settings.samples,
        params: settings.params.clone(),
        retry: RetryPolicy::default(),
        seed: 0,
        prices: None,
        confirm_above_calls: u64::MAX,
        confirm_above_cost: f64::MAX,
        cases: None,
    };
    spec.fill_ids();
    let plan = Plan::chat(spec, &cases)?;
    let custom_ids = plan.calls.iter().map(|c| batch::custom_id(&c.record.record_id)).collect();
    Ok(Prepared { plan, custom_ids })
}

/// One planned request: its custom_id beside the record id it will fill.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IdPair {
    pub custom_id: String,
    pub record_id: String,
}

/// A batch file ready to download.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Export {
    pub file_name: String,
    pub mime: &'static str,
    pub text: String,
    pub requests: usize,
    pub ids: Vec<IdPair>,
    /// Limits the provider will enforce on this file.
    pub warnings: Vec<String>,
}

/// A batch file as the Upload view offers it: the file, with only the first few custom_id /
/// record_id pairs to show (the file holds them all).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Download {
    pub file_name: String,
    pub mime: &'static str,
    pub text: String,
    pub requests: usize,
    pub warnings: Vec<String>,
    pub first_ids: Vec<IdPair>,
}

/// How many id pairs a [`Download`] shows.
const SHOWN_IDS: usize = 5;

/// The batch file for `settings` over the cases file, ready to download.
pub fn download(settings: &BatchSettings, cases_name: &str, cases_bytes: &[u8]) -> Result<Download, BatchRouteError> {
    let export = prepare(settings, cases_name, cases_bytes)?.export()?;
    Ok(Download {
        file_name: export.file_name,
        mime: export.mime,
        text: export.text,
        requests: export.requests,
        warnings: export.warnings,
        first_ids: export.ids.into_iter().take(SHOWN_IDS).collect(),
    })
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub custom_id: String,
    pub record_id: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ImportReport {
    pub file: String,
    pub answered: Vec<String>,
    pub refused: usize,
    pub filtered: usize,
    pub failed: Vec<Failure>,
    pub missing: Vec<IdPair>,
    pub unknown: Vec<String>,
}

pub struct Imported {
    pub records: Vec<Record>,
    pub report: ImportReport,
}

fn route(e: RouteError) -> BatchRouteError {
    BatchRouteError::Batch { message: e.to_string() }
}

impl Prepared {
    fn kind(&self) -> ProviderKind {
        self.plan.spec.targets[0].provider
    }

    pub fn export(&self) -> Result<Export, BatchRouteError> {
        let kind = self.kind();
        let (text, requests) = batch::export(&self.plan, kind).map_err(route)?;
        let run = &self.plan.spec.run_id;
        let (file_name, mime) = if kind == ProviderKind::Anthropic {
            (format!("{run}-anthropic-batch.json"), "application/json")
        } else {
            (format!("{run}-openai-batch.jsonl"), "application/jsonl")
        };
        let limit = provider_limit(kind);
        let warnings = if requests > limit {
            vec![format!("{requests} requests: the provider takes at most {limit} per batch, so split the cases file")]
        } else {
            vec![]
        };
        let ids = self
            .plan
            .calls
            .iter()
            .zip(&self.custom_ids)
            .map(|(c, id)| IdPair { custom_id: id.clone(), record_id: c.record.record_id.clone() })
            .collect();
        Ok(Export { file_name, mime, text, requests, ids, warnings })
    }

    /// Reads the provider's results file into every planned record; `unix_ms` stamps them.
    pub fn import(&self, results_name: &str, results_bytes: &[u8], unix_ms: i64) -> Result<Imported, BatchRouteError> {
        let text = crate::formats::decode(results_name, results_bytes)
            .map_err(|e| BatchRouteError::Results { file: results_name.to_string(), message: e.to_string() })?;
        let imported = batch::import(&self.plan, self.kind(), text, unix_ms).map_err(|e| match e {
            RouteError::File(f) => BatchRouteError::Results { file: results_name.to_string(), message: f.to_string() },
            other => route(other),
        })?;
        let mut report =
            ImportReport { file: results_name.to_string(), unknown: imported.unknown, ..Default::default() };
        let id_of = |record_id: &str| batch::custom_id(record_id);
        for r in &imported.records {
            match r.status {
                Status::Ok | Status::Refused | Status::Filtered => report.answered.push(id_of(&r.record_id)),
                Status::Error => report.failed.push(Failure {
                    custom_id: id_of(&r.record_id),
                    record_id: r.record_id.clone(),
                    // The record says where the error came from; the report lists the provider's words.
                    reason: r.error.strip_prefix("batch result: ").unwrap_or(&r.error).to_string(),
                }),
                _ => {}
            }
        }
        report.missing = imported
            .missing
            .iter()
            .map(|record_id| IdPair { custom_id: id_of(record_id), record_id: record_id.clone() })
            .collect();
        report.refused = imported.records.iter().filter(|r| r.status == Status::Refused).count();
        report.filtered = imported.records.iter().filter(|r| r.status == Status::Filtered).count();
        Ok(Imported { records: imported.records, report })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(provider: &str, extra: &str) -> BatchSettings {
        serde_json::from_str(&format!(
            r#"{{"provider":"{provider}","model":"m-1","run_id":"b1","params":{{"temperature":0,"max_tokens":4{extra}}}}}"#
        ))
        .unwrap()
    }

    const CASES: &str = "case_id,prompt,language\nq 1,First?,en\nq2,Second?,de\nq3,Third?,fr\n";

    #[test]
    fn ids_follow_the_run_engine_and_fit_both_providers() {
        let p = prepare(&settings("openai", r#","seed":7"#), "c.csv", CASES.as_bytes()).unwrap();
        let e = p.export().unwrap();
        assert_eq!(e.ids[0].record_id, "b1:q 1:openai:m-1:0");
        assert_eq!(e.ids[0].custom_id, batch::custom_id("b1:q 1:openai:m-1:0"), "the CLI's ids");
        let lines: Vec<serde_json::Value> = e.text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1]["custom_id"], e.ids[1].custom_id.as_str());
        assert_eq!((lines[1]["body"]["temperature"].as_f64(), lines[1]["body"]["seed"].as_u64()), (Some(0.0), Some(7)));
        assert_eq!(e.file_name, "b1-openai-batch.jsonl");
        let long = batch::custom_id(&"é".repeat(100));
        assert!(long.len() <= 64 && long.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'), "{long}");
    }

    #[test]
    fn anthropic_refuses_a_seed_and_other_providers_are_refused() {
        let e = prepare(&settings("anthropic", r#","seed":7"#), "c.csv", CASES.as_bytes()).err().unwrap();
        assert!(e.to_string().contains("seed"), "{e}");
        let e = prepare(&settings("replicate", ""), "c.csv", CASES.as_bytes()).err().unwrap();
        assert!(matches!(e, BatchRouteError::Provider { .. }), "{e}");
        let e = prepare(&settings("openai", ""), "c.csv", b"case_id,prompt\na,\n").err().unwrap();
        assert!(matches!(e, BatchRouteError::Cases { ref problems, .. } if problems[0].line == Some(2)), "{e}");
        let export = prepare(&settings("anthropic", r#","system":"Be brief.""#), "c.csv", CASES.as_bytes()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&export.export().unwrap().text).unwrap();
        assert_eq!(v["requests"].as_array().unwrap().len(), 3);
        assert_eq!(v["requests"][2]["params"]["system"], "Be brief.");
    }

    #[test]
    fn import_matches_answers_failures_missing_and_unknown() {
        let p = prepare(&settings("anthropic", ""), "c.csv", CASES.as_bytes()).unwrap();
        let id = &p.custom_ids;
        let results = format!(
            "{}\n{}\n{}\n",
            format_args!(
                r#"{{"custom_id":"{}","result":{{"type":"succeeded","message":{{"type":"message","role":"assistant","model":"m-1","content":[{{"type":"text","text":"Yes"}}],"stop_reason":"end_turn","usage":{{"input_tokens":3,"output_tokens":1}}}}}}}}"#,
                id[0]
            ),
            format_args!(
                r#"{{"custom_id":"{}","result":{{"type":"errored","error":{{"type":"error","error":{{"type":"invalid_request_error","message":"prompt too long"}}}}}}}}"#,
                id[2]
            ),
            r#"{"custom_id":"someone-else","result":{"type":"expired"}}"#
        );
        let out = p.import("results.jsonl", results.as_bytes(), 0).unwrap();
        assert_eq!(out.records.len(), 3);
        let r = &out.report;
        assert_eq!((r.answered.len(), r.failed.len(), r.missing.len(), r.unknown.len()), (1, 1, 1, 1));
        assert_eq!((out.records[0].status, out.records[0].response.as_str()), (Status::Ok, "Yes"));
        assert_eq!(out.records[0].params["temperature"], serde_json::json!(0.0));
        assert_eq!(out.records[0].language, "en", "the case's columns are kept");
        assert_eq!(out.records[2].status, Status::Error);
        assert!(out.records[2].error.contains("prompt too long"), "{}", out.records[2].error);
        assert_eq!(
            (out.records[1].status, r.missing[0].record_id.as_str()),
            (Status::Pending, "b1:q2:anthropic:m-1:0")
        );
        let bad = p.import("r.jsonl", b"{\"custom_id\":\n", 0).err().unwrap();
        assert!(bad.to_string().starts_with("r.jsonl: line 1"), "{bad}");
    }
}
