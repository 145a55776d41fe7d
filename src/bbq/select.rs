//! Which examples of a loaded benchmark to keep, and the provider cases for those kept.
//!
//! The page's Datasets view opens a catalogue dataset with a selection (categories, languages,
//! ambiguous or disambiguated contexts, group terms or proper names), so that a part of a
//! large benchmark is what gets scored or sent to a provider, not all of it.

use super::example::{Condition, Example, Subset};
use crate::record::{FORMAT_VERSION, Record, Status};
use serde::{Deserialize, Serialize};

/// The method name the records of a bias-QA run carry.
pub const METHOD: &str = "bbq";

/// Empty lists and empty strings mean "all".
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Selection {
    pub categories: Vec<String>,
    pub languages: Vec<String>,
    /// "", "ambiguous" or "disambiguated".
    pub condition: String,
    /// "", "group_terms" or "proper_names".
    pub subset: String,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
pub enum SelectionError {
    #[error("selection: condition must be ambiguous or disambiguated (or empty for both), found {0:?}")]
    Condition(String),
    #[error("selection: subset must be group_terms or proper_names (or empty for both), found {0:?}")]
    Subset(String),
}

/// A checked [`Selection`]: the strings read once, so that a misspelling is an error, not a
/// filter that quietly keeps nothing.
#[derive(Debug, Clone)]
pub struct Filter<'a> {
    selection: &'a Selection,
    condition: Option<Condition>,
    subset: Option<Subset>,
}

impl Selection {
    pub fn filter(&self) -> Result<Filter<'_>, SelectionError> {
        let condition = match self.condition.as_str() {
            "" => None,
            "ambiguous" => Some(Condition::Ambiguous),
            "disambiguated" => Some(Condition::Disambiguated),
            other => return Err(SelectionError::Condition(other.into())),
        };
        let subset = match self.subset.as_str() {
            "" => None,
            "group_terms" => Some(Subset::GroupTerms),
            "proper_names" => Some(Subset::ProperNames),
            other => return Err(SelectionError::Subset(other.into())),
        };
        Ok(Filter { selection: self, condition, subset })
    }
}

impl Filter<'_> {
    pub fn keeps(&self, e: &Example) -> bool {
        let s = self.selection;
        // Categories compare without case: catalogue files say "Age", some sources "age".
        (s.categories.is_empty() || s.categories.iter().any(|c| c.eq_ignore_ascii_case(&e.category)))
            && (s.languages.is_empty() || s.languages.iter().any(|l| l.eq_ignore_ascii_case(&e.language)))
            && self.condition.is_none_or(|c| c == e.condition)
            && self.subset.is_none_or(|x| x == e.subset)
    }
}

/// One pending record per example, its prompt rendered with `variant` (None: the first variant
/// of the example's language; examples in a language without one are left out and counted).
/// The answers come back keyed by `case_id`, the example's id, and are scored as predictions.
pub fn provider_cases(examples: &[Example], variant: Option<&super::prompt::Variant>) -> (Vec<Record>, usize) {
    let mut out = Vec::with_capacity(examples.len());
    let skipped = each_provider_case(examples, variant, |r| out.push(r));
    (out, skipped)
}

/// [`provider_cases`] one record at a time, so a caller writing them out (the page's JSONL for
/// the full BBQ is 44 MB) never holds them all; returns how many were skipped.
pub fn each_provider_case(
    examples: &[Example],
    variant: Option<&super::prompt::Variant>,
    mut emit: impl FnMut(Record),
) -> usize {
    let mut skipped = 0;
    for ex in examples {
        let Some(v) = variant.or_else(|| super::prompt::variants_for(&ex.language).first().copied()) else {
            skipped += 1;
            continue;
        };
        let mut params = std::collections::BTreeMap::new();
        params.insert("variant".to_string(), serde_json::Value::String(v.id.clone()));
        emit(Record {
            format_version: FORMAT_VERSION,
            method: METHOD.into(),
            case_id: ex.id.clone(),
            template_id: ex.template_id.clone(),
            language: ex.language.clone(),
            concern: ex.category.clone(),
            prompt: super::prompt::render(ex, v),
            params,
            status: Status::Pending,
            choices: ex.choices.clone(),
            gold: u32::try_from(ex.label).ok(),
            ..Record::default()
        });
    }
    skipped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn examples() -> Vec<Example> {
        super::super::generate::builtin_examples(1, &["en", "de"]).unwrap()
    }

    #[test]
    fn an_empty_selection_keeps_everything() {
        let all = examples();
        let s = Selection::default();
        let f = s.filter().unwrap();
        assert_eq!(all.iter().filter(|e| f.keeps(e)).count(), all.len());
    }

    #[test]
    fn each_field_narrows_and_they_combine() {
        let all = examples();
        let s = Selection { languages: vec!["EN".into()], condition: "ambiguous".into(), ..Selection::default() };
        let f = s.filter().unwrap();
        let kept: Vec<&Example> = all.iter().filter(|e| f.keeps(e)).collect();
        assert!(!kept.is_empty() && kept.len() < all.len());
        assert!(kept.iter().all(|e| e.language == "en" && e.condition == Condition::Ambiguous));
        let expected = all.iter().filter(|e| e.language == "en" && e.condition == Condition::Ambiguous).count();
        assert_eq!(kept.len(), expected);
        let category = all[0].category.to_uppercase();
        let s = Selection { categories: vec![category], ..Selection::default() };
        let f = s.filter().unwrap();
        assert!(all.iter().filter(|e| f.keeps(e)).all(|e| e.category == all[0].category));
    }

    #[test]
    fn misspelt_values_are_errors() {
        let s = Selection { condition: "ambiguos".into(), ..Selection::default() };
        assert_eq!(s.filter().unwrap_err(), SelectionError::Condition("ambiguos".into()));
        let s = Selection { subset: "names".into(), ..Selection::default() };
        assert_eq!(s.filter().unwrap_err(), SelectionError::Subset("names".into()));
    }

    #[test]
    fn provider_cases_carry_the_example_id_prompt_and_variant() {
        let all = examples();
        let (cases, skipped) = provider_cases(&all, None);
        assert_eq!((cases.len(), skipped), (all.len(), 0));
        let (r, e) = (&cases[0], &all[0]);
        assert_eq!(r.case_id, e.id);
        assert_eq!(r.status, Status::Pending);
        assert_eq!(r.choices, e.choices);
        assert!(r.prompt.contains(&e.question), "{}", r.prompt);
        let first = super::super::prompt::variants_for(&e.language)[0];
        assert_eq!(r.params["variant"], serde_json::json!(first.id));
    }
}
