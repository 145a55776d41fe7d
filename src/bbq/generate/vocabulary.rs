//! What fills the person slots: group-term vocabularies, proper-name lists, and the "unknown"
//! answer strings, each read from its own table.

use std::collections::BTreeMap;

use serde::Serialize;

use super::GenerateError;
use super::table::{Column, cell, language_code, read_table, same_language};
use crate::formats::Problem;

/// One group term, e.g. Gender_identity / adult / "woman" / info "F".
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VocabEntry {
    pub line: u64,
    pub category: String,
    pub subcategory: String,
    pub name: String,
    /// The group code ("F", "old", "lowSES"); empty in BBQ's gender rows, where the word
    /// itself is the group.
    pub info: String,
    /// Empty for language-neutral rows (BBQ's file has no language column).
    pub language: String,
    /// Named forms such as `def` ("la mujer") and `g` (grammatical gender "f").
    pub forms: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Vocabulary {
    pub file: String,
    pub entries: Vec<VocabEntry>,
    /// Rows that were not loaded, each with where and why.
    pub problems: Vec<Problem>,
}

impl Vocabulary {
    /// The entries usable in `language` (its own rows and the language-neutral ones).
    pub fn for_language(&self, language: &str) -> Vocabulary {
        Vocabulary {
            file: self.file.clone(),
            entries: self
                .entries
                .iter()
                .filter(|e| e.language.is_empty() || same_language(&e.language, language))
                .cloned()
                .collect(),
            problems: self.problems.clone(),
        }
    }
}

const V_CATEGORY: Column = Column { field: "Category", aliases: &["category"] };
const V_PILOT: Column = Column { field: "Pilot_include", aliases: &["pilot_include"] };
const V_SUBCAT: Column = Column { field: "SubCat", aliases: &["subcat", "subcategory"] };
const V_NAME: Column = Column { field: "Name", aliases: &["name", "term", "word"] };
const V_INFO: Column = Column { field: "Info", aliases: &["info", "group"] };
const V_LANGUAGE: Column = Column { field: "Language", aliases: &["language", "lang"] };
const V_FORMS: Column = Column { field: "Forms", aliases: &["forms"] };

/// Reads a vocabulary in BBQ's vocabulary.csv shape: Category, Pilot_include, SubCat, Name,
/// Info, Source (extra columns ignored; a Language column and a Forms column allowed).
/// Rows with Pilot_include = "No" are left out, as BBQ does.
pub fn read_vocabulary(name: &str, text: &str) -> Result<Vocabulary, GenerateError> {
    let (table, mut problems) = read_table(name, text)?;
    let category = table.require(&V_CATEGORY)?;
    let term = table.require(&V_NAME)?;
    let (pilot, subcat, info, language, forms) = (
        table.find(&V_PILOT),
        table.find(&V_SUBCAT),
        table.find(&V_INFO),
        table.find(&V_LANGUAGE),
        table.find(&V_FORMS),
    );
    let mut entries = Vec::new();
    for (line, cells) in &table.rows {
        if cell(cells, pilot).eq_ignore_ascii_case("no") {
            continue;
        }
        let (cat, word) = (cell(cells, Some(category)), cell(cells, Some(term)));
        if cat.is_empty() || word.is_empty() {
            let (field, i) = if cat.is_empty() { ("Category", category) } else { ("Name", term) };
            problems.push(table.problem(*line, field, i, "expected text, found an empty cell"));
            continue;
        }
        let parsed_forms = match forms.map(|i| parse_forms(cell(cells, Some(i)))) {
            None => BTreeMap::new(),
            Some(Ok(f)) => f,
            Some(Err(e)) => {
                problems.push(table.problem(*line, "Forms", forms.unwrap_or(0), e));
                continue;
            }
        };
        entries.push(VocabEntry {
            line: *line,
            category: cat.into(),
            subcategory: cell(cells, subcat).into(),
            name: word.into(),
            info: cell(cells, info).into(),
            language: cell(cells, language).into(),
            forms: parsed_forms,
        });
    }
    Ok(Vocabulary { file: name.into(), entries, problems })
}

/// `def=die Frau; def_dat=der Frau; g=f` → {def: "die Frau", def_dat: "der Frau", g: "f"}.
pub(super) fn parse_forms(text: &str) -> Result<BTreeMap<String, String>, String> {
    let mut forms = BTreeMap::new();
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((key, value)) = part.split_once('=') else {
            return Err(format!("expected forms written as \"def=the woman; indef=a woman\", found {part:?}"));
        };
        let key = key.trim().to_lowercase();
        if key.is_empty() || key.contains(|c: char| c.is_whitespace() || c == '|' || c == '.') {
            return Err(format!("a form name must be one word without '.' or '|', found {key:?}"));
        }
        forms.insert(key, value.trim().to_string());
    }
    Ok(forms)
}

