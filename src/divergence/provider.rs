//! Scoring mode against an OpenAI-compatible *completions* endpoint that echoes the prompt
//! with its token log-probabilities (`echo: true, logprobs: 1, max_tokens: 0`). The request
//! and its reading live in [`crate::providers::score`], where the run engine uses them; these
//! are the same helpers on plain JSON values, for callers that hold a body already.
//!
//! log P(filled context) = Σ of the prompt tokens' log-probabilities; the first token has
//! none (null) and counts as 0, which is the same for every filler of a context and so
//! cancels in the per-context normalisation.

use crate::providers::score::{echo_body, sum_echo};
use serde_json::Value;

/// The request body that asks for the prompt's log-probabilities and no new tokens.
pub fn echo_request(model: &str, filled_context: &str) -> Value {
    echo_body(model, filled_context)
}

/// Sums `choices[0].logprobs.token_logprobs` of an echo response.
pub fn echo_logprob(response: &Value) -> Result<f64, String> {
    let block = response.pointer("/choices/0/logprobs").cloned().unwrap_or(Value::Null);
    sum_echo(&block, 0).map(|(sum, _)| sum).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_and_response() {
        let body = echo_request("m", "Mieszkam w Krakowie.");
        assert_eq!(body["echo"], true);
        assert_eq!(body["max_tokens"], 0);
        let answer = json!({"choices": [{"text": "Mieszkam w Krakowie.", "logprobs": {"tokens": ["Mies", "zkam", " w", " Krakowie", "."],
            "token_logprobs": [null, -2.5, -0.25, -6.0, -0.5]}}]});
        assert_eq!(echo_logprob(&answer), Ok(-9.25));
        assert!(echo_logprob(&json!({"choices": [{"text": "x"}]})).unwrap_err().contains("token_logprobs"));
        let bad = json!({"choices": [{"logprobs": {"token_logprobs": [null, 0.5]}}]});
        assert!(echo_logprob(&bad).unwrap_err().contains("token_logprobs[1]"));
    }
}
