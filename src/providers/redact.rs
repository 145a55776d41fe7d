//! Keeps keys out of anything a user might see, copy or export. Providers sometimes echo a
//! part of the key in their error text ("Incorrect API key provided: sk-abc..."), and a
//! transport error may quote the request; every message that leaves this module tree goes
//! through [`redact`].

/// What a key is replaced with.
pub const MASK: &str = "[key removed]";

/// Replaces every occurrence of `key` in `text`. Keys shorter than 8 characters are not
/// searched for (they would blank out ordinary words), but such keys are not real keys either.
pub fn redact(text: &str, key: Option<&str>) -> String {
    match key.map(str::trim) {
        Some(k) if k.len() >= 8 => {
            let mut out = text.replace(k, MASK);
            // A provider may echo the key's start and end around an ellipsis; mask long
            // prefixes of it too, so at most the first 7 characters (the public prefix,
            // like "sk-proj") survive.
            let chars: Vec<char> = k.chars().collect();
            for len in (12..chars.len()).rev() {
                let prefix: String = chars[..len].iter().collect();
                if out.contains(&prefix) {
                    out = out.replace(&prefix, MASK);
                }
            }
            out
        }
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_occurrence_is_replaced() {
        let key = "sk-test-ABCDEFGHIJKLMNOP";
        let text = format!("bad key {key}; header was Bearer {key}.");
        let out = redact(&text, Some(key));
        assert!(!out.contains(key), "{out}");
        assert_eq!(out.matches(MASK).count(), 2);
        assert!(out.starts_with("bad key [key removed]"));
    }

    #[test]
    fn a_long_echoed_prefix_is_masked_too() {
        let key = "sk-test-ABCDEFGHIJKLMNOP";
        let out = redact("Incorrect API key provided: sk-test-ABCDEFGH****MNOP", Some(key));
        assert!(!out.contains("ABCDEFGH"), "{out}");
    }

    #[test]
    fn no_key_or_a_tiny_key_leaves_the_text_alone() {
        assert_eq!(redact("a b c", None), "a b c");
        assert_eq!(redact("the cat", Some("cat")), "the cat");
    }
}
