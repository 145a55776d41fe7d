//! What can go wrong with a provider call, typed so the run engine can decide to retry, wait
//! or give up, and so the page can say what happened in words. Every message carried here has
//! been through [`redact`](super::redact::redact): a provider's error text may quote the key.

use serde::Serialize;
use thiserror::Error;

/// The longest provider message we keep; the rest is cut (some gateways return whole HTML pages).
const MAX_MESSAGE: usize = 300;

#[derive(Debug, Clone, PartialEq, Error, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ProviderError {
    #[error(
        "HTTP {status}: the provider refused the key ({message}); check the key and that it belongs to this provider"
    )]
    Auth { status: u16, message: String },
    #[error("HTTP 404: model or endpoint not found ({message}); check the model name and the base URL")]
    NotFound { message: String },
    #[error("HTTP 429: rate limited ({message}){}", retry_note(*retry_after_s))]
    RateLimited { retry_after_s: Option<f64>, message: String },
    #[error("HTTP {status}: provider error ({message})")]
    Server { status: u16, message: String },
    #[error("HTTP {status}: the provider rejected the request ({message})")]
    Rejected { status: u16, message: String },
    #[error("the response ended early: expected {expected}, got {bytes} bytes of incomplete JSON")]
    Truncated { expected: String, bytes: usize },
    #[error("the response is not valid JSON at line {line}, column {column}: expected {expected} ({detail})")]
    InvalidJson { expected: String, line: usize, column: usize, detail: String },
    #[error("the response has no {field}: expected {expected}")]
    MissingField { field: String, expected: String },
    #[error("the provider returned no text (finish reason: {finish_reason})")]
    Empty { finish_reason: String },
    #[error("network error: {message}")]
    Network { message: String },
    #[error("no answer within {seconds} s")]
    Timeout { seconds: f64 },
}

fn retry_note(after: Option<f64>) -> String {
    after.map(|s| format!("; retry after {s} s")).unwrap_or_default()
}

impl ProviderError {
    /// Whether trying the same request again may succeed: rate limits, server errors, network
    /// failures, timeouts and cut-off bodies (a dropped connection). Auth, not-found, rejected
    /// requests and malformed-but-complete answers fail the same way every time.
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            ProviderError::RateLimited { .. }
                | ProviderError::Server { .. }
                | ProviderError::Network { .. }
                | ProviderError::Timeout { .. }
                | ProviderError::Truncated { .. }
        )
    }

    /// How long the provider asked us to wait, if it said.
    pub fn retry_after_s(&self) -> Option<f64> {
        match self {
            ProviderError::RateLimited { retry_after_s, .. } => *retry_after_s,
            _ => None,
        }
    }

    /// The error for a non-2xx answer. `headers` are (name, value) pairs in any case;
    /// `now_unix_s` turns an HTTP-date Retry-After into seconds (without it such a date is ignored).
    pub fn from_status(
        status: u16,
        headers: &[(String, String)],
        body: &[u8],
        key: Option<&str>,
        now_unix_s: Option<i64>,
    ) -> ProviderError {
        let message = super::redact(&provider_message(body), key);
        match status {
            401 | 403 => ProviderError::Auth { status, message },
            404 => ProviderError::NotFound { message },
            429 => ProviderError::RateLimited {
                retry_after_s: retry_after(headers, now_unix_s).or_else(|| retry_info(body)),
                message,
            },
            // 408 request timeout and Anthropic's 529 "overloaded" are worth another try.
            408 | 500..=599 => ProviderError::Server { status, message },
            _ => ProviderError::Rejected { status, message },
        }
    }
}

/// The human part of a provider's error body. The families nest it differently:
/// OpenAI, Anthropic and Gemini under `error.message`, Ollama as a bare `error` string,
/// some gateways as a top-level `message`. Anything else is shown as (cut) text.
pub fn provider_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let found = serde_json::from_slice::<serde_json::Value>(body).ok().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("message"))
            .or_else(|| v.pointer("/detail"))
            .and_then(|m| m.as_str().map(str::to_string))
    });
    let message = found.unwrap_or_else(|| text.trim().to_string());
    let message = if message.is_empty() { "no message".to_string() } else { message };
    cut(&message)
}

fn cut(text: &str) -> String {
    if text.chars().count() <= MAX_MESSAGE {
        return text.to_string();
    }
    let mut out: String = text.chars().take(MAX_MESSAGE).collect();
    out.push('…');
    out
}

