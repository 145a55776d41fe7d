//! Per-community statistics from the counterfactual sets: the instances of one template
//! (for one model and sample) differ only in the community filled in, so a template set is a
//! block and the communities are its treatments.
//!
//! The community of an instance is the one filling the template's first placeholder (`ROOT`,
//! or `ROOT1`): for templates with two placeholders the pairings average over the second.
//! Only Passed and Failed instances enter; a block missing a community's outcome is left out
//! of the tests (and counted), since both tests need complete blocks.
//!
//! Categorical oracles:
//! - Cochran's Q over the k communities ([`crate::stats::cochran`]), passes as successes;
//!   when no block has differing outcomes Q is undefined and p = 1.
//! - Pairwise McNemar tests (exact binomial by default, [`crate::stats::mcnemar`]) for every
//!   pair of communities over the same blocks.
//!
//! Number oracles (`allSameValue`, values on 0-100):
//! - per-community mean with a 95 % Student-t interval ([`crate::stats::student`]);
//! - the spread (largest minus smallest community mean) as the effect size, with a bootstrap
//!   interval (blocks resampled with replacement, 999 draws, nearest-rank percentile,
//!   [`Percentile::Nearest`]);
//! - a permutation test of the spread: community labels shuffled within each block (so the
//!   template effect is kept), 999 permutations, p = (k + 1) / (P + 1) with k the permuted
//!   spreads at least the observed one. Every draw comes from `rng_for(seed, [what, group])`.
//!
//! Holm and Benjamini-Hochberg corrections run over one family: every Cochran's Q, McNemar and
//! permutation p-value of the evaluation, and the family size is reported with them.

use super::outcome::{Evaluation, Outcome};
use crate::fasthash::Runs;
use crate::record::Record;
use crate::rng::rng_for;
use crate::stats::bootstrap::Percentile;
use crate::stats::cochran::cochran_q;
use crate::stats::correction::{benjamini_hochberg, holm};
use crate::stats::mcnemar::{Convention, Method, Table, mcnemar};
use crate::stats::student::{MeanInterval, mean_interval};
use rand::RngExt;
use rand::seq::SliceRandom;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

pub const DRAWS: usize = 999;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommunityMean {
    pub community: String,
    pub n: usize,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Test {
    /// "cochran-q", "mcnemar-exact" or "permutation-spread".
    pub test: String,
    /// The communities compared (two for McNemar, all for the others).
    pub communities: Vec<String>,
    pub statistic: Option<f64>,
    pub p_value: f64,
    pub p_holm: f64,
    pub p_bh: f64,
    pub note: String,
}

/// One (provider, model, concern, language) group's community analysis.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommunityStats {
    pub provider: String,
    pub model: String,
    pub concern: String,
    pub language: String,
    /// "categorical" or "numeric".
    pub kind: &'static str,
    pub blocks: usize,
    pub incomplete_blocks: usize,
    /// Pass rate per community (categorical) as a mean of 0/1, or mean value (numeric).
    pub means: Vec<CommunityMean>,
    /// Numeric only: the spread of community means and its bootstrap interval.
    pub spread: Option<(f64, f64, f64)>,
    pub tests: Vec<Test>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Communities {
    pub groups: Vec<CommunityStats>,
    /// How many p-values the corrections ran over.
    pub family_size: usize,
    pub family: &'static str,
}

fn first_community(r: &Record) -> Option<&String> {
    // BTreeMap order sorts "GENDER" before "GENDER1" before "GENDER2".
    r.communities.values().next()
}

/// Community -> value in one block (one template for one model and sample).
type Block = BTreeMap<String, f64>;
/// (provider, model, concern, language, "categorical" or "numeric"), borrowed from the records.
type GroupKey<'a> = (&'a str, &'a str, &'a str, &'a str, &'static str);
/// (template id, sample, requirement): one block, borrowed from the records.
type BlockKey<'a> = (&'a str, u32, &'a str);

/// The analysis over `evals` (default mode) of `records`.
pub fn analyze(records: &[Record], evals: &[Evaluation], seed: u64) -> Communities {
    analyze_of(&super::outcome::judged_records(records, evals, None), evals, seed)
}

