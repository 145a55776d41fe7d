//! The refusal phrase lexicon (datasets/refusals/lexicon.json, our own phrases) and
//! the text normalisation both sides of a match go through.
//!
//! Normalisation: Unicode NFKC (full-width forms, compatibility characters), lower case
//! (`char::to_lowercase`, full case mapping), typographic apostrophes to `'`, whitespace runs
//! to one space; for languages marked `fold_accents` also accents removed (NFD, combining marks
//! dropped), so "désolé" and "desole" match. Accents are kept for Hindi (its vowel signs are
//! combining marks), Korean, Chinese, German and Polish (where they change the word).
//!
//! A response is looked up in the phrases of its own language and, because models often
//! refuse in English whatever the prompt's language, in the English phrases too.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

const LEXICON_JSON: &str = include_str!("../../datasets/refusals/lexicon.json");

#[derive(Debug, Clone, Deserialize)]
struct File {
    format: String,
    version: u32,
    languages: BTreeMap<String, Entry>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
struct Entry {
    fold_accents: bool,
    phrases: Vec<String>,
}

/// The phrases per language, normalised once.
#[derive(Debug, Clone)]
pub struct Lexicon {
    languages: BTreeMap<String, (bool, Vec<String>)>,
}

/// Which phrase matched, in which language's list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    pub language: String,
    pub phrase: String,
}

pub fn normalise(text: &str, fold_accents: bool) -> String {
    let mut out = String::with_capacity(text.len());
    // ASCII is unchanged by every Unicode normal form and has no combining marks, and its
    // lower case is the ASCII one: skipping the three passes gives the same text, several
    // times faster (most responses are ASCII, and every judged answer comes through here).
    let folded: String = if text.is_ascii() {
        text.to_ascii_lowercase()
    } else {
        let lowered: String = text.nfkc().flat_map(char::to_lowercase).collect();
        if fold_accents { lowered.nfd().filter(|c| !is_combining_mark(*c)).nfc().collect() } else { lowered }
    };
    let mut space = false;
    for c in folded.chars() {
        let c = match c {
            '’' | '‘' | 'ʼ' | '`' => '\'',
            c => c,
        };
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out
}

/// `hay.contains(needle)`, by the plain scan: `str::contains` prepares a two-way searcher for
/// every needle, which for a short answer checked against a few dozen phrases cost more than
/// the search itself (most phrases are longer than the answer and are ruled out at once).
fn contains(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let Some(&first) = n.first() else { return true };
    if n.len() > h.len() {
        return false;
    }
    // Matching bytes of valid UTF-8 is matching characters: a needle cannot start mid-character.
    (0..=h.len() - n.len()).any(|i| h[i] == first && &h[i..i + n.len()] == n)
}

impl Lexicon {
    /// The built-in lexicon.
    pub fn builtin() -> Lexicon {
        Lexicon::parse(LEXICON_JSON).expect("the built-in lexicon is valid")
    }

    pub fn parse(json: &str) -> Result<Lexicon, String> {
        let f: File = serde_json::from_str(json).map_err(|e| format!("refusal lexicon: {e}"))?;
        if f.format != "evenhand-refusal-lexicon" || f.version != 1 {
            return Err("refusal lexicon: expected format evenhand-refusal-lexicon, version 1".into());
        }
        let languages = f
            .languages
            .into_iter()
            .map(|(l, e)| {
                let phrases =
                    e.phrases.iter().map(|p| normalise(p, e.fold_accents)).filter(|p| !p.is_empty()).collect();
                (l, (e.fold_accents, phrases))
            })
            .collect();
        Ok(Lexicon { languages })
    }

    pub fn languages(&self) -> Vec<String> {
        self.languages.keys().cloned().collect()
    }

    /// The first phrase found in `text`, from the list of `language` (its primary subtag),
    /// then from the English list.
    pub fn find(&self, text: &str, language: &str) -> Option<Hit> {
        let lang = crate::text::primary_language(language);
        let mut order = vec![lang.as_str()];
        if lang != "en" {
            order.push("en");
        }
        for l in order {
            let Some((fold, phrases)) = self.languages.get(l) else { continue };
            let norm = normalise(text, *fold);
            if let Some(p) = phrases.iter().find(|p| contains(&norm, p)) {
                return Some(Hit { language: l.to_string(), phrase: p.clone() });
            }
        }
        None
    }

    pub fn phrases(&self, language: &str) -> &[String] {
        self.languages.get(language).map_or(&[], |(_, p)| p.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plain_scan_agrees_with_str_contains() {
        let hays = ["", "no", "i'm sorry, but i can't help", "lo siento, no puedo", "désolé", "不能回答", "aab"];
        let needles = ["", "no", "can't help", "sorry,", "puedo", "solé", "回答", "ab", "aab", "aaab", "é"];
        for h in hays {
            for n in needles {
                assert_eq!(contains(h, n), h.contains(n), "{h:?} contains {n:?}");
            }
        }
    }

    #[test]
    fn ascii_text_normalises_as_the_unicode_path_does() {
        // The ASCII fast path must give what NFKC + lower case (+ accent folding) gives.
        let slow = |t: &str, fold: bool| {
            let lowered: String = t.nfkc().flat_map(char::to_lowercase).collect();
            let folded: String =
                if fold { lowered.nfd().filter(|c| !is_combining_mark(*c)).nfc().collect() } else { lowered };
            normalise(&folded, false)
        };
        for t in ["  I'm SORRY,\n\tbut I can't  help. ", "No.", "", "A`B ~ {x}"] {
            for fold in [false, true] {
                assert_eq!(normalise(t, fold), slow(t, fold), "{t:?}");
            }
        }
    }
}
