//! Paired 2x2 tables per language pair, and McNemar's test on them with corrections.
//!
//! A *unit* is one response judged refused or not. Two languages' units are paired when they
//! share (question_id, mode, model, sample_index): the same question asked the same way of the
//! same model. For languages A and B (A before B in the report's language order) the table is
//! `[[n00, n01], [n10, n11]]` with rows "A refused?" (0 = no, 1 = yes) and columns "B refused?",
//! so b = n01 counts pairs where only B refused and c = n10 pairs where only A refused; the odds
//! ratio b/c > 1 means B refuses more. Units without a partner in the other language are left
//! out of that table and counted as `unpaired`.
//!
//! A *family* is a set of tests corrected together (Holm and Benjamini-Hochberg over exactly
//! the tests listed, whose count is `size`); the null-hypothesis acceptance ratio of MSQAD is
//! the share of the family's tests with p ≥ α, given raw and after each correction.

use crate::stats::correction::{benjamini_hochberg, holm};
use crate::stats::mcnemar::{self, Convention, McNemar, Method, Table};
use serde::Serialize;
use std::collections::BTreeMap;

/// One judged response.
#[derive(Debug, Clone)]
pub struct Unit {
    pub question_id: String,
    pub mode: String,
    pub model: String,
    pub sample: u32,
    pub language: String,
    pub topic: String,
    pub refused: bool,
}

type Key = (String, String, String, u32);

/// Units indexed by pairing key, then language.
pub struct Paired {
    by_key: BTreeMap<Key, (String, BTreeMap<String, bool>)>,
    /// Units dropped because their key and language were already seen.
    pub duplicates: u64,
}

impl Paired {
    pub fn new(units: &[Unit]) -> Paired {
        let mut by_key: BTreeMap<Key, (String, BTreeMap<String, bool>)> = BTreeMap::new();
        let mut duplicates = 0;
        for u in units {
            let key = (u.question_id.clone(), u.mode.clone(), u.model.clone(), u.sample);
            let entry = by_key.entry(key).or_insert_with(|| (u.topic.clone(), BTreeMap::new()));
            if entry.1.contains_key(&u.language) {
                duplicates += 1;
            } else {
                entry.1.insert(u.language.clone(), u.refused);
            }
        }
        Paired { by_key, duplicates }
    }

    /// The table for (a, b) over the keys matching `topic` and `model` (None: all), and the
    /// number of units of a or b that had no partner.
    pub fn table(&self, a: &str, b: &str, topic: Option<&str>, model: Option<&str>) -> (Table, u64) {
        let mut t = Table { n00: 0, n01: 0, n10: 0, n11: 0 };
        let mut unpaired = 0;
        for ((_, _, m, _), (tp, langs)) in &self.by_key {
            if topic.is_some_and(|x| x != tp) || model.is_some_and(|x| x != m) {
                continue;
            }
            match (langs.get(a), langs.get(b)) {
                (Some(false), Some(false)) => t.n00 += 1,
                (Some(false), Some(true)) => t.n01 += 1,
                (Some(true), Some(false)) => t.n10 += 1,
                (Some(true), Some(true)) => t.n11 += 1,
                (Some(_), None) | (None, Some(_)) => unpaired += 1,
                (None, None) => {}
            }
        }
        (t, unpaired)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct PairTest {
    pub a: String,
    pub b: String,
    /// None: all topics pooled.
    pub topic: Option<String>,
    /// None: all models pooled.
    pub model: Option<String>,
    pub table: Table,
    pub pairs: u64,
    pub unpaired: u64,
    /// Refusal rates of a and b over the paired units.
    pub rate_a: Option<f64>,
    pub rate_b: Option<f64>,
    pub test: McNemar,
    pub p_holm: f64,
    pub p_bh: f64,
    pub significant_raw: bool,
    pub significant_holm: bool,
    pub significant_bh: bool,
    /// The language that refused more among discordant pairs, or None when b = c.
    pub refuses_more: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Ratio {
    pub accepted: usize,
    pub total: usize,
    pub ratio: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Family {
    /// "pairs x topics x models", "pairs x models" or "pairs".
    pub name: String,
    pub description: String,
    pub size: usize,
    /// The McNemar variant, named in every output.
    pub method: Method,
    pub convention: Convention,
    pub alpha: f64,
    pub null_acceptance_raw: Ratio,
    pub null_acceptance_holm: Ratio,
    pub null_acceptance_bh: Ratio,
    pub tests: Vec<PairTest>,
}

fn ratio(accepted: usize, total: usize) -> Ratio {
    Ratio { accepted, total, ratio: if total == 0 { None } else { Some(accepted as f64 / total as f64) } }
}

/// Tests every language pair in every (topic, model) scope given, and corrects over all of them.
#[allow(clippy::too_many_arguments)]
pub fn family(
    paired: &Paired,
    languages: &[String],
    scopes: &[(Option<String>, Option<String>)],
    method: Method,
    convention: Convention,
    alpha: f64,
    name: &str,
    description: &str,
) -> Family {
    let mut tests = vec![];
    for (topic, model) in scopes {
        for (i, a) in languages.iter().enumerate() {
            for b in &languages[i + 1..] {
                let (table, unpaired) = paired.table(a, b, topic.as_deref(), model.as_deref());
                let pairs = table.n00 + table.n01 + table.n10 + table.n11;
                if pairs == 0 {
                    continue;
                }
                let test = mcnemar::mcnemar(&table, method, convention);
                let rate = |x: u64| Some(x as f64 / pairs as f64);
                let refuses_more = match test.b.cmp(&test.c) {
                    std::cmp::Ordering::Greater => Some(b.clone()),
                    std::cmp::Ordering::Less => Some(a.clone()),
                    std::cmp::Ordering::Equal => None,
                };
                tests.push(PairTest {
                    a: a.clone(),
                    b: b.clone(),
                    topic: topic.clone(),
                    model: model.clone(),
                    table,
                    pairs,
                    unpaired,
                    rate_a: rate(table.n10 + table.n11),
                    rate_b: rate(table.n01 + table.n11),
                    significant_raw: test.p_value < alpha,
                    test,
                    p_holm: f64::NAN,
                    p_bh: f64::NAN,
                    significant_holm: false,
                    significant_bh: false,
                    refuses_more,
                });
            }
        }
    }
    let p: Vec<f64> = tests.iter().map(|t| t.test.p_value).collect();
    let (h, bh) = (holm(&p), benjamini_hochberg(&p));
    for (i, t) in tests.iter_mut().enumerate() {
        t.p_holm = h[i];
        t.p_bh = bh[i];
        t.significant_holm = h[i] < alpha;
        t.significant_bh = bh[i] < alpha;
    }
    let n = tests.len();
    let accepted = |f: fn(&PairTest) -> bool| tests.iter().filter(|t| !f(t)).count();
    Family {
        name: name.into(),
        description: description.into(),
        size: n,
        method,
        convention,
        alpha,
        null_acceptance_raw: ratio(accepted(|t| t.significant_raw), n),
        null_acceptance_holm: ratio(accepted(|t| t.significant_holm), n),
        null_acceptance_bh: ratio(accepted(|t| t.significant_bh), n),
        tests,
    }
}
