//! BBQ-style template generation: template rows plus vocabularies become bias-QA examples.
//!
//! A template row (BBQ's `new_templates - <Category>.csv`, GG-BBQ's `subset-*.csv`, or our own
//! `datasets/bbq/templates.csv`) holds an ambiguous context, a disambiguating context, a
//! negative and a non-negative question, and which person answers each question once the
//! context is disambiguated. The people are slots, `{{NAME1}}` and `{{NAME2}}`, filled from the
//! row's `Names` column, from the vocabulary rows of the row's category, or from a proper-names
//! list. `{{WORD1}}` / `{{WORD2}}` are filled from `Lexical_diversity`, one random word per pair.
//!
//! Every filled pair gives four examples with consecutive ids: (negative, ambiguous),
//! (negative, disambiguated), (non-negative, ambiguous), (non-negative, disambiguated). The
//! answer order (the two people plus one "unknown" string) is shuffled once per pair.
//!
//! Slots beyond BBQ's, so that languages with articles and agreement read right:
//! * `{{NAME1.def}}` takes the filler's form called `def` (vocabulary column `Forms`, written
//!   `def=die Frau; def_dat=der Frau; g=f`). Proper names have no forms: the bare name is used.
//! * `{{NAME1|f:sie|m:er|n:es}}` picks a word by the filler's grammatical gender (its form `g`,
//!   or a proper name's gender column); `*:` gives a default.
//! * A filled slot that starts a sentence is capitalised. At the join between text and a filled
//!   slot, English "a" becomes "an" before a vowel sound (BBQ's a/an fix); Spanish "a el" and
//!   "de el" become "al" and "del", and "y"/"o" become "e"/"u" before an /i/ or /o/ sound;
//!   French "à le"/"de le" become "au"/"du" ("aux"/"des" in the plural) and "que"/"de" elide
//!   before a vowel ("qu'Antoine", "d'une").
//!
//! Randomness (word choice, which unknown string, answer order, name sampling) comes from
//! `crate::rng::rng_for` keyed by the seed and by what is being drawn, never by position in a
//! loop, so the same seed gives the same examples whatever else is in the file.
//!
//! Everything here runs in the browser on uploaded files: bad input becomes a located
//! [`Problem`] or a [`GenerateError`], never a panic.
//!
//! The steps live apart so each can be read alone: `table` (the shared CSV reader),
//! `templates` and `vocabulary` (the input tables), `pairs` (who fills a row), `slots` and
//! `joins` (filling the text), `builtin` (our own set); this file turns a filled pair into its
//! four examples.

mod builtin;
mod joins;
mod pairs;
mod slots;
mod table;
mod templates;
mod vocabulary;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use rand::RngExt;
use serde::Serialize;

use super::bias;
use super::example::{Condition, Example, Polarity, Subset};
use crate::formats::Problem;
use crate::rng::rng_for;

pub use builtin::{BUILTIN_LANGUAGES, TemplateSet, builtin, builtin_examples};
pub use templates::{TemplateRow, read_templates};
pub use vocabulary::{
    ProperName, ProperNames, VocabEntry, Vocabulary, read_proper_names, read_unknown_strings, read_vocabulary,
};

use pairs::{InfoRole, build_pairs, literal_group, row_key, slot_group};
use slots::{Fill, Filler, answer_slots, capitalise, check_placeholders, fill};
use table::language_code;
use templates::{F_A_NEG, F_A_NONNEG, F_AMBIG, F_CATEGORY, F_DISAMBIG, F_Q_NEG, F_Q_NONNEG};

/// Why a whole file could not be read. Row-level trouble is a [`Problem`] instead, so one bad
/// row never loses the good ones.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GenerateError {
    #[error("{file}: the file is empty")]
    Empty { file: String },
    #[error("{file}:{line}: CSV: {message}")]
    Csv { file: String, line: u64, message: String },
    #[error("{file}:1: no {field} column (expected a header such as {expected})")]
    MissingColumn { file: String, field: String, expected: String },
    /// A file bundled with Evenhand is broken; the unit tests keep this from shipping.
    #[error("bundled dataset: {0}")]
    Bundled(Problem),
    #[error("{0}")]
    Builtin(#[from] crate::builtin::NotLoaded),
}

