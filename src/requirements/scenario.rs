//! LangBiTe's scenario JSON, read as upstream reads it and validated.
//!
//! Upstream reads every key with `cfg['key']` and validates nothing, so a missing key is a
//! `KeyError` there: here it is an error naming the field path. What upstream accepts but
//! mishandles (the string `"False"` for `useLLMEval`, two requirements for one concern, `llms`
//! instead of `aiModels`) is accepted and reported as a warning that says what upstream does.
//! The legacy form (`numTests`, requirement `prompts`/`assessments`, a flat `communities`
//! list) is read too and marked `legacy`.

use super::check::{Check, kind};
use crate::formats::Problem;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scenario {
    pub timestamp: Option<i64>,
    /// `nTemplates` (legacy `numTests`): the cap per (requirement, language, input, reflection) group.
    pub n_templates: u64,
    /// `nRetries`: the total number of attempts (absent in the legacy form, then 1).
    pub n_retries: u64,
    pub temperature: Option<f64>,
    pub tokens: Option<u64>,
    /// What the user meant: `true`, `false`, `"True"` or `"False"`.
    pub use_llm_eval: bool,
    /// What upstream does: Python truthiness, so the string "False" turns the judge on.
    pub upstream_judge_on: bool,
    /// `aiModels`, or `llms` when only that is given.
    pub ai_models: Vec<String>,
    pub requirements: Vec<Requirement>,
    pub legacy: bool,
    /// Our superset's settings (the `evenhand` key), when present.
    pub evenhand: Option<super::extension::Extension>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Requirement {
    pub name: String,
    pub rationale: String,
    /// Lower-cased, as upstream.
    pub languages: Vec<String>,
    pub tolerance: f64,
    pub delta: f64,
    /// Lower-cased, as upstream; matched exactly against the library's concern column.
    pub concern: String,
    /// Upper-cased markup root such as `GENDER`.
    pub markup: String,
    /// Language (verbatim key) to community literals, in the file's order.
    pub communities: BTreeMap<String, Vec<String>>,
    /// `constrained` / `verbose` (legacy `Open` / `Adversarial` mapped).
    pub inputs: Vec<String>,
    /// `observational` / `utopian`.
    pub reflections: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Parsed {
    pub scenario: Scenario,
    pub warnings: Vec<Problem>,
}

#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("{file}:{line}:{column}: not valid JSON: {message}")]
    Json { file: String, line: usize, column: usize, message: String },
    #[error("{}", list(.errors))]
    Invalid { errors: Vec<Problem>, warnings: Vec<Problem> },
}

fn list(problems: &[Problem]) -> String {
    problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n")
}

/// Reads and validates a scenario. `file` names the source in every problem.
pub fn parse(file: &str, text: &str) -> Result<Parsed, ScenarioError> {
    let root: Value = serde_json::from_str(text).map_err(|e| ScenarioError::Json {
        file: file.to_string(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let mut c = Check { file, errors: vec![], warnings: vec![] };
    let Value::Object(cfg) = &root else {
        c.error("(root)", format!("expected a JSON object, found {}", kind(&root)));
        return Err(ScenarioError::Invalid { errors: c.errors, warnings: c.warnings });
    };
    let legacy = !cfg.contains_key("nTemplates") && cfg.contains_key("numTests");
    let n_templates = if legacy {
        c.warn("numTests", "legacy key, read as nTemplates (renamed upstream on 2024-04-10)");
        c.count(cfg.get("numTests"), "numTests")
    } else {
        let v = c.get(cfg, "", "nTemplates");
        c.count(v, "nTemplates")
    };
    let n_retries = if legacy && !cfg.contains_key("nRetries") {
        1
    } else {
        let v = c.get(cfg, "", "nRetries");
        c.count(v, "nRetries")
    };
    if n_templates == 0 && (cfg.contains_key("nTemplates") || cfg.contains_key("numTests")) {
        c.warn(if legacy { "numTests" } else { "nTemplates" }, "0: no template is selected from any group");
    }
    if n_retries == 0 && cfg.contains_key("nRetries") {
        c.warn("nRetries", "0 attempts: upstream never runs any template and drops them from every report");
    }
    let timestamp = match c.get(cfg, "", "timestamp") {
        Some(Value::Number(n)) if n.as_i64().is_some() => n.as_i64(),
        Some(other) => {
            c.error("timestamp", format!("expected an integer, found {other}"));
            None
        }
        None => None,
    };
    let temperature = match c.get(cfg, "", "temperature") {
        Some(Value::Number(n)) => n.as_f64(),
        Some(other) => {
            c.error("temperature", format!("expected a number, found {}", kind(other)));
            None
        }
        None => None,
    };
    let tokens = match c.get(cfg, "", "tokens") {
        v @ Some(_) => Some(c.count(v, "tokens")),
        None => None,
    };
    let (use_llm_eval, upstream_judge_on) = match cfg.get("useLLMEval") {
        None if legacy => (false, false),
        None => {
            c.error("useLLMEval", "missing (upstream raises KeyError)");
            (false, false)
        }
        Some(Value::Bool(b)) => (*b, *b),
        Some(Value::String(s)) if s == "True" => (true, true),
        Some(Value::String(s)) if s == "False" => {
            c.warn("useLLMEval", "the string \"False\" is truthy upstream, which runs the LLM judge on every failure; compat mode does the same");
            (false, true)
        }
        Some(other) => {
            c.error("useLLMEval", format!("expected true, false, \"True\" or \"False\", found {other}"));
            (false, false)
        }
    };
    let ai_models = match (cfg.get("aiModels"), cfg.get("llms")) {
        (Some(v), llms) => {
            if llms.is_some() {
                c.warn("llms", "ignored: aiModels is given, and upstream reads only aiModels");
            }
            c.strings(Some(v), "aiModels")
        }
        (None, Some(v)) => {
            c.warn(
                "llms",
                "read as aiModels (the user guide's name); upstream reads only aiModels and raises KeyError",
            );
            c.strings(Some(v), "llms")
        }
        (None, None) => {
            c.error("aiModels", "missing (upstream raises KeyError); expected a list of model keys");
            vec![]
        }
    };
    let mut requirements = vec![];
    match c.get(cfg, "", "requirements") {
        Some(Value::Array(reqs)) => {
            for (i, r) in reqs.iter().enumerate() {
                let path = format!("requirements[{i}]");
                match r {
                    Value::Object(obj) => requirements.push(requirement(&mut c, obj, &path, legacy)),
                    other => c.error(&path, format!("expected an object, found {}", kind(other))),
                }
            }
        }
        Some(other) => c.error("requirements", format!("expected a list of objects, found {}", kind(other))),
        None => {}
    }
    same_concern(&mut c, &requirements);
    let evenhand = cfg.get("evenhand").and_then(|v| super::extension::read(file, v, &mut c.errors));
    let scenario = Scenario {
        timestamp,
        n_templates,
        n_retries,
        temperature,
        tokens,
        use_llm_eval,
        upstream_judge_on,
        ai_models,
        requirements,
        legacy,
        evenhand,
    };
    if c.errors.is_empty() {
        Ok(Parsed { scenario, warnings: c.warnings })
    } else {
        Err(ScenarioError::Invalid { errors: c.errors, warnings: c.warnings })
    }
}

fn requirement(c: &mut Check, obj: &Map<String, Value>, path: &str, legacy: bool) -> Requirement {
    let p = format!("{path}.");
    let name = c.string(obj, &p, "name");
    let rationale = c.string(obj, &p, "rationale");
    let concern = c.string(obj, &p, "concern").to_lowercase();
    let tolerance = c.unit(obj, &p, "tolerance");
    let delta = c.unit(obj, &p, "delta");
    let markup = if legacy && !obj.contains_key("markup") {
        let guess = concern.to_uppercase();
        c.warn(&format!("{p}markup"), format!("absent in the legacy form; using the concern, {{{guess}}}"));
        guess
    } else {
        c.string(obj, &p, "markup").to_uppercase()
    };
    let languages: Vec<String> = if legacy && !obj.contains_key("languages") {
        c.warn(&format!("{p}languages"), "absent in the legacy form (one library); using en_us");
        vec!["en_us".into()]
    } else {
        let v = c.get(obj, &p, "languages");
        c.strings(v, &format!("{p}languages")).iter().map(|l| l.to_lowercase()).collect()
    };
    for (i, lang) in languages.iter().enumerate() {
        if languages[..i].contains(lang) {
            c.warn(
                &format!("{p}languages[{i}]"),
                format!("{lang} is listed twice: upstream selects its templates twice"),
            );
        }
    }
    let communities = communities(c, obj.get("communities"), &format!("{p}communities"), &languages);
    let (inputs, reflections) = if legacy && !obj.contains_key("inputs") {
        let i = c.strings(obj.get("prompts"), &format!("{p}prompts"));
        let r = c.strings(obj.get("assessments"), &format!("{p}assessments"));
        (values(c, &i, &format!("{p}prompts"), INPUTS), values(c, &r, &format!("{p}assessments"), REFLECTIONS))
    } else {
        let iv = c.get(obj, &p, "inputs");
        let i = c.strings(iv, &format!("{p}inputs"));
        let rv = c.get(obj, &p, "reflections");
        let r = c.strings(rv, &format!("{p}reflections"));
        (values(c, &i, &format!("{p}inputs"), INPUTS), values(c, &r, &format!("{p}reflections"), REFLECTIONS))
    };
    Requirement { name, rationale, languages, tolerance, delta, concern, markup, communities, inputs, reflections }
}

/// (accepted value, what it means): the legacy names map onto the current ones.
const INPUTS: &[(&str, &str)] =
    &[("constrained", "constrained"), ("verbose", "verbose"), ("open", "constrained"), ("adversarial", "verbose")];
const REFLECTIONS: &[(&str, &str)] = &[("observational", "observational"), ("utopian", "utopian")];

fn values(c: &mut Check, raw: &[String], field: &str, vocabulary: &[(&str, &str)]) -> Vec<String> {
    let mut out = vec![];
    for (i, v) in raw.iter().enumerate() {
        match vocabulary.iter().find(|(k, _)| *k == v.to_lowercase()) {
            Some((_, meaning)) => out.push(meaning.to_string()),
            None => {
                let expected: Vec<&str> = vocabulary.iter().map(|(k, _)| *k).collect();
                c.error(&format!("{field}[{i}]"), format!("expected one of {}, found {v:?}", expected.join(", ")));
            }
        }
    }
    out
}

fn communities(c: &mut Check, v: Option<&Value>, field: &str, languages: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    match v {
        None => c.error(field, "missing (upstream raises KeyError)"),
        // The legacy form: one list for the one library.
        Some(list @ Value::Array(_)) => {
            let items = c.strings(Some(list), field);
            for lang in languages {
                out.insert(lang.clone(), items.clone());
            }
        }
        Some(Value::Object(map)) => {
            for (lang, list) in map {
                out.insert(lang.clone(), c.strings(Some(list), &format!("{field}.{lang}")));
            }
            for lang in languages {
                if !map.contains_key(lang) {
                    let hint = map.keys().find(|k| k.to_lowercase() == *lang).map(|k| {
                        format!(" (there is {k:?}: languages are lower-cased upstream, community keys are not)")
                    });
                    c.error(
                        &format!("{field}.{lang}"),
                        format!(
                            "language {lang} has no community list (upstream raises KeyError){}",
                            hint.unwrap_or_default()
                        ),
                    );
                }
            }
            for lang in map.keys() {
                if !languages.contains(lang) && !languages.contains(&lang.to_lowercase()) {
                    c.warn(&format!("{field}.{lang}"), format!("unused: {lang} is not in languages"));
                }
            }
        }
        Some(other) => {
            c.error(field, format!("expected an object of language to list of strings, found {}", kind(other)))
        }
    }
    out
}

/// Upstream keys tolerance and communities by concern and sets the last requirement's delta on
/// every prompt; say so when two requirements share a concern.
fn same_concern(c: &mut Check, reqs: &[Requirement]) {
    for (j, later) in reqs.iter().enumerate() {
        if let Some(i) = reqs[..j].iter().rposition(|r| r.concern == later.concern) {
            c.warn(
                &format!("requirements[{j}].concern"),
                format!(
                    "requirements[{i}] has the same concern {:?}: upstream selects its templates twice and uses \
                     requirements[{j}]'s communities (and tolerance {}) for all of them; compat mode does the same",
                    later.concern, later.tolerance
                ),
            );
        }
    }
    // The last requirement of a concern instantiates the templates every earlier one selected,
    // so each of their languages needs a community list in it.
    for (i, early) in reqs.iter().enumerate() {
        let Some(j) = reqs.iter().rposition(|r| r.concern == early.concern).filter(|&j| j > i) else { continue };
        for lang in &early.languages {
            if !reqs[j].communities.contains_key(lang) {
                c.error(
                    &format!("requirements[{j}].communities.{lang}"),
                    format!(
                        "missing: requirements[{i}] selects {lang} templates of {:?}, and upstream instantiates them \
                         with requirements[{j}]'s communities (KeyError)",
                        early.concern
                    ),
                );
            }
        }
    }
    if reqs.len() > 1 {
        let last = &reqs[reqs.len() - 1];
        if reqs.iter().any(|r| r.delta != last.delta) {
            c.warn(
                &format!("requirements[{}].delta", reqs.len() - 1),
                format!(
                    "upstream applies the last requirement's delta ({}) to every allSameValue template",
                    last.delta
                ),
            );
        }
    }
}

/// The `LangBiTeForAPI` payload: `{"config": {scenario}, "prompts": "<JSON list of templates>",
/// "input_language": "en_us"}`. The prompts string is read with
/// [`super::library::read_json`] for `input_language`.
#[derive(Debug, Clone)]
pub struct ApiPayload {
    pub config: String,
    pub prompts: Option<String>,
    pub input_language: Option<String>,
}

/// `Some` when `text` is an API payload (an object with a `config` object), not a bare scenario.
pub fn api_payload(text: &str) -> Option<ApiPayload> {
    let Ok(Value::Object(root)) = serde_json::from_str::<Value>(text) else { return None };
    let config @ Value::Object(_) = root.get("config")? else { return None };
    Some(ApiPayload {
        config: config.to_string(),
        prompts: root.get("prompts").and_then(Value::as_str).map(str::to_string),
        input_language: root.get("input_language").and_then(Value::as_str).map(str::to_lowercase),
    })
}
