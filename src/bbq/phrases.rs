//! The phrase tables the answer reader matches replies against (datasets/bbq/phrases.json, our
//! own data). They are data rather than code so that a language can be added, or a phrase
//! corrected, without reading the rules in `parse`; the notes beside each list in the file say
//! what the list is for. Compiled in, so the browser build needs no extra fetch.

use serde::Deserialize;

const PHRASES_FILE: &str = "datasets/bbq/phrases.json";
const PHRASES_JSON: &str = include_str!("../../datasets/bbq/phrases.json");
const FORMAT: &str = "evenhand-bbq-answer-phrases";
const VERSION: u32 = 1;

/// Why a phrase file could not be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PhrasesError {
    #[error("{file}:{line}:{column}: {message}")]
    Json { file: String, line: usize, column: usize, message: String },
    #[error("{file}: expected format {FORMAT:?} version {VERSION}, found {format:?} version {version}")]
    Format { file: String, format: String, version: u32 },
    /// An empty list would silently switch a rule off (no unknown phrases for a language, no
    /// answer cues at all), so it is refused rather than loaded.
    #[error("{file}: field {field}: expected at least one phrase, found none")]
    Empty { file: String, field: String },
}

/// The phrase tables as written in the file (not folded: `parse` folds them once).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Phrases {
    format: String,
    version: u32,
    pub unknown: UnknownPhrases,
    pub answer_cues: List,
    pub naming_cues: List,
    pub linkers: List,
    pub leading_words: List,
    pub articles: List,
    pub negations: List,
    pub conjunctions: List,
    pub article_prefixes: List,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct UnknownPhrases {
    pub languages: Vec<LanguagePhrases>,
}

/// One language's "unknown" phrases.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LanguagePhrases {
    pub language: String,
    pub phrases: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct List {
    pub phrases: Vec<String>,
}

impl Phrases {
    /// The built-in tables. The file is compiled in and `builtin_phrases_parse` checks it, so a
    /// failure here is a build that shipped a broken file, not bad user input.
    pub fn builtin() -> Phrases {
        Phrases::parse(PHRASES_FILE, PHRASES_JSON).unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn parse(file: &str, json: &str) -> Result<Phrases, PhrasesError> {
        let phrases: Phrases = serde_json::from_str(json).map_err(|e| PhrasesError::Json {
            file: file.into(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        if phrases.format != FORMAT || phrases.version != VERSION {
            return Err(PhrasesError::Format { file: file.into(), format: phrases.format, version: phrases.version });
        }
        let empty = |field: String| PhrasesError::Empty { file: file.into(), field };
        if phrases.unknown.languages.is_empty() {
            return Err(empty("unknown.languages".into()));
        }
        for (i, table) in phrases.unknown.languages.iter().enumerate() {
            if table.language.trim().is_empty() {
                return Err(empty(format!("unknown.languages[{i}].language")));
            }
            if table.phrases.iter().all(|p| p.trim_start_matches('^').trim().is_empty()) {
                return Err(empty(format!("unknown.languages[{i}].phrases ({})", table.language)));
            }
        }
        for (name, list) in phrases.lists() {
            if list.phrases.iter().all(|p| p.trim().is_empty()) {
                return Err(empty(format!("{name}.phrases")));
            }
        }
        Ok(phrases)
    }

    fn lists(&self) -> [(&'static str, &List); 8] {
        [
            ("answer_cues", &self.answer_cues),
            ("naming_cues", &self.naming_cues),
            ("linkers", &self.linkers),
            ("leading_words", &self.leading_words),
            ("articles", &self.articles),
            ("negations", &self.negations),
            ("conjunctions", &self.conjunctions),
            ("article_prefixes", &self.article_prefixes),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_phrases_parse() {
        let phrases = Phrases::parse(PHRASES_FILE, PHRASES_JSON).unwrap_or_else(|e| panic!("{e}"));
        let languages: Vec<&str> = phrases.unknown.languages.iter().map(|l| l.language.as_str()).collect();
        assert_eq!(languages, ["en", "de", "es", "fr", "ko", "zh", "pl", "ca"]);
        for table in &phrases.unknown.languages {
            assert!(table.phrases.len() >= 9, "{}: {} phrases", table.language, table.phrases.len());
            assert!(table.phrases.iter().all(|p| !p.trim().is_empty()), "{}: an empty phrase", table.language);
        }
        for (name, list) in phrases.lists() {
            assert!(!list.phrases.is_empty(), "{name}");
            assert!(list.phrases.iter().all(|p| !p.trim().is_empty()), "{name}: an empty phrase");
        }
        // The article prefixes are matched as written, so each must keep its separator.
        for prefix in &phrases.article_prefixes.phrases {
            assert!(prefix.ends_with([' ', '\'']), "{prefix:?}");
        }
    }

    #[test]
    fn broken_phrase_files_are_located_errors() {
        let wrong = PHRASES_JSON.replace(FORMAT, "something-else");
        assert!(matches!(Phrases::parse("p.json", &wrong), Err(PhrasesError::Format { .. })));
        let e = Phrases::parse("p.json", "{\n  \"format\": 3\n}").unwrap_err();
        assert!(matches!(&e, PhrasesError::Json { file, line: 2, .. } if file == "p.json"), "{e}");
        let missing = PHRASES_JSON.replace("\"answer_cues\"", "\"answer_cue\"");
        let e = Phrases::parse("p.json", &missing).unwrap_err();
        assert!(e.to_string().contains("answer_cues"), "{e}");
        let mut value: serde_json::Value = serde_json::from_str(PHRASES_JSON).unwrap();
        value["unknown"]["languages"][3]["phrases"] = serde_json::json!([]);
        let e = Phrases::parse("p.json", &value.to_string()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.json: field unknown.languages[3].phrases (fr): expected at least one phrase, found none"
        );
        value["unknown"]["languages"][3]["phrases"] = serde_json::json!(["inconnu"]);
        value["negations"]["phrases"] = serde_json::json!([" "]);
        let e = Phrases::parse("p.json", &value.to_string()).unwrap_err();
        assert!(matches!(&e, PhrasesError::Empty { field, .. } if field == "negations.phrases"), "{e}");
    }
}
