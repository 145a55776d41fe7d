//! The batch route for runs too big for a browser tab: a plan's calls written as an OpenAI
//! Batch input file (JSONL, one request per line) or an Anthropic Message Batches request
//! (one JSON object), and the providers' result files read back, each result matched to its
//! case by `custom_id` and parsed with the same wire-format code as a live call.
//!
//! custom_ids must be unique and at most 64 characters of letters, digits, '-' and '_'
//! (the stricter of the two providers' rules), so one id works for both.

use super::error::ProviderError;
use super::request::{BuildError, ChatRequest, Endpoint, build_chat};
use super::response::{ChatResponse, RawResponse, parse_chat};
use super::spec::{ProviderKind, WireFormat};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum BatchError {
    #[error("case {index}: custom_id {id:?}: expected 1 to 64 letters, digits, '-' or '_'")]
    BadId { index: usize, id: String },
    #[error("case {index}: custom_id {id:?} is used twice")]
    DuplicateId { index: usize, id: String },
    #[error("case {index} ({id}): {source}")]
    Build { index: usize, id: String, source: BuildError },
    #[error("line {line}: {what}")]
    BadLine { line: usize, what: String },
}

fn check_ids<'a>(ids: impl Iterator<Item = &'a str>) -> Result<(), BatchError> {
    let mut seen = BTreeSet::new();
    for (index, id) in ids.enumerate() {
        let ok =
            !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !ok {
            return Err(BatchError::BadId { index, id: id.to_string() });
        }
        if !seen.insert(id) {
            return Err(BatchError::DuplicateId { index, id: id.to_string() });
        }
    }
    Ok(())
}

/// The OpenAI Batch input file: one `{"custom_id","method","url","body"}` line per case.
pub fn openai_jsonl(cases: &[(String, ChatRequest)]) -> Result<String, BatchError> {
    check_ids(cases.iter().map(|(id, _)| id.as_str()))?;
    let endpoint = Endpoint::new(ProviderKind::OpenAi);
    let mut out = String::new();
    for (index, (id, req)) in cases.iter().enumerate() {
        let http =
            build_chat(&endpoint, None, req).map_err(|source| BatchError::Build { index, id: id.clone(), source })?;
        let line =
            json!({"custom_id": id, "method": "POST", "url": "/v1/chat/completions", "body": http.params_for_record()});
        out.push_str(&line.to_string());
        out.push('\n');
    }
    Ok(out)
}

/// The Anthropic Message Batches request body: `{"requests":[{"custom_id","params"}]}`.
pub fn anthropic_requests(cases: &[(String, ChatRequest)]) -> Result<Value, BatchError> {
    check_ids(cases.iter().map(|(id, _)| id.as_str()))?;
    let endpoint = Endpoint::new(ProviderKind::Anthropic);
    let mut requests = vec![];
    for (index, (id, req)) in cases.iter().enumerate() {
        let http =
            build_chat(&endpoint, None, req).map_err(|source| BatchError::Build { index, id: id.clone(), source })?;
        requests.push(json!({"custom_id": id, "params": http.params_for_record()}));
    }
    Ok(json!({ "requests": requests }))
}

/// A result file read back: answers and failures by custom_id, and the ids of the plan that
/// have no line at all.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct BatchResults {
    pub answers: BTreeMap<String, ChatResponse>,
    pub failures: BTreeMap<String, String>,
    pub missing: Vec<String>,
    /// custom_ids in the file that the plan does not have.
    pub unknown: Vec<String>,
}

/// Reads a results JSONL file of either provider (OpenAI's `response.body` lines or
/// Anthropic's `result.message` lines) against the plan's ids.
pub fn read_results(wire: WireFormat, text: &str, plan_ids: &[String]) -> Result<BatchResults, BatchError> {
    let plan: BTreeSet<&str> = plan_ids.iter().map(String::as_str).collect();
    let mut out = BatchResults::default();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let bad = |what: String| BatchError::BadLine { line: n + 1, what };
        let v: Value = serde_json::from_str(line).map_err(|e| bad(format!("not JSON ({e})")))?;
        let id = v.get("custom_id").and_then(Value::as_str).ok_or_else(|| bad("expected a custom_id string".into()))?;
        if !plan.contains(id) {
            out.unknown.push(id.to_string());
            continue;
        }
        if out.answers.contains_key(id) || out.failures.contains_key(id) {
            return Err(bad(format!("custom_id {id:?} appears twice")));
        }
        match result_of(wire, &v) {
            Ok(r) => {
                out.answers.insert(id.to_string(), r);
            }
            Err(why) => {
                out.failures.insert(id.to_string(), why);
            }
        }
    }
    out.missing = plan_ids
        .iter()
        .filter(|id| !out.answers.contains_key(*id) && !out.failures.contains_key(*id))
        .cloned()
        .collect();
    Ok(out)
}

