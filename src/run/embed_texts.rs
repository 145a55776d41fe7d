//! The texts of an embedding run: JSONL, one `{"id": "...", "text": "..."}` per line (what
//! `evenhand crosslingual --embed-plan-out` writes and the Cross-lingual tab hands to the Run
//! tab). Each embedding call's record lists its texts' ids in `prompt`, separated by spaces
//! ([`crate::run::Plan::embed`]), so an id may not hold whitespace; it must also be unique, or
//! two vectors would claim one key. Shared by the CLI (`evenhand run --embed`) and the page.

use crate::formats::{Problem, decode};

/// At most this many texts in one run (the page holds them all in memory).
pub const MAX_TEXTS: usize = 500_000;

/// (id, text) pairs in file order, or the first problem, located by line (and column).
pub fn read(file: &str, bytes: &[u8]) -> Result<Vec<(String, String)>, Problem> {
    #[derive(serde::Deserialize)]
    struct Item {
        id: String,
        text: String,
    }
    let body = decode(file, bytes).map_err(|e| Problem::new(file, e.to_string()))?;
    let mut items = vec![];
    let mut seen = std::collections::HashMap::new();
    for (n, line) in body.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let at = n as u64 + 1;
        let item: Item = serde_json::from_str(line).map_err(|e| {
            Problem::new(file, format!("expected {{\"id\": \"...\", \"text\": \"...\"}}: {e}"))
                .at_line(at)
                .at_column(e.column() as u64)
        })?;
        if item.id.is_empty() || item.id.contains(char::is_whitespace) {
            return Err(Problem::new(file, format!("id {:?}: expected a non-empty id without spaces", item.id))
                .at_line(at)
                .in_field("id"));
        }
        if let Some(first) = seen.insert(item.id.clone(), at) {
            return Err(Problem::new(file, format!("duplicate id {:?} (first on line {first})", item.id))
                .at_line(at)
                .in_field("id"));
        }
        if items.len() == MAX_TEXTS {
            return Err(Problem::new(file, format!("more than {MAX_TEXTS} texts; split the file")).at_line(at));
        }
        items.push((item.id, item.text));
    }
    if items.is_empty() {
        return Err(Problem::new(file, "no texts: expected one {\"id\", \"text\"} object per line"));
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::read;

    #[test]
    fn reads_ids_and_texts_and_locates_problems() {
        let ok = read("t.jsonl", b"{\"id\":\"a\",\"text\":\"one\"}\n\n{\"id\":\"b\",\"text\":\"two\"}\n").unwrap();
        assert_eq!(ok, vec![("a".into(), "one".into()), ("b".into(), "two".into())]);
        let e = read("t.jsonl", b"{\"id\":\"a\",\"text\":\"one\"}\n{\"id\":\"a b\",\"text\":\"x\"}\n").unwrap_err();
        assert_eq!((e.line, e.field.as_deref()), (Some(2), Some("id")));
        let e = read("t.jsonl", b"{\"id\":\"a\",\"text\":\"one\"}\n\n{\"id\":\"a\",\"text\":\"x\"}\n").unwrap_err();
        assert!(e.message.contains("first on line 1") && e.line == Some(3), "{e}");
        let e = read("t.jsonl", b"{\"id\":\"a\"}\n").unwrap_err();
        assert!(e.message.contains("text") && e.line == Some(1), "{e}");
        assert!(read("t.jsonl", b"\n \n").is_err());
        assert!(read("t.jsonl", b"\xff").is_err());
    }
}