/// [`analyze`] with the record of each evaluation given ([`super::outcome::judged_records`]).
pub fn analyze_of(judged: &[Option<&Record>], evals: &[Evaluation], seed: u64) -> Communities {
    // group -> block -> community -> value (1/0 for pass/fail, the number for numeric).
    // Gathered in hash maps under borrowed keys; sorted once below.
    let mut gathered: Runs<GroupKey, Runs<BlockKey, Block>> = Runs::default();
    for (e, r) in evals.iter().zip(judged).filter(|(e, _)| matches!(e.outcome, Outcome::Passed | Outcome::Failed)) {
        let Some(r) = r else { continue };
        let Some(community) = first_community(r) else { continue };
        let numeric = e.operation == super::oracle::Operation::AllSameValue;
        let value = if numeric { e.value } else { Some(f64::from(u8::from(e.outcome == Outcome::Passed))) };
        let Some(value) = value else { continue };
        let kind = if numeric { "numeric" } else { "categorical" };
        let key = (r.provider.as_str(), r.model.as_str(), r.concern.as_str(), r.language.as_str(), kind);
        let block = (r.template_id.as_str(), r.sample_index, r.extra.get("requirement").map_or("", String::as_str));
        // Several instances of one block may share a first community (two placeholders): average them.
        let cell = gathered.entry(key).entry(block);
        let slot = cell.entry(community.clone()).or_insert(f64::NAN);
        *slot = if slot.is_nan() { value } else { (*slot + value) / 2.0 };
    }
    // Groups in key order, and each group's blocks in the order of their text keys: the
    // permutation and bootstrap draws walk the blocks in this order, so it fixes the p-values.
    let mut groups: Vec<(GroupKey, Runs<BlockKey, Block>)> = gathered.into_entries();
    groups.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let groups = groups.into_iter().map(|((provider, model, concern, language, kind), blocks)| {
        let blocks: BTreeMap<String, Block> = blocks
            .into_entries()
            .into_iter()
            .map(|((template, sample, requirement), b)| (format!("{template}\u{1f}{sample}\u{1f}{requirement}"), b))
            .collect();
        ((provider.to_string(), model.to_string(), concern.to_string(), language.to_string(), kind), blocks)
    });
    let mut out = vec![];
    for ((provider, model, concern, language, kind), blocks) in groups {
        let communities: BTreeSet<String> = blocks.values().flat_map(|b| b.keys().cloned()).collect();
        let communities: Vec<String> = communities.into_iter().collect();
        if communities.len() < 2 {
            continue;
        }
        let complete: Vec<&Block> = blocks.values().filter(|b| b.len() == communities.len()).collect();
        let label = format!("{provider}/{model}/{concern}/{language}");
        let means = means(&communities, &blocks);
        let (tests, spread) = if kind == "categorical" {
            (categorical_tests(&communities, &complete), None)
        } else {
            numeric_tests(&communities, &complete, seed, &label)
        };
        out.push(CommunityStats {
            provider,
            model,
            concern,
            language,
            kind,
            blocks: complete.len(),
            incomplete_blocks: blocks.len() - complete.len(),
            means,
            spread,
            tests,
        });
    }
    let all: Vec<f64> = out.iter().flat_map(|g| g.tests.iter().map(|t| t.p_value)).collect();
    let (h, b) = (holm(&all), benjamini_hochberg(&all));
    let mut i = 0;
    for g in &mut out {
        for t in &mut g.tests {
            (t.p_holm, t.p_bh) = (h[i], b[i]);
            i += 1;
        }
    }
    Communities {
        groups: out,
        family_size: all.len(),
        family: "every community test of this evaluation (Cochran's Q, pairwise McNemar, permutation spread) over providers, models, concerns and languages",
    }
}

/// Community means carry a 95 % interval whatever the evaluation's confidence, as published.
const MEAN_CONFIDENCE: f64 = 0.95;

fn means(communities: &[String], blocks: &BTreeMap<String, Block>) -> Vec<CommunityMean> {
    communities
        .iter()
        .map(|c| {
            let xs: Vec<f64> = blocks.values().filter_map(|b| b.get(c).copied()).collect();
            let MeanInterval { n, mean, low, high } = mean_interval(&xs, MEAN_CONFIDENCE);
            CommunityMean { community: c.clone(), n, mean, low, high }
        })
        .collect()
}

/// Complete blocks as a dense row-major matrix: one row per block, one column per community.
fn matrix(communities: &[String], blocks: &[&Block]) -> Vec<f64> {
    blocks.iter().flat_map(|b| communities.iter().map(|c| b[c])).collect()
}

fn test(name: &str, communities: Vec<String>, statistic: Option<f64>, p_value: f64, note: String) -> Test {
    Test { test: name.into(), communities, statistic, p_value, p_holm: p_value, p_bh: p_value, note }
}

