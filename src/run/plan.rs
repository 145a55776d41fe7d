//! A run as a list of calls: for each target, each model, each sample, every case (cases
//! vary fastest, so an interrupted run holds whole samples of its first models rather than a
//! scatter). Each call carries the record it will fill, already holding the case's columns,
//! so a stored answer is a complete row of the record table.

use super::price::{ASSUMED_OUTPUT_TOKENS, PriceTable, estimate_tokens};
use super::spec::{RunSpec, SpecError};
use crate::providers::request::{ChatRequest, build_chat, build_embed};
use crate::providers::score::{ScoreDialect, build_score};
use crate::record::{Record, Status};
use serde::Serialize;
use thiserror::Error;

/// What one call asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Job {
    Chat(ChatRequest),
    /// One embedding per input, in order (a batch of texts per call).
    Embed {
        model: String,
        inputs: Vec<String>,
    },
    /// The log-probability of `text` under `model` (the divergence method's scoring mode;
    /// see [`crate::providers::score`]).
    Score {
        model: String,
        text: String,
    },
}

/// The case column that marks a scoring case (value [`SCORE_JOB`]) in a cases file.
pub const JOB_COLUMN: &str = "job";
pub const SCORE_JOB: &str = "score";

/// Whether a case asks for a score rather than a chat answer.
pub fn is_score_case(case: &Record) -> bool {
    case.extra.get(JOB_COLUMN).is_some_and(|j| j.trim() == SCORE_JOB)
}

#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// Index into the spec's targets.
    pub target: usize,
    pub record: Record,
    pub job: Job,
    pub est_tokens_in: u64,
    pub est_tokens_out: u64,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub spec: RunSpec,
    pub calls: Vec<Call>,
}

#[derive(Debug, Clone, PartialEq, Error, Serialize)]
pub enum PlanError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("no cases to run: expected at least one case with a prompt")]
    NoCases,
    #[error("target {target}, model {model}: {message}")]
    Request { target: String, model: String, message: String },
    #[error("the run has {calls} calls; at most {max} fit in one run (split it, or use the batch route)")]
    TooLarge { calls: u64, max: u64 },
    #[error("the cases mix {score} scoring cases (job: score) with {chat} chat cases; run them separately")]
    MixedJobs { score: u64, chat: u64 },
    #[error("case {case:?}, field params.{field}: expected {expected}")]
    CaseParams { case: String, field: &'static str, expected: String },
}

/// The most calls one run holds (a browser tab keeps every record in memory).
pub const MAX_CALLS: u64 = 2_000_000;

/// The record id of one call: stable, so a resumed run finds the records it already has.
pub fn record_id(run_id: &str, case_id: &str, target: &str, model: &str, sample: u32) -> String {
    format!("{run_id}:{case_id}:{target}:{model}:{sample}")
}

impl Plan {
    /// Chat calls for `cases` (records with a prompt; see [`super::cases`]). Cases marked
    /// `job: score` are never sent as chat prompts: they go to [`Plan::from_cases`].
    pub fn chat(spec: RunSpec, cases: &[Record]) -> Result<Plan, PlanError> {
        if cases.iter().any(is_score_case) {
            return Plan::from_cases(spec, cases);
        }
        let total = check_chat(&spec, cases.len() as u64)?;
        for case in cases {
            check_case_params(&case.params).map_err(|(field, expected)| PlanError::CaseParams {
                case: case.case_id.clone(),
                field,
                expected,
            })?;
        }
        let mut calls = Vec::with_capacity(total as usize);
        for (t, target) in spec.targets.iter().enumerate() {
            let provider = provider_name(target.provider);
            for model in &target.models {
                for s in 0..spec.samples {
                    for case in cases {
                        let (req, est_in, est_out) = chat_request(&spec, model, case);
                        let record = pending(&spec, case, &target.id, &provider, model, s);
                        calls.push(Call {
                            target: t,
                            record,
                            job: Job::Chat(req),
                            est_tokens_in: est_in,
                            est_tokens_out: est_out,
                        });
                    }
                }
            }
        }
        Ok(Plan { spec, calls })
    }

