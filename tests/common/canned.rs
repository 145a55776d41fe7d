//! Provider answers written by us in each wire format's documented shape, shared by the native
//! wire tests (providers_wire.rs) and the same checks in Chromium (web_connectors.rs), so both
//! read the very same bytes. Nothing here came from a live provider.
#![allow(dead_code)] // each including test file uses a different part

/// A fake key: recognisable, long enough to be redacted, and never valid anywhere.
pub const KEY: &str = "sk-evenhand-FAKE-0123456789abcdef";

// ---- OpenAI chat completions (also Mistral, Groq, Together, OpenRouter, HF router, compatible) ----

pub const OPENAI_OK: &str = r#"{"id":"chatcmpl-x1","object":"chat.completion","created":1763900000,"model":"m1-2026-01-01",
  "choices":[{"index":0,"message":{"role":"assistant","content":"B","refusal":null},
  "logprobs":{"content":[{"token":"B","logprob":-0.105,"bytes":[66],"top_logprobs":[{"token":"B","logprob":-0.105,"bytes":[66]},{"token":"A","logprob":-2.3,"bytes":[65]}]}]},
  "finish_reason":"stop"}],"usage":{"prompt_tokens":21,"completion_tokens":1,"total_tokens":22}}"#;
pub const OPENAI_REFUSAL: &str = r#"{"model":"m1","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with ranking people by origin."},"finish_reason":"stop"}]}"#;
pub const OPENAI_FILTERED: &str = r#"{"model":"m1","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"content_filter"}]}"#;
pub const OPENAI_EMPTY: &str =
    r#"{"model":"m1","choices":[{"index":0,"message":{"role":"assistant","content":"  "},"finish_reason":"length"}]}"#;
/// Cut off by max_tokens: still an answer, with the provider's reason beside it.
pub const OPENAI_LENGTH: &str = r#"{"model":"m1","choices":[{"index":0,"message":{"role":"assistant","content":"The answer is"},"finish_reason":"length"}],"usage":{"prompt_tokens":9,"completion_tokens":3}}"#;
/// A body that ended mid-way (a dropped connection after the headers).
pub const OPENAI_TRUNCATED: &str = r#"{"id":"chatcmpl-1","choices":[{"index":0,"message":{"role":"assis"#;
pub const OPENAI_429: &str =
    r#"{"error":{"message":"Rate limit reached for m1","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#;
pub const OPENAI_EMBED: &str = r#"{"object":"list","data":[{"object":"embedding","index":1,"embedding":[0.5,-0.5]},{"object":"embedding","index":0,"embedding":[0.25,0.75]}],"model":"emb-1","usage":{"prompt_tokens":6,"total_tokens":6}}"#;
pub const OPENAI_MODELS: &str = r#"{"object":"list","data":[{"id":"m2","object":"model","created":1,"owned_by":"x"},{"id":"m1","object":"model","created":1,"owned_by":"x"}]}"#;
/// Together's dialect: `logprobs` as parallel arrays of tokens and numbers.
pub const TOGETHER_OK: &str = r#"{"id":"t-1","object":"chat.completion","model":"meta-m","choices":[{"index":0,"message":{"role":"assistant","content":"A"},"logprobs":{"tokens":["A"],"token_logprobs":[-0.01]},"finish_reason":"eos"}],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}"#;

// ---- Anthropic Messages ----

pub const ANTHROPIC_OK: &str = r#"{"id":"msg_01X","type":"message","role":"assistant","model":"claude-x-1",
  "content":[{"type":"thinking","thinking":"...","signature":"s"},{"type":"text","text":"A"}],
  "stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":4}}"#;
