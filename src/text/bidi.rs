//! Bidirectional control characters in text someone else wrote (a model name, a response, a
//! question): a right-to-left override at the end of a model name reverses everything after
//! it on the line. Where we show such text we either show the controls escaped (the HTML and
//! SVG we write: [`visible`]) or close whatever they opened inside the text's own cell (CSV
//! exports: [`closed`]), so they cannot reach the text around it.

use std::borrow::Cow;

/// The embeddings and overrides (U+202A-202E), isolates (U+2066-2069) and marks (U+200E/200F,
/// U+061C) of Unicode's bidirectional algorithm.
pub fn is_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// `text` with every bidirectional control written as `[U+202E]`.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_control(c) {
            out.push_str(&format!("[U+{:04X}]", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` with a closer appended for every embedding, override or isolate it leaves open
/// (U+202C for U+202A-202E, U+2069 for U+2066-2068), innermost first. Text that opens
/// nothing comes back as it is.
pub fn closed(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_control) {
        return Cow::Borrowed(text);
    }
    // true: an isolate; false: an embedding or override.
    let mut open: Vec<bool> = vec![];
    for c in text.chars() {
        match c {
            '\u{202A}'..='\u{202B}' | '\u{202D}'..='\u{202E}' => open.push(false),
            // PDF closes the innermost embedding, but not across an open isolate.
            '\u{202C}' if open.last() == Some(&false) => {
                open.pop();
            }
            '\u{2066}'..='\u{2068}' => open.push(true),
            '\u{2069}' => {
                // PDI closes the innermost isolate and every embedding opened inside it.
                if let Some(at) = open.iter().rposition(|isolate| *isolate) {
                    open.truncate(at);
                }
            }
            _ => {}
        }
    }
    if open.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    out.extend(open.iter().rev().map(|isolate| if *isolate { '\u{2069}' } else { '\u{202C}' }));
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_visibly() {
        assert_eq!(visible("gpt\u{202E}-4"), "gpt[U+202E]-4");
        assert_eq!(visible("a\u{2066}b\u{061C}"), "a[U+2066]b[U+061C]");
        assert!(matches!(visible("plain عربي"), Cow::Borrowed(_)));
    }

    #[test]
    fn what_is_opened_is_closed_innermost_first() {
        assert_eq!(closed("m\u{202E}"), "m\u{202E}\u{202C}");
        assert_eq!(closed("\u{2067}a\u{202B}b"), "\u{2067}a\u{202B}b\u{202C}\u{2069}");
        assert_eq!(closed("\u{202E}x\u{202C}"), "\u{202E}x\u{202C}");
        assert_eq!(closed("\u{2066}\u{202E}x\u{2069}"), "\u{2066}\u{202E}x\u{2069}");
        assert_eq!(closed("\u{200F}mark only"), "\u{200F}mark only");
    }
}
