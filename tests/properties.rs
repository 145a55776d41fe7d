//! Property tests of the statistics: laws that hold for every input, checked on generated ones.
//! Case counts are kept small so the file runs in a few seconds; proptest prints the smallest
//! failing input it finds.

#![cfg(not(target_arch = "wasm32"))] // proptest is a native-only dev-dependency

use evenhand::bbq::metrics::{Counts, scores};
use evenhand::bbq::{Condition, Example, Polarity, Subset};
use evenhand::divergence::formulas::context_terms;
use evenhand::divergence::smoothing::{Smoothing, smooth};
use evenhand::stats::cluster::{ClusterCount, clustered_rate};
use evenhand::stats::confidence::Confidence;
use evenhand::stats::distance::Distance;
use evenhand::stats::mcnemar::{Convention, MAX_COUNT, Method, Table, mcnemar};
use evenhand::stats::multivariate::Vectors;
use evenhand::stats::paired::paired_mcnemar;
use evenhand::stats::permanova::{Input, Options, permanova};
use evenhand::stats::proportion::wilson;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

const METHODS: [Method; 4] = [Method::Exact, Method::MidP, Method::Chi2, Method::Chi2Cc];
const CONVENTIONS: [Convention; 2] = [Convention::Statsmodels, Convention::R];

/// Counts from the whole allowed range, with small ones (where the exact tests differ most)
/// drawn as often as huge ones.
fn count() -> impl Strategy<Value = u64> {
    prop_oneof![0u64..50, 0u64..100_000, (MAX_COUNT - 1000)..=MAX_COUNT, 0u64..=MAX_COUNT]
}

