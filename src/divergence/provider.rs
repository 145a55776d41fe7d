//! Pure helpers for scoring mode against an OpenAI-compatible *completions* endpoint that
//! echoes the prompt with its token log-probabilities (`echo: true, logprobs: 1,
//! max_tokens: 0`; vLLM and llama.cpp's server accept it). Sending the request is the
//! provider layer's job; here are only the body and the reading of the answer.
//!
//! log P(filled context) = Σ of the prompt tokens' log-probabilities; the first token has
//! none (null) and counts as 0, which is the same for every filler of a context and so
//! cancels in the per-context normalisation.

use serde_json::{Value, json};

/// The request body that asks for the prompt's log-probabilities and no new tokens.
pub fn echo_request(model: &str, filled_context: &str) -> Value {
    json!({"model": model, "prompt": filled_context, "max_tokens": 0, "echo": true, "logprobs": 1, "temperature": 0})
}

/// Sums `choices[0].logprobs.token_logprobs` of an echo response.
pub fn echo_logprob(response: &Value) -> Result<f64, String> {
    let list = response
        .pointer("/choices/0/logprobs/token_logprobs")
        .and_then(Value::as_array)
        .ok_or("expected choices[0].logprobs.token_logprobs (an array); did the server accept echo and logprobs?")?;
    let mut total = 0.0;
    for (i, v) in list.iter().enumerate() {
        match v {
            Value::Null => {}
            v => match v.as_f64() {
                Some(x) if x.is_finite() && x <= 0.0 => total += x,
                _ => return Err(format!("token_logprobs[{i}]: expected a log-probability <= 0 or null, found {v}")),
            },
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

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