/// One proper name, e.g. "Emily", first name only, gender "F".
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProperName {
    pub line: u64,
    pub name: String,
    /// "first_only", "first" or "last", as in BBQ's file.
    pub first_last: String,
    pub gender: String,
    pub ethnicity: String,
    pub info: String,
    pub language: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ProperNames {
    pub file: String,
    pub names: Vec<ProperName>,
    pub problems: Vec<Problem>,
}

impl ProperNames {
    pub fn for_language(&self, language: &str) -> ProperNames {
        ProperNames {
            file: self.file.clone(),
            names: self
                .names
                .iter()
                .filter(|n| n.language.is_empty() || same_language(&n.language, language))
                .cloned()
                .collect(),
            problems: self.problems.clone(),
        }
    }
}

const P_NAME: Column = Column { field: "Name", aliases: &["name"] };
const P_FIRST_LAST: Column = Column { field: "First_last", aliases: &["first_last"] };
const P_GENDER: Column = Column { field: "gender", aliases: &["gender"] };
const P_ETHNICITY: Column = Column { field: "ethnicity", aliases: &["ethnicity"] };
const P_INFO: Column = Column { field: "info", aliases: &["info"] };

/// Reads a proper-names list in BBQ's vocabulary_proper_names.csv shape: Name, First_last,
/// gender, ethnicity, source, info (extra columns ignored; a Language column allowed).
pub fn read_proper_names(name: &str, text: &str) -> Result<ProperNames, GenerateError> {
    let (table, mut problems) = read_table(name, text)?;
    let column = table.require(&P_NAME)?;
    let (first_last, gender, ethnicity, info, language) = (
        table.find(&P_FIRST_LAST),
        table.find(&P_GENDER),
        table.find(&P_ETHNICITY),
        table.find(&P_INFO),
        table.find(&V_LANGUAGE),
    );
    let mut names = Vec::new();
    for (line, cells) in &table.rows {
        let value = cell(cells, Some(column));
        if value.is_empty() {
            problems.push(table.problem(*line, "Name", column, "expected a name, found an empty cell"));
            continue;
        }
        names.push(ProperName {
            line: *line,
            name: value.into(),
            first_last: cell(cells, first_last).into(),
            gender: cell(cells, gender).into(),
            ethnicity: cell(cells, ethnicity).into(),
            info: cell(cells, info).into(),
            language: cell(cells, language).into(),
        });
    }
    Ok(ProperNames { file: name.into(), names, problems })
}

/// Reads the "unknown" answer strings: columns `language` and `text`, several per language.
pub fn read_unknown_strings(name: &str, text: &str) -> Result<BTreeMap<String, Vec<String>>, GenerateError> {
    let (table, problems) = read_table(name, text)?;
    if let Some(p) = problems.into_iter().next() {
        return Err(GenerateError::Csv { file: name.into(), line: p.line.unwrap_or(1), message: p.message });
    }
    let language = table.require(&V_LANGUAGE)?;
    let value = table.require(&Column { field: "text", aliases: &["text", "unknown"] })?;
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (_, cells) in &table.rows {
        let (l, t) = (cell(cells, Some(language)), cell(cells, Some(value)));
        if !l.is_empty() && !t.is_empty() {
            out.entry(language_code(l)).or_default().push(t.to_string());
        }
    }
    Ok(out)
}
