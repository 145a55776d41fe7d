//! Sampling-mode input: records whose `case_id` is a context id and whose `response` is the
//! model's completion of the context's prompt (the text before the slot), N times per model.
//!
//! The filler is read from the start of the completion: an echoed prompt is removed, then
//! the longest run of leading words whose key (case and diacritics folded) is a known
//! spelling of a filler (base form, inflected form, alias such as an exonym, or a name in a
//! reference) gives the canonical filler. A completion that starts with no known filler is
//! *unmatched*: it is counted and listed with its first words, and left out of m_c (its
//! share is reported beside every context), never dropped silently.

use super::normalise::{Index, Via};
use crate::record::{Record, Status};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Extracted {
    Matched { filler: String, via: Via, text: String },
    Unmatched { text: String },
}

/// Reads the filler from one completion of `prompt`.
pub fn extract(prompt: &str, response: &str, index: &Index) -> Extracted {
    let mut rest = response.trim_start();
    let p = prompt.trim();
    if !p.is_empty()
        && let Some(after) = rest.strip_prefix(p)
    {
        rest = after;
    }
    match index.leading_match(rest) {
        Some((filler, via, text)) => Extracted::Matched { filler, via, text },
        None => {
            let text: Vec<&str> = rest.split_whitespace().take(3).collect();
            let text = if text.is_empty() { "(empty)".to_string() } else { text.join(" ") };
            Extracted::Unmatched { text }
        }
    }
}

/// A record that can count as a sample: status ok (refusals and errors are counted apart).
pub fn usable(r: &Record) -> bool {
    r.status == Status::Ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> Index {
        let mut ix = Index::default();
        for (spelling, base, via) in [
            ("Kraków", "Kraków", Via::Base),
            ("Krakowie", "Kraków", Via::Form),
            ("Warszawa", "Warszawa", Via::Base),
            ("Warszawie", "Warszawa", Via::Form),
            ("Warsaw", "Warszawa", Via::Alias),
            ("Katarzyna", "Katarzyna", Via::Base),
            ("Kasia", "Katarzyna", Via::Alias),
            ("Kasi", "Katarzyna", Via::Form),
            ("Nowym Jorku", "New York City", Via::Form),
            ("Łódź", "Łódź", Via::Reference),
        ] {
            ix.add(spelling, base, via);
        }
        ix
    }

    #[test]
    fn polish_inflections_diacritics_and_exonyms() {
        let ix = index();
        let got = |p: &str, r: &str| match extract(p, r, &ix) {
            Extracted::Matched { filler, .. } => filler,
            Extracted::Unmatched { text } => format!("unmatched: {text}"),
        };
        assert_eq!(got("Mieszkam w", " Krakowie, od urodzenia."), "krakow");
        assert_eq!(got("Mieszkam w", "KRAKOWIE"), "krakow");
        assert_eq!(got("Mieszkam w", "Mieszkam w Warszawie."), "warszawa", "echoed prompt");
        assert_eq!(got("Lecę do", "Warsaw!"), "warszawa", "exonym");
        assert_eq!(got("Przyjechałem z", "Lodz"), "lodz", "diacritics");
        assert_eq!(got("Dałem prezent", "Kasi na urodziny"), "katarzyna", "dative of a diminutive");
        assert_eq!(got("Mój brat mieszka w", "Nowym Jorku i pracuje"), "new york city", "two-word form");
        assert_eq!(got("Mieszkam w", "małym mieście pod Poznaniem"), "unmatched: małym mieście pod");
        assert_eq!(got("Mieszkam w", "   "), "unmatched: (empty)");
    }
}
