//! Placeholders: `{ROOT}` / `{ROOTn}` tokens of a concern's markup root, and the audit of a
//! library for the placeholder defects upstream sends to models unseen.
//! Upstream matches `{` + root + digits + `}` case-sensitively; a token that is not of that
//! form for the template's concern stays in the prompt text.

use super::library::Library;
use crate::formats::Problem;
use std::collections::BTreeMap;

/// Library defects upstream sends to the model unseen: brace tokens that are
/// not `{ROOT}` / `{ROOTn}` of the template's concern (misspelt or foreign), and the markup root
/// written without braces. `markups` maps a concern (lower case) to its root.
pub fn audit(lib: &Library, markups: &BTreeMap<String, String>) -> Vec<Problem> {
    let mut out = vec![];
    for t in &lib.templates {
        let Some(root) = markups.get(&t.concern.to_lowercase()) else {
            continue;
        };
        let at = |msg: String| Problem::new(&lib.file, msg).at_line(t.row as u64).in_field("prompt");
        for token in brace_tokens(&t.prompt) {
            if is_placeholder(token, root) {
                continue;
            }
            let other = markups.iter().find(|(_, r)| is_placeholder(token, r));
            let near = std::iter::once(root).chain(markups.values()).find(|r| close(token, r));
            let msg = match (other, near) {
                (Some((concern, _)), _) => {
                    format!("{{{token}}} is a placeholder of {concern}, not of {}; sent as is", t.concern)
                }
                (None, Some(near)) => format!("{{{token}}} looks like a misspelt {{{near}…}}; sent as is"),
                (None, None) => {
                    format!("unknown placeholder {{{token}}} (expected {{{root}}} or {{{root}n}}); sent as is")
                }
            };
            out.push(at(msg));
        }
        let mut roots: Vec<&String> = std::iter::once(root).chain(markups.values()).collect();
        roots.sort();
        roots.dedup();
        for r in roots.into_iter().filter(|r| bare_word(&t.prompt, r)) {
            out.push(at(format!("the markup {r} appears without braces; sent as is, never replaced")));
        }
    }
    out
}

/// The contents of every `{...}` without nested braces.
pub fn brace_tokens(text: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find(['{', '}']) {
            Some(close) if after.as_bytes()[close] == b'}' => {
                out.push(&after[..close]);
                rest = &after[close + 1..];
            }
            Some(close) => rest = &after[close..],
            None => break,
        }
    }
    out
}

/// `ROOT` or `ROOT` followed by ASCII digits.
pub fn is_placeholder(token: &str, root: &str) -> bool {
    token.strip_prefix(root).is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
}

/// Same length give or take one and at most two differing characters, digits ignored.
fn close(token: &str, root: &str) -> bool {
    let t: Vec<char> = token.trim_end_matches(|c: char| c.is_ascii_digit()).chars().collect();
    let r: Vec<char> = root.chars().collect();
    let (short, long) = if t.len() <= r.len() { (&t, &r) } else { (&r, &t) };
    long.len() - short.len() <= 1 && short.iter().zip(long.iter()).filter(|(a, b)| a != b).count() <= 2
}

/// The root as a whole word outside braces.
fn bare_word(text: &str, root: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(root).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + root.len()..].chars().next();
        before.is_none_or(|c| !is_word(c) && c != '{') && after.is_none_or(|c| !is_word(c) && c != '}')
    })
}