/// A fixed seed and no regression files: the same cases on every machine and run, so CI never
/// fails on a draw nobody can reproduce (change the seed by hand to explore further).
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20_261_125),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Equal within `rel` of the larger magnitude, or of 1 near zero (an F of 0 computed in another
/// order comes out as ±1e-15).
fn close(a: f64, b: f64, rel: f64) -> bool {
    a == b || (a - b).abs() <= rel * a.abs().max(b.abs()).max(1.0) || (a.is_nan() && b.is_nan())
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn mcnemar_is_symmetric_in_b_and_c_and_p_is_a_probability(
        n00 in count(), b in count(), c in count(), n11 in count(), m in 0usize..4, k in 0usize..2,
    ) {
        let (method, convention) = (METHODS[m], CONVENTIONS[k]);
        // The exact tests take seconds on b + c near 2^54 (their binomial tail), so they get
        // counts up to a million here; the chi-square ones take the whole range.
        let (b, c) = if matches!(method, Method::Exact | Method::MidP) { (b % 1_000_000, c % 1_000_000) } else { (b, c) };
        let one = mcnemar(&Table::new(n00, b, c, n11).unwrap(), method, convention);
        let other = mcnemar(&Table::new(n00, c, b, n11).unwrap(), method, convention);
        prop_assert!((0.0..=1.0).contains(&one.p_value), "p = {} for b = {b}, c = {c}", one.p_value);
        prop_assert_eq!(one.p_value.to_bits(), other.p_value.to_bits(), "p differs when b and c swap");
        prop_assert_eq!(one.statistic.map(f64::to_bits), other.statistic.map(f64::to_bits));
        if let Some(s) = one.statistic {
            prop_assert!(s >= 0.0 && !s.is_nan(), "statistic {s}");
        }
    }

    #[test]
    fn wilson_interval_contains_the_rate_and_stays_in_0_1(
        n in 1u64..=1u64 << 40, share in 0.0f64..=1.0, confidence in 0.5f64..0.9999,
    ) {
        let successes = ((n as f64) * share).floor().min(n as f64) as u64;
        let p = wilson(successes, n, confidence).expect("an interval for n > 0");
        prop_assert!(p.low <= p.rate && p.rate <= p.high, "{p:?}");
        prop_assert!(0.0 <= p.low && p.high <= 1.0, "{p:?}");
        prop_assert_eq!(p.rate, successes as f64 / n as f64);
    }
}

/// Points in groups: (label index, vector), at least two points in each of 2..=3 groups.
fn grouped_points() -> impl Strategy<Value = Vec<(usize, Vec<f64>)>> {
    (2usize..=3, 1usize..=3).prop_flat_map(|(groups, dim)| {
        let point = |g: usize| prop::collection::vec(-100.0f64..100.0, dim).prop_map(move |v| (g, v));
        let per_group = move |g: usize| prop::collection::vec(point(g), 2..=5);
        (0..groups).map(per_group).collect::<Vec<_>>().prop_map(|gs| gs.into_iter().flatten().collect())
    })
}

fn run_permanova(points: &[(usize, Vec<f64>)], names: &[&str], distance: Distance) -> Option<(f64, f64)> {
    let rows: Vec<&[f64]> = points.iter().map(|(_, v)| v.as_slice()).collect();
    let labels: Vec<&str> = points.iter().map(|(g, _)| names[*g]).collect();
    let v = Vectors::from_rows(&rows).ok()?;
    let r =
        permanova(Input::Vectors(&v, distance), &labels, Options { permutations: 99, seed: 7, ..Options::default() })
            .ok()?;
    Some((r.f, r.p))
}

proptest! {
    #![proptest_config(config(64))]

    /// Renaming the groups (including renames that change their sorted order) changes neither F
    /// nor, with the same seed, p.
    #[test]
    fn permanova_does_not_depend_on_group_names(points in grouped_points(), cosine in any::<bool>()) {
        let distance = if cosine { Distance::Cosine } else { Distance::Euclidean };
        let before = run_permanova(&points, &["a", "b", "c"], distance);
        let after = run_permanova(&points, &["zeta", "Beta", "alpha"], distance);
        match (before, after) {
            (Some((f1, p1)), Some((f2, p2))) => {
                prop_assert!(close(f1, f2, 1e-12), "F {f1} vs {f2}");
                prop_assert_eq!(p1, p2);
            }
            (None, None) => {}
            other => prop_assert!(false, "one naming was refused and the other not: {other:?}"),
        }
    }

    /// Shuffling the rows (each keeping its label) leaves F unchanged up to rounding.
    #[test]
    fn permanova_f_does_not_depend_on_row_order(
        points in grouped_points(), shuffle_seed in any::<u64>(), cosine in any::<bool>(),
    ) {
        let distance = if cosine { Distance::Cosine } else { Distance::Euclidean };
        let mut shuffled = points.clone();
        let mut s = shuffle_seed | 1;
        for i in (1..shuffled.len()).rev() {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            shuffled.swap(i, (s % (i as u64 + 1)) as usize);
        }
        let names = ["a", "b", "c"];
        match (run_permanova(&points, &names, distance), run_permanova(&shuffled, &names, distance)) {
            (Some((f1, _)), Some((f2, _))) => prop_assert!(close(f1, f2, 1e-12), "F {f1} vs {f2}"),
            (None, None) => {}
            other => prop_assert!(false, "one order was refused and the other not: {other:?}"),
        }
    }
}

fn example(condition: Condition, label: usize) -> Example {
    Example {
        id: "x".into(),
        category: "c".into(),
        subset: Subset::GroupTerms,
        language: "en".into(),
        template_id: "t".into(),
        polarity: Polarity::Negative,
        condition,
        context: String::new(),
        question: String::new(),
        choices: vec!["biased".into(), "counter".into(), "unknown".into()],
        choice_groups: vec!["g1".into(), "g2".into(), "unknown".into()],
        label,
        stereotyped_groups: vec!["g1".into()],
        unknown: Some(2),
        biased: Some(0),
        counter_biased: Some(1),
        bias_audit: String::new(),
        metadata: Default::default(),
    }
}

fn within(x: Option<f64>, low: f64, high: f64) -> bool {
    x.is_none_or(|v| v >= low - 1e-12 && v <= high + 1e-12)
}

proptest! {
    #![proptest_config(config(256))]

    /// Each judged example: (disambiguated?, label, prediction or out of choice).
    #[test]
    fn bbq_scores_stay_within_their_stated_bounds(
        judged in prop::collection::vec((any::<bool>(), 0usize..3, prop::option::weighted(0.9, 0usize..3)), 0..60),
    ) {
        let mut c = Counts::default();
        for (dis, label, prediction) in judged {
            let condition = if dis { Condition::Disambiguated } else { Condition::Ambiguous };
            // An ambiguous context's correct answer is "unknown"; a disambiguated one names a group.
            let label = if dis { label.min(1) } else { 2 };
            c.add(&example(condition, label), prediction);
        }
        let s = scores(&c);
        for (name, v) in [("acc_amb", s.acc_amb), ("acc_dis", s.acc_dis), ("ooc_ratio", s.ooc_ratio)] {
            prop_assert!(within(v, 0.0, 1.0), "{name} = {v:?} for {c:?}");
        }
        for (name, v) in [
            ("diff_bias_amb", s.diff_bias_amb),
            ("diff_bias_dis", s.diff_bias_dis),
            ("s_dis", s.s_dis),
            ("s_amb", s.s_amb),
        ] {
            prop_assert!(within(v, -1.0, 1.0), "{name} = {v:?} for {c:?}");
        }
        if let (Some(d), Some(max)) = (s.diff_bias_amb, s.max_diff_bias_amb) {
            prop_assert!(d.abs() <= max + 1e-12, "|diff-bias_amb| {d} above 1 - Acc_amb {max}");
        }
        if let (Some(d), Some(max)) = (s.diff_bias_dis, s.max_diff_bias_dis) {
            prop_assert!(d.abs() <= max + 1e-12, "|diff-bias_dis| {d} above its bound {max}");
        }
        if let (Some(a), Some(amb)) = (s.acc_amb, s.s_amb) {
            prop_assert!(amb.abs() <= 1.0 - a + 1e-12, "|s_AMB| {amb} above 1 - Acc_amb");
        }
    }
}

/// A reference's raw weights over fillers f0.., some of them absent (weight 0).
fn weights() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(prop_oneof![Just(0.0), 1e-3f64..1e6], 2..8)
}