/// Seconds to wait from `retry-after-ms` (OpenAI), `retry-after` as seconds, or `retry-after`
/// as an HTTP-date (needs `now_unix_s`). Negative or non-finite values are ignored.
pub fn retry_after(headers: &[(String, String)], now_unix_s: Option<i64>) -> Option<f64> {
    let get = |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim());
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()).filter(|v| v.is_finite() && *v >= 0.0) {
        return Some(ms / 1000.0);
    }
    let value = get("retry-after")?;
    if let Ok(s) = value.parse::<f64>() {
        return (s.is_finite() && s >= 0.0).then_some(s);
    }
    let at = http_date(value)?;
    Some((at - now_unix_s?).max(0) as f64)
}

/// Gemini says how long to wait in its error body rather than a header: a
/// `google.rpc.RetryInfo` detail with `retryDelay` as a duration string such as `"38s"` or `"1.5s"`.
pub fn retry_info(body: &[u8]) -> Option<f64> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    let details = v.pointer("/error/details")?.as_array()?;
    let delay = details
        .iter()
        .filter(|d| d.get("@type").and_then(|t| t.as_str()).is_some_and(|t| t.ends_with("google.rpc.RetryInfo")))
        .find_map(|d| d.get("retryDelay").and_then(|r| r.as_str()))?;
    let s: f64 = delay.trim().strip_suffix('s')?.parse().ok()?;
    (s.is_finite() && s >= 0.0).then_some(s)
}

/// Parses the IMF-fixdate form `Sun, 06 Nov 1994 08:49:37 GMT` into Unix seconds.
fn http_date(value: &str) -> Option<i64> {
    let parts: Vec<&str> = value.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else { return None };
    let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .iter()
        .position(|m| m == month)? as i64
        + 1;
    let (day, year): (i64, i64) = (day.parse().ok()?, year.parse().ok()?);
    let hms: Vec<i64> = time.split(':').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let [h, m, s] = hms.as_slice() else { return None };
    // Days from the civil date (Howard Hinnant's algorithm), proleptic Gregorian.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    Some(days * 86400 + h * 3600 + m * 60 + s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn status_codes_map_to_kinds_with_the_message_extracted() {
        let openai = br#"{"error":{"message":"Incorrect API key provided: sk-live-0123456789abcdef","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        let e = ProviderError::from_status(401, &[], openai, Some("sk-live-0123456789abcdef"), None);
        assert_eq!(e, ProviderError::Auth { status: 401, message: "Incorrect API key provided: [key removed]".into() });
        assert!(!e.retryable());
        let anthropic = br#"{"type":"error","error":{"type":"not_found_error","message":"model: claude-nope"}}"#;
        assert_eq!(
            ProviderError::from_status(404, &[], anthropic, None, None),
            ProviderError::NotFound { message: "model: claude-nope".into() }
        );
        let ollama = br#"{"error":"model \"llama9\" not found, try pulling it first"}"#;
        assert!(ProviderError::from_status(404, &[], ollama, None, None).to_string().contains("try pulling it first"));
        let gemini = br#"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#;
        let e = ProviderError::from_status(503, &[], gemini, None, None);
        assert!(e.retryable() && e.to_string().contains("overloaded"), "{e}");
        let e = ProviderError::from_status(400, &[], b"<html>bad</html>", None, None);
        assert_eq!(e, ProviderError::Rejected { status: 400, message: "<html>bad</html>".into() });
        assert!(!e.retryable());
        assert!(ProviderError::from_status(529, &[], b"", None, None).retryable());
    }

    #[test]
    fn retry_after_in_seconds_milliseconds_and_dates() {
        let e = ProviderError::from_status(429, &h(&[("Retry-After", "7")]), b"{}", None, None);
        assert_eq!(e.retry_after_s(), Some(7.0));
        assert!(e.retryable());
        assert!(e.to_string().contains("retry after 7 s"), "{e}");
        assert_eq!(retry_after(&h(&[("retry-after-ms", "1500"), ("retry-after", "2")]), None), Some(1.5));
        // 1994-11-06 08:49:37 UTC is 784111777.
        let date = h(&[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")]);
        assert_eq!(retry_after(&date, Some(784_111_770)), Some(7.0));
        assert_eq!(retry_after(&date, None), None);
        assert_eq!(retry_after(&h(&[("retry-after", "-3")]), None), None);
        assert_eq!(retry_after(&h(&[("retry-after", "soon")]), Some(0)), None);
        let gemini = br#"{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"quota","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"38s"}]}}"#;
        assert_eq!(ProviderError::from_status(429, &[], gemini, None, None).retry_after_s(), Some(38.0));
        assert_eq!(retry_info(br#"{"error":{"details":[{"retryDelay":"3s"}]}}"#), None, "only a RetryInfo counts");
    }

    #[test]
    fn long_messages_are_cut() {
        let body = format!("{{\"message\":\"{}\"}}", "x".repeat(1000));
        let m = provider_message(body.as_bytes());
        assert_eq!(m.chars().count(), MAX_MESSAGE + 1);
        assert_eq!(provider_message(b""), "no message");
    }
}