pub const ANTHROPIC_REFUSAL: &str = r#"{"type":"message","role":"assistant","model":"claude-x-1","content":[],"stop_reason":"refusal","usage":{"input_tokens":9,"output_tokens":0}}"#;
/// A safety classifier stopping an answer part-way: Anthropic reports it as a refusal too.
pub const ANTHROPIC_CUT_BY_CLASSIFIER: &str = r#"{"type":"message","role":"assistant","model":"claude-x-1","content":[{"type":"text","text":"Both could"}],"stop_reason":"refusal","usage":{"input_tokens":9,"output_tokens":2}}"#;
pub const ANTHROPIC_EMPTY: &str = r#"{"type":"message","role":"assistant","model":"claude-x-1","content":[],"stop_reason":"end_turn","usage":{"input_tokens":9,"output_tokens":0}}"#;
pub const ANTHROPIC_LENGTH: &str = r#"{"type":"message","role":"assistant","model":"claude-x-1","content":[{"type":"text","text":"It depends"}],"stop_reason":"max_tokens","usage":{"input_tokens":9,"output_tokens":5}}"#;
pub const ANTHROPIC_TRUNCATED: &str = r#"{"type":"message","role":"assistant","content":[{"type":"te"#;
pub const ANTHROPIC_429: &str = r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}"#;
pub const ANTHROPIC_MODELS: &str = r#"{"data":[{"type":"model","id":"claude-x-1","display_name":"X","created_at":"2026-01-01T00:00:00Z"}],"has_more":false,"first_id":"claude-x-1","last_id":"claude-x-1"}"#;

// ---- Gemini generateContent ----

pub const GEMINI_OK: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"considering","thought":true},{"text":"B"}]},
  "finishReason":"STOP","index":0,"avgLogprobs":-0.2,
  "logprobsResult":{"topCandidates":[{"candidates":[{"token":"B","logProbability":-0.2},{"token":"A","logProbability":-1.7}]}],
  "chosenCandidates":[{"token":"B","logProbability":-0.2}]}}],
  "usageMetadata":{"promptTokenCount":18,"candidatesTokenCount":1,"totalTokenCount":19},"modelVersion":"m1-001"}"#;
/// The prompt itself was blocked: no candidates at all.
pub const GEMINI_BLOCKED: &str =
    r#"{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":12}}"#;
/// The answer was withheld by the safety filter.
pub const GEMINI_SAFETY: &str = r#"{"candidates":[{"finishReason":"SAFETY","index":0}]}"#;
/// A thinking model that spent every token on thought: no visible text.
pub const GEMINI_EMPTY: &str = r#"{"candidates":[{"content":{"role":"model"},"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":{"promptTokenCount":5,"totalTokenCount":69}}"#;
pub const GEMINI_TRUNCATED: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"B"#;
/// Gemini says how long to wait in the body (google.rpc.RetryInfo), not in a header.
pub const GEMINI_429: &str = r#"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"38s"}]}}"#;
pub const GEMINI_BATCH_EMBED: &str = r#"{"embeddings":[{"values":[0.1,0.2,0.3]},{"values":[0.3,0.2,0.1]}]}"#;
pub const GEMINI_EMBED: &str = r#"{"embedding":{"values":[1.0,0.0]}}"#;
pub const GEMINI_MODELS: &str = r#"{"models":[{"name":"models/gemini-x","displayName":"X"}],"nextPageToken":""}"#;

// ---- Ollama native ----

pub const OLLAMA_OK: &str = r#"{"model":"llama-m","created_at":"2026-11-23T09:00:00Z","message":{"role":"assistant","content":"A"},
  "done":true,"done_reason":"stop","total_duration":1200000,"prompt_eval_count":25,"eval_count":2,
  "logprobs":[{"token":"A","logprob":-0.01,"top_logprobs":[{"token":"A","logprob":-0.01},{"token":"B","logprob":-4.6}]}]}"#;
pub const OLLAMA_EMPTY: &str = r#"{"model":"llama-m","created_at":"2026-11-23T09:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":25,"eval_count":0}"#;
pub const OLLAMA_LENGTH: &str = r#"{"model":"llama-m","message":{"role":"assistant","content":"Well,"},"done":true,"done_reason":"length","prompt_eval_count":25,"eval_count":2}"#;
pub const OLLAMA_TRUNCATED: &str = r#"{"model":"llama-m","message":{"role":"assistant","con"#;
pub const OLLAMA_404: &str = r#"{"error":"model \"llama9\" not found, try pulling it first"}"#;
pub const OLLAMA_EMBED: &str =
    r#"{"model":"nomic-m","embeddings":[[0.01,0.02],[0.03,0.04]],"total_duration":100,"prompt_eval_count":4}"#;
pub const OLLAMA_TAGS: &str = r#"{"models":[{"name":"llama-m:latest","model":"llama-m:latest","size":1}]}"#;

/// An error body that quotes the key, as some providers do for a bad one.
pub fn auth_error_quoting_the_key() -> String {
    format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}. Find your key in your account."}}}}"#)
}