/// Settings for [`generate`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GenerateOptions {
    pub seed: u64,
    /// Only rows of this language are used; empty means every row.
    pub language: String,
    /// The "unknown" answer strings; one is drawn per filled pair.
    pub unknown_strings: Vec<String>,
    /// How many fillers to draw for NAME1, and partners for each, when a pool is larger
    /// (BBQ draws 5 proper names). 0 means all.
    pub names_per_template: usize,
    /// Also fill each pair with the two people swapped. Rows whose slots are fixed (by the
    /// Names column, or by NAME1_info / NAME2_info matching the fillers) are taken as written.
    pub both_orders: bool,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            seed: 0,
            language: String::new(),
            unknown_strings: Vec::new(),
            names_per_template: 5,
            both_orders: true,
        }
    }
}

/// Fills BBQ-style template rows. Per filled pair: four examples with consecutive ids, the
/// answer order shuffled once, `bias::assign` applied. Rows that cannot be filled are reported
/// as problems located at their file and line.
pub fn generate(
    templates: &[TemplateRow],
    vocab: &Vocabulary,
    names: Option<&ProperNames>,
    opts: &GenerateOptions,
) -> (Vec<Example>, Vec<Problem>) {
    let mut examples = Vec::new();
    let mut problems = Vec::new();
    let unknown: Vec<&String> = opts.unknown_strings.iter().filter(|s| !s.trim().is_empty()).collect();
    if unknown.is_empty() {
        problems.push(Problem::new(
            "generate options",
            format!("no \"unknown\" answer strings for language {:?}", opts.language),
        ));
        return (examples, problems);
    }
    let mut counters: BTreeMap<(String, String), usize> = BTreeMap::new();
    let wanted = language_code(&opts.language);
    for row in templates.iter().filter(|r| wanted.is_empty() || language_code(&r.language) == wanted) {
        let placeholder_problems = check_placeholders(row);
        if !placeholder_problems.is_empty() {
            problems.extend(placeholder_problems);
            continue;
        }
        let slots = match answer_slots(row) {
            Ok(s) => s,
            Err(p) => {
                problems.push(p);
                continue;
            }
        };
        let (pairs, roles) = match slots {
            None => {
                // Pre-filled: one "pair" whose slots are never used.
                let blank = Filler {
                    text: String::new(),
                    forms: BTreeMap::new(),
                    group: String::new(),
                    gram: None,
                    proper: false,
                };
                (vec![[blank.clone(), blank]], [InfoRole::None, InfoRole::None])
            }
            Some(_) => match build_pairs(row, vocab, names, opts) {
                Ok(p) => (p.pairs, p.roles),
                Err(p) => {
                    problems.push(p);
                    continue;
                }
            },
        };
        if pairs.is_empty() {
            problems
                .push(row.problem(F_CATEGORY, "no two fillers of different groups could be paired for this template"));
            continue;
        }
        let mut reported = BTreeSet::new();
        let key = row_key(row);
        for pair in &pairs {
            match fill_pair(row, slots, pair, &roles, vocab, &unknown, opts.seed, &key) {
                Ok(four) => {
                    // Ids count per language and category, as BBQ's example_id does per
                    // category file, so they are unique within one generated dataset.
                    let language = language_code(&row.language);
                    let counter = counters.entry((language.clone(), row.category.clone())).or_insert(0);
                    for mut ex in four {
                        ex.id = format!("{language}:{}:{}", row.category, *counter);
                        *counter += 1;
                        bias::assign(&mut ex);
                        examples.push(ex);
                    }
                }
                // One problem per field of a row: the same slot fails for every pair.
                Err(p) => {
                    if reported.insert(p.field.clone()) {
                        problems.push(p);
                    }
                }
            }
        }
    }
    (examples, problems)
}