/// Cochran's Q and every pairwise exact McNemar test over complete blocks of 0/1 outcomes.
pub fn categorical_tests(communities: &[String], blocks: &[&Block]) -> Vec<Test> {
    let mut tests = vec![match cochran_q(&matrix(communities, blocks), communities.len()) {
        Some(q) => test(
            "cochran-q",
            communities.to_vec(),
            Some(q.statistic),
            q.p_value,
            format!("{} blocks, {} df", blocks.len(), q.df),
        ),
        None => test(
            "cochran-q",
            communities.to_vec(),
            None,
            1.0,
            "no block had differing outcomes: Q undefined, p = 1".into(),
        ),
    }];
    for (i, a) in communities.iter().enumerate() {
        for b in &communities[i + 1..] {
            let mut t = Table { n00: 0, n01: 0, n10: 0, n11: 0 };
            for blk in blocks {
                // Averaged cells (two placeholders) round to the majority outcome.
                match (blk[a] >= 0.5, blk[b] >= 0.5) {
                    (false, false) => t.n00 += 1,
                    (false, true) => t.n01 += 1,
                    (true, false) => t.n10 += 1,
                    (true, true) => t.n11 += 1,
                }
            }
            let m = mcnemar(&t, Method::Exact, Convention::Statsmodels);
            tests.push(test("mcnemar-exact", vec![a.clone(), b.clone()], m.statistic, m.p_value, m.note));
        }
    }
    tests
}

/// Largest minus smallest column mean of a blocks x communities matrix given by column sums.
fn spread_of_sums(sums: &[f64], rows: usize) -> f64 {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for s in sums {
        let mean = s / rows as f64;
        lo = lo.min(mean);
        hi = hi.max(mean);
    }
    hi - lo
}

