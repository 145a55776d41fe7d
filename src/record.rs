//! The record table: one row per case x model x sample. Every method writes it, every
//! analysis reads it, and it is what users upload, download and share.
//!
//! The columns are listed once, in [`FIELDS`]; the readers, the writers, the column-mapping
//! step and the README's table all follow that list.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Version of the record table's columns. Bump it when a column changes meaning.
pub const FORMAT_VERSION: u32 = 1;

/// What happened to one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// A response arrived and is usable.
    #[default]
    Ok,
    /// The model declined to answer.
    Refused,
    /// A response arrived but no answer could be read from it.
    Unparseable,
    /// The provider withheld or cut the content (safety filter, length).
    Filtered,
    /// The call failed after its attempts; `error` says why.
    Error,
    /// Planned, not yet run.
    Pending,
    /// Deliberately not run.
    Skipped,
}

impl Status {
    pub const ALL: [Status; 7] = [
        Status::Ok,
        Status::Refused,
        Status::Unparseable,
        Status::Filtered,
        Status::Error,
        Status::Pending,
        Status::Skipped,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Refused => "refused",
            Status::Unparseable => "unparseable",
            Status::Filtered => "filtered",
            Status::Error => "error",
            Status::Pending => "pending",
            Status::Skipped => "skipped",
        }
    }

    /// The status named by `text`, in any case, blanks around it ignored.
    pub fn parse(text: &str) -> Option<Status> {
        let t = text.trim();
        Status::ALL.into_iter().find(|s| s.as_str().eq_ignore_ascii_case(t))
    }
}

/// One row of the record table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Record {
    pub format_version: u32,
    pub record_id: String,
    pub run_id: String,
    pub method: String,
    pub case_id: String,
    pub template_id: String,
    pub language: String,
    pub concern: String,
    /// Placeholder -> community filled in, e.g. {"GENDER": "women"}.
    pub communities: BTreeMap<String, String>,
    pub input_type: String,
    pub reflection_type: String,
    pub prompt: String,
    pub provider: String,
    pub model: String,
    /// Request parameters as sent (temperature, max_tokens, seed, ...), never a key.
    pub params: BTreeMap<String, Value>,
    pub sample_index: u32,
    pub response: String,
    pub status: Status,
    pub error: String,
    pub latency_ms: Option<f64>,
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    /// RFC 3339, UTC.
    pub timestamp: String,
    /// The answer an oracle expects; alternatives separated by `|`.
    pub expected: String,
    /// Answer options of a multiple-choice question.
    pub choices: Vec<String>,
    /// Index into `choices` of the correct answer.
    pub gold: Option<u32>,
    /// Aligns the same question across languages.
    pub question_id: String,
    /// Token log-probabilities as the provider returned them.
    pub logprobs: Option<Value>,
    /// Where this response's embedding is kept (a key into an embeddings table).
    pub embedding_ref: String,
    /// Columns this table does not define, kept so that nothing uploaded is lost.
    pub extra: BTreeMap<String, String>,
}

impl Record {
    /// The id a record gets when its file gives none: stable across runs of the same plan.
    pub fn derived_id(&self) -> String {
        format!("{}:{}:{}:{}", self.run_id, self.case_id, self.model, self.sample_index)
    }
}

/// How a field is stored in a text cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Text,
    Integer,
    Number,
    Status,
    /// A JSON value (object or array) inside the cell.
    Json,
}

impl Kind {
    pub fn expected(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Integer => "a non-negative integer",
            Kind::Number => "a number",
            Kind::Status => "one of ok, refused, unparseable, filtered, error, pending, skipped",
            Kind::Json => "a JSON value",
        }
    }
}

/// One column of the record table.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Field {
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
    /// Other header names that mean this column (lower case), for files from other tools.
    pub aliases: &'static [&'static str],
    pub doc: &'static str,
}

const fn f(name: &'static str, kind: Kind, aliases: &'static [&'static str], doc: &'static str) -> Field {
    Field { name, kind, required: false, aliases, doc }
}

/// The columns, in file order. `response` is the only one a file must have.
pub const FIELDS: &[Field] = &[
    f("format_version", Kind::Integer, &[], "Version of these columns (1). Absent means 1."),
    f("record_id", Kind::Text, &["id"], "Unique id of the row. Derived from run, case, model and sample when absent."),
    f("run_id", Kind::Text, &["run"], "The run that produced the row."),
    f("method", Kind::Text, &[], "requirements, bbq, crosslingual, divergence or custom."),
    f(
        "case_id",
        Kind::Text,
        &["case", "instance_id"],
        "The test case (one filled prompt). Defaults to the row number.",
    ),
    f("template_id", Kind::Text, &["prompt_id", "template"], "The template the case came from."),
    f("language", Kind::Text, &["lang", "locale"], "Language code of the prompt, e.g. en_us, es, de."),
    f(
        "concern",
        Kind::Text,
        &["topic", "category", "bias_type"],
        "Concern (LangBiTe) or topic / category (other methods).",
    ),
    f(
        "communities",
        Kind::Json,
        &[],
        "Placeholder to community mapping, a JSON object such as {\"GENDER\":\"women\"}.",
    ),
    f("input_type", Kind::Text, &[], "constrained or verbose (LangBiTe)."),
    f("reflection_type", Kind::Text, &[], "observational or utopian (LangBiTe)."),
    f("prompt", Kind::Text, &["instance", "question", "input"], "The exact text sent to the model."),
    f("provider", Kind::Text, &[], "Provider id: openai, anthropic, ..., or simulated."),
    f("model", Kind::Text, &["model_name", "llm"], "Model name as the provider knows it."),
    f("params", Kind::Json, &["parameters"], "Request parameters as sent, a JSON object (never a key)."),
    f("sample_index", Kind::Integer, &["sample"], "0-based index of the sample for this case and model."),
    Field {
        required: true,
        ..f("response", Kind::Text, &["output", "answer", "completion", "response_text"], "The raw response text.")
    },
    f("status", Kind::Status, &[], "ok, refused, unparseable, filtered, error, pending or skipped. Defaults to ok."),
    f("error", Kind::Text, &["error_text"], "Why the call failed (with status error)."),
    f("latency_ms", Kind::Number, &["latency"], "Time from request to full response, in milliseconds."),
    f("tokens_in", Kind::Integer, &["prompt_tokens", "input_tokens"], "Prompt tokens, as the provider counted them."),
    f(
        "tokens_out",
        Kind::Integer,
        &["completion_tokens", "output_tokens"],
        "Response tokens, as the provider counted them.",
    ),
    f("timestamp", Kind::Text, &["time", "date"], "When the response arrived, RFC 3339 in UTC."),
    f(
        "expected",
        Kind::Text,
        &["expected_value", "expected_answer"],
        "What an oracle expects; alternatives separated by |.",
    ),
    f("choices", Kind::Json, &["options"], "Answer options of a multiple-choice question, a JSON array of strings."),
    f("gold", Kind::Integer, &["label", "gold_label"], "Index into choices of the correct answer."),
    f("question_id", Kind::Text, &[], "Aligns one question across languages (cross-lingual sets)."),
    f("logprobs", Kind::Json, &[], "Token log-probabilities as returned by the provider, JSON."),
    f("embedding_ref", Kind::Text, &[], "Key of this response's embedding in an embeddings table."),
];

pub fn field(name: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.name == name)
}
