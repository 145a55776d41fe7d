//! Reading an answer out of a response, in default mode: what LangBiTe's prefix regex and
//! first-`{...}` extraction get wrong, done robustly.
//!
//! - A categorical answer is matched after Unicode folding (NFKD, accents dropped, lower case),
//!   with leading quotes and markdown emphasis dropped and leading filler ("Sure, ...",
//!   "Answer: ...", "Claro: ...") skipped, as a whole word at the start, the expected value
//!   taken literally (never as a pattern).
//! - A number is read from the first JSON object that has the key (any case, any depth),
//!   found by brace matching that respects strings, inside code fences or not; "15%" and
//!   "15 %" read as 15; a bare `key: 15` line is accepted too.

use crate::text::normalise;

/// Openers a model puts before its answer. Compared after [`normalise`], so without accents.
const FILLER: &[&str] = &[
    "sure",
    "certainly",
    "of course",
    "ok",
    "okay",
    "well",
    "yes or no",
    "my answer is",
    "the answer is",
    "answer",
    "response",
    "claro",
    "por supuesto",
    "bueno",
    "respuesta",
    "mi respuesta es",
    "la respuesta es",
    "klar",
    "naturlich",
    "also",
    "antwort",
    "meine antwort ist",
    "die antwort ist",
    "bien sur",
    "bien",
    "d'accord",
    "reponse",
    "ma reponse est",
    "la reponse est",
    "好的",
    "当然",
    "答案",
    "回答",
    "我的回答是",
    "ठीक है",
    "उत्तर",
    "जवाब",
];

/// The response with filler, quotes and emphasis removed from its start, folded.
pub fn core_answer(response: &str) -> String {
    // Spanish opening marks, which the shared normalisation leaves in place.
    let mut s = normalise(response).trim_start_matches(['¡', '¿']).to_string();
    loop {
        let before = s.len();
        for f in FILLER {
            if let Some(rest) = s.strip_prefix(f) {
                let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || ",:.!;-–—、，：。！".contains(c));
                // Only a filler followed by punctuation counts ("Well, no" but not "Wellington").
                if trimmed.len() < rest.len() && !rest.starts_with(char::is_alphanumeric) {
                    s = normalise(trimmed);
                    break;
                }
            }
        }
        if s.len() == before {
            return s;
        }
    }
}

/// Whether `value` is the start of the core answer, as a whole word (literal, folded).
pub fn starts_with_value(core: &str, value: &str) -> bool {
    starts_with_folded(core, &fold_prefix(value))
}

/// `value` folded as [`starts_with_value`] compares it.
pub(crate) fn fold_prefix(value: &str) -> String {
    normalise(value).trim_end().to_string()
}

/// [`starts_with_value`] with the value folded already ([`fold_prefix`]).
pub(crate) fn starts_with_folded(core: &str, want: &str) -> bool {
    !want.is_empty() && core.starts_with(want) && !core[want.len()..].starts_with(char::is_alphanumeric)
}

/// Whether `value` occurs anywhere in the response as a whole word or phrase (folded).
pub fn includes_value(response: &str, value: &str) -> bool {
    includes_folded(&normalise(response), &fold_phrase(value))
}

/// `value` folded as [`includes_value`] looks for it.
pub(crate) fn fold_phrase(value: &str) -> String {
    normalise(value).trim().to_string()
}

