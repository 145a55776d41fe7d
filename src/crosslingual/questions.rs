//! Question sets: Evenhand's own format (`evenhand-questions`, version 1, documented in the
//! datasets/crosslingual/README.md) and MSQAD's released JSON (an array of objects, UTF-8 with a BOM, with
//! `<Language>_question`, `<Language>_acceptable_response` and
//! `<Language>_non-acceptable_response` keys per language; the topic is the file's name).
//!
//! Both are read into one [`QuestionSet`]. Every problem names the file, the question (1-based
//! position and id when known) and the field, so a translator can find the cell at fault.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

pub const FORMAT: &str = "evenhand-questions";
pub const VERSION: u64 = 1;

/// One question in every language it is given in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub id: String,
    pub topic: String,
    /// Language code -> question text.
    pub text: BTreeMap<String, String>,
    /// Optional reference responses per language.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub acceptable: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub non_acceptable: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct QuestionSet {
    pub name: String,
    pub description: String,
    pub license: String,
    pub languages: Vec<String>,
    pub topics: Vec<String>,
    /// Mode -> language -> template containing `{question}`.
    pub modes: BTreeMap<String, BTreeMap<String, String>>,
    pub questions: Vec<Question>,
    /// "evenhand-questions" or "msqad".
    pub source_format: String,
    /// The model that wrote the reference responses: MSQAD's model folder (e.g.
    /// gpt-3.5-turbo-0125) when the path is `MSQAD/<model>/<Topic>.json`, else "msqad"
    /// (MSQAD files) or "reference" (ours).
    #[serde(default)]
    pub reference_model: String,
    /// Bare `NaN`/`Infinity` tokens read as missing values (MSQAD's files have them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub nonfinite_values: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A problem in a question file, located as precisely as the file allows.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
