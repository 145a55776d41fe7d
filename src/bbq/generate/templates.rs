//! Template rows: a BBQ-style template table read into [`TemplateRow`]s, its Python-literal and
//! list cells parsed up front so that a bad cell is reported once, at its row and column.

use std::collections::BTreeMap;

use serde::Serialize;

use super::GenerateError;
use super::table::{Column, cell, header_key, read_table};
use crate::bbq::pyliteral::{self, Py};
use crate::formats::Problem;

/// One row of a template table, its cells parsed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TemplateRow {
    pub file: String,
    /// The line where the row starts in `file`.
    pub line: u64,
    pub q_id: String,
    pub category: String,
    pub subcategory: String,
    pub language: String,
    pub ambiguous_context: String,
    pub disambiguating_context: String,
    pub question_negative: String,
    pub question_non_negative: String,
    /// Which person answers the negative question in the disambiguated context: text that
    /// names `{{NAME1}}` or `{{NAME2}}` ("The {{NAME1}}"), or literal text in a pre-filled row.
    pub answer_negative: String,
    pub answer_non_negative: String,
    pub stereotyped_groups: Vec<String>,
    /// Fillers for NAME1 and NAME2 given by the row itself (BBQ's `Names` column).
    pub names: Option<[Vec<String>; 2]>,
    /// NAME1_info / NAME2_info (or GG-BBQ's `name_info` dict).
    pub name_info: [String; 2],
    /// WORD1 / WORD2 choices from `Lexical_diversity`.
    pub words: [Vec<String>; 2],
    pub proper_names_only: bool,
    /// Field name → (1-based column, the file's header), to locate problems found later.
    pub columns: BTreeMap<String, (u64, String)>,
}

impl TemplateRow {
    /// A problem located at this row and, when known, the column of `field`.
    pub fn problem(&self, field: &str, message: impl Into<String>) -> Problem {
        let p = Problem::new(&self.file, message).at_line(self.line);
        match self.columns.get(field) {
            Some((column, header)) => {
                let label = if header_key(header) == header_key(field) {
                    field.to_string()
                } else {
                    format!("{field} (column \"{}\")", header.trim())
                };
                p.at_column(*column).in_field(label)
            }
            None => p.in_field(field),
        }
    }