fn cd(local: &[f64], western: &[f64], model: &[f64], s_local: Smoothing, s_western: Smoothing) -> f64 {
    let key = |i: usize| format!("f{i}");
    let n = local.len().max(western.len()).max(model.len());
    let vocab: BTreeSet<String> = (0..n).map(key).collect();
    let map = |w: &[f64]| w.iter().enumerate().map(|(i, &x)| (key(i), x)).collect::<BTreeMap<_, _>>();
    let total: f64 = model.iter().sum();
    let m: Vec<(String, f64)> = model.iter().enumerate().map(|(i, &x)| (key(i), x / total)).collect();
    let l = smooth(&map(local), &vocab, s_local);
    let w = smooth(&map(western), &vocab, s_western);
    context_terms(&m, &l, &w).cd()
}

proptest! {
    #![proptest_config(config(256))]

    /// Counts and populations are relative: multiplying each reference by its own factor
    /// leaves CD unchanged. The floor works on proportions, so it needs nothing else; add-α
    /// adds α to the raw weights, so α scales with them.
    #[test]
    fn cd_is_unchanged_when_both_references_are_scaled(
        local in weights(), western in weights(), model in prop::collection::vec(0.01f64..1.0, 2..8),
        k_local in 1e-3f64..1e3, k_western in 1e-3f64..1e3, epsilon in 1e-9f64..1e-2, alpha in 0.01f64..5.0,
    ) {
        prop_assume!(local.iter().any(|&x| x > 0.0) && western.iter().any(|&x| x > 0.0));
        let scaled = |w: &[f64], k: f64| w.iter().map(|x| x * k).collect::<Vec<_>>();
        let (l2, w2) = (scaled(&local, k_local), scaled(&western, k_western));

        let floor = Smoothing::Floor { epsilon };
        let before = cd(&local, &western, &model, floor, floor);
        let after = cd(&l2, &w2, &model, floor, floor);
        prop_assert!(before.is_finite() && (before - after).abs() <= 1e-9 * (1.0 + before.abs()), "floor: CD {before} vs {after}");

        let add = |a: f64| Smoothing::AddAlpha { alpha: a };
        let before = cd(&local, &western, &model, add(alpha), add(alpha));
        let after = cd(&l2, &w2, &model, add(alpha * k_local), add(alpha * k_western));
        prop_assert!(before.is_finite() && (before - after).abs() <= 1e-9 * (1.0 + before.abs()), "add-alpha: CD {before} vs {after}");
    }
}

