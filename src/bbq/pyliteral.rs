//! A tiny reader for the Python literals GG-BBQ stores inside JSON strings, such as
//! `{0: ['Der Mann', 'M'], 1: ['Die Frau', 'F'], 2: ['keine Antwort', 'unknown']}` and
//! `['a', "b"]`. Only what those files use: dicts with integer keys, lists, and strings.

#[derive(Debug, Clone, PartialEq)]
pub enum Py {
    Int(i64),
    Str(String),
    List(Vec<Py>),
    Dict(Vec<(Py, Py)>),
}

/// A syntax error with the character position where it was found.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("at character {position}: expected {expected}")]
pub struct PyError {
    pub position: usize,
    pub expected: &'static str,
}

/// Deeper nesting is refused: the reader recurses once per bracket, and a file of opening
/// brackets would otherwise overflow the stack (the page's wasm stack is small).
pub const MAX_DEPTH: usize = 64;

struct Reader<'a> {
    chars: Vec<char>,
    at: usize,
    depth: usize,
    _text: &'a str,
}

impl Reader<'_> {
    fn skip_space(&mut self) {
        while self.chars.get(self.at).is_some_and(|c| c.is_whitespace()) {
            self.at += 1;
        }
    }

    fn err<T>(&self, expected: &'static str) -> Result<T, PyError> {
        Err(PyError { position: self.at + 1, expected })
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        if self.chars.get(self.at) == Some(&c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Py, PyError> {
        self.skip_space();
        match self.chars.get(self.at) {
            Some('{') => self.seq('{', '}', true),
            Some('[') | Some('(') => {
                let close = if self.chars[self.at] == '[' { ']' } else { ')' };
                self.seq(self.chars[self.at], close, false)
            }
            Some(q @ ('\'' | '"')) => {
                let quote = *q;
                self.at += 1;
                let mut s = String::new();
                loop {
                    match self.chars.get(self.at) {
                        None => return self.err("a closing quote"),
                        Some('\\') => {
                            let escaped = match self.chars.get(self.at + 1) {
                                Some('n') => '\n',
                                Some('t') => '\t',
                                Some(c) => *c,
                                None => return self.err("a character after the backslash"),
                            };
                            s.push(escaped);
                            self.at += 2;
                        }
                        Some(c) if *c == quote => {
                            self.at += 1;
                            return Ok(Py::Str(s));
                        }
                        Some(c) => {
                            s.push(*c);
                            self.at += 1;
                        }
                    }
                }
            }
            Some(c) if c.is_ascii_digit() || *c == '-' => {
                let start = self.at;
                self.at += 1;
                while self.chars.get(self.at).is_some_and(|c| c.is_ascii_digit()) {
                    self.at += 1;
                }
                let digits: String = self.chars[start..self.at].iter().collect();
                digits.parse().map(Py::Int).or_else(|_| self.err("an integer"))
            }
            _ => self.err("a string, an integer, a list or a dict"),
        }
    }

    fn seq(&mut self, open: char, close: char, dict: bool) -> Result<Py, PyError> {
        if !self.eat(open) {
            return self.err("an opening bracket");
        }
        if self.depth >= MAX_DEPTH {
            return self.err("at most 64 nested brackets");
        }
        self.depth += 1;
        let v = self.items(close, dict);
        self.depth -= 1;
        v
    }

    fn items(&mut self, close: char, dict: bool) -> Result<Py, PyError> {
        let mut items = vec![];
        let mut pairs = vec![];
        loop {
            if self.eat(close) {
                break;
            }
            let key = self.value()?;
            if dict {
                if !self.eat(':') {
                    return self.err("':' after a dict key");
                }
                pairs.push((key, self.value()?));
            } else {
                items.push(key);
            }
            if !self.eat(',') {
                if self.eat(close) {
                    break;
                }
                return self.err("',' or a closing bracket");
            }
        }
        Ok(if dict { Py::Dict(pairs) } else { Py::List(items) })
    }
}

pub fn parse(text: &str) -> Result<Py, PyError> {
    let mut r = Reader { chars: text.chars().collect(), at: 0, depth: 0, _text: text };
    let v = r.value()?;
    r.skip_space();
    if r.at < r.chars.len() {
        return r.err("the end of the literal");
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_ggbbq_shapes() {
        let v = parse("{0: ['Der Mann', 'M'], 1: ['Die Frau', \"F\"], 2: ['keine Antwort', 'unknown']}").unwrap();
        let Py::Dict(pairs) = v else { panic!() };
        assert_eq!(pairs.len(), 3);
        assert_eq!(pairs[1], (Py::Int(1), Py::List(vec![Py::Str("Die Frau".into()), Py::Str("F".into())])));
        assert_eq!(
            parse("['it\\'s', 'a, b']").unwrap(),
            Py::List(vec![Py::Str("it's".into()), Py::Str("a, b".into())])
        );
        assert_eq!(parse("[]").unwrap(), Py::List(vec![]));
    }

    #[test]
    fn broken_literals_say_where() {
        assert_eq!(parse("{0: ['a', 'b'}").unwrap_err().position, 14); // the '}' where ']' belongs
        assert!(parse("{0 ['a']}").is_err());
        assert!(parse("['open").is_err());
        assert!(parse("[1] x").is_err());
        assert!(parse("").is_err());
    }

    /// Found by the fuzz harness (kobbq_data): a choices cell of many opening brackets
    /// overflowed the stack instead of being refused.
    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let deep = "[".repeat(100_000);
        assert_eq!(parse(&deep).unwrap_err().expected, "at most 64 nested brackets");
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&ok).is_ok());
        let too_deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(parse(&too_deep).is_err());
    }
}
