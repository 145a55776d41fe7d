//! The join between template text and a filled slot: articles and conjunctions that must agree
//! with the word that follows, which no template can spell out in advance.

use super::table::language_code;

/// True when `out` ends with the whole word `word` followed by one space.
fn ends_with_word(out: &str, word: &str) -> bool {
    let Some(head) = out.strip_suffix(' ').and_then(|o| o.strip_suffix(word)) else {
        return false;
    };
    !head.chars().next_back().is_some_and(char::is_alphanumeric)
}

/// Fixes the join between text and a filled slot, as BBQ's a/an fix does: English "a" before
/// a vowel sound; Spanish and French article contractions. Returns the value to append
/// (`out` may lose its last word).
pub(super) fn join(out: &mut String, value: &str, language: &str) -> String {
    match language_code(language).as_str() {
        "en" | "" => {
            for article in ["a", "A"] {
                if ends_with_word(out, article) && vowel_sound(value) {
                    out.pop();
                    out.push_str("n ");
                    break;
                }
            }
            value.to_string()
        }
        "es" => {
            for (word, contracted) in [("a", "al"), ("de", "del")] {
                if let Some(rest) = value.strip_prefix("el ")
                    && ends_with_word(out, word)
                {
                    out.truncate(out.len() - word.len() - 1);
                    return format!("{contracted} {rest}");
                }
            }
            // "y" becomes "e" before an /i/ sound (Inés, hijo, but not hielo), "o" becomes
            // "u" before an /o/ sound (Óscar, hombre).
            let v = value.to_lowercase();
            let i_sound = (v.starts_with(['i', 'í']) || v.starts_with("hi"))
                && !["hia", "hie", "hio", "hiu"].iter().any(|d| v.starts_with(d));
            let o_sound = v.starts_with(['o', 'ó']) || v.starts_with("ho");
            for (word, sound, replacement) in [("y", i_sound, "e"), ("o", o_sound, "u")] {
                if sound && ends_with_word(out, word) {
                    out.truncate(out.len() - word.len() - 1);
                    out.push_str(replacement);
                    out.push(' ');
                    break;
                }
            }
            value.to_string()
        }
        "fr" => {
            let rules = [("à", "le ", "au"), ("à", "les ", "aux"), ("de", "le ", "du"), ("de", "les ", "des")];
            for (word, article, contracted) in rules {
                if let Some(rest) = value.strip_prefix(article)
                    && ends_with_word(out, word)
                {
                    out.truncate(out.len() - word.len() - 1);
                    return format!("{contracted} {rest}");
                }
            }
            // Elision before a vowel: "que Antoine" → "qu'Antoine", "de une" → "d'une". A
            // leading "h" is left alone: whether it elides depends on the word.
            let vowel = value
                .chars()
                .next()
                .is_some_and(|c| "aeiouyàâäéèêëîïôöùûüœæ".contains(c.to_lowercase().next().unwrap_or(c)));
            if vowel {
                for word in ["que", "lorsque", "puisque", "jusque", "de", "Que", "De"] {
                    if ends_with_word(out, word) {
                        // Drop the space and the final "e": "que " → "qu'".
                        out.truncate(out.len() - 2);
                        out.push('\'');
                        break;
                    }
                }
            }
            value.to_string()
        }
        _ => value.to_string(),
    }
}

/// Whether an English word starts with a vowel sound: vowels, except the "you"/"wun" sounds
/// of "European", "university", "one"; and numbers read "eight", "eleven", "eighteen".
pub(super) fn vowel_sound(word: &str) -> bool {
    let w = word.trim().to_lowercase();
    const YOU_SOUNDS: &[&str] = &["eu", "uni", "use", "usu", "uti", "uk", "ura", "one", "once", "ewe"];
    if YOU_SOUNDS.iter().any(|p| w.starts_with(p)) {
        return false;
    }
    let digits: String = w.chars().take_while(char::is_ascii_digit).collect();
    if !digits.is_empty() {
        return digits.starts_with('8') || digits == "11" || digits == "18";
    }
    w.starts_with(['a', 'e', 'i', 'o', 'u'])
}
