//! Turning a bias-QA example into the text a model is shown.
//!
//! The instruction wordings live in `datasets/bbq/instructions.json` (our own texts, CC0), so
//! they can be reviewed and extended without touching code. Each variant is a template with
//! `{context}`, `{question}` and `{options}` slots; the options are listed one per line with
//! letters A, B, C ... in the order of the example's `choices`, which is the order the answer
//! parser (`super::parse`) expects.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::Example;
use crate::text::primary_language;

/// The bundled catalogue, compiled into the binary so the browser build needs no extra fetch.
const CATALOGUE: &str = include_str!("../../datasets/bbq/instructions.json");

/// One way of asking the question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variant {
    /// Unique, e.g. "de-letter-only".
    pub id: String,
    /// Language code of the instruction text, e.g. "de".
    pub language: String,
    /// A short note on what the variant asks for, in its own language.
    #[serde(default)]
    pub description: String,
    /// True when the instruction says the model may answer that the text is not enough.
    #[serde(default)]
    pub allows_insufficient: bool,
    /// How one option is written, with `{letter}` and `{text}` slots, e.g. "{letter}. {text}".
    #[serde(default = "default_option_line")]
    pub option_line: String,
    /// The prompt, with `{context}`, `{question}` and `{options}` slots.
    pub template: String,
}

fn default_option_line() -> String {
    "{letter}. {text}".to_string()
}

#[derive(Deserialize)]
struct Catalogue {
    variants: Vec<Variant>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    #[error("no prompt variant is called {0:?}")]
    UnknownVariant(String),
    /// The bundled instructions file is broken; the unit tests keep this from shipping.
    #[error("the bundled prompt instructions are invalid: {0}")]
    Catalogue(String),
}

/// Parses and checks the bundled file once. Kept as a `Result` so that a broken file shows up
/// as an error to the caller instead of a panic in the browser.
fn catalogue() -> &'static Result<Vec<Variant>, PromptError> {
    static CATALOGUE_CELL: OnceLock<Result<Vec<Variant>, PromptError>> = OnceLock::new();
    CATALOGUE_CELL.get_or_init(|| load(CATALOGUE))
}

fn load(json: &str) -> Result<Vec<Variant>, PromptError> {
    let parsed: Catalogue = serde_json::from_str(json).map_err(|e| PromptError::Catalogue(e.to_string()))?;
    for (n, v) in parsed.variants.iter().enumerate() {
        if v.id.trim().is_empty() || v.language.trim().is_empty() {
            return Err(PromptError::Catalogue(format!("variant {n} has no id or language")));
        }
        if parsed.variants.iter().filter(|w| w.id == v.id).count() > 1 {
            return Err(PromptError::Catalogue(format!("variant id {:?} is used twice", v.id)));
        }
        for slot in ["{context}", "{question}", "{options}"] {
            if !v.template.contains(slot) {
                return Err(PromptError::Catalogue(format!("{} lacks the {slot} slot", v.id)));
            }
        }
        if !v.option_line.contains("{letter}") || !v.option_line.contains("{text}") {
            return Err(PromptError::Catalogue(format!("{} has a bad option_line", v.id)));
        }
    }
    Ok(parsed.variants)
}

/// Every variant, in file order. Empty only if the bundled file were broken.
pub fn variants() -> &'static [Variant] {
    match catalogue() {
        Ok(list) => list,
        Err(_) => &[],
    }
}

/// The variants written in `language`; "de_DE", "de-de" and "de" all select "de".
pub fn variants_for(language: &str) -> Vec<&'static Variant> {
    let wanted = primary_language(language);
    variants().iter().filter(|v| primary_language(&v.language) == wanted).collect()
}

/// The variant with this id.
pub fn variant(id: &str) -> Result<&'static Variant, PromptError> {
    let list = catalogue().as_ref().map_err(Clone::clone)?;
    list.iter().find(|v| v.id == id).ok_or_else(|| PromptError::UnknownVariant(id.to_string()))
}

