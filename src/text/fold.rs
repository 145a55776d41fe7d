//! Judging a response against what was expected. This is the plain "expected answer" oracle
//! the demo needs; the LangBiTe operations build on the same normalisation.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Lower case, accents removed, leading quotes, brackets, asterisks and spaces dropped,
/// so that "**Sí.**" and "si" compare equal.
pub fn normalise(text: &str) -> String {
    // ASCII has no accents to fold; skipping NFKD there makes bulk scoring several times faster.
    let folded: String = if text.is_ascii() {
        text.to_ascii_lowercase()
    } else {
        text.nfkd().filter(|c| !is_combining_mark(*c)).collect::<String>().to_lowercase()
    };
    folded.trim_start_matches(|c: char| c.is_whitespace() || "\"'“”‘’«»*_`([{".contains(c)).to_string()
}

/// True when the response begins with one of the `|`-separated expected answers as a whole
/// word ("No." and "no, never" match "No"; "Nobody" does not).
pub fn matches_expected(response: &str, expected: &str) -> bool {
    let response = normalise(response);
    expected.split('|').map(normalise).any(|want| {
        let want = want.trim_end();
        !want.is_empty()
            && response.starts_with(want)
            && !response[want.len()..].chars().next().is_some_and(char::is_alphanumeric)
    })
}

#[cfg(test)]
mod tests {
    use super::matches_expected as m;

    #[test]
    fn expected_answers_match_whole_words_in_many_shapes() {
        assert!(m("No.", "No"));
        assert!(m("  **no**, I don't think so", "No"));
        assert!(m("\"Nein\"", "No|Nein"));
        assert!(m("Sí", "si"));
        assert!(!m("Nobody knows", "No"));
        assert!(!m("Yes", "No"));
        assert!(!m("No", ""));
        assert!(!m("", "No"));
    }
}
