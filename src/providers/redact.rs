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

/// The request headers that carry a key (their values are what [`redact_headers`] removes).
pub const SECRET_HEADERS: [&str; 3] = ["authorization", "x-api-key", "x-goog-api-key"];

/// `text` with every key the request `headers` carry removed (a Bearer token by its token).
pub fn redact_headers(text: &str, headers: &[(String, String)]) -> String {
    let mut out = text.to_string();
    for (name, value) in headers {
        if SECRET_HEADERS.iter().any(|s| name.eq_ignore_ascii_case(s)) {
            out = redact(&out, Some(value.strip_prefix("Bearer ").unwrap_or(value)));
        }
    }
    out
}

/// A provider's answer with the request's keys removed from its body and header values,
/// before anything stores it: a misconfigured proxy may echo the request, key and all, in a
/// 200 answer, and the body goes into records, journals, the page's storage and bundles.
/// A body that is not UTF-8 is searched as bytes for the whole key.
pub fn redact_response(
    mut r: super::response::RawResponse,
    request_headers: &[(String, String)],
) -> super::response::RawResponse {
    if !request_headers.iter().any(|(n, _)| SECRET_HEADERS.iter().any(|s| n.eq_ignore_ascii_case(s))) {
        return r;
    }
    match std::str::from_utf8(&r.body) {
        Ok(text) => {
            let clean = redact_headers(text, request_headers);
            if clean != text {
                r.body = clean.into_bytes();
            }
        }
        Err(_) => {
            for (name, value) in request_headers {
                let key = value.strip_prefix("Bearer ").unwrap_or(value).trim();
                if SECRET_HEADERS.iter().any(|s| name.eq_ignore_ascii_case(s)) && key.len() >= 8 {
                    r.body = replace_bytes(&r.body, key.as_bytes(), MASK.as_bytes());
                }
            }
        }
    }
    for (_, v) in &mut r.headers {
        *v = redact_headers(v, request_headers);
    }
    r
}

fn replace_bytes(hay: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hay.len());
    let mut i = 0;
    while i < hay.len() {
        if hay[i..].starts_with(needle) {
            out.extend_from_slice(with);
            i += needle.len();
        } else {
            out.push(hay[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (issue 28): a 200 answer echoing the key was kept as it came.
    #[test]
    fn an_answer_echoing_the_key_is_redacted() {
        let key = "sk-evenhand-FAKE-0123456789abcdef";
        let headers = vec![("Authorization".to_string(), format!("Bearer {key}"))];
        let body = format!(r#"{{"choices":[{{"message":{{"content":"you sent Bearer {key}"}}}}]}}"#);
        let raw = super::super::response::RawResponse {
            status: 200,
            headers: vec![("x-echo".into(), key.into())],
            body: body.into_bytes(),
        };
        let out = redact_response(raw, &headers);
        let text = String::from_utf8(out.body).unwrap();
        assert!(!text.contains(key) && text.contains(MASK), "{text}");
        assert_eq!(out.headers[0].1, MASK);
        let mut binary = vec![0xff, 0xfe];
        binary.extend_from_slice(key.as_bytes());
        let raw = super::super::response::RawResponse { status: 200, headers: vec![], body: binary };
        let x = [("x-api-key".to_string(), key.to_string())];
        assert_eq!(redact_response(raw, &x).body, [&[0xffu8, 0xfe][..], MASK.as_bytes()].concat());
    }

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