fn result_of(wire: WireFormat, v: &Value) -> Result<ChatResponse, String> {
    let as_raw =
        |status: u16, body: &Value| RawResponse { status, headers: vec![], body: body.to_string().into_bytes() };
    let parsed = |raw: RawResponse| parse_chat(wire, &raw, None, None).map_err(|e: ProviderError| e.to_string());
    match wire {
        WireFormat::AnthropicMessages => match v.pointer("/result/type").and_then(Value::as_str) {
            Some("succeeded") => parsed(as_raw(200, v.pointer("/result/message").unwrap_or(&Value::Null))),
            Some("errored") => Err(super::error::provider_message(
                v.pointer("/result/error").map(|e| e.to_string()).unwrap_or_default().as_bytes(),
            )),
            Some(other) => Err(format!("result {other}")),
            None => Err("expected result.type".into()),
        },
        _ => {
            if let Some(e) = v.get("error").filter(|e| !e.is_null()) {
                return Err(super::error::provider_message(json!({ "error": e }).to_string().as_bytes()));
            }
            let status = v.pointer("/response/status_code").and_then(Value::as_u64).unwrap_or(0) as u16;
            parsed(as_raw(status, v.pointer("/response/body").unwrap_or(&Value::Null)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::request::Params;

    fn case(id: &str, prompt: &str) -> (String, ChatRequest) {
        let req = ChatRequest {
            model: "m1".into(),
            prompt: prompt.into(),
            params: Params { temperature: Some(0.0), ..Params::default() },
        };
        (id.to_string(), req)
    }

    #[test]
    fn openai_jsonl_has_one_request_per_line() {
        let text = openai_jsonl(&[case("c-1", "first"), case("c-2", "second")]).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1]["custom_id"], "c-2");
        assert_eq!(lines[1]["url"], "/v1/chat/completions");
        assert_eq!(lines[1]["body"]["messages"][0]["content"], "second");
        assert_eq!(lines[0]["body"]["temperature"], json!(0.0));
    }

    #[test]
    fn anthropic_requests_carry_params() {
        let v = anthropic_requests(&[case("a", "p")]).unwrap();
        assert_eq!(v["requests"][0]["params"]["max_tokens"], 1024);
        assert_eq!(v["requests"][0]["custom_id"], "a");
    }

    #[test]
    fn ids_are_checked() {
        assert!(matches!(
            openai_jsonl(&[case("a", "x"), case("a", "y")]),
            Err(BatchError::DuplicateId { index: 1, .. })
        ));
        assert!(matches!(openai_jsonl(&[case("a b", "x")]), Err(BatchError::BadId { index: 0, .. })));
        let seeded = (
            "s".to_string(),
            ChatRequest { params: Params { seed: Some(1), ..case("s", "x").1.params }, ..case("s", "x").1 },
        );
        assert!(anthropic_requests(&[seeded]).unwrap_err().to_string().contains("seed"));
    }

    #[test]
    fn results_are_matched_and_the_missing_reported() {
        let ids: Vec<String> = ["c-1", "c-2", "c-3"].map(String::from).to_vec();
        let openai = concat!(
            r#"{"id":"batch_req_1","custom_id":"c-2","response":{"status_code":200,"request_id":"r","body":{"model":"m1","choices":[{"index":0,"message":{"role":"assistant","content":"B"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}},"error":null}"#,
            "\n",
            r#"{"id":"batch_req_2","custom_id":"c-1","response":{"status_code":429,"request_id":"r","body":{"error":{"message":"slow down"}}},"error":null}"#,
            "\n",
            r#"{"id":"batch_req_3","custom_id":"zz","response":null,"error":{"code":"x","message":"y"}}"#,
            "\n"
        );
        let r = read_results(WireFormat::OpenAiChat, openai, &ids).unwrap();
        assert_eq!(r.answers["c-2"].text, "B");
        assert!(r.failures["c-1"].contains("slow down"), "{:?}", r.failures);
        assert_eq!((r.missing, r.unknown), (vec!["c-3".to_string()], vec!["zz".to_string()]));

        let anthropic = concat!(
            r#"{"custom_id":"c-1","result":{"type":"succeeded","message":{"type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"A"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":1}}}}"#,
            "\n",
            r#"{"custom_id":"c-2","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"bad max_tokens"}}}}"#,
            "\n",
            r#"{"custom_id":"c-3","result":{"type":"expired"}}"#
        );
        let r = read_results(WireFormat::AnthropicMessages, anthropic, &ids).unwrap();
        assert_eq!(r.answers["c-1"].text, "A");
        assert!(r.failures["c-2"].contains("bad max_tokens"), "{:?}", r.failures);
        assert_eq!(r.failures["c-3"], "result expired");
        assert!(r.missing.is_empty());
        let dup = format!("{anthropic}\n{}", anthropic.lines().next().unwrap());
        assert!(read_results(WireFormat::AnthropicMessages, &dup, &ids).unwrap_err().to_string().starts_with("line 4"));
    }
}