    /// Embedding calls: `texts` (id, text) in batches of `batch` per call, for every model.
    pub fn embed(spec: RunSpec, texts: &[(String, String)], batch: usize) -> Result<Plan, PlanError> {
        spec.validate()?;
        if texts.is_empty() {
            return Err(PlanError::NoCases);
        }
        let batch = batch.clamp(1, 2048);
        let mut calls = vec![];
        for (t, target) in spec.targets.iter().enumerate() {
            let provider = provider_name(target.provider);
            for model in &target.models {
                build_embed(&target.endpoint(), None, model, &["check".to_string()]).map_err(|e| {
                    PlanError::Request { target: target.id.clone(), model: model.clone(), message: e.to_string() }
                })?;
                for (n, chunk) in texts.chunks(batch).enumerate() {
                    let case = Record {
                        case_id: format!("embed-{n}"),
                        method: "embedding".into(),
                        prompt: chunk.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>().join(" "),
                        ..Record::default()
                    };
                    let inputs: Vec<String> = chunk.iter().map(|(_, text)| text.clone()).collect();
                    let est_in = inputs.iter().map(|s| estimate_tokens(s)).sum();
                    let record = pending(&spec, &case, &target.id, &provider, model, 0);
                    calls.push(Call {
                        target: t,
                        record,
                        job: Job::Embed { model: model.clone(), inputs },
                        est_tokens_in: est_in,
                        est_tokens_out: 0,
                    });
                }
            }
        }
        Ok(Plan { spec, calls })
    }

    /// Scoring calls: one per case and model, sample 0 only (a score is not a draw, so the
    /// spec's `samples` does not apply). The case's prompt is the text scored. Providers that
    /// cannot give prompt log-probabilities are refused here, before anything is sent.
    pub fn score(spec: RunSpec, cases: &[Record]) -> Result<Plan, PlanError> {
        let total = check_score(&spec, cases.len() as u64)?;
        let mut calls = Vec::with_capacity(total as usize);
        for (t, target) in spec.targets.iter().enumerate() {
            let provider = provider_name(target.provider);
            for model in &target.models {
                for case in cases {
                    calls.push(Call {
                        target: t,
                        record: pending(&spec, case, &target.id, &provider, model, 0),
                        job: Job::Score { model: model.clone(), text: case.prompt.clone() },
                        est_tokens_in: estimate_tokens(&case.prompt),
                        est_tokens_out: 0,
                    });
                }
            }
        }
        Ok(Plan { spec, calls })
    }

    /// The plan for a cases file: scoring calls when every case is marked `job: score`, chat
    /// calls when none is (a mix is refused: the two need different targets).
    pub fn from_cases(spec: RunSpec, cases: &[Record]) -> Result<Plan, PlanError> {
        let scored = cases.iter().filter(|c| is_score_case(c)).count();
        match scored {
            0 => Plan::chat(spec, cases),
            n if n == cases.len() => Plan::score(spec, cases),
            n => Err(PlanError::MixedJobs { score: n as u64, chat: (cases.len() - n) as u64 }),
        }
    }

    pub fn prices(&self) -> PriceTable {
        self.spec.prices.clone().unwrap_or_default()
    }

    /// Calls, tokens and cost per target and model, and whether to ask before starting.
    pub fn estimate(&self) -> Estimate {
        let mut rows: Vec<EstimateRow> = vec![];
        for call in &self.calls {
            let row = EstimateRow {
                target: self.spec.targets[call.target].id.clone(),
                model: call.record.model.clone(),
                calls: 1,
                tokens_in: call.est_tokens_in,
                tokens_out: call.est_tokens_out,
                cost: None,
            };
            add_row(&mut rows, row);
        }
        Estimate::from_rows(&self.spec, rows)
    }
}

/// Adds `row` to the row of its target and model, or appends it (rows stay in plan order).
pub(super) fn add_row(rows: &mut Vec<EstimateRow>, row: EstimateRow) {
    match rows.iter_mut().find(|r| r.target == row.target && r.model == row.model) {
        Some(r) => {
            r.calls += row.calls;
            r.tokens_in += row.tokens_in;
            r.tokens_out += row.tokens_out;
        }
        None => rows.push(row),
    }
}

