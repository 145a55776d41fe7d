//! Our own dataset (datasets/bbq), read through [`crate::builtin`].

use serde::Serialize;

use super::table::same_language;
use super::{
    GenerateError, GenerateOptions, ProperNames, TemplateRow, Vocabulary, generate, read_proper_names, read_templates,
    read_unknown_strings, read_vocabulary,
};
use crate::bbq::example::Example;
use crate::formats::Problem;

/// A built-in file's name in messages and its text.
fn file(name: &str) -> Result<(String, &'static str), GenerateError> {
    Ok((format!("datasets/bbq/{name}"), crate::builtin::text(&format!("bbq/{name}"))?))
}

/// The languages of the built-in set, in the order they are generated.
pub const BUILTIN_LANGUAGES: &[&str] = &["en", "de", "es", "fr"];

/// How many proper names the built-in set draws per template (and partners per name).
const BUILTIN_NAMES_PER_TEMPLATE: usize = 3;

/// Template rows, vocabularies and unknown strings for one language.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TemplateSet {
    pub language: String,
    pub templates: Vec<TemplateRow>,
    pub vocabulary: Vocabulary,
    pub names: Option<ProperNames>,
    pub unknown_strings: Vec<String>,
}

impl TemplateSet {
    pub fn options(&self, seed: u64) -> GenerateOptions {
        GenerateOptions {
            seed,
            language: self.language.clone(),
            unknown_strings: self.unknown_strings.clone(),
            names_per_template: BUILTIN_NAMES_PER_TEMPLATE,
            both_orders: true,
        }
    }

    pub fn generate(&self, seed: u64) -> (Vec<Example>, Vec<Problem>) {
        generate(&self.templates, &self.vocabulary, self.names.as_ref(), &self.options(seed))
    }
}

/// Evenhand's own BBQ-style set (datasets/bbq), one [`TemplateSet`] per language.
pub fn builtin() -> Result<Vec<TemplateSet>, GenerateError> {
    let first_problem = |problems: &[Problem]| problems.first().cloned().map(GenerateError::Bundled);
    let (templates, vocabulary, names, unknown) =
        (file("templates.csv")?, file("vocabulary.csv")?, file("proper_names.csv")?, file("unknown.csv")?);
    let (rows, problems) = read_templates(&templates.0, templates.1, "")?;
    if let Some(e) = first_problem(&problems) {
        return Err(e);
    }
    let vocabulary = read_vocabulary(&vocabulary.0, vocabulary.1)?;
    if let Some(e) = first_problem(&vocabulary.problems) {
        return Err(e);
    }
    let names = read_proper_names(&names.0, names.1)?;
    if let Some(e) = first_problem(&names.problems) {
        return Err(e);
    }
    let unknown = read_unknown_strings(&unknown.0, unknown.1)?;
    Ok(BUILTIN_LANGUAGES
        .iter()
        .map(|&language| TemplateSet {
            language: language.to_string(),
            templates: rows.iter().filter(|r| same_language(&r.language, language)).cloned().collect(),
            vocabulary: vocabulary.for_language(language),
            names: Some(names.for_language(language)),
            unknown_strings: unknown.get(language).cloned().unwrap_or_default(),
        })
        .collect())
}

/// The built-in examples for `languages` ("de", "es_ES", ...; empty means all), generated
/// with `seed`. Fails if the set's files are not there (a page build whose worker has not
/// handed them over) or do not read.
pub fn builtin_examples(seed: u64, languages: &[&str]) -> Result<Vec<Example>, GenerateError> {
    Ok(builtin()?
        .iter()
        .filter(|s| languages.is_empty() || languages.iter().any(|l| same_language(l, &s.language)))
        .flat_map(|s| s.generate(seed).0)
        .collect())
}