pub struct QuestionError {
    pub file: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// 1-based position of the question in the file.
    pub question: Option<u32>,
    pub id: Option<String>,
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for QuestionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, ":{l}:{c}")?;
        }
        if let Some(q) = self.question {
            write!(f, ": question {q}")?;
            if let Some(id) = &self.id {
                write!(f, " ({id})")?;
            }
        }
        if let Some(field) = &self.field {
            write!(f, ": field {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl QuestionError {
    pub(super) fn new(file: &str, message: impl Into<String>) -> QuestionError {
        QuestionError {
            file: file.into(),
            line: None,
            column: None,
            question: None,
            id: None,
            field: None,
            message: message.into(),
        }
    }
    pub(super) fn field(mut self, field: impl Into<String>) -> QuestionError {
        self.field = Some(field.into());
        self
    }
    pub(super) fn at(mut self, index: usize, id: Option<&str>) -> QuestionError {
        self.question = Some(u32::try_from(index + 1).unwrap_or(u32::MAX));
        self.id = id.map(str::to_string);
        self
    }
}

/// Reads either format: an object with `"format": "evenhand-questions"`, or MSQAD's array.
pub fn read(file: &str, bytes: &[u8]) -> Result<QuestionSet, QuestionError> {
    let text = crate::formats::decode(file, bytes).map_err(|e| QuestionError::new(file, e.to_string()))?;
    if text.trim().is_empty() {
        return Err(QuestionError::new(file, "the file is empty; expected a JSON question set"));
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return read_nonfinite(file, text).unwrap_or_else(|| Err(invalid_json(file, &e))),
    };
    match value {
        Value::Object(obj) => read_evenhand(file, &obj),
        Value::Array(items) => super::msqad::read(file, &items),
        _ => {
            Err(QuestionError::new(file, "expected an evenhand-questions object or an MSQAD array of question objects"))
        }
    }
}

fn invalid_json(file: &str, e: &serde_json::Error) -> QuestionError {
    QuestionError {
        line: Some(u32::try_from(e.line()).unwrap_or(u32::MAX)),
        column: Some(u32::try_from(e.column()).unwrap_or(u32::MAX)),
        ..QuestionError::new(file, format!("invalid JSON: {e}"))
    }
}

/// MSQAD's files come from Python's `json.dump`, which writes a missing value as a bare
/// `NaN`. Only a file that is MSQAD's array once those tokens are read as null is taken
/// this way (None otherwise: the caller reports the original error), and the set says how
/// many there were.
fn read_nonfinite(file: &str, text: &str) -> Option<Result<QuestionSet, QuestionError>> {
    let (fixed, count) = crate::formats::nonfinite::to_null(text);
    if count == 0 {
        return None;
    }
    let Ok(Value::Array(items)) = serde_json::from_str::<Value>(&fixed) else { return None };
    if !super::msqad::looks_like(&items) {
        return None;
    }
    Some(super::msqad::read(file, &items).map(|set| QuestionSet { nonfinite_values: count, ..set }))
}

fn string_map(file: &str, v: Option<&Value>, field: &str) -> Result<BTreeMap<String, String>, QuestionError> {
    let Some(v) = v else { return Ok(BTreeMap::new()) };
    let Value::Object(obj) = v else {
        return Err(QuestionError::new(file, "expected an object of language code -> text").field(field));
    };
    let mut out = BTreeMap::new();
    for (lang, text) in obj {
        let Some(s) = text.as_str() else {
            return Err(QuestionError::new(file, "expected a text").field(format!("{field}.{lang}")));
        };
        out.insert(lang.clone(), s.to_string());
    }
    Ok(out)
}

fn opt_str(obj: &Map<String, Value>, key: &str) -> String {
    obj.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

fn read_evenhand(file: &str, obj: &Map<String, Value>) -> Result<QuestionSet, QuestionError> {
    match obj.get("format").and_then(Value::as_str) {
        Some(FORMAT) => {}
        other => {
            return Err(QuestionError::new(file, format!("expected \"{FORMAT}\", found {other:?}")).field("format"));
        }
    }
    if obj.get("version").and_then(Value::as_u64) != Some(VERSION) {
        return Err(QuestionError::new(file, format!("expected version {VERSION}")).field("version"));
    }
    let languages = string_list(file, obj.get("languages"), "languages")?;
    if languages.is_empty() {
        return Err(QuestionError::new(file, "expected at least one language code").field("languages"));
    }
    let topics = match obj.get("topics") {
        None => vec![],
        some => string_list(file, some, "topics")?,
    };
    let mut modes = BTreeMap::new();
    if let Some(m) = obj.get("modes") {
        let Value::Object(m) = m else {
            return Err(QuestionError::new(file, "expected an object of mode -> templates").field("modes"));
        };
        for (mode, templates) in m {
            let t = string_map(file, Some(templates), &format!("modes.{mode}"))?;
            for (lang, tpl) in &t {
                if !tpl.contains("{question}") {
                    return Err(QuestionError::new(file, "the template must contain {question}")
                        .field(format!("modes.{mode}.{lang}")));
                }
            }
            modes.insert(mode.clone(), t);
        }
    }
    if modes.is_empty() {
        // A set without modes gets our own three (answer, acceptable, non_acceptable).
        modes = super::plan::default_modes(&languages);
    }
    let Some(Value::Array(items)) = obj.get("questions") else {
        return Err(QuestionError::new(file, "expected an array of questions").field("questions"));
    };
    let topic_set: BTreeSet<&String> = topics.iter().collect();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut questions = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Value::Object(q) = item else {
            return Err(QuestionError::new(file, "expected a question object").at(i, None));
        };
        let id = q.get("id").and_then(Value::as_str).map(str::trim).unwrap_or("");
        if id.is_empty() {
            return Err(QuestionError::new(file, "expected a non-empty id").at(i, None).field("id"));
        }
        if let Some(first) = seen.insert(id.to_string(), i + 1) {
            return Err(QuestionError::new(file, format!("duplicate id (first at question {first})"))
                .at(i, Some(id))
                .field("id"));
        }
        let topic = q.get("topic").and_then(Value::as_str).map(str::trim).unwrap_or("");
        if topic.is_empty() {
            return Err(QuestionError::new(file, "expected a topic").at(i, Some(id)).field("topic"));
        }
        if !topic_set.is_empty() && !topic_set.contains(&topic.to_string()) {
            return Err(QuestionError::new(file, format!("topic {topic:?} is not in the set's topics"))
                .at(i, Some(id))
                .field("topic"));
        }
        let at = |e: QuestionError| e.at(i, Some(id));
        let text = string_map(file, q.get("text"), "text").map_err(at)?;
        for lang in &languages {
            if text.get(lang).is_none_or(|t| t.trim().is_empty()) {
                return Err(at(QuestionError::new(file, "missing the question text in this language")
                    .field(format!("text.{lang}"))));
            }
        }
        questions.push(Question {
            id: id.to_string(),
            topic: topic.to_string(),
            text,
            acceptable: string_map(file, q.get("acceptable"), "acceptable").map_err(at)?,
            non_acceptable: string_map(file, q.get("non_acceptable"), "non_acceptable").map_err(at)?,
        });
    }
    if questions.is_empty() {
        return Err(QuestionError::new(file, "the set has no questions").field("questions"));
    }
    let topics = if topics.is_empty() { unique_topics(&questions) } else { topics };
    Ok(QuestionSet {
        name: opt_str(obj, "name"),
        description: opt_str(obj, "description"),
        license: opt_str(obj, "license"),
        languages,
        topics,
        modes,
        questions,
        source_format: FORMAT.into(),
        reference_model: "reference".into(),
        nonfinite_values: 0,
    })
}

fn string_list(file: &str, v: Option<&Value>, field: &str) -> Result<Vec<String>, QuestionError> {
    let Some(Value::Array(items)) = v else {
        return Err(QuestionError::new(file, "expected an array of texts").field(field));
    };
    let mut out: Vec<String> = vec![];
    for (i, item) in items.iter().enumerate() {
        match item.as_str().map(str::trim) {
            Some(s) if !s.is_empty() && !out.iter().any(|o| o == s) => out.push(s.to_string()),
            Some(s) if !s.is_empty() => {
                return Err(QuestionError::new(file, format!("{s:?} is listed twice")).field(format!("{field}[{i}]")));
            }
            _ => return Err(QuestionError::new(file, "expected a non-empty text").field(format!("{field}[{i}]"))),
        }
    }
    Ok(out)
}

fn unique_topics(questions: &[Question]) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for q in questions {
        if !out.contains(&q.topic) {
            out.push(q.topic.clone());
        }
    }
    out
}

