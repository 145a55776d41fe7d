//! MSQAD's released JSON: an array of objects (UTF-8 with a BOM, stripped by the caller's
//! decoder), one file per topic named after it, with `<Language>_question`,
//! `<Language>_acceptable_response` and `<Language>_non-acceptable_response` per language.
//! Question ids are `<topic-slug>-NN` by position in the file.

use super::questions::{Question, QuestionError, QuestionSet, topic_slug};
use serde_json::Value;
use std::collections::BTreeMap;

/// MSQAD's language names and our codes for them; French and Polish are accepted too, so a
/// file in MSQAD's shape extended to them reads.
pub const MSQAD_LANGUAGES: [(&str, &str); 8] = [
    ("English", "en"),
    ("Korean", "ko"),
    ("Chinese", "zh"),
    ("Spanish", "es"),
    ("German", "de"),
    ("Hindi", "hi"),
    ("French", "fr"),
    ("Polish", "pl"),
];

/// The topic of an MSQAD file: its name without folders and extension.
fn msqad_topic(file: &str) -> String {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    base.strip_suffix(".json").or_else(|| base.strip_suffix(".JSON")).unwrap_or(base).trim().to_string()
}

/// MSQAD's shape: an array whose first item is an object with a `<Language>_question` key.
pub fn looks_like(items: &[Value]) -> bool {
    items.first().and_then(Value::as_object).is_some_and(|o| o.keys().any(|k| k.ends_with("_question")))
}

pub fn read(file: &str, items: &[Value]) -> Result<QuestionSet, QuestionError> {
    let topic = msqad_topic(file);
    if topic.is_empty() {
        return Err(QuestionError::new(file, "MSQAD files name their topic in the file name, e.g. \"Torture.json\""));
    }
    let slug = topic_slug(&topic);
    let width = items.len().to_string().len().max(2);
    let mut languages: Vec<String> = vec![];
    let mut questions = vec![];
    for (i, item) in items.iter().enumerate() {
        let Value::Object(obj) = item else {
            return Err(QuestionError::new(file, "expected an MSQAD question object").at(i, None));
        };
        let id = format!("{slug}-{:0width$}", i + 1);
        let mut q = Question {
            id: id.clone(),
            topic: topic.clone(),
            text: BTreeMap::new(),
            acceptable: BTreeMap::new(),
            non_acceptable: BTreeMap::new(),
        };
        for (key, value) in obj {
            let Some(name) = key.strip_suffix("_question") else { continue };
            let Some(&(_, code)) = MSQAD_LANGUAGES.iter().find(|(n, _)| *n == name) else {
                return Err(QuestionError::new(file, format!("unknown language {name:?}; expected one of English, Korean, Chinese, Spanish, German, Hindi, French, Polish"))
                    .at(i, Some(&id))
                    .field(key.clone()));
            };
            let Some(text) = value.as_str().filter(|t| !t.trim().is_empty()) else {
                return Err(QuestionError::new(file, "expected a non-empty question text")
                    .at(i, Some(&id))
                    .field(key.clone()));
            };
            q.text.insert(code.into(), text.to_string());
            for (suffix, map) in
                [("acceptable_response", &mut q.acceptable), ("non-acceptable_response", &mut q.non_acceptable)]
            {
                let k = format!("{name}_{suffix}");
                match obj.get(&k) {
                    None | Some(Value::Null) => {}
                    Some(Value::String(s)) => {
                        map.insert(code.into(), s.clone());
                    }
                    Some(_) => {
                        return Err(QuestionError::new(file, "expected a text").at(i, Some(&id)).field(k));
                    }
                }
            }
        }
        if q.text.is_empty() {
            return Err(QuestionError::new(file, "no <Language>_question key (e.g. English_question) in this object")
                .at(i, Some(&id)));
        }
        if i == 0 {
            languages = MSQAD_LANGUAGES.iter().map(|(_, c)| c.to_string()).filter(|c| q.text.contains_key(c)).collect();
        } else if let Some(missing) = languages.iter().find(|l| !q.text.contains_key(*l)) {
            let name = MSQAD_LANGUAGES.iter().find(|(_, c)| c == missing).map_or("", |(n, _)| n);
            return Err(QuestionError::new(file, "missing here although the first question has it")
                .at(i, Some(&id))
                .field(format!("{name}_question")));
        }
        questions.push(q);
    }
    if questions.is_empty() {
        return Err(QuestionError::new(file, "the MSQAD array has no questions"));
    }
    let modes = super::plan::default_modes(&languages);
    Ok(QuestionSet {
        name: format!("MSQAD: {topic}"),
        description: "Imported from MSQAD's JSON; the prompt modes are Evenhand's own wordings.".into(),
        license: "see the source of the file (MSQAD publishes no license)".into(),
        languages,
        topics: vec![topic],
        modes,
        questions,
        source_format: "msqad".into(),
        reference_model: msqad_model(file),
        nonfinite_values: 0,
    })
}

/// MSQAD keeps one folder per model (`MSQAD/<model>/<Topic>.json`): the model when the path
/// has that shape, else "msqad".
fn msqad_model(file: &str) -> String {
    let parts: Vec<&str> = file.split(['/', '\\']).collect();
    match parts.len() {
        n if n >= 3 && parts[n - 3] == "MSQAD" && !parts[n - 2].is_empty() => parts[n - 2].to_string(),
        _ => "msqad".into(),
    }
}
