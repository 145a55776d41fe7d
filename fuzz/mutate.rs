//! Input mutations. Generic byte edits find what a parser forgot; the text-aware ones (quotes,
//! delimiters, line ends, numbers that overflow, JSON values of the wrong kind, deep nesting)
//! reach the checks behind the first syntax error, which random bytes rarely get past.

/// Inputs are kept below this size so one execution stays cheap and memory stays bounded.
pub const MAX_INPUT: usize = 64 * 1024;

/// SplitMix64: tiny, seedable and the same on every platform, so a seed replays exactly.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Cells and values that readers tend to trust: overflowing and non-finite numbers, signs,
/// empty and whitespace cells, spreadsheet formulas, JSON of the wrong kind.
const TOKENS: &[&str] = &[
    "0",
    "-0",
    "-1",
    "1e309",
    "-1e309",
    "1e-400",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775808",
    "-9223372036854775809",
    "4294967296",
    "4294967295",
    "2147483647",
    "65535",
    "1000000",
    "99999999999999999999999999999",
    "0x10",
    "1,5",
    "1.7976931348623157e308",
    "",
    " ",
    "\t",
    "null",
    "true",
    "[]",
    "{}",
    "[1,2]",
    "{\"a\":1}",
    "\"\"",
    "=1+1",
    "@SUM(A1)",
    "\u{feff}",
    "\u{0}",
    "\u{202e}",
    "é",
    "\u{1F600}",
    "{",
    "}",
    "{{",
    "}}",
    "{name}",
    "[",
    "]",
    "'",
    "\\",
    "\\u0000",
    "\\ud800",
];

const INVALID_UTF8: &[&[u8]] =
    &[b"\xff", b"\xc3", b"\xe2\x82", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80"];

/// Applies one to four random mutations. `others` are inputs to splice from.
pub fn mutate(rng: &mut Rng, input: &[u8], others: &[&[u8]]) -> Vec<u8> {
    let mut out = input.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        one(rng, &mut out, others);
    }
    out.truncate(MAX_INPUT);
    out
}

fn one(rng: &mut Rng, b: &mut Vec<u8>, others: &[&[u8]]) {
    match rng.below(22) {
        0 => flip_bit(rng, b),
        1 => set_byte(rng, b),
        2 => insert_bytes(rng, b),
        3 => delete_range(rng, b),
        4 => duplicate_range(rng, b),
        5 => splice(rng, b, others),
        6 => insert_one_of(rng, b, &[b"\"", b"\"\"", b"'"]),
        7 => insert_one_of(rng, b, &[b",", b"\t", b";", b"|", b",,"]),
        8 => insert_one_of(rng, b, &[b"\n", b"\r\n", b"\r", b"\n\n", b"\x0b"]),
        9 => {
            if !b.starts_with(b"\xEF\xBB\xBF") {
                b.splice(0..0, b"\xEF\xBB\xBF".iter().copied());
            }
        }
        10 | 11 => replace_token(rng, b),
        12 => duplicate_header(rng, b),
        13 => insert_one_of(rng, b, INVALID_UTF8),
        14 => line_edit(rng, b),
        15 => truncate(rng, b),
        16 => nest(rng, b),
        17 => replace_quoted(rng, b),
        18 => {
            let token = *rng.pick(TOKENS);
            insert_at(rng, b, token.as_bytes())
        }
        19 => repeat_line(rng, b),
        20 => drop_cell(rng, b),
        _ => arith(rng, b),
    }
}

fn insert_one_of(rng: &mut Rng, b: &mut Vec<u8>, items: &[&[u8]]) {
    let what = items[rng.below(items.len())];
    insert_at(rng, b, what);
}

fn flip_bit(rng: &mut Rng, b: &mut [u8]) {
    if !b.is_empty() {
        let i = rng.below(b.len());
        b[i] ^= 1 << rng.below(8);
    }
}

