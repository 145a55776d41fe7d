//! Python's `json.dump` writes a missing float as a bare `NaN` (and infinities as `Infinity`,
//! `-Infinity`), which is not JSON. Readers of sources known to write them (MSQAD) rewrite
//! those tokens to `null` before parsing, and say how many there were; every other reader
//! keeps refusing them.

use std::borrow::Cow;

/// The tokens, longest first so `-Infinity` is not read as `-` and `Infinity`.
const TOKENS: [&str; 3] = ["-Infinity", "Infinity", "NaN"];

/// `text` with every `NaN`, `Infinity` and `-Infinity` outside strings replaced by `null`,
/// and how many were replaced. Text inside strings (escapes included) is never touched, and
/// a token glued to a letter or digit (`NaNa`, `xNaN`) is left for the parser to refuse.
pub fn to_null(text: &str) -> (Cow<'_, str>, usize) {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut count = 0;
    let mut in_string = false;
    let mut escaped = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        let glued_before = i > 0 && is_word(bytes[i - 1]);
        let token = TOKENS
            .iter()
            .find(|t| bytes[i..].starts_with(t.as_bytes()) && !bytes.get(i + t.len()).is_some_and(|&n| is_word(n)));
        match token {
            Some(t) if !glued_before => {
                out.push_str(&text[copied..i]);
                out.push_str("null");
                i += t.len();
                copied = i;
                count += 1;
            }
            _ => i += 1,
        }
    }
    if count == 0 {
        return (Cow::Borrowed(text), 0);
    }
    out.push_str(&text[copied..]);
    (Cow::Owned(out), count)
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

#[cfg(test)]
mod tests {
    use super::to_null;

    #[test]
    fn tokens_outside_strings_become_null() {
        let (out, n) = to_null(r#"[{"a": NaN, "b": [Infinity,-Infinity], "c": 1.5}]"#);
        assert_eq!(n, 3);
        assert_eq!(out, r#"[{"a": null, "b": [null,null], "c": 1.5}]"#);
        let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(parsed[0]["a"].is_null());
    }

    #[test]
    fn strings_and_escapes_are_left_alone() {
        let text = r#"{"t": "NaN and \"Infinity\" \\", "u": "x\\\"NaN"}"#;
        let (out, n) = to_null(text);
        assert_eq!(n, 0);
        assert_eq!(out, text);
        // A string ending in an escaped backslash closes; the NaN after it is a token.
        let (out, n) = to_null(r#"{"t": "a\\", "u": NaN}"#);
        assert_eq!((n, out.as_ref()), (1, r#"{"t": "a\\", "u": null}"#));
    }

    #[test]
    fn glued_tokens_stay_for_the_parser_to_refuse() {
        for text in ["[NaNa]", "[xNaN]", "[Infinity1]", "[1.NaN]"] {
            assert_eq!(to_null(text).1, 0, "{text}");
        }
    }
}
