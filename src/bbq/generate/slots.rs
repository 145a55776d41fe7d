//! Slot filling: the `{{NAME1}}`-style placeholders of a template text are parsed, checked once
//! per row, and replaced by one pair's fillers.

use std::collections::{BTreeMap, BTreeSet};

use super::joins::join;
use super::templates::{F_A_NEG, F_A_NONNEG, TemplateRow};
use super::vocabulary::{ProperName, VocabEntry};
use crate::formats::Problem;

/// What fills one person slot.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Filler {
    pub(super) text: String,
    pub(super) forms: BTreeMap<String, String>,
    /// The group code used for `choice_groups` (before any slot label is applied).
    pub(super) group: String,
    /// Grammatical gender for `{{NAME1|f:..|m:..}}`.
    pub(super) gram: Option<String>,
    pub(super) proper: bool,
}

impl Filler {
    pub(super) fn from_entry(e: &VocabEntry) -> Filler {
        Filler {
            text: e.name.clone(),
            group: if e.info.is_empty() { e.name.clone() } else { e.info.clone() },
            gram: e.forms.get("g").map(|g| g.to_lowercase()),
            forms: e.forms.clone(),
            proper: false,
        }
    }

    pub(super) fn from_name(n: &ProperName) -> Filler {
        Filler {
            text: n.name.clone(),
            forms: BTreeMap::new(),
            group: if n.gender.is_empty() { n.name.clone() } else { n.gender.clone() },
            gram: (!n.gender.is_empty()).then(|| n.gender.to_lowercase()),
            proper: true,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Slot {
    Name { which: usize, form: Option<String>, agree: Vec<(String, String)> },
    Word(usize),
}

enum Piece<'a> {
    Text(&'a str),
    Slot(&'a str),
}

/// Splits text at `{{...}}` placeholders.
fn pieces(text: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        out.push(Piece::Text(&rest[..open]));
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            return Err(format!("a placeholder opened with {{{{ is never closed: {:?}", truncate(&rest[open..], 30)));
        };
        out.push(Piece::Slot(&after[..close]));
        rest = &after[close + 2..];
    }
    out.push(Piece::Text(rest));
    Ok(out)
}

fn truncate(text: &str, chars: usize) -> String {
    text.chars().take(chars).collect()
}

fn parse_slot(inner: &str) -> Result<Slot, String> {
    let inner = inner.trim();
    let cut = inner.find(['.', '|']).unwrap_or(inner.len());
    let (head, rest) = inner.split_at(cut);
    let unknown = || {
        format!(
            "unknown placeholder {{{{{inner}}}}}; expected NAME1, NAME2, WORD1 or WORD2, optionally NAME1.form or NAME1|f:..|m:.."
        )
    };
    let (is_name, which) = match head.trim().to_uppercase().as_str() {
        "NAME1" => (true, 0),
        "NAME2" => (true, 1),
        "WORD1" => (false, 0),
        "WORD2" => (false, 1),
        _ => return Err(unknown()),
    };
    if !is_name {
        return if rest.trim().is_empty() { Ok(Slot::Word(which)) } else { Err(unknown()) };
    }
    if rest.is_empty() {
        return Ok(Slot::Name { which, form: None, agree: vec![] });
    }
    if let Some(form) = rest.strip_prefix('.') {
        let form = form.trim().to_lowercase();
        if form.is_empty() || form.contains(|c: char| c.is_whitespace() || c == '|') {
            return Err(unknown());
        }
        return Ok(Slot::Name { which, form: Some(form), agree: vec![] });
    }
    let mut agree = Vec::new();
    for alternative in rest.trim_start_matches('|').split('|') {
        let Some((key, value)) = alternative.split_once(':') else {
            return Err(format!("in {{{{{inner}}}}} expected alternatives such as f:sie|m:er, found {alternative:?}"));
        };
        agree.push((key.trim().to_lowercase(), value.to_string()));
    }
    Ok(Slot::Name { which, form: None, agree })
}

/// The person slots named in a text (for the answers: which person an answer names).
fn named_slots(text: &str) -> BTreeSet<usize> {
    pieces(text)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| match p {
            Piece::Slot(inner) => match parse_slot(inner) {
                Ok(Slot::Name { which, .. }) => Some(which),
                _ => None,
            },
            Piece::Text(_) => None,
        })
        .collect()
}

/// What the slots of one pair are filled with.
pub(super) struct Fill<'a> {
    pub(super) names: [&'a Filler; 2],
    pub(super) words: [&'a str; 2],
    pub(super) language: &'a str,
}

pub(super) fn fill(text: &str, f: &Fill) -> Result<String, String> {
    let mut out = String::with_capacity(text.len() + 32);
    for piece in pieces(text)? {
        let inner = match piece {
            Piece::Text(t) => {
                out.push_str(t);
                continue;
            }
            Piece::Slot(inner) => inner,
        };
        let value = match parse_slot(inner)? {
            Slot::Word(i) => {
                if f.words[i].is_empty() {
                    return Err(format!(
                        "{{{{WORD{}}}}} is used but Lexical_diversity lists no WORD{} words",
                        i + 1,
                        i + 1
                    ));
                }
                f.words[i].to_string()
            }
            Slot::Name { which, form, agree } => {
                let filler = f.names[which];
                if !agree.is_empty() {
                    let gram = filler.gram.clone().unwrap_or_default();
                    agree
                        .iter()
                        .find(|(k, _)| *k == gram)
                        .or_else(|| agree.iter().find(|(k, _)| k == "*"))
                        .map(|(_, v)| v.clone())
                        .ok_or_else(|| {
                            format!(
                                "{{{{{}}}}} has no alternative for {:?}, whose grammatical gender is {:?} (give it a form g=..., or add a *: default)",
                                inner.trim(),
                                filler.text,
                                gram
                            )
                        })?
                } else if let Some(form) = form {
                    match filler.forms.get(&form) {
                        Some(v) => v.clone(),
                        // A proper name is its own definite and indefinite form.
                        None if filler.proper => filler.text.clone(),
                        None => {
                            return Err(format!(
                                "the filler {:?} has no form {form:?} for {{{{{}}}}} (add {form}=... to its Forms cell)",
                                filler.text,
                                inner.trim()
                            ));
                        }
                    }
                } else {
                    filler.text.clone()
                }
            }
        };
        let value = join(&mut out, &value, f.language);
        if starts_sentence(&out) {
            out.push_str(&capitalise(&value));
        } else {
            out.push_str(&value);
        }
    }
    Ok(tidy(&out))
}

/// Collapses runs of spaces (BBQ has a few "and  a") and trims.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.trim().chars() {
        if c == ' ' && out.ends_with(' ') {
            continue;
        }
        out.push(c);
    }
    out
}

