//! The batch route: a run too large for a browser tab, sent through a provider's own batch API
//! instead. The page (or the CLI) plans the run exactly as the run engine would, from a cases
//! file and one model's settings ([`Plan::chat`]), writes the plan as an OpenAI Batch JSONL file
//! or an Anthropic Message Batches request, and later reads the provider's results file back
//! into records whose ids are the run engine's record ids.
//!
//! Each planned record gets a `custom_id` that the providers accept (at most 64 letters, digits,
//! '-' or '_'): the case id, cleaned and cut to 40 characters, then a 64-bit FNV-1a hash of the
//! whole record id ([`crate::rng::stable_hash`]). The hash makes it unique per record; the case
//! id makes a results file readable. Importing re-plans from the same cases and settings, so the
//! ids match without the page having to keep anything between export and import.

use super::plan::{Job, Plan, PlanError};
use super::spec::{Params, RetryPolicy, RunSpec, Target};
use crate::formats::Problem;
use crate::providers::batch::{self, BatchResults};
use crate::providers::request::build_chat;
use crate::providers::{ProviderKind, outcome};
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

/// A custom_id the providers accept, unique per record id (see the module doc).
pub fn custom_id(case_id: &str, record_id: &str) -> String {
    let clean: String = case_id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
        .take(40)
        .collect();
    format!("{clean}-{:016x}", crate::rng::stable_hash(&[record_id.as_bytes()]))
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
    let custom_ids = plan.calls.iter().map(|c| custom_id(&c.record.case_id, &c.record.record_id)).collect();
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

impl Prepared {
    fn chat_cases(&self) -> Vec<(String, crate::providers::ChatRequest)> {
        self.plan
            .calls
            .iter()
            .zip(&self.custom_ids)
            .filter_map(|(call, id)| match &call.job {
                Job::Chat(req) => Some((id.clone(), req.clone())),
                Job::Embed { .. } => None,
            })
            .collect()
    }

    fn kind(&self) -> ProviderKind {
        self.plan.spec.targets[0].provider
    }

    /// The provider's batch input: OpenAI Batch JSONL, or the Anthropic Message Batches body.
    pub fn export(&self) -> Result<Export, BatchRouteError> {
        let cases = self.chat_cases();
        let run = &self.plan.spec.run_id;
        let kind = self.kind();
        let batch_err = |e: batch::BatchError| BatchRouteError::Batch { message: e.to_string() };
        let (file_name, mime, text) = if kind == ProviderKind::Anthropic {
            let body = batch::anthropic_requests(&cases).map_err(batch_err)?;
            (format!("{run}-anthropic-batch.json"), "application/json", body.to_string())
        } else {
            (format!("{run}-openai-batch.jsonl"), "application/jsonl", batch::openai_jsonl(&cases).map_err(batch_err)?)
        };
        let mut warnings = vec![];
        let limit = provider_limit(kind);
        if cases.len() > limit {
            warnings.push(format!(
                "{} requests: the provider takes at most {limit} per batch, so split the cases file",
                cases.len()
            ));
        }
        let ids = self
            .plan
            .calls
            .iter()
            .zip(&self.custom_ids)
            .map(|(c, id)| IdPair { custom_id: id.clone(), record_id: c.record.record_id.clone() })
            .collect();
        Ok(Export { file_name, mime, text, requests: cases.len(), ids, warnings })
    }

    /// Reads the provider's results file into one record per planned call: answers (ok,
    /// refused, filtered), failures (error, with the provider's reason) and the calls the file
    /// does not mention (pending, so they can be sent again).
    pub fn import(&self, results_name: &str, results_bytes: &[u8]) -> Result<Imported, BatchRouteError> {
        let text = crate::formats::decode(results_name, results_bytes)
            .map_err(|e| BatchRouteError::Results { file: results_name.to_string(), message: e.to_string() })?;
        let kind = self.kind();
        let results = batch::read_results(kind.spec().wire, text, &self.custom_ids)
            .map_err(|e| BatchRouteError::Results { file: results_name.to_string(), message: e.to_string() })?;
        let endpoint = self.plan.spec.targets[0].endpoint();
        let mut records = Vec::with_capacity(self.plan.calls.len());
        let mut report = ImportReport { file: results_name.to_string(), ..Default::default() };
        for (call, id) in self.plan.calls.iter().zip(&self.custom_ids) {
            let mut record = call.record.clone();
            let Job::Chat(req) = &call.job else { continue };
            // The request as it was in the batch file, so the record keeps the exact body.
            let http =
                build_chat(&endpoint, None, req).map_err(|e| BatchRouteError::Batch { message: e.to_string() })?;
            if let Some(answer) = results.answers.get(id) {
                outcome::apply(&mut record, kind, &http, Ok(answer), None, None);
                report.answered.push(id.clone());
            } else if let Some(reason) = results.failures.get(id) {
                record.status = Status::Error;
                record.error = reason.clone();
                record.params = http.params_for_record().as_object().cloned().unwrap_or_default().into_iter().collect();
                report.failed.push(Failure {
                    custom_id: id.clone(),
                    record_id: record.record_id.clone(),
                    reason: reason.clone(),
                });
            } else {
                record.error = format!("not in the results file {results_name}");
                report.missing.push(IdPair { custom_id: id.clone(), record_id: record.record_id.clone() });
            }
            records.push(record);
        }
        report.unknown = results.unknown.clone();
        report.refused = records.iter().filter(|r| r.status == Status::Refused).count();
        report.filtered = records.iter().filter(|r| r.status == Status::Filtered).count();
        Ok(Imported { records, report, results })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub custom_id: String,
    pub record_id: String,
    pub reason: String,
}

/// What an import found, for the page to show.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ImportReport {
    pub file: String,
    /// custom_ids with an answer (refusals and filtered answers included).
    pub answered: Vec<String>,
    pub refused: usize,
    pub filtered: usize,
    pub failed: Vec<Failure>,
    /// Planned calls with no line in the file.
    pub missing: Vec<IdPair>,
    /// custom_ids in the file that this plan does not have (another plan's file, or changed settings).
    pub unknown: Vec<String>,
}

pub struct Imported {
    pub records: Vec<Record>,
    pub report: ImportReport,
    pub results: BatchResults,
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
        assert!(e.ids[0].custom_id.starts_with("q_1-") && e.ids[0].custom_id.len() == 4 + 16, "{:?}", e.ids[0]);
        let lines: Vec<serde_json::Value> = e.text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1]["custom_id"], e.ids[1].custom_id.as_str());
        assert_eq!((lines[1]["body"]["temperature"].as_f64(), lines[1]["body"]["seed"].as_u64()), (Some(0.0), Some(7)));
        assert_eq!(e.file_name, "b1-openai-batch.jsonl");
        let long = custom_id(&"é".repeat(100), "x");
        assert!(long.len() <= 64 && long.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'), "{long}");
        assert_ne!(custom_id("a", "r:a:t:m:0"), custom_id("a", "r:a:t:m:1"));
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
        let out = p.import("results.jsonl", results.as_bytes()).unwrap();
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
        let bad = p.import("r.jsonl", b"{\"custom_id\":\n").err().unwrap();
        assert!(bad.to_string().starts_with("r.jsonl: line 1"), "{bad}");
    }
}