fn set_byte(rng: &mut Rng, b: &mut [u8]) {
    if !b.is_empty() {
        let i = rng.below(b.len());
        // Mostly bytes that mean something to a text reader.
        b[i] = if rng.chance(2) { *rng.pick(b"\",;\t\n\r{}[]:0123456789.-+eE \\'#") } else { rng.next() as u8 };
    }
}

fn insert_bytes(rng: &mut Rng, b: &mut Vec<u8>) {
    let n = 1 + rng.below(8);
    let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
    insert_at(rng, b, &bytes);
}

fn insert_at(rng: &mut Rng, b: &mut Vec<u8>, what: &[u8]) {
    let at = rng.below(b.len() + 1);
    b.splice(at..at, what.iter().copied());
}

fn range(rng: &mut Rng, len: usize) -> (usize, usize) {
    if len == 0 {
        return (0, 0);
    }
    let start = rng.below(len);
    let max = (len - start).min(if rng.chance(4) { len } else { 16 });
    (start, start + 1 + rng.below(max))
}

fn delete_range(rng: &mut Rng, b: &mut Vec<u8>) {
    let (s, e) = range(rng, b.len());
    b.drain(s..e);
}

fn duplicate_range(rng: &mut Rng, b: &mut Vec<u8>) {
    let (s, e) = range(rng, b.len());
    let copy = b[s..e].to_vec();
    insert_at(rng, b, &copy);
}

/// Part of another input, dropped in at a random place or replacing our tail.
fn splice(rng: &mut Rng, b: &mut Vec<u8>, others: &[&[u8]]) {
    if others.is_empty() {
        return;
    }
    let other = *rng.pick(others);
    let (s, e) = range(rng, other.len());
    if rng.chance(2) {
        let cut = rng.below(b.len() + 1);
        b.truncate(cut);
        b.extend_from_slice(&other[s..]);
    } else {
        insert_at(rng, b, &other[s..e]);
    }
}