/// The prompt for one example: context, question and the lettered options filled in.
pub fn render(example: &Example, variant: &Variant) -> String {
    let options: Vec<String> = example
        .choices
        .iter()
        .enumerate()
        .map(|(i, text)| {
            fill(&variant.option_line, |slot| match slot {
                "letter" => Some(letter(i)),
                "text" => Some(text.trim().to_string()),
                _ => None,
            })
        })
        .collect();
    let options = options.join("\n");
    fill(&variant.template, |slot| match slot {
        "context" => Some(example.context.trim().to_string()),
        "question" => Some(example.question.trim().to_string()),
        "options" => Some(options.clone()),
        _ => None,
    })
}

/// The label of option `index`: A ... Z, then AA, AB ... like spreadsheet columns, so that
/// even an unusually long option list gets distinct labels.
pub fn letter(index: usize) -> String {
    let mut n = index;
    let mut label = Vec::new();
    loop {
        // n % 26 < 26, so the sum stays within 'A'..='Z'.
        label.push(char::from(b'A' + (n % 26) as u8));
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    label.iter().rev().collect()
}

/// Replaces `{name}` slots in one left-to-right pass. A single pass matters: a context that
/// itself contains "{question}" must come out verbatim, not be filled in again. Braces that
/// are not a known slot are kept as written.
fn fill(template: &str, value: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let (before, from_brace) = rest.split_at(open);
        out.push_str(before);
        let after_brace = from_brace.strip_prefix('{').unwrap_or(from_brace);
        // The slot name runs to the next '}'; `find` gives character boundaries.
        let filled = after_brace.split_once('}').and_then(|(name, tail)| Some((value(name)?, tail)));
        match filled {
            Some((text, tail)) => {
                out.push_str(&text);
                rest = tail;
            }
            None => {
                out.push('{');
                rest = after_brace;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bbq::{Condition, Polarity, Subset};

    const LANGUAGES: &[&str] = &["en", "de", "es", "fr", "ko", "zh", "pl", "ca"];

    fn example(language: &str, choices: &[&str]) -> Example {
        Example {
            id: "t:1".into(),
            category: "Gender_identity".into(),
            subset: Subset::GroupTerms,
            language: language.into(),
            template_id: "t".into(),
            polarity: Polarity::Negative,
            condition: Condition::Ambiguous,
            context: "  Two people {question} met at the station.  ".into(),
            question: "Who forgot the tickets?".into(),
            choices: choices.iter().map(|c| c.to_string()).collect(),
            choice_groups: vec!["M".into(), "F".into(), "unknown".into()],
            label: 2,
            stereotyped_groups: vec!["F".into()],
            unknown: Some(2),
            biased: Some(1),
            counter_biased: Some(0),
            metadata: Default::default(),
            bias_audit: String::new(),
        }
    }

    #[test]
    fn bundled_file_parses_and_every_language_has_three_variants() {
        assert!(catalogue().is_ok(), "{:?}", catalogue().as_ref().err());
        for language in LANGUAGES {
            let found = variants_for(language);
            assert!(found.len() >= 3, "{language}: {} variants", found.len());
            assert!(
                found.iter().filter(|v| v.allows_insufficient).count() >= 1,
                "{language}: no variant allows answering that the text is not enough"
            );
            for v in found {
                assert!(v.id.starts_with(&format!("{language}-")), "{}", v.id);
            }
        }
    }

    #[test]
    fn language_codes_match_loosely() {
        let ids = |l: &str| variants_for(l).iter().map(|v| v.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids("de_DE"), ids("de"));
        assert_eq!(ids("de-de"), ids("de"));
        assert_eq!(ids("DE"), ids("de"));
        assert!(ids("xx").is_empty());
    }

    #[test]
    fn options_come_in_choice_order_with_letters() {
        let ex = example("en", &["The man", "The woman ", "Cannot be determined"]);
        let v = variant("en-plain").unwrap();
        let text = render(&ex, v);
        assert!(text.contains("A. The man\nB. The woman\nC. Cannot be determined"), "{text}");
        assert!(text.contains("Question: Who forgot the tickets?"), "{text}");
        // The context is inserted verbatim (trimmed), braces and all.
        assert!(text.contains("Two people {question} met at the station.\n"), "{text}");
        assert!(!text.contains("{options}") && !text.contains("{context}"), "{text}");
        assert_eq!(render(&ex, v), text, "rendering must be deterministic");
    }

    #[test]
    fn every_variant_renders_all_options() {
        let ex = example("de", &["Der Mann", "Die Frau", "keine Antwort"]);
        for v in variants() {
            let text = render(&ex, v);
            let a = text.find("A. Der Mann").unwrap_or(usize::MAX);
            let b = text.find("B. Die Frau").unwrap_or(usize::MAX);
            let c = text.find("C. keine Antwort").unwrap_or(usize::MAX);
            assert!(a < b && b < c && c < usize::MAX, "{}:\n{text}", v.id);
            assert!(text.contains("Who forgot the tickets?"), "{}", v.id);
        }
    }

    #[test]
    fn templates_are_written_in_their_own_language() {
        // English instruction words that should not leak into other languages' templates.
        const ENGLISH: &[&str] =
            &["answer", "choose", "letter", "only", "the", "which", "reply", "pick", "please", "passage"];
        // At least one everyday word of the language must appear.
        let marker: &[(&str, &[&str])] = &[
            ("en", &["the", "answer"]),
            ("de", &["die", "der", "und", "antwort", "frage"]),
            ("es", &["la", "el", "pregunta", "respuesta"]),
            ("fr", &["le", "la", "réponse", "question"]),
            ("ko", &["질문"]),
            ("zh", &["问题"]),
            ("pl", &["pytanie", "tekst"]),
            ("ca", &["pregunta", "resposta"]),
        ];
        for v in variants() {
            let bare = ["{context}", "{question}", "{options}"]
                .iter()
                .fold(v.template.to_lowercase(), |t, slot| t.replace(slot, " "));
            let words: Vec<&str> = bare.split(|c: char| !c.is_alphanumeric()).collect();
            if v.language != "en" {
                for w in ENGLISH {
                    assert!(!words.contains(w), "{} contains the English word {w:?}", v.id);
                }
            }
            let wanted = marker.iter().find(|(l, _)| *l == v.language).map(|(_, m)| *m).unwrap_or(&[]);
            assert!(
                wanted.iter().any(|m| words.contains(m) || (!m.is_ascii() && bare.contains(m))),
                "{} has none of {wanted:?}",
                v.id
            );
        }
    }

    #[test]
    fn unknown_variant_is_an_error() {
        assert_eq!(variant("xx-nothing"), Err(PromptError::UnknownVariant("xx-nothing".into())));
        assert!(variant("fr-careful").is_ok());
    }

    #[test]
    fn letters_and_slot_filling() {
        assert_eq!(letter(0), "A");
        assert_eq!(letter(2), "C");
        assert_eq!(letter(25), "Z");
        assert_eq!(letter(26), "AA");
        assert_eq!(letter(27), "AB");
        let fill_x = |t: &str| fill(t, |s| (s == "x").then(|| "1".to_string()));
        assert_eq!(fill_x("{x}+{y}={"), "1+{y}={");
        assert_eq!(fill_x("{{x}}"), "{1}");
        assert_eq!(fill_x("é{x}ü"), "é1ü");
    }

    #[test]
    fn broken_catalogues_are_errors() {
        assert!(matches!(load("not json"), Err(PromptError::Catalogue(_))));
        let missing = r#"{"variants":[{"id":"x","language":"en","template":"{context} {question}"}]}"#;
        assert!(matches!(load(missing), Err(PromptError::Catalogue(_))));
        let twice = r#"{"variants":[
            {"id":"x","language":"en","template":"{context}{question}{options}"},
            {"id":"x","language":"en","template":"{context}{question}{options}"}]}"#;
        assert!(matches!(load(twice), Err(PromptError::Catalogue(_))));
    }
}
