//! Writing a call's outcome into its record. Two rules the run engine relies on: the record
//! keeps the exact request body (minus the key) beside the answer, and an error never
//! overwrites a stored answer; it is kept beside it in `error` instead, so a retried or
//! repeated call cannot destroy a response that was already paid for.

use super::error::ProviderError;
use super::request::HttpRequest;
use super::response::{ChatResponse, ContentFlag};
use super::spec::ProviderKind;
use crate::record::{Record, Status};
use serde_json::Value;

/// Whether the record already holds an answer (one that must not be lost).
pub fn is_answered(record: &Record) -> bool {
    matches!(record.status, Status::Ok | Status::Refused | Status::Filtered)
}

/// Fills `record` from one call. `key` is redacted from any error text.
pub fn apply(
    record: &mut Record,
    kind: ProviderKind,
    request: &HttpRequest,
    result: Result<&ChatResponse, &ProviderError>,
    latency_ms: Option<f64>,
    key: Option<&str>,
) {
    match result {
        Err(e) => {
            record.error = super::redact(&e.to_string(), key);
            if !is_answered(record) {
                record.status = Status::Error;
                record.provider = serde_name(kind);
                record.params = params_map(request);
            }
        }
        Ok(r) => {
            record.provider = serde_name(kind);
            record.params = params_map(request);
            record.response = r.text.clone();
            record.status = match r.flag {
                ContentFlag::None => Status::Ok,
                ContentFlag::Refusal => Status::Refused,
                ContentFlag::Filtered => Status::Filtered,
            };
            record.error.clear();
            record.latency_ms = latency_ms;
            record.tokens_in = r.tokens_in;
            record.tokens_out = r.tokens_out;
            record.logprobs = r.logprobs.clone();
        }
    }
}

fn serde_name(kind: ProviderKind) -> String {
    serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// The recorded body as the record's parameter map (top-level keys of the JSON body).
fn params_map(request: &HttpRequest) -> std::collections::BTreeMap<String, Value> {
    match request.params_for_record() {
        Value::Object(map) => map.into_iter().collect(),
        _ => Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::ChatRequest;
    use crate::providers::request::{Endpoint, Params, build_chat};

    const KEY: &str = "sk-outcome-0123456789abcdef";

    fn setup() -> (Record, HttpRequest, ChatResponse) {
        let req = ChatRequest {
            model: "m".into(),
            prompt: "p".into(),
            params: Params { temperature: Some(0.0), ..Params::default() },
        };
        let http = build_chat(&Endpoint::new(ProviderKind::OpenAi), Some(KEY), &req).unwrap();
        let answer = ChatResponse {
            text: "B".into(),
            finish_reason: Some("stop".into()),
            flag: ContentFlag::None,
            tokens_in: Some(3),
            tokens_out: Some(1),
            logprobs: None,
            model: Some("m".into()),
        };
        (Record { status: Status::Pending, ..Default::default() }, http, answer)
    }

    #[test]
    fn an_answer_is_recorded_with_its_parameters() {
        let (mut rec, http, answer) = setup();
        apply(&mut rec, ProviderKind::OpenAi, &http, Ok(&answer), Some(12.5), Some(KEY));
        assert_eq!((rec.status, rec.response.as_str(), rec.provider.as_str()), (Status::Ok, "B", "openai"));
        assert_eq!(rec.params["temperature"], serde_json::json!(0.0));
        assert_eq!((rec.tokens_in, rec.latency_ms), (Some(3), Some(12.5)));
        let refused = ChatResponse { flag: ContentFlag::Refusal, ..answer };
        apply(&mut rec, ProviderKind::OpenAi, &http, Ok(&refused), None, None);
        assert_eq!(rec.status, Status::Refused);
    }

    #[test]
    fn an_error_never_overwrites_a_stored_answer() {
        let (mut rec, http, answer) = setup();
        let err = ProviderError::Auth { status: 401, message: format!("bad key {KEY}") };
        apply(&mut rec, ProviderKind::OpenAi, &http, Err(&err), None, Some(KEY));
        assert_eq!(rec.status, Status::Error);
        assert!(rec.error.contains("[key removed]") && !rec.error.contains(KEY), "{}", rec.error);
        apply(&mut rec, ProviderKind::OpenAi, &http, Ok(&answer), None, Some(KEY));
        assert_eq!((rec.status, rec.error.as_str()), (Status::Ok, ""));
        let later = ProviderError::Server { status: 503, message: "overloaded".into() };
        apply(&mut rec, ProviderKind::OpenAi, &http, Err(&later), None, Some(KEY));
        assert_eq!((rec.status, rec.response.as_str()), (Status::Ok, "B"));
        assert!(rec.error.contains("overloaded"));
    }
}