    /// The text fields that may hold slots, with their field names.
    pub(super) fn texts(&self) -> [(&'static str, &str); 6] {
        [
            (F_AMBIG, &self.ambiguous_context),
            (F_DISAMBIG, &self.disambiguating_context),
            (F_Q_NEG, &self.question_negative),
            (F_Q_NONNEG, &self.question_non_negative),
            (F_A_NEG, &self.answer_negative),
            (F_A_NONNEG, &self.answer_non_negative),
        ]
    }
}

const F_QID: &str = "Q_id";
pub(super) const F_CATEGORY: &str = "Category";
pub(super) const F_SUBCATEGORY: &str = "Subcategory";
const F_LANGUAGE: &str = "language";
pub(super) const F_AMBIG: &str = "Ambiguous_Context";
pub(super) const F_DISAMBIG: &str = "Disambiguating_Context";
const F_NAMES: &str = "Names";
const F_NAME_INFO: &str = "name_info";
const F_LEXICAL: &str = "Lexical_diversity";
pub(super) const F_PROPER: &str = "Proper_nouns_only";
pub(super) const F_Q_NEG: &str = "Question_negative_stereotype";
pub(super) const F_Q_NONNEG: &str = "Question_non_negative";
pub(super) const F_A_NEG: &str = "Answer_negative";
pub(super) const F_A_NONNEG: &str = "Answer_non_negative";
const F_STEREOTYPED: &str = "Known_stereotyped_groups";
const F_NAME1_INFO: &str = "NAME1_info";
const F_NAME2_INFO: &str = "NAME2_info";

/// The template columns: BBQ's names first, then GG-BBQ's and other spellings.
const TEMPLATE_COLUMNS: &[(Column, bool)] = &[
    (Column { field: F_QID, aliases: &["q_id", "question_index", "template_id", "id"] }, false),
    (Column { field: F_CATEGORY, aliases: &["category"] }, true),
    (Column { field: F_SUBCATEGORY, aliases: &["subcategory", "subcat"] }, false),
    (Column { field: F_LANGUAGE, aliases: &["language", "lang"] }, false),
    (Column { field: F_AMBIG, aliases: &["ambiguous_context", "context_ambiguous", "ambiguous"] }, true),
    (
        Column {
            field: F_DISAMBIG,
            aliases: &[
                "disambiguating_context",
                "disambiguous_context",
                "disambiguated_context",
                "context_disambiguating",
            ],
        },
        true,
    ),
    (Column { field: F_NAMES, aliases: &["names"] }, false),
    (Column { field: F_NAME_INFO, aliases: &["name_info"] }, false),
    (Column { field: F_LEXICAL, aliases: &["lexical_diversity"] }, false),
    (Column { field: F_PROPER, aliases: &["proper_nouns_only", "proper_names_only"] }, false),
    (Column { field: F_Q_NEG, aliases: &["question_negative_stereotype", "question_negative"] }, true),
    (Column { field: F_Q_NONNEG, aliases: &["question_non_negative", "question_nonnegative"] }, true),
    (Column { field: F_A_NEG, aliases: &["answer_negative", "correct_answer_negative"] }, true),
    (Column { field: F_A_NONNEG, aliases: &["answer_non_negative", "correct_answer_non_negative"] }, true),
    (Column { field: F_STEREOTYPED, aliases: &["known_stereotyped_groups", "stereotyped_groups"] }, true),
    (Column { field: F_NAME1_INFO, aliases: &["name1_info"] }, false),
    (Column { field: F_NAME2_INFO, aliases: &["name2_info"] }, false),
];

/// Reads a BBQ-style template table (CSV; header names matched case-insensitively and trimmed,
/// so GG-BBQ's "ambiguous_context " header works; BBQ's column names and ours). `language` is
/// used for rows without a `language` cell. Rows with an empty ambiguous context are skipped,
/// as BBQ does; rows that cannot be read are returned as problems.
pub fn read_templates(
    name: &str,
    text: &str,
    language: &str,
) -> Result<(Vec<TemplateRow>, Vec<Problem>), GenerateError> {
    let (table, mut problems) = read_table(name, text)?;
    let mut index: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (column, required) in TEMPLATE_COLUMNS {
        let found = if *required { Some(table.require(column)?) } else { table.find(column) };
        if let Some(i) = found {
            index.insert(column.field, i);
        }
    }
    let columns: BTreeMap<String, (u64, String)> = index
        .iter()
        .map(|(field, &i)| {
            let header = table.headers.get(i).cloned().unwrap_or_default();
            (field.to_string(), (i as u64 + 1, header))
        })
        .collect();

    let mut rows = Vec::new();
    for (line, cells) in &table.rows {
        let line = *line;
        let get = |field: &str| cell(cells, index.get(field).copied());
        if get(F_AMBIG).is_empty() {
            continue;
        }
        let mut row_problems = Vec::new();
        let mut bad = |field: &str, message: String| {
            let i = index.get(field).copied().unwrap_or(0);
            row_problems.push(table.problem(line, field, i, message));
        };
        for field in [F_CATEGORY, F_DISAMBIG, F_Q_NEG, F_Q_NONNEG, F_A_NEG, F_A_NONNEG] {
            if get(field).is_empty() {
                bad(field, "expected text, found an empty cell".into());
            }
        }
        let names = match get(F_NAMES) {
            "" => None,
            text => match slot_lists(text, "NAME") {
                Ok([a, b]) if !a.is_empty() && !b.is_empty() => Some([a, b]),
                Ok(_) => {
                    bad(
                        F_NAMES,
                        format!(
                            "expected fillers for both NAME1 and NAME2, as in \"NAME1: [woman]; NAME2: [man]\", found {text:?}"
                        ),
                    );
                    None
                }
                Err(e) => {
                    bad(F_NAMES, e);
                    None
                }
            },
        };
        let words = match slot_lists(get(F_LEXICAL), "WORD") {
            Ok(words) => words,
            Err(e) => {
                bad(F_LEXICAL, e);
                [vec![], vec![]]
            }
        };
        let mut name_info = [get(F_NAME1_INFO).to_string(), get(F_NAME2_INFO).to_string()];
        if name_info.iter().all(String::is_empty) && !get(F_NAME_INFO).is_empty() {
            match info_dict(get(F_NAME_INFO)) {
                Ok(info) => name_info = info,
                Err(e) => bad(F_NAME_INFO, e),
            }
        }
        if !row_problems.is_empty() {
            problems.extend(row_problems);
            continue;
        }
        let row_language = match get(F_LANGUAGE) {
            "" => language.trim().to_string(),
            l => l.to_string(),
        };
        rows.push(TemplateRow {
            file: name.into(),
            line,
            q_id: match get(F_QID) {
                "" => format!("line{line}"),
                q => q.to_string(),
            },
            category: get(F_CATEGORY).into(),
            subcategory: get(F_SUBCATEGORY).into(),
            language: row_language,
            ambiguous_context: get(F_AMBIG).into(),
            disambiguating_context: get(F_DISAMBIG).into(),
            question_negative: get(F_Q_NEG).into(),
            question_non_negative: get(F_Q_NONNEG).into(),
            answer_negative: get(F_A_NEG).into(),
            answer_non_negative: get(F_A_NONNEG).into(),
            stereotyped_groups: group_list(get(F_STEREOTYPED)),
            names,
            name_info,
            words,
            proper_names_only: truthy(get(F_PROPER)),
            columns: columns.clone(),
        });
    }
    Ok((rows, problems))
}

fn truthy(text: &str) -> bool {
    matches!(text.trim().to_lowercase().as_str(), "true" | "yes" | "1" | "x" | "y")
}

/// Known_stereotyped_groups, read liberally: `["F"]`, `[\"F\"]`, `['old']`, `F, M` or `F`.
fn group_list(text: &str) -> Vec<String> {
    if let Ok(list) = serde_json::from_str::<Vec<String>>(text) {
        return list.into_iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
    }
    let inner = text.trim().trim_start_matches('[').trim_end_matches(']');
    inner
        .split(',')
        .map(|s| s.trim().trim_matches(|c: char| c == '"' || c == '\'' || c == '\\' || c.is_whitespace()))
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

/// Reads the `Names` or `Lexical_diversity` cell into the lists for slot 1 and slot 2.
/// BBQ writes `WORD1: [a, b]; WORD2: [c]` (sometimes `{{WORD1}}: [...]`); GG-BBQ writes a
/// Python dict `{'WORD1': ['a', 'b']}`. `kind` is "NAME" or "WORD".
fn slot_lists(text: &str, kind: &str) -> Result<[Vec<String>; 2], String> {
    let mut lists: [Vec<String>; 2] = [vec![], vec![]];
    let text = text.trim();
    if text.is_empty() {
        return Ok(lists);
    }
    let slot_of = |key: &str| -> Result<usize, String> {
        let key = key.trim().trim_start_matches("{{").trim_end_matches("}}").trim().to_uppercase();
        match key.strip_prefix(kind) {
            Some("1") => Ok(0),
            Some("2") => Ok(1),
            _ => Err(format!("expected the keys {kind}1 and {kind}2, found {key:?}")),
        }
    };
    if text.starts_with('{') && !text.starts_with("{{") {
        let parsed = pyliteral::parse(text).map_err(|e| format!("Python dict {e}"))?;
        let Py::Dict(pairs) = parsed else {
            return Err(format!("expected a dict such as {{'{kind}1': ['a', 'b']}}"));
        };
        for (key, value) in pairs {
            let Py::Str(key) = key else {
                return Err(format!("expected text keys such as '{kind}1'"));
            };
            let slot = slot_of(&key)?;
            lists[slot] = match value {
                Py::Str(s) => vec![s.trim().to_string()],
                Py::List(items) => items
                    .into_iter()
                    .filter_map(|i| match i {
                        Py::Str(s) => Some(s.trim().to_string()),
                        _ => None,
                    })
                    .filter(|s| !s.is_empty())
                    .collect(),
                _ => return Err(format!("expected a list of words for {key}")),
            };
        }
        return Ok(lists);
    }
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        // The key ends at the first ':' after any "{{...}}".
        let after_braces = part.find("}}").map(|i| i + 2).unwrap_or(0);
        let Some(colon) = part[after_braces..].find(':').map(|i| i + after_braces) else {
            return Err(format!("expected \"{kind}1: [a, b]\", found {part:?}"));
        };
        let slot = slot_of(&part[..colon])?;
        let values = part[colon + 1..].trim().trim_start_matches('[').trim_end_matches(']');
        lists[slot] = values
            .split(',')
            .map(|v| v.trim().trim_matches(|c| c == '\'' || c == '"').trim().to_string())
            .filter(|v| !v.is_empty())
            .collect();
    }
    Ok(lists)
}

/// GG-BBQ's `name_info`: `{'NAME1': 'M', 'NAME2': 'F'}`.
fn info_dict(text: &str) -> Result<[String; 2], String> {
    let parsed = pyliteral::parse(text).map_err(|e| format!("Python dict {e}"))?;
    let Py::Dict(pairs) = parsed else {
        return Err("expected a dict such as {'NAME1': 'M', 'NAME2': 'F'}".into());
    };
    let mut info = [String::new(), String::new()];
    for (key, value) in pairs {
        match (key, value) {
            (Py::Str(k), Py::Str(v)) if k.trim().eq_ignore_ascii_case("NAME1") => info[0] = v.trim().into(),
            (Py::Str(k), Py::Str(v)) if k.trim().eq_ignore_ascii_case("NAME2") => info[1] = v.trim().into(),
            _ => return Err("expected entries like 'NAME1': 'M'".into()),
        }
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bbq::generate::vocabulary::parse_forms;

    #[test]
    fn cells_are_read_liberally() {
        assert_eq!(group_list(r#"["F"]"#), ["F"]);
        assert_eq!(group_list(r#"[\"F\", \"M\"]"#), ["F", "M"]);
        assert_eq!(group_list("['old']"), ["old"]);
        assert_eq!(group_list("Transgender women, trans"), ["Transgender women", "trans"]);
        assert_eq!(slot_lists("WORD1: [a, b]; WORD2: [c]", "WORD").unwrap(), [vec!["a", "b"], vec!["c"]]);
        assert_eq!(slot_lists("{{WORD1}}: [bar, club]", "WORD").unwrap()[0], ["bar", "club"]);
        assert_eq!(slot_lists("{'WORD1': ['x y', 'z']}", "WORD").unwrap()[0], ["x y", "z"]);
        assert_eq!(
            slot_lists("{{NAME1}}: [trans man]; {{NAME2}}: [cis man]", "NAME").unwrap(),
            [vec!["trans man"], vec!["cis man"]]
        );
        assert!(slot_lists("WORD3: [a]", "WORD").is_err());
        assert!(slot_lists("just words", "NAME").is_err());
        assert_eq!(info_dict("{'NAME1': 'M', 'NAME2': 'F'}").unwrap(), ["M".to_string(), "F".to_string()]);
        assert!(parse_forms("def=the man; bad").is_err());
    }
}
