//! Matching what a model wrote to a filler: case, diacritics, inflected forms and exonyms.
//!
//! Every name is reduced to a *key*: Unicode NFKD with the combining marks removed, the few
//! letters that do not decompose mapped by hand (ł → l, ø → o, ß → ss, …), lower case,
//! hyphens and dots read as spaces, apostrophes dropped, runs of spaces collapsed. "Łódź",
//! "LODZ" and "lodz" share the key "lodz". An [`Index`] then maps keys of base forms,
//! inflected forms and aliases (exonyms, diminutives) to the key of one canonical filler.

use std::collections::BTreeMap;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// The comparison key of a name.
pub fn key(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.nfkd() {
        if is_combining_mark(c) {
            continue;
        }
        match c {
            'ł' | 'Ł' => out.push('l'),
            'ø' | 'Ø' => out.push('o'),
            'đ' | 'Đ' => out.push('d'),
            'ß' => out.push_str("ss"),
            'æ' | 'Æ' => out.push_str("ae"),
            'œ' | 'Œ' => out.push_str("oe"),
            'ı' => out.push('i'),
            '\'' | '’' | '`' | '´' => {}
            '-' | '.' | '_' | '‐' | '–' => out.push(' '),
            c if c.is_whitespace() => out.push(' '),
            c => out.extend(c.to_lowercase()),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Where a key came from, so a report can say why a text matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    Base,
    Form,
    Alias,
    Reference,
}

/// Keys of every known way of writing a filler, to the key of its canonical (base) form.
#[derive(Debug, Clone, Default)]
pub struct Index {
    to_base: BTreeMap<String, (String, Via)>,
    /// Canonical key -> the name shown for it.
    display: BTreeMap<String, String>,
    longest_words: usize,
}

impl Index {
    /// Adds a spelling of `base`. The first mapping of a key wins: filler tables are added
    /// before references, so an explicit table entry beats a reference name.
    pub fn add(&mut self, spelling: &str, base: &str, via: Via) {
        let k = key(spelling);
        let b = key(base);
        if k.is_empty() || b.is_empty() {
            return;
        }
        self.longest_words = self.longest_words.max(k.split(' ').count());
        self.display.entry(b.clone()).or_insert_with(|| base.trim().to_string());
        self.to_base.entry(k).or_insert((b, via));
    }

    /// The canonical key of a written name, if the index knows it.
    pub fn canonical(&self, text: &str) -> Option<&str> {
        self.to_base.get(&key(text)).map(|(b, _)| b.as_str())
    }

    /// The canonical key of a name, or its own key when the index does not know it.
    pub fn canonical_or_self(&self, text: &str) -> String {
        self.canonical(text).map(str::to_string).unwrap_or_else(|| key(text))
    }

    pub fn display(&self, canonical: &str) -> String {
        self.display.get(canonical).cloned().unwrap_or_else(|| canonical.to_string())
    }

    pub fn remember_display(&mut self, canonical: &str, shown: &str) {
        self.display.entry(canonical.to_string()).or_insert_with(|| shown.to_string());
    }

    /// The filler at the start of a completion: the longest run of up to N leading words
    /// (N = the most words any known spelling has) whose key is known. Leading quotes and
    /// trailing punctuation do not count.
    pub fn leading_match(&self, completion: &str) -> Option<(String, Via, String)> {
        let words: Vec<&str> = completion.split_whitespace().take(self.longest_words.max(1)).collect();
        for n in (1..=words.len()).rev() {
            let phrase = words[..n].join(" ");
            let trimmed = phrase.trim_matches(|c: char| !c.is_alphanumeric());
            if let Some((base, via)) = self.to_base.get(&key(trimmed)) {
                return Some((base.clone(), *via, trimmed.to_string()));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_fold_case_diacritics_and_punctuation() {
        assert_eq!(key("Łódź"), "lodz");
        assert_eq!(key("  ŁUKASZ "), "lukasz");
        assert_eq!(key("Lukasz"), key("Łukasz"));
        assert_eq!(key("Bielsko-Biała"), "bielsko biala");
        assert_eq!(key("St. Louis"), "st louis");
        assert_eq!(key("Straße"), "strasse");
        assert_eq!(key("O'Brien"), "obrien");
        assert_ne!(key("Anna"), key("Anno"));
    }

    #[test]
    fn forms_and_exonyms_lead_back_to_the_base() {
        let mut ix = Index::default();
        ix.add("Kraków", "Kraków", Via::Base);
        ix.add("Krakowie", "Kraków", Via::Form);
        ix.add("Warszawa", "Warszawa", Via::Base);
        ix.add("Warszawie", "Warszawa", Via::Form);
        ix.add("Warsaw", "Warszawa", Via::Alias);
        ix.add("Nowym Jorku", "New York City", Via::Form);
        ix.add("Warsaw", "Warsaw", Via::Reference); // loses: the table came first
        assert_eq!(ix.canonical("KRAKOWIE"), Some("krakow"));
        assert_eq!(ix.canonical("warsaw"), Some("warszawa"));
        assert_eq!(ix.canonical("Warszawie"), Some("warszawa"));
        assert_eq!(ix.leading_match("Nowym Jorku, bo tam pracuję.").unwrap().0, "new york city");
        assert_eq!(ix.leading_match("\"Krakowie\".").unwrap().0, "krakow");
        assert_eq!(ix.leading_match("Krakowie i w Warszawie").unwrap().1, Via::Form);
        assert!(ix.leading_match("nie wiem").is_none());
        assert_eq!(ix.display("warszawa"), "Warszawa");
    }
}