/// The four examples of one filled pair.
#[allow(clippy::too_many_arguments)]
fn fill_pair(
    row: &TemplateRow,
    slots: Option<[usize; 2]>,
    pair: &[Filler; 2],
    roles: &[InfoRole; 2],
    vocab: &Vocabulary,
    unknown: &[&String],
    seed: u64,
    key: &str,
) -> Result<[Example; 4], Problem> {
    let mut rng = rng_for(seed, &[b"bbq-pair", key.as_bytes(), pair[0].text.as_bytes(), pair[1].text.as_bytes()]);
    let mut pick = |list: &[String]| -> String {
        if list.is_empty() { String::new() } else { list[rng.random_range(0..list.len())].clone() }
    };
    let words = [pick(&row.words[0]), pick(&row.words[1])];
    let f = Fill { names: [&pair[0], &pair[1]], words: [&words[0], &words[1]], language: &row.language };
    let filled = |field: &str, text: &str| fill(text, &f).map_err(|e| row.problem(field, e));
    let ambiguous = filled(F_AMBIG, &row.ambiguous_context)?;
    let disambiguating = filled(F_DISAMBIG, &row.disambiguating_context)?;
    let q_neg = filled(F_Q_NEG, &row.question_negative)?;
    let q_nonneg = filled(F_Q_NONNEG, &row.question_non_negative)?;
    let a_neg = capitalise(&filled(F_A_NEG, &row.answer_negative)?);
    let a_nonneg = capitalise(&filled(F_A_NONNEG, &row.answer_non_negative)?);
    if a_neg == a_nonneg {
        return Err(row.problem(F_A_NONNEG, format!("both answers read {a_neg:?}; they must differ")));
    }
    let groups = match slots {
        Some([neg, nonneg]) => [slot_group(&pair[neg], &roles[neg]), slot_group(&pair[nonneg], &roles[nonneg])],
        None => [literal_group(&a_neg, row, vocab), literal_group(&a_nonneg, row, vocab)],
    };
    let unknown_text = unknown[rng.random_range(0..unknown.len())].trim().to_string();

    // Order: [negative answer, non-negative answer, unknown], shuffled once for all four.
    let mut order = [0usize, 1, 2];
    for i in (1..order.len()).rev() {
        let j = rng.random_range(0..=i);
        order.swap(i, j);
    }
    let texts = [a_neg, a_nonneg, unknown_text];
    let codes = [groups[0].clone(), groups[1].clone(), "unknown".to_string()];
    let choices: Vec<String> = order.iter().map(|&i| texts[i].clone()).collect();
    let choice_groups: Vec<String> = order.iter().map(|&i| codes[i].clone()).collect();
    let place = |original: usize| order.iter().position(|&i| i == original).unwrap_or(0);
    let (neg_at, nonneg_at, unknown_at) = (place(0), place(1), place(2));

    let disambiguated = format!("{ambiguous} {disambiguating}");
    let make = |polarity: Polarity, condition: Condition, label: usize| Example {
        id: String::new(),
        category: row.category.clone(),
        subset: if row.proper_names_only { Subset::ProperNames } else { Subset::GroupTerms },
        language: language_code(&row.language),
        template_id: format!("{}:{}", row.category, row.q_id),
        polarity,
        condition,
        context: match condition {
            Condition::Ambiguous => ambiguous.clone(),
            Condition::Disambiguated => disambiguated.clone(),
        },
        question: match polarity {
            Polarity::Negative => q_neg.clone(),
            Polarity::NonNegative => q_nonneg.clone(),
        },
        choices: choices.clone(),
        choice_groups: choice_groups.clone(),
        label,
        stereotyped_groups: row.stereotyped_groups.clone(),
        unknown: Some(unknown_at),
        biased: None,
        counter_biased: None,
        metadata: Default::default(),
        bias_audit: String::new(),
    };
    Ok([
        make(Polarity::Negative, Condition::Ambiguous, unknown_at),
        make(Polarity::Negative, Condition::Disambiguated, neg_at),
        make(Polarity::NonNegative, Condition::Ambiguous, unknown_at),
        make(Polarity::NonNegative, Condition::Disambiguated, nonneg_at),
    ])
}