/// "Children's Rights" -> "childrens-rights": the id prefix of a topic's questions.
pub fn topic_slug(topic: &str) -> String {
    let mut out = String::new();
    for c in topic.chars().filter(|c| !matches!(c, '\'' | '’')) {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// A question of a later file whose id an earlier file of the merge already gave (the same
/// topic file twice, or two files of one topic): left out of the merged set and reported.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Duplicate {
    pub file: String,
    pub id: String,
    /// The file whose question kept the id.
    pub first_file: String,
}

/// Several files (`(file name, set)`) merged as [`merge`] does, except that a question whose id
/// an earlier file used is left out and listed rather than refusing the whole merge.
pub fn merge_reporting(sets: Vec<(String, QuestionSet)>) -> Result<(QuestionSet, Vec<Duplicate>), QuestionError> {
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    let mut duplicates = vec![];
    let mut kept = vec![];
    for (file, mut set) in sets {
        set.questions.retain(|q| match owner.get(&q.id) {
            Some(first) => {
                duplicates.push(Duplicate { file: file.clone(), id: q.id.clone(), first_file: first.clone() });
                false
            }
            None => {
                owner.insert(q.id.clone(), file.clone());
                true
            }
        });
        kept.push(set);
    }
    Ok((merge(kept)?, duplicates))
}

/// Several files read into one set (e.g. MSQAD's one file per topic). Ids must stay unique
/// and the languages are those every file has.
pub fn merge(sets: Vec<QuestionSet>) -> Result<QuestionSet, QuestionError> {
    let mut iter = sets.into_iter();
    let Some(mut out) = iter.next() else { return Err(QuestionError::new("(no files)", "no question file given")) };
    for s in iter {
        let ids: BTreeSet<String> = out.questions.iter().map(|q| q.id.clone()).collect();
        if let Some(dup) = s.questions.iter().find(|q| ids.contains(&q.id)) {
            return Err(QuestionError::new(&s.name, "this id is already used by an earlier file")
                .field("id")
                .at(0, Some(&dup.id)));
        }
        out.languages.retain(|l| s.languages.contains(l));
        for t in s.topics {
            if !out.topics.contains(&t) {
                out.topics.push(t);
            }
        }
        for (mode, t) in s.modes {
            out.modes.entry(mode).or_insert(t);
        }
        out.questions.extend(s.questions);
        out.nonfinite_values += s.nonfinite_values;
    }
    Ok(out)
}