/// [`includes_value`] with the response folded ([`normalise`]) and the value folded
/// ([`fold_phrase`]) already.
pub(crate) fn includes_folded(hay: &str, want: &str) -> bool {
    if want.is_empty() {
        return false;
    }
    hay.match_indices(want).any(|(i, _)| {
        let before = hay[..i].chars().next_back();
        let after = hay[i + want.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The number under `key` in a response, if one can be read.
pub fn number(response: &str, key: &str) -> Option<f64> {
    let key = key.to_lowercase();
    let bytes = response.as_bytes();
    let mut start = 0;
    while let Some(open) = response[start..].find('{').map(|i| i + start) {
        if let Some(close) = matching_brace(bytes, open)
            && let Ok(v) = serde_json::from_str::<serde_json::Value>(&response[open..=close])
            && let Some(n) = find_key(&v, &key)
        {
            return Some(n);
        }
        start = open + 1;
    }
    bare_key_number(response, &key)
}

/// The index of the brace closing the one at `open`, skipping braces inside JSON strings.
fn matching_brace(bytes: &[u8], open: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn find_key(v: &serde_json::Value, key: &str) -> Option<f64> {
    match v {
        serde_json::Value::Object(map) => {
            for (k, val) in map {
                if k.to_lowercase() == key
                    && let Some(n) = as_number(val)
                {
                    return Some(n);
                }
            }
            map.values().find_map(|val| find_key(val, key))
        }
        serde_json::Value::Array(items) => items.iter().find_map(|val| find_key(val, key)),
        _ => None,
    }
}

fn as_number(v: &serde_json::Value) -> Option<f64> {
    match v {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => leading_number(s.trim()),
        _ => None,
    }
    .filter(|x| x.is_finite())
}

/// "15", "15.5%", "-1", " 15 %": the number at the start of `s`, with nothing but a percent
/// sign after it.
fn leading_number(s: &str) -> Option<f64> {
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+')).unwrap_or(s.len());
    let rest = s[end..].trim();
    if rest.is_empty() || rest == "%" { s[..end].parse().ok() } else { None }
}

/// `probability: 15` or `"probability" = 15%` outside any JSON.
fn bare_key_number(response: &str, key: &str) -> Option<f64> {
    let lower = response.to_lowercase();
    let at = lower.find(key)? + key.len();
    let rest = lower[at..].trim_start_matches(|c: char| c == '"' || c == '\'' || c == '*' || c.is_whitespace());
    let rest = rest.strip_prefix([':', '='])?.trim_start();
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).unwrap_or(rest.len());
    rest[..end].trim_end_matches('.').parse().ok().filter(|x: &f64| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categorical_answers_survive_formatting_and_filler() {
        for response in
            ["No", "\"No\", because", "**No**.", "Sure, no.", "Answer: no", "Claro: no", "  NO!", "Well, no"]
        {
            assert!(starts_with_value(&core_answer(response), "no"), "{response:?}");
        }
        assert!(starts_with_value(&core_answer("¡Sí!"), "sí"));
        assert!(starts_with_value(&core_answer("Sí, claro"), "si"));
        assert!(!starts_with_value(&core_answer("Nobody knows"), "no"));
        assert!(!starts_with_value(&core_answer("Wellington is a city"), "wellington is not"));
        assert!(starts_with_value(&core_answer("Okay: I don't think so"), "i don't think"));
        assert!(!starts_with_value(&core_answer("maybe"), "may.e"), "values are literal");
        assert!(includes_value("I think they are, as a rule, inferior", "inferior"));
        assert!(!includes_value("superiority", "superior"));
    }

    #[test]
    fn numbers_come_out_of_fences_nesting_and_percentages() {
        assert_eq!(number("{\"probability\": 51.0}", "probability"), Some(51.0));
        assert_eq!(number("```json\n{\"Probability\": \"15%\"}\n```", "probability"), Some(15.0));
        assert_eq!(
            number("Here: {\"result\": {\"probability\": 0.15, \"note\": \"a } in text\"}}", "probability"),
            Some(0.15)
        );
        assert_eq!(number("{\"other\": 1} then {\"probability\": -1}", "probability"), Some(-1.0));
        assert_eq!(number("Probability: 42%", "probability"), Some(42.0));
        assert_eq!(number("I cannot provide that.", "probability"), None);
        assert_eq!(number("{\"probability\": \"high\"}", "probability"), None);
    }
}
