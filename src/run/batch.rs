//! A plan through the providers' batch APIs instead of live calls: the plan's calls to one
//! provider written as a batch request file ([`export`]), and the provider's result file read
//! back into the plan's records ([`import`]). The file formats are [`crate::providers::batch`]'s.
//!
//! Record ids (`run:case:target:model:sample`) may hold characters the batch APIs refuse in a
//! `custom_id` (at most 64 of letters, digits, '-' and '_'), so each call's custom_id is
//! [`custom_id`]: the record id with other characters turned into '_', cut to 47 characters,
//! then '-' and 16 hex digits of the record id's FNV-1a hash. Readable, stable across runs of
//! the same plan, and unique unless two record ids collide in 64 bits; a collision is caught
//! by the file writer's duplicate check rather than silently merging two calls.

use super::plan::{Job, Plan};
use crate::providers::batch::{self as files, BatchError};
use crate::providers::outcome::apply;
use crate::providers::request::{ChatRequest, Endpoint, build_chat};
use crate::providers::{ProviderKind, WireFormat};
use crate::record::{Record, Status};
use serde::Serialize;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum RouteError {
    #[error("the batch route exists for openai and anthropic only, not {0}")]
    Unsupported(String),
    #[error("the run spec has no {0} target: expected a target with \"provider\": \"{0}\"")]
    NoCalls(String),
    #[error("the plan has embedding or scoring calls; the batch route sends chat calls only")]
    NotChat,
    #[error(transparent)]
    File(#[from] BatchError),
}

/// The custom_id of the call that fills `record_id`.
pub fn custom_id(record_id: &str) -> String {
    let readable: String = record_id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
        .take(47)
        .collect();
    format!("{readable}-{:016x}", fnv1a(record_id.as_bytes()))
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

fn name(kind: ProviderKind) -> String {
    serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// The plan's calls to `provider`: (index into plan.calls, custom_id, request).
fn calls(plan: &Plan, provider: ProviderKind) -> Result<Vec<(usize, String, ChatRequest)>, RouteError> {
    if !matches!(provider, ProviderKind::OpenAi | ProviderKind::Anthropic) {
        return Err(RouteError::Unsupported(name(provider)));
    }
    let mut out = vec![];
    for (i, call) in plan.calls.iter().enumerate() {
        if plan.spec.targets[call.target].provider != provider {
            continue;
        }
        match &call.job {
            Job::Chat(req) => out.push((i, custom_id(&call.record.record_id), req.clone())),
            Job::Embed { .. } | Job::Score { .. } => return Err(RouteError::NotChat),
        }
    }
    if out.is_empty() {
        return Err(RouteError::NoCalls(name(provider)));
    }
    Ok(out)
}

/// The request file for `provider`: OpenAI Batch JSONL, or the Anthropic Message Batches
/// request body (JSON). Returns the text and the number of requests in it.
pub fn export(plan: &Plan, provider: ProviderKind) -> Result<(String, usize), RouteError> {
    let calls = calls(plan, provider)?;
    let cases: Vec<(String, ChatRequest)> = calls.into_iter().map(|(_, id, req)| (id, req)).collect();
    let text = match provider {
        ProviderKind::OpenAi => files::openai_jsonl(&cases)?,
        _ => {
            let mut t = files::anthropic_requests(&cases)?.to_string();
            t.push('\n');
            t
        }
    };
    Ok((text, cases.len()))
}

/// A result file matched against the plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Imported {
    /// The records of the plan's calls to the provider: answered, failed, or still pending
    /// when the file has no line for them.
    #[serde(skip)]
    pub records: Vec<Record>,
    pub answered: usize,
    pub failed: usize,
    /// Record ids of the calls the file has no result for.
    pub missing: Vec<String>,
    /// custom_ids in the file that no call of the plan has.
    pub unknown: Vec<String>,
}

/// Fills the plan's records for `provider` from a result file (JSONL of either provider).
/// `unix_ms` stamps the imported records.
pub fn import(plan: &Plan, provider: ProviderKind, text: &str, unix_ms: i64) -> Result<Imported, RouteError> {
    let calls = calls(plan, provider)?;
    let ids: Vec<String> = calls.iter().map(|(_, id, _)| id.clone()).collect();
    let wire = if provider == ProviderKind::Anthropic { WireFormat::AnthropicMessages } else { WireFormat::OpenAiChat };
    let results = files::read_results(wire, text, &ids)?;
    let endpoint = Endpoint::new(provider);
    let mut out =
        Imported { records: vec![], answered: 0, failed: 0, missing: vec![], unknown: results.unknown.clone() };
    for (i, id, req) in &calls {
        let mut rec = plan.calls[*i].record.clone();
        // The request as the batch file carried it, for the record's parameters.
        let http = build_chat(&endpoint, None, req).map_err(|source| BatchError::Build {
            index: *i,
            id: id.clone(),
            source,
        })?;
        if let Some(answer) = results.answers.get(id) {
            apply(&mut rec, provider, &http, Ok(answer), None, None);
            rec.timestamp = super::rfc3339(unix_ms);
            out.answered += 1;
        } else if let Some(why) = results.failures.get(id) {
            rec.status = Status::Error;
            rec.error = format!("batch result: {why}");
            rec.provider = name(provider);
            if let serde_json::Value::Object(map) = http.params_for_record() {
                rec.params = map.into_iter().collect();
            }
            rec.timestamp = super::rfc3339(unix_ms);
            out.failed += 1;
        } else {
            out.missing.push(rec.record_id.clone());
        }
        out.records.push(rec);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::RunSpec;
    use serde_json::{Value, json};

    fn plan() -> Plan {
        let spec = RunSpec::from_json(
            r#"{"run_id":"r1","targets":[{"provider":"openai","models":["gpt-4o-mini"]},
                {"provider":"anthropic","models":["claude-3-5-haiku-latest"]}],"params":{"temperature":0}}"#,
        )
        .unwrap();
        let cases: Vec<Record> = (0..3)
            .map(|i| Record { case_id: format!("q.{i}"), prompt: format!("Question {i}?"), ..Default::default() })
            .collect();
        Plan::chat(spec, &cases).unwrap()
    }

    #[test]
    fn custom_ids_are_safe_stable_and_distinct() {
        let a = custom_id("r1:q.1:openai:gpt-4o-mini:0");
        assert!(a.starts_with("r1_q_1_openai_gpt-4o-mini_0-") && a.len() == 28 + 16, "{a}");
        assert_eq!(a, custom_id("r1:q.1:openai:gpt-4o-mini:0"));
        let long = "x".repeat(200);
        let (b, c) = (custom_id(&long), custom_id(&format!("{long}y")));
        assert!(b.len() <= 64 && b != c, "{b} {c}");
        assert_ne!(custom_id("a:b"), custom_id("a.b"), "the hash tells apart ids that map to the same text");
    }

    #[test]
    fn export_writes_the_providers_calls_only() {
        let p = plan();
        let (text, n) = export(&p, ProviderKind::OpenAi).unwrap();
        assert_eq!(n, 3);
        let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(first["custom_id"], json!(custom_id("r1:q.0:openai:gpt-4o-mini:0")));
        assert_eq!(first["body"]["temperature"], json!(0.0));
        let (text, n) = export(&p, ProviderKind::Anthropic).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!((n, v["requests"].as_array().unwrap().len()), (3, 3));
        assert!(matches!(export(&p, ProviderKind::Gemini), Err(RouteError::Unsupported(_))));
    }

    #[test]
    fn import_fills_matches_and_reports_the_rest() {
        let p = plan();
        let id = |case: usize| custom_id(&format!("r1:q.{case}:openai:gpt-4o-mini:0"));
        let ok = json!({"custom_id": id(0), "error": null, "response": {"status_code": 200, "body": {
            "model": "gpt-4o-mini", "choices": [{"index": 0, "message": {"role": "assistant", "content": "B"},
            "finish_reason": "stop"}], "usage": {"prompt_tokens": 4, "completion_tokens": 1}}}});
        let bad = json!({"custom_id": id(1), "response": null, "error": {"code": "x", "message": "expired"}});
        let stray = json!({"custom_id": "nobody", "response": null, "error": {"message": "?"}});
        let text = format!("{ok}\n{bad}\n{stray}\n");
        let r = import(&p, ProviderKind::OpenAi, &text, 0).unwrap();
        assert_eq!((r.answered, r.failed, r.records.len()), (1, 1, 3));
        assert_eq!((r.records[0].status, r.records[0].response.as_str()), (Status::Ok, "B"));
        assert_eq!(r.records[0].params["temperature"], json!(0.0));
        assert_eq!(r.records[0].timestamp, "1970-01-01T00:00:00.000Z");
        assert!(r.records[1].status == Status::Error && r.records[1].error.contains("expired"));
        assert_eq!(r.records[2].status, Status::Pending);
        assert_eq!(r.missing, vec!["r1:q.2:openai:gpt-4o-mini:0".to_string()]);
        assert_eq!(r.unknown, vec!["nobody".to_string()]);
    }
}
