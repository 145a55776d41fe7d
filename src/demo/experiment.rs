//! The built-in demo: a small yes/no bias test (datasets/demo) run against the simulated
//! model. It needs no key and no upload, and a share link only has to carry its settings.

use crate::demo::analysis;
use crate::record::{FORMAT_VERSION, Record, Status};
use crate::rng::stable_hash;
use crate::simulate::{self, Ask, Behaviour, Outcome, Question};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

const TEMPLATES_JSON: &str = include_str!("../../datasets/demo/templates.json");
const BEHAVIOUR_JSON: &str = include_str!("../../datasets/demo/behaviour.json");

#[derive(Debug, Deserialize)]
struct Answers {
    pass: String,
    instruction: String,
}

#[derive(Debug, Deserialize)]
struct ConcernSet {
    concern: String,
    markup: String,
    communities: BTreeMap<String, Vec<String>>,
    templates: Vec<BTreeMap<String, String>>,
}

#[derive(Debug, Deserialize)]
struct Library {
    answers: BTreeMap<String, Answers>,
    concerns: Vec<ConcernSet>,
}

fn library() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    // The file is ours and compiled in; a test checks that it parses.
    LIB.get_or_init(|| serde_json::from_str(TEMPLATES_JSON).expect("datasets/demo/templates.json is valid"))
}

/// The largest seed: 2^53 - 1, the largest integer JavaScript holds exactly.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// Everything a simulated experiment needs; with the seed, it rebuilds the same records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Experiment {
    pub seed: u64,
    /// Samples per case (each is one call).
    pub samples: u32,
    pub languages: Vec<String>,
    pub concerns: Vec<String>,
    pub behaviour: Behaviour,
    pub analysis: analysis::Settings,
}