impl Estimate {
    /// Prices the rows (calls and tokens per target and model) and says whether to ask first.
    pub(super) fn from_rows(spec: &RunSpec, mut rows: Vec<EstimateRow>) -> Estimate {
        let prices = spec.prices.clone().unwrap_or_default();
        for row in &mut rows {
            row.cost = prices.cost(&row.model, row.tokens_in, row.tokens_out);
        }
        let calls = rows.iter().map(|r| r.calls).sum::<u64>();
        let cost: f64 = rows.iter().filter_map(|r| r.cost).sum();
        let unpriced: Vec<String> = rows.iter().filter(|r| r.cost.is_none()).map(|r| r.model.clone()).collect();
        let mut reasons = vec![];
        if calls > spec.confirm_above_calls {
            reasons.push(format!("{calls} calls (more than {})", spec.confirm_above_calls));
        }
        if cost > spec.confirm_above_cost {
            reasons.push(format!("an estimated {cost:.2} {} (more than {})", prices.currency, spec.confirm_above_cost));
        }
        Estimate {
            calls,
            tokens_in: rows.iter().map(|r| r.tokens_in).sum(),
            tokens_out: rows.iter().map(|r| r.tokens_out).sum(),
            cost,
            currency: prices.currency,
            unpriced,
            rows,
            confirm: reasons,
        }
    }
}

/// What a chat plan of `cases` cases is refused for, checked before any call is built: the
/// spec, no cases, too many calls, a request a target cannot take (only the prompt varies
/// between a model's calls, so one check per model covers them all). The number of calls.
pub(super) fn check_chat(spec: &RunSpec, cases: u64) -> Result<u64, PlanError> {
    spec.validate()?;
    if cases == 0 {
        return Err(PlanError::NoCases);
    }
    let per_case: u64 = spec.targets.iter().map(|t| t.models.len() as u64).sum::<u64>() * u64::from(spec.samples);
    let total = per_case.saturating_mul(cases);
    if total > MAX_CALLS {
        return Err(PlanError::TooLarge { calls: total, max: MAX_CALLS });
    }
    for target in &spec.targets {
        for model in &target.models {
            let sample = spec.params.chat(model, "check", None);
            build_chat(&target.endpoint(), None, &sample).map_err(|e| PlanError::Request {
                target: target.id.clone(),
                model: model.clone(),
                message: e.to_string(),
            })?;
        }
    }
    Ok(total)
}

/// [`check_chat`] for a scoring plan: one call per case and model.
pub(super) fn check_score(spec: &RunSpec, cases: u64) -> Result<u64, PlanError> {
    spec.validate()?;
    if cases == 0 {
        return Err(PlanError::NoCases);
    }
    let per_case: u64 = spec.targets.iter().map(|t| t.models.len() as u64).sum();
    let total = per_case.saturating_mul(cases);
    if total > MAX_CALLS {
        return Err(PlanError::TooLarge { calls: total, max: MAX_CALLS });
    }
    for target in &spec.targets {
        for model in &target.models {
            build_score(&target.endpoint(), None, model, "check", ScoreDialect::Echo).map_err(|e| {
                PlanError::Request { target: target.id.clone(), model: model.clone(), message: e.to_string() }
            })?;
        }
    }
    Ok(total)
}

/// One case's chat request to `model`, with its estimated input and output tokens.
pub(super) fn chat_request(spec: &RunSpec, model: &str, case: &Record) -> (ChatRequest, u64, u64) {
    let system = case.extra.get("system").map(String::as_str);
    let req = case_params(spec.params.chat(model, &case.prompt, system), &case.params);
    let est_in = estimate_tokens(&case.prompt) + req.params.system.as_deref().map_or(0, estimate_tokens);
    let est_out = req.params.max_tokens.map_or(ASSUMED_OUTPUT_TOKENS, u64::from);
    (req, est_in, est_out)
}

