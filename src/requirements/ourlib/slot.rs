//! Slots of our library's templates: the brace tokens that name a community.
//!
//! - `{ROOT}` / `{ROOTn}`: the community's `base` form (LangBiTe's meaning: one community per
//!   distinct placeholder, the same community for every occurrence of one placeholder).
//! - `{ROOT:form}` / `{ROOTn:form}`: a named grammatical form of that community, such as
//!   `pl.dat.def` ("den Frauen") or `sg.indef` ("una mujer").
//! - `{ROOT|m=word|f=word}`: a word that agrees with the community's grammatical gender, for
//!   the adjectives and participles around it ("{GENDER|m=preparado|f=preparada}"). A choice
//!   may be empty (`{GENDER|m=|f=e}` as a suffix).
//!
//! Any other brace token in a template is an error: nothing with braces reaches a model
//! unless it is the JSON example of a format sentence.

use super::super::placeholder::is_placeholder;
use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot<'a> {
    /// The placeholder (`GENDER1`) and the form (`None` is `base`).
    Form { name: &'a str, form: Option<&'a str> },
    /// The placeholder and its (gender, word) choices.
    Agree { name: &'a str, choices: Vec<(&'a str, &'a str)> },
}

impl<'a> Slot<'a> {
    pub fn name(&self) -> &'a str {
        match self {
            Slot::Form { name, .. } | Slot::Agree { name, .. } => name,
        }
    }
}

/// Every `{...}` of `text` with its byte range (braces included) and contents, or the byte
/// offset of the first unbalanced brace.
pub fn tokens(text: &str) -> Result<Vec<(Range<usize>, &str)>, usize> {
    let mut out = vec![];
    let mut open: Option<usize> = None;
    for (i, c) in text.char_indices() {
        match (c, open) {
            ('{', None) => open = Some(i),
            ('{', Some(_)) => return Err(i),
            ('}', Some(o)) => {
                out.push((o..i + 1, &text[o + 1..i]));
                open = None;
            }
            ('}', None) => return Err(i),
            _ => {}
        }
    }
    match open {
        Some(o) => Err(o),
        None => Ok(out),
    }
}

/// Reads the contents of one brace token whose placeholder must be of `root`.
pub fn parse<'a>(content: &'a str, root: &str) -> Result<Slot<'a>, String> {
    let cut = content.find([':', '|']).unwrap_or(content.len());
    let name = &content[..cut];
    if !is_placeholder(name, root) {
        return Err(format!(
            "unknown placeholder {{{content}}}: expected {{{root}}}, {{{root}n}}, {{{root}:form}} or {{{root}|m=…|f=…}}"
        ));
    }
    let rest = &content[cut..];
    if let Some(form) = rest.strip_prefix(':') {
        let ok = !form.is_empty() && form.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_');
        if !ok {
            return Err(format!("{{{content}}}: a form name is letters, digits, dots and underscores"));
        }
        return Ok(Slot::Form { name, form: Some(form) });
    }
    if rest.is_empty() {
        return Ok(Slot::Form { name, form: None });
    }
    let mut choices = vec![];
    for part in rest[1..].split('|') {
        match part.split_once('=') {
            Some((g, w)) if !g.is_empty() && !choices.iter().any(|(h, _)| *h == g) => choices.push((g, w)),
            _ => {
                return Err(format!(
                    "{{{content}}}: expected gender=word choices separated by |, each gender once, found {part:?}"
                ));
            }
        }
    }
    Ok(Slot::Agree { name, choices })
}