/// The permutation test of the spread and its bootstrap interval. The blocks are copied once
/// into a dense row-major matrix (one row per block, one column per community), so each
/// permutation only shuffles rows and adds them up.
fn numeric_tests(
    communities: &[String],
    blocks: &[&Block],
    seed: u64,
    label: &str,
) -> (Vec<Test>, Option<(f64, f64, f64)>) {
    if blocks.is_empty() {
        return (vec![], None);
    }
    let k = communities.len();
    let matrix = matrix(communities, blocks);
    let rows = blocks.len();
    let mut sums = vec![0.0; k];
    for row in matrix.chunks(k) {
        for (s, v) in sums.iter_mut().zip(row) {
            *s += v;
        }
    }
    let observed = spread_of_sums(&sums, rows);
    let mut rng = rng_for(seed, &[b"langbite-permutation", label.as_bytes()]);
    let mut at_least = 0;
    let mut scratch = vec![0.0; k];
    for _ in 0..DRAWS {
        sums.iter_mut().for_each(|s| *s = 0.0);
        for row in matrix.chunks(k) {
            scratch.copy_from_slice(row);
            scratch.shuffle(&mut rng);
            for (s, v) in sums.iter_mut().zip(&scratch) {
                *s += v;
            }
        }
        if spread_of_sums(&sums, rows) >= observed - 1e-12 {
            at_least += 1;
        }
    }
    let p = (at_least as f64 + 1.0) / (DRAWS as f64 + 1.0);
    let mut rng = rng_for(seed, &[b"langbite-bootstrap", label.as_bytes()]);
    let mut spreads: Vec<f64> = (0..DRAWS)
        .map(|_| {
            sums.iter_mut().for_each(|s| *s = 0.0);
            for _ in 0..rows {
                let r = rng.random_range(0..rows);
                for (s, v) in sums.iter_mut().zip(&matrix[r * k..(r + 1) * k]) {
                    *s += v;
                }
            }
            spread_of_sums(&sums, rows)
        })
        .collect();
    spreads.sort_by(f64::total_cmp);
    // The nearest replicate, not interpolated: the interval this method has published.
    let pick = |q: f64| Percentile::Nearest.of(&spreads, q).unwrap_or(f64::NAN);
    let note = format!("{rows} blocks, {DRAWS} permutations within blocks, p = (k + 1) / (P + 1)");
    (
        vec![test("permutation-spread", communities.to_vec(), Some(observed), p, note)],
        Some((observed, pick(0.025), pick(0.975))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(values: &[(&str, f64)]) -> Block {
        values.iter().map(|(c, v)| (c.to_string(), *v)).collect()
    }

    #[test]
    fn cochran_q_with_two_communities_is_mcnemars_chi_square() {
        // b = 6 blocks pass only for "a", c = 2 only for "b": Q = (b - c)^2 / (b + c) = 2.
        let mut blocks = vec![];
        blocks.extend((0..6).map(|_| block(&[("a", 1.0), ("b", 0.0)])));
        blocks.extend((0..2).map(|_| block(&[("a", 0.0), ("b", 1.0)])));
        blocks.extend((0..5).map(|_| block(&[("a", 1.0), ("b", 1.0)])));
        let refs: Vec<&Block> = blocks.iter().collect();
        let tests = categorical_tests(&["a".into(), "b".into()], &refs);
        assert!((tests[0].statistic.unwrap() - 2.0).abs() < 1e-12);
        assert!((tests[0].p_value - 0.157_299_207_050_285_1).abs() < 1e-12, "{}", tests[0].p_value);
        assert_eq!(tests[1].test, "mcnemar-exact");
        assert!((tests[1].p_value - 0.289_062_5).abs() < 1e-12, "2 * P(X <= 2), X ~ Bin(8, 1/2)");
    }

    #[test]
    fn cochran_q_matches_a_worked_example() {
        // Three treatments, rows of 0/1; Q by hand: C = (7, 3, 2), R = (…), N = 12.
        let rows = [[1, 1, 0], [1, 0, 0], [1, 1, 1], [1, 0, 0], [1, 0, 1], [1, 1, 0], [1, 0, 0], [0, 0, 0]];
        let blocks: Vec<Block> =
            rows.iter().map(|r| block(&[("x", r[0] as f64), ("y", r[1] as f64), ("z", r[2] as f64)])).collect();
        let refs: Vec<&Block> = blocks.iter().collect();
        let t = &categorical_tests(&["x".into(), "y".into(), "z".into()], &refs)[0];
        // k = 3, C = (7, 3, 2), N = 12, Σ R² = 4 + 1 + 9 + 1 + 4 + 4 + 1 + 0 = 24.
        let q = 2.0 * (3.0 * (49.0 + 9.0 + 4.0) - 144.0) / (3.0 * 12.0 - 24.0);
        assert!((t.statistic.unwrap() - q).abs() < 1e-12);
        assert!((t.p_value - libm::exp(-q / 2.0)).abs() < 1e-12, "chi-square with 2 df has sf exp(-x/2)");
        let same: Vec<Block> = (0..4).map(|_| block(&[("x", 1.0), ("y", 1.0)])).collect();
        let refs: Vec<&Block> = same.iter().collect();
        assert_eq!(categorical_tests(&["x".into(), "y".into()], &refs)[0].p_value, 1.0);
    }

    #[test]
    fn the_spread_test_finds_a_gap_and_not_noise() {
        let gap: Vec<Block> =
            (0..12).map(|i| block(&[("a", 50.0 + (i % 3) as f64), ("b", 70.0 + (i % 2) as f64)])).collect();
        let refs: Vec<&Block> = gap.iter().collect();
        let (tests, spread) = numeric_tests(&["a".into(), "b".into()], &refs, 1, "g");
        assert!(tests[0].p_value < 0.01, "{:?}", tests[0]);
        let (s, lo, hi) = spread.unwrap();
        assert!(lo <= s && s <= hi && s > 15.0);
        let noise: Vec<Block> =
            (0..12).map(|i| block(&[("a", 50.0 + (i % 3) as f64), ("b", 50.0 + ((i + 1) % 3) as f64)])).collect();
        let refs: Vec<&Block> = noise.iter().collect();
        assert!(numeric_tests(&["a".into(), "b".into()], &refs, 1, "g").0[0].p_value > 0.2);
        assert_eq!(
            numeric_tests(&["a".into(), "b".into()], &refs, 1, "g"),
            numeric_tests(&["a".into(), "b".into()], &refs, 1, "g")
        );
    }

    #[test]
    fn records_become_blocks_and_the_family_is_corrected_together() {
        use crate::requirements::oracle::Operation;
        let mut records = vec![];
        let mut evals = vec![];
        for t in 0..10 {
            for (c, pass) in [("men", true), ("women", t % 3 != 0)] {
                let id = format!("{t}-{c}");
                records.push(Record {
                    record_id: id.clone(),
                    provider: "p".into(),
                    model: "m".into(),
                    concern: "sexism".into(),
                    language: "en".into(),
                    template_id: format!("t{t}"),
                    communities: [("GENDER".to_string(), c.to_string())].into(),
                    ..Record::default()
                });
                let outcome = if pass { Outcome::Passed } else { Outcome::Failed };
                evals.push(Evaluation {
                    record_id: id,
                    template_id: format!("t{t}"),
                    operation: Operation::Equal,
                    outcome,
                    value: None,
                    reason: String::new(),
                });
            }
        }
        let a = analyze(&records, &evals, 7);
        assert_eq!((a.groups.len(), a.family_size), (1, 2));
        let g = &a.groups[0];
        assert_eq!((g.blocks, g.incomplete_blocks, g.kind), (10, 0, "categorical"));
        assert_eq!(g.means[0].mean, 1.0);
        assert!((g.means[1].mean - 0.6).abs() < 1e-12);
        assert!(g.tests.iter().all(|t| t.p_holm >= t.p_value && t.p_bh >= t.p_value));
    }
}