fn provider_name(kind: crate::providers::ProviderKind) -> String {
    serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// A case's own `temperature`, `max_tokens`, `top_p` and `seed` (its `params` column, as a
/// method that knows them writes it) override the spec's for that case's calls.
fn case_params(mut req: ChatRequest, params: &std::collections::BTreeMap<String, serde_json::Value>) -> ChatRequest {
    let num = |k: &str| params.get(k).and_then(serde_json::Value::as_f64);
    let whole = |k: &str| params.get(k).and_then(serde_json::Value::as_u64);
    if let Some(t) = num("temperature") {
        req.params.temperature = Some(t);
    }
    if let Some(m) = whole("max_tokens").and_then(|m| u32::try_from(m).ok()) {
        req.params.max_tokens = Some(m);
    }
    if let Some(p) = num("top_p") {
        req.params.top_p = Some(p);
    }
    if let Some(seed) = whole("seed") {
        req.params.seed = Some(seed);
    }
    req
}

/// Checks a case's own `params` as [`case_params`] reads them, returning the field and what
/// was expected: a value a provider would reject (`max_tokens: 0`, `temperature: 5`), or one
/// of the wrong kind that would otherwise be dropped silently, stops the run before any call.
pub fn check_case_params(
    params: &std::collections::BTreeMap<String, serde_json::Value>,
) -> Result<(), (&'static str, String)> {
    for (field, whole) in [("max_tokens", true), ("seed", true), ("temperature", false), ("top_p", false)] {
        let Some(v) = params.get(field) else { continue };
        let ok = if whole { v.as_u64().is_some() } else { v.as_f64().is_some() };
        if !ok {
            let kind = if whole { "a whole number" } else { "a number" };
            return Err((field, format!("{kind}, found {v}")));
        }
    }
    if params.get("max_tokens").and_then(serde_json::Value::as_u64).is_some_and(|m| u32::try_from(m).is_err()) {
        return Err(("max_tokens", format!("at most {}", u32::MAX)));
    }
    let req = case_params(ChatRequest { model: "m".into(), ..ChatRequest::default() }, params);
    req.validate().map_err(|e| match e {
        crate::providers::request::BuildError::Invalid { field, expected } => (field, expected),
        other => ("params", other.to_string()),
    })
}

fn pending(spec: &RunSpec, case: &Record, target: &str, provider: &str, model: &str, sample: u32) -> Record {
    Record {
        format_version: crate::record::FORMAT_VERSION,
        record_id: record_id(&spec.run_id, &case.case_id, target, model, sample),
        run_id: spec.run_id.clone(),
        method: if case.method.is_empty() { spec.method.clone() } else { case.method.clone() },
        provider: provider.to_string(),
        model: model.to_string(),
        sample_index: sample,
        status: Status::Pending,
        response: String::new(),
        error: String::new(),
        ..case.clone()
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct EstimateRow {
    pub target: String,
    pub model: String,
    pub calls: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// None when the price table has no row for the model.
    pub cost: Option<f64>,
}

/// What the page shows before a run starts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub calls: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// The cost of the priced models; `unpriced` lists the others.
    pub cost: f64,
    pub currency: String,
    pub unpriced: Vec<String>,
    pub rows: Vec<EstimateRow>,
    /// Why the user should confirm before starting; empty when no confirmation is needed.
    pub confirm: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(extra: &str) -> RunSpec {
        RunSpec::from_json(&format!(
            r#"{{"run_id":"r1","targets":[{{"provider":"openai","models":["gpt-4o-mini","mystery"]}}],"samples":2,"params":{{"max_tokens":10}}{extra}}}"#
        ))
        .unwrap()
    }

    fn cases(n: usize) -> Vec<Record> {
        (0..n).map(|i| Record { case_id: format!("c{i}"), prompt: "x".repeat(40), ..Default::default() }).collect()
    }

    #[test]
    fn calls_cover_cases_models_and_samples_with_stable_ids() {
        let plan = Plan::chat(spec(""), &cases(3)).unwrap();
        assert_eq!(plan.calls.len(), 12);
        assert_eq!(plan.calls[0].record.record_id, "r1:c0:openai:gpt-4o-mini:0");
        assert_eq!(plan.calls[3].record.record_id, "r1:c0:openai:gpt-4o-mini:1");
        assert_eq!(plan.calls[11].record.record_id, "r1:c2:openai:mystery:1");
        assert!(plan.calls.iter().all(|c| c.record.status == Status::Pending && c.record.provider == "openai"));
        let ids: std::collections::HashSet<_> = plan.calls.iter().map(|c| &c.record.record_id).collect();
        assert_eq!(ids.len(), 12);
    }

    #[test]
    fn a_cases_own_params_override_the_specs_for_its_calls() {
        let mut cs = cases(2);
        cs[1].params =
            [("temperature".to_string(), serde_json::json!(0.0)), ("max_tokens".into(), serde_json::json!(60))]
                .into_iter()
                .collect();
        let plan = Plan::chat(spec(""), &cs).unwrap();
        let req = |i: usize| match &plan.calls[i].job {
            Job::Chat(r) => r.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!((req(0).params.temperature, req(0).params.max_tokens), (None, Some(10)), "the spec's");
        assert_eq!(
            (req(1).params.temperature, req(1).params.max_tokens),
            (Some(0.0), Some(60)),
            "the case's, 0 included"
        );
    }

    /// Regression (issue 28): a case's `max_tokens: 0` was planned and sent (the spec's and a
    /// study's were already refused).
    #[test]
    fn a_cases_params_a_provider_would_reject_are_refused_naming_case_and_field() {
        for (params, field) in [
            (serde_json::json!({"max_tokens": 0}), "max_tokens"),
            (serde_json::json!({"max_tokens": 1.5}), "max_tokens"),
            (serde_json::json!({"max_tokens": 5_000_000_000u64}), "max_tokens"),
            (serde_json::json!({"temperature": 3}), "temperature"),
            (serde_json::json!({"top_p": 0}), "top_p"),
            (serde_json::json!({"seed": -1}), "seed"),
        ] {
            let mut cs = cases(2);
            cs[1].params = params.as_object().unwrap().clone().into_iter().collect();
            let e = Plan::chat(spec(""), &cs).unwrap_err();
            assert!(
                matches!(&e, PlanError::CaseParams { case, field: f, .. } if case == "c1" && *f == field),
                "{params}: {e:?}"
            );
            assert!(e.to_string().contains(&format!("params.{field}")), "{e}");
        }
        let mut cs = cases(1);
        cs[0].params = [("max_tokens".to_string(), serde_json::json!(1))].into_iter().collect();
        assert!(Plan::chat(spec(""), &cs).is_ok(), "1 token is allowed");
    }

    #[test]
    fn the_estimate_prices_what_it_can_and_asks_above_thresholds() {
        let plan = Plan::chat(spec(r#","confirm_above_calls":10"#), &cases(3)).unwrap();
        let e = plan.estimate();
        assert_eq!((e.calls, e.tokens_in, e.tokens_out), (12, 120, 120));
        assert_eq!(e.unpriced, vec!["mystery".to_string()]);
        assert!((e.cost - (60.0 * 0.15 + 60.0 * 0.60) / 1e6).abs() < 1e-15);
        assert_eq!(e.confirm.len(), 1, "{:?}", e.confirm);
        assert!(Plan::chat(spec(""), &cases(3)).unwrap().estimate().confirm.is_empty());
    }

    #[test]
    fn bad_requests_and_empty_plans_are_refused_before_anything_is_sent() {
        assert!(matches!(Plan::chat(spec(""), &[]), Err(PlanError::NoCases)));
        let mut s = spec("");
        s.params.logprobs = Some(2);
        s.targets[0].provider = crate::providers::ProviderKind::Anthropic;
        let e = Plan::chat(s, &cases(1)).unwrap_err();
        assert!(e.to_string().contains("log-probabilities"), "{e}");
    }

    fn score_cases(n: usize) -> Vec<Record> {
        let mut cs = cases(n);
        for c in &mut cs {
            c.extra.insert(JOB_COLUMN.into(), SCORE_JOB.into());
        }
        cs
    }

    #[test]
    fn scoring_plans_one_call_per_case_and_model_on_servers_that_can_score() {
        let s = RunSpec::from_json(
            r#"{"run_id":"r","targets":[{"provider":"openai-compatible","base_url":"http://127.0.0.1:9/v1","models":["a","b"]}],"samples":5}"#,
        )
        .unwrap();
        let plan = Plan::chat(s.clone(), &score_cases(3)).unwrap();
        assert_eq!(plan.calls.len(), 6, "samples do not multiply scores");
        assert!(matches!(&plan.calls[0].job, Job::Score { model, text } if model == "a" && text == &"x".repeat(40)));
        assert_eq!(plan.calls[5].record.record_id, "r:c2:openai-compatible:b:0");
        assert_eq!(plan.estimate().tokens_out, 0);
        let mut mixed = score_cases(2);
        mixed[1].extra.clear();
        assert!(matches!(Plan::chat(s.clone(), &mixed), Err(PlanError::MixedJobs { score: 1, chat: 1 })));
        assert!(matches!(Plan::from_cases(s, &mixed), Err(PlanError::MixedJobs { .. })));
        let e = Plan::score(spec(""), &score_cases(1)).unwrap_err().to_string();
        assert!(e.contains("gpt-4o-mini") && e.contains("prompt log-probabilities") && e.contains("sampling"), "{e}");
    }
}
