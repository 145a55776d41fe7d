//! Plan: question set x languages x modes -> cases, each with the stable id the record table
//! uses for cross-lingual records: `case_id = "<question id>:<language>:<mode>"`,
//! `question_id`, `concern = topic`, `language`, `template_id = mode`.

use super::questions::QuestionSet;
use crate::record::Record;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const DEFAULT_MODES_JSON: &str = include_str!("../../datasets/crosslingual/default_modes.json");

/// Our own prompt modes (answer, acceptable, non_acceptable) for the given languages; used when
/// a question set brings none.
pub fn default_modes(languages: &[String]) -> BTreeMap<String, BTreeMap<String, String>> {
    let all: BTreeMap<String, BTreeMap<String, String>> =
        serde_json::from_str(DEFAULT_MODES_JSON).expect("datasets/crosslingual/default_modes.json is valid");
    all.into_iter().map(|(mode, t)| (mode, t.into_iter().filter(|(l, _)| languages.contains(l)).collect())).collect()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Case {
    pub case_id: String,
    pub question_id: String,
    pub topic: String,
    pub language: String,
    pub mode: String,
    pub prompt: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
pub enum PlanError {
    #[error("language {0:?} is not in the question set (it has: {1})")]
    Language(String, String),
    #[error("mode {0:?} is not in the question set (it has: {1})")]
    Mode(String, String),
    #[error("mode {mode:?} has no template for language {language:?} (field modes.{mode}.{language})")]
    Template { mode: String, language: String },
    #[error("question {id}: no text in language {language:?} (field text.{language})")]
    Text { id: String, language: String },
    #[error("choose at least one language and one mode")]
    Nothing,
}

/// The cases, in the order question, mode, language. Empty `languages` or `modes` mean all.
pub fn plan(set: &QuestionSet, languages: &[String], modes: &[String]) -> Result<Vec<Case>, PlanError> {
    let languages: Vec<String> = if languages.is_empty() { set.languages.clone() } else { languages.to_vec() };
    let modes: Vec<String> = if modes.is_empty() { set.modes.keys().cloned().collect() } else { modes.to_vec() };
    if languages.is_empty() || modes.is_empty() {
        return Err(PlanError::Nothing);
    }
    for l in &languages {
        if !set.languages.contains(l) {
            return Err(PlanError::Language(l.clone(), set.languages.join(", ")));
        }
    }
    for m in &modes {
        let Some(t) = set.modes.get(m) else {
            return Err(PlanError::Mode(m.clone(), set.modes.keys().cloned().collect::<Vec<_>>().join(", ")));
        };
        if let Some(l) = languages.iter().find(|l| !t.contains_key(*l)) {
            return Err(PlanError::Template { mode: m.clone(), language: l.clone() });
        }
    }
    let mut out = Vec::with_capacity(set.questions.len() * languages.len() * modes.len());
    for q in &set.questions {
        for m in &modes {
            for l in &languages {
                let Some(text) = q.text.get(l) else {
                    return Err(PlanError::Text { id: q.id.clone(), language: l.clone() });
                };
                out.push(Case {
                    case_id: format!("{}:{l}:{m}", q.id),
                    question_id: q.id.clone(),
                    topic: q.topic.clone(),
                    language: l.clone(),
                    mode: m.clone(),
                    prompt: set.modes[m][l].replace("{question}", text),
                });
            }
        }
    }
    Ok(out)
}

/// A record for a case before its response is known (status and response are set by the run).
pub fn record_for(case: &Case, run_id: &str, provider: &str, model: &str, sample: u32) -> Record {
    let mut r = Record {
        format_version: crate::record::FORMAT_VERSION,
        run_id: run_id.into(),
        method: super::METHOD.into(),
        case_id: case.case_id.clone(),
        template_id: case.mode.clone(),
        language: case.language.clone(),
        concern: case.topic.clone(),
        prompt: case.prompt.clone(),
        provider: provider.into(),
        model: model.into(),
        sample_index: sample,
        question_id: case.question_id.clone(),
        ..Record::default()
    };
    r.record_id = r.derived_id();
    r
}

/// The set's reference responses (MSQAD's `<Language>_acceptable_response` and
/// `_non-acceptable_response`, or ours) as records of modes `acceptable` and `non_acceptable`,
/// so the released responses themselves can be analyzed. Provider "reference", model
/// [`QuestionSet::reference_model`].
pub fn reference_records(set: &QuestionSet) -> Vec<Record> {
    let mut out = vec![];
    for q in &set.questions {
        for (mode, texts) in [("acceptable", &q.acceptable), ("non_acceptable", &q.non_acceptable)] {
            for lang in &set.languages {
                let (Some(response), Some(text)) = (texts.get(lang), q.text.get(lang)) else { continue };
                let prompt = set
                    .modes
                    .get(mode)
                    .and_then(|t| t.get(lang))
                    .map_or(text.clone(), |t| t.replace("{question}", text));
                let case = Case {
                    case_id: format!("{}:{lang}:{mode}", q.id),
                    question_id: q.id.clone(),
                    topic: q.topic.clone(),
                    language: lang.clone(),
                    mode: mode.into(),
                    prompt,
                };
                let mut r = record_for(&case, "reference", "reference", &set.reference_model, 0);
                r.response = response.clone();
                out.push(r);
            }
        }
    }
    out
}