pub(super) fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn starts_sentence(before: &str) -> bool {
    let t = before.trim_end();
    t.is_empty() || t.ends_with(['.', '!', '?', '¿', '¡'])
}

/// Checks every placeholder of a row once, so that a typo is reported once, not per pair.
pub(super) fn check_placeholders(row: &TemplateRow) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (field, text) in row.texts() {
        match pieces(text) {
            Err(e) => problems.push(row.problem(field, e)),
            Ok(list) => {
                for piece in list {
                    if let Piece::Slot(inner) = piece {
                        match parse_slot(inner) {
                            Err(e) => problems.push(row.problem(field, e)),
                            Ok(Slot::Word(i)) if row.words[i].is_empty() => problems.push(row.problem(
                                field,
                                format!(
                                    "{{{{WORD{}}}}} is used but Lexical_diversity lists no WORD{} words",
                                    i + 1,
                                    i + 1
                                ),
                            )),
                            Ok(_) => {}
                        }
                    }
                }
            }
        }
    }
    problems
}

/// Which slot each answer names: Some([neg, nonneg]) for a slotted row, None for a pre-filled
/// row (no person slot anywhere).
pub(super) fn answer_slots(row: &TemplateRow) -> Result<Option<[usize; 2]>, Problem> {
    let neg = named_slots(&row.answer_negative);
    let nonneg = named_slots(&row.answer_non_negative);
    if neg.is_empty() && nonneg.is_empty() && row.texts().iter().all(|(_, t)| named_slots(t).is_empty()) {
        return Ok(None);
    }
    let one = |set: &BTreeSet<usize>, field: &str| -> Result<usize, Problem> {
        match set.iter().copied().collect::<Vec<_>>()[..] {
            [slot] => Ok(slot),
            _ => Err(row.problem(field, "expected the answer to name exactly one person, {{NAME1}} or {{NAME2}}")),
        }
    };
    let (a, b) = (one(&neg, F_A_NEG)?, one(&nonneg, F_A_NONNEG)?);
    if a == b {
        return Err(row.problem(
            F_A_NONNEG,
            format!(
                "Answer_negative and Answer_non_negative both name {{{{NAME{}}}}}; they must name different people",
                a + 1
            ),
        ));
    }
    Ok(Some([a, b]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bbq::generate::joins::vowel_sound;

    #[test]
    fn slots_forms_agreement_and_joins() {
        let filler = |text: &str, forms: &[(&str, &str)], gram: Option<&str>| Filler {
            text: text.into(),
            forms: forms.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            group: "x".into(),
            gram: gram.map(String::from),
            proper: false,
        };
        let frau = filler("Frau", &[("def", "die Frau"), ("def_dat", "der Frau")], Some("f"));
        let kind = filler("Mädchen", &[("def", "das Mädchen")], Some("n"));
        let f = Fill { names: [&frau, &kind], words: ["Büro", ""], language: "de" };
        assert_eq!(
            fill("{{NAME1.def}} und {{NAME2.def}} im {{WORD1}}.", &f).unwrap(),
            "Die Frau und das Mädchen im Büro."
        );
        assert_eq!(
            fill("mit {{NAME1.def_dat}}, {{NAME1|f:die|m:der}} lachte", &f).unwrap(),
            "mit der Frau, die lachte"
        );
        assert_eq!(fill("{{NAME2|f:sie|*:es}}", &f).unwrap(), "Es");
        assert!(fill("{{NAME2|f:sie|m:er}}", &f).unwrap_err().contains("no alternative"));
        assert!(fill("{{NAME1.gen}}", &f).unwrap_err().contains("no form \"gen\""));
        assert!(fill("{{WORD2}}", &f).unwrap_err().contains("WORD2"));
        assert!(fill("{{NAME1", &f).unwrap_err().contains("never closed"));
        assert!(parse_slot("NAME3").unwrap_err().contains("unknown placeholder"));
        assert_eq!(parse_slot(" name1 ").unwrap(), Slot::Name { which: 0, form: None, agree: vec![] });
        // English a/an, as BBQ fixes it, at slot joins only.
        let (old, euro) = (filler("elderly man", &[], None), filler("European", &[], None));
        let en = Fill { names: [&old, &euro], words: ["", ""], language: "en" };
        assert_eq!(fill("A {{NAME1}} and a {{NAME2}}", &en).unwrap(), "An elderly man and a European");
        assert!(vowel_sound("8-year-old") && vowel_sound("80-year-old") && vowel_sound("18-year-old"));
        assert!(!vowel_sound("28-year-old") && !vowel_sound("university student") && !vowel_sound("one-off"));
        // Spanish and French article contractions.
        let el = filler("hombre", &[("def", "el hombre")], Some("m"));
        let es = Fill { names: [&el, &el], words: ["", ""], language: "es" };
        assert_eq!(
            fill("vio a {{NAME1.def}} y habló de {{NAME1.def}}", &es).unwrap(),
            "vio al hombre y habló del hombre"
        );
        let le = filler("garçon", &[("def", "le garçon")], Some("m"));
        let fr = Fill { names: [&le, &le], words: ["", ""], language: "fr" };
        assert_eq!(fill("parler à {{NAME1.def}} et de {{NAME1.def}}", &fr).unwrap(), "parler au garçon et du garçon");
        // Elision and the Spanish y/o changes, for names a user may add.
        let names = |a: &str, b: &str| [a, b].map(|n| Filler { proper: true, ..filler(n, &[], Some("m")) });
        let [antoine, une] = names("Antoine", "une amie");
        let fr = Fill { names: [&antoine, &une], words: ["", ""], language: "fr" };
        assert_eq!(
            fill("tandis que {{NAME1}} parlait de {{NAME2}}, de {{NAME2}}", &fr).unwrap(),
            "tandis qu'Antoine parlait d'une amie, d'une amie"
        );
        let [ines, oscar] = names("Inés", "Óscar");
        let es = Fill { names: [&ines, &oscar], words: ["", ""], language: "es" };
        assert_eq!(fill("Pablo y {{NAME1}}, Ana o {{NAME2}}", &es).unwrap(), "Pablo e Inés, Ana u Óscar");
        // A proper name stands in for any form.
        let emma = Filler { proper: true, gram: Some("f".into()), ..filler("Emma", &[], None) };
        let p = Fill { names: [&emma, &emma], words: ["", ""], language: "en" };
        assert_eq!(fill("¿{{NAME1.def}}, {{NAME1|f:she|m:he}}? {{NAME1|f:she|m:he}}", &p).unwrap(), "¿Emma, she? She");
    }
}