/// Spans of ASCII digits (with sign, point and exponent) in `b`.
fn numbers(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let mut s = i;
            if s > 0 && b[s - 1] == b'-' {
                s -= 1;
            }
            while i < b.len() && (b[i].is_ascii_digit() || b".eE+-".contains(&b[i])) {
                i += 1;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

/// A number replaced by one that overflows, underflows or is not finite; else a token anywhere.
fn replace_token(rng: &mut Rng, b: &mut Vec<u8>) {
    let spans = numbers(b);
    let token = rng.pick(TOKENS).as_bytes();
    if spans.is_empty() || rng.chance(4) {
        insert_at(rng, b, token);
    } else {
        let (s, e) = *rng.pick(&spans);
        b.splice(s..e, token.iter().copied());
    }
}

fn arith(rng: &mut Rng, b: &mut Vec<u8>) {
    let spans = numbers(b);
    if spans.is_empty() {
        return;
    }
    let (s, e) = *rng.pick(&spans);
    let text = String::from_utf8_lossy(&b[s..e]).to_string();
    let new = match text.parse::<i128>() {
        Ok(n) => match rng.below(5) {
            0 => n.saturating_add(1).to_string(),
            1 => n.saturating_sub(1).to_string(),
            2 => n.saturating_neg().to_string(),
            3 => n.saturating_mul(1 << 40).to_string(),
            _ => "0".to_string(),
        },
        Err(_) => format!("{text}{}", rng.below(10)),
    };
    b.splice(s..e, new.bytes());
}

/// Quoted string contents replaced by a token, a quote left open, or quotes doubled.
fn replace_quoted(rng: &mut Rng, b: &mut Vec<u8>) {
    let quotes: Vec<usize> = b.iter().enumerate().filter(|(_, c)| **c == b'"').map(|(i, _)| i).collect();
    if quotes.len() < 2 {
        return;
    }
    let k = rng.below(quotes.len() - 1);
    let (s, e) = (quotes[k], quotes[k + 1]);
    match rng.below(3) {
        0 => {
            b.splice(s + 1..e, rng.pick(TOKENS).bytes());
        }
        1 => {
            b.remove(e);
        }
        _ => {
            // The whole quoted value becomes a value of another JSON kind.
            b.splice(s..=e, rng.pick(&["null", "1", "true", "[]", "{}", "[\"x\"]", "{\"x\":\"y\"}"]).bytes());
        }
    }
}

fn line_spans(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = vec![];
    let mut start = 0;
    for (i, c) in b.iter().enumerate() {
        if *c == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < b.len() {
        out.push((start, b.len()));
    }
    out
}

/// A line deleted, swapped with another, or moved to the end.
fn line_edit(rng: &mut Rng, b: &mut Vec<u8>) {
    let lines = line_spans(b);
    if lines.len() < 2 {
        return;
    }
    let parts: Vec<Vec<u8>> = lines.iter().map(|&(s, e)| b[s..e].to_vec()).collect();
    let mut parts = parts;
    let i = rng.below(parts.len());
    match rng.below(3) {
        0 => {
            parts.remove(i);
        }
        1 => {
            let j = rng.below(parts.len());
            parts.swap(i, j);
        }
        _ => {
            let line = parts.remove(i);
            parts.push(line);
        }
    }
    *b = parts.concat();
}

/// A line repeated many times: duplicate ids, and more rows than the seeds have.
fn repeat_line(rng: &mut Rng, b: &mut Vec<u8>) {
    let lines = line_spans(b);
    if lines.is_empty() {
        return;
    }
    let (s, e) = *rng.pick(&lines);
    let mut line = b[s..e].to_vec();
    if !line.ends_with(b"\n") {
        line.push(b'\n');
    }
    let most = if rng.chance(8) { 200 } else { 3 };
    let times = 1 + rng.below(most);
    let copy = line.repeat(times);
    b.splice(e..e, copy);
}

/// The first cell of the header repeated at its end (`a,b` becomes `a,b,a`).
fn duplicate_header(rng: &mut Rng, b: &mut Vec<u8>) {
    let end = b.iter().position(|&c| c == b'\n').unwrap_or(b.len());
    let header = &b[..end];
    let delim = [b',', b'\t', b';'].into_iter().find(|d| header.contains(d)).unwrap_or(b',');
    let cells: Vec<&[u8]> = header.split(|&c| c == delim).collect();
    let cell = cells[rng.below(cells.len())].to_vec();
    let at = if header.ends_with(b"\r") { end - 1 } else { end };
    let mut add = vec![delim];
    add.extend_from_slice(&cell);
    b.splice(at..at, add);
}

/// One delimited cell of a line removed, leaving a short row.
fn drop_cell(rng: &mut Rng, b: &mut Vec<u8>) {
    let lines = line_spans(b);
    if lines.is_empty() {
        return;
    }
    let (s, e) = *rng.pick(&lines);
    if let Some(k) = b[s..e].iter().position(|c| b",\t;".contains(c)) {
        let rest = b[s + k + 1..e].iter().position(|c| b",\t;\n".contains(c)).map_or(e, |p| s + k + 1 + p);
        b.drain(s + k..rest);
    }
}

fn truncate(rng: &mut Rng, b: &mut Vec<u8>) {
    let at = rng.below(b.len() + 1);
    b.truncate(at);
}

/// Deep nesting: a recursive reader that has no depth limit would overflow the stack (in the
/// browser the wasm stack is small).
fn nest(rng: &mut Rng, b: &mut Vec<u8>) {
    let most = if rng.chance(4) { 5000 } else { 200 };
    let depth = 1 + rng.below(most);
    let (open, close): (&[u8], &[u8]) = *rng.pick(&[(&b"["[..], &b"]"[..]), (b"{\"a\":", b"}"), (b"(", b")")]);
    let at = rng.below(b.len() + 1);
    let mut add = open.repeat(depth);
    if rng.chance(2) {
        add.extend(close.repeat(depth));
    }
    b.splice(at..at, add);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_mutants() {
        let seed = b"a,b\n1,\"x\"\n2,3.5\n";
        let run = |s| {
            let mut r = Rng::new(s);
            (0..50).map(|_| mutate(&mut r, seed, &[b"{\"k\":[1]}"])).collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }
}