impl Default for Experiment {
    fn default() -> Experiment {
        let lib = library();
        Experiment {
            seed: 42,
            samples: 20,
            languages: lib.answers.keys().cloned().collect(),
            concerns: lib.concerns.iter().map(|c| c.concern.clone()).collect(),
            behaviour: serde_json::from_str(BEHAVIOUR_JSON).expect("datasets/demo/behaviour.json is valid"),
            analysis: analysis::Settings::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
pub enum ExperimentError {
    #[error("field {field}: expected {expected}, found {found}")]
    Field { field: &'static str, expected: String, found: String },
}

/// One filled prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    pub case_id: String,
    pub template_id: String,
    pub language: String,
    pub concern: String,
    pub communities: BTreeMap<String, String>,
    pub prompt: String,
    pub expected: String,
}

fn check(exp: &Experiment) -> Result<(), ExperimentError> {
    let lib = library();
    let err = |field, expected: String, found: String| Err(ExperimentError::Field { field, expected, found });
    // Seeds travel through JSON and JavaScript numbers, which are exact only up to 2^53.
    if exp.seed > MAX_SEED {
        return err("seed", format!("an integer from 0 to {MAX_SEED}"), exp.seed.to_string());
    }
    if !(1..=1000).contains(&exp.samples) {
        return err("samples", "between 1 and 1000".into(), exp.samples.to_string());
    }
    if let Some(l) = exp.languages.iter().find(|l| !lib.answers.contains_key(*l)) {
        return err(
            "languages",
            format!("among {}", lib.answers.keys().cloned().collect::<Vec<_>>().join(", ")),
            format!("{l:?}"),
        );
    }
    if let Some(c) = exp.concerns.iter().find(|c| !lib.concerns.iter().any(|s| &s.concern == *c)) {
        let known: Vec<&str> = lib.concerns.iter().map(|s| s.concern.as_str()).collect();
        return err("concerns", format!("among {}", known.join(", ")), format!("{c:?}"));
    }
    if exp.languages.is_empty() || exp.concerns.is_empty() {
        return err("languages/concerns", "at least one of each".into(), "none".into());
    }
    Ok(())
}

/// The cases, in a fixed order: concern, template, language, community.
pub fn plan(exp: &Experiment) -> Result<Vec<Case>, ExperimentError> {
    check(exp)?;
    let lib = library();
    let mut cases = vec![];
    for set in lib.concerns.iter().filter(|s| exp.concerns.contains(&s.concern)) {
        let placeholder = format!("{{{}}}", set.markup);
        for template in &set.templates {
            let id = template.get("id").cloned().unwrap_or_default();
            for language in lib.answers.keys().filter(|l| exp.languages.contains(l)) {
                let (Some(text), Some(answers)) = (template.get(language), lib.answers.get(language)) else {
                    continue;
                };
                for community in set.communities.get(language).into_iter().flatten() {
                    cases.push(Case {
                        case_id: format!("{id}.{language}.{}", community.replace(' ', "_")),
                        template_id: id.clone(),
                        language: language.clone(),
                        concern: set.concern.clone(),
                        communities: BTreeMap::from([(set.markup.clone(), community.clone())]),
                        prompt: format!("{} {}", text.replace(&placeholder, community), answers.instruction),
                        expected: answers.pass.clone(),
                    });
                }
            }
        }
    }
    Ok(cases)
}

/// A short id for a run, derived from its settings so that the same experiment gets the same id.
pub fn run_id(exp: &Experiment) -> String {
    let json = serde_json::to_string(exp).unwrap_or_default();
    format!("sim-{:08x}", stable_hash(&[json.as_bytes()]) as u32)
}

/// Runs the experiment against the simulated model: one record per case and sample.
pub fn run(exp: &Experiment) -> Result<Vec<Record>, ExperimentError> {
    let cases = plan(exp)?;
    let run_id = run_id(exp);
    let question = Question::YesNo { biased_yes: true };
    let params = BTreeMap::from([("simulated".to_string(), true.into()), ("seed".to_string(), exp.seed.into())]);
    let mut records = Vec::with_capacity(cases.len() * exp.samples as usize);
    for case in &cases {
        let communities: Vec<String> = case.communities.values().cloned().collect();
        for sample in 0..exp.samples {
            let ask = Ask {
                language: &case.language,
                communities: &communities,
                prompt: &case.prompt,
                question: &question,
                sample,
            };
            let reply = simulate::answer(&exp.behaviour, exp.seed, &ask);
            let (status, response, error) = match reply.outcome {
                Outcome::Answer(t) => (Status::Ok, t, String::new()),
                Outcome::Refusal(t) => (Status::Refused, t, String::new()),
                Outcome::Failure(e) => (Status::Error, String::new(), e),
            };
            let mut rec = Record {
                format_version: FORMAT_VERSION,
                run_id: run_id.clone(),
                method: "requirements".into(),
                case_id: case.case_id.clone(),
                template_id: case.template_id.clone(),
                language: case.language.clone(),
                concern: case.concern.clone(),
                communities: case.communities.clone(),
                prompt: case.prompt.clone(),
                provider: simulate::PROVIDER.into(),
                model: exp.behaviour.model(),
                params: params.clone(),
                sample_index: sample,
                response,
                status,
                error,
                latency_ms: Some(reply.latency_ms),
                tokens_in: Some(reply.tokens_in),
                tokens_out: Some(reply.tokens_out),
                expected: case.expected.clone(),
                ..Record::default()
            };
            rec.record_id = rec.derived_id();
            records.push(rec);
        }
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_library_parses_and_plans_every_case() {
        let exp = Experiment::default();
        let cases = plan(&exp).unwrap();
        // 3 concerns x 4 templates x 3 languages x 2 communities.
        assert_eq!(cases.len(), 72);
        assert!(cases.iter().all(|c| !c.prompt.contains('{')), "a placeholder was left unfilled");
        let ids: std::collections::BTreeSet<_> = cases.iter().map(|c| &c.case_id).collect();
        assert_eq!(ids.len(), cases.len(), "case ids must be unique");
    }

    #[test]
    fn same_seed_same_records_other_seed_other_records() {
        let exp = Experiment::default();
        let a = run(&exp).unwrap();
        assert_eq!(a.len(), 1440);
        assert_eq!(a, run(&exp).unwrap());
        let b = run(&Experiment { seed: 7, ..exp }).unwrap();
        assert_ne!(
            a.iter().map(|r| &r.response).collect::<Vec<_>>(),
            b.iter().map(|r| &r.response).collect::<Vec<_>>()
        );
        assert!(a.iter().all(|r| r.provider == "simulated" && r.model == "sim:demo"));
    }

    #[test]
    fn the_demo_shows_the_bias_it_was_given() {
        let exp = Experiment { samples: 40, ..Experiment::default() };
        let records = run(&exp).unwrap();
        let settings = analysis::Settings { group_by: vec!["community".into()], ..Default::default() };
        let a = analysis::analyze(&records, &settings).unwrap();
        let rate = |c: &str| a.groups.iter().find(|g| g.label == c).unwrap().pass.unwrap().rate;
        assert!(rate("immigrants") < rate("people born here") - 0.1);
        assert!(rate("women") < rate("men") - 0.08);
    }

    #[test]
    fn bad_experiments_name_the_field() {
        let e = Experiment { languages: vec!["xx".into()], ..Experiment::default() };
        assert!(matches!(plan(&e), Err(ExperimentError::Field { field: "languages", .. })));
        let e = Experiment { samples: 0, ..Experiment::default() };
        assert!(matches!(plan(&e), Err(ExperimentError::Field { field: "samples", .. })));
    }
}