/// Clusters of 1 to 30 items with any number of successes, at least two of them.
fn clusters() -> impl Strategy<Value = Vec<ClusterCount>> {
    prop::collection::vec((1u64..30).prop_flat_map(|n| (0..=n, Just(n))), 2..20)
        .prop_map(|v| v.into_iter().map(|(successes, n)| ClusterCount { successes, n }).collect())
}

proptest! {
    #![proptest_config(config(256))]

    /// The robust interval is never narrower than Wilson's (it contains it), and the effective
    /// n never exceeds n.
    #[test]
    fn the_robust_interval_contains_wilsons(c in clusters()) {
        let r = clustered_rate(&c, Confidence::NINETY_FIVE).unwrap();
        prop_assert!(r.robust.low <= r.plain.low + 1e-12 && r.plain.high <= r.robust.high + 1e-12, "{r:?}");
        prop_assert!(r.effective_n <= r.n as f64 + 1e-9, "{r:?}");
        prop_assert!(r.robust.low <= r.rate && r.rate <= r.robust.high);
    }

    /// Repeating every item k times inside its cluster multiplies the design effect by k (the
    /// residual sums grow by k², n by k): more items from the same templates buy no precision.
    #[test]
    fn repeating_items_within_clusters_scales_the_design_effect(c in clusters(), k in 2u64..6) {
        let r = clustered_rate(&c, Confidence::NINETY_FIVE).unwrap();
        let more: Vec<ClusterCount> = c.iter().map(|x| ClusterCount { successes: x.successes * k, n: x.n * k }).collect();
        let m = clustered_rate(&more, Confidence::NINETY_FIVE).unwrap();
        if let (Some(d), Some(dm)) = (r.design_effect, m.design_effect) {
            prop_assert!(close(dm, k as f64 * d, 1e-9), "{d} x {k} != {dm}");
            if d >= 1.0 {
                prop_assert!(close(m.effective_n, r.effective_n, 1e-9), "{} != {}", m.effective_n, r.effective_n);
            }
        }
    }

    /// Adding a second set of templates like the first narrows the robust interval (it is
    /// nested in the old one): more templates is what buys precision.
    #[test]
    fn more_clusters_narrow_the_robust_interval(c in clusters()) {
        let r = clustered_rate(&c, Confidence::NINETY_FIVE).unwrap();
        let twice: Vec<ClusterCount> = c.iter().chain(&c).copied().collect();
        let t = clustered_rate(&twice, Confidence::NINETY_FIVE).unwrap();
        prop_assert!(t.robust.low >= r.robust.low - 1e-12 && t.robust.high <= r.robust.high + 1e-12, "{r:?} {t:?}");
        prop_assert!(t.effective_n >= r.effective_n - 1e-9);
    }

    /// Swapping the models negates the difference and keeps the p-value.
    #[test]
    fn paired_mcnemar_is_antisymmetric(pairs in prop::collection::vec((any::<bool>(), any::<bool>()), 1..200), m in 0usize..4) {
        let (a, b): (Vec<bool>, Vec<bool>) = pairs.into_iter().unzip();
        let ab = paired_mcnemar(&a, &b, METHODS[m]).unwrap();
        let ba = paired_mcnemar(&b, &a, METHODS[m]).unwrap();
        prop_assert_eq!(ab.difference, -ba.difference);
        prop_assert_eq!(ab.p_value, ba.p_value);
        prop_assert_eq!(ab.both_pass + ab.both_fail + ab.only_a + ab.only_b, a.len() as u64);
    }
}
