//! The statistics a study's model comparison uses, against references: McNemar on per-item
//! pass/fail and the cluster-robust rate against statsmodels 0.15.0 (values printed by
//! bench/reference/cluster.py, which builds the datasets itself), the paired cluster bootstrap
//! against its exact distribution on a case small enough to enumerate, and the power note.

use evenhand::stats::cluster::{ClusterCount, ClusterError, clustered_rate};
use evenhand::stats::confidence::Confidence;
use evenhand::stats::interval::{Verdict, verdict_disagrees};
use evenhand::stats::mcnemar::Method;
use evenhand::stats::paired::{
    PairedError, bootstrap_p_value, detectable_difference, paired_bootstrap, paired_bootstrap_by_cluster,
    paired_mcnemar,
};

fn close(got: f64, want: f64, rel: f64) -> bool {
    (got - want).abs() <= rel * want.abs().max(1e-300)
}

/// Per-item outcomes whose table is `[[n00, n01], [n10, n11]]` (rows A, columns B, 1 = pass).
fn items(t: [[usize; 2]; 2]) -> (Vec<bool>, Vec<bool>) {
    let mut out = (vec![], vec![]);
    for (a, row) in t.iter().enumerate() {
        for (b, &count) in row.iter().enumerate() {
            for _ in 0..count {
                out.0.push(a == 1);
                out.1.push(b == 1);
            }
        }
    }
    out
}

#[test]
fn paired_mcnemar_matches_statsmodels() {
    // statsmodels 0.15.0: mcnemar(t, exact=True) and mcnemar(t, exact=False, correction=True)
    // (statistic, p) as printed by bench/reference/cluster.py.
    type Case = ([[usize; 2]; 2], (f64, f64), (f64, f64));
    let cases: [Case; 5] = [
        ([[5, 3], [9, 13]], (3.0, 0.14599609375), (2.0833333333333335, 0.14891467317876161)),
        ([[2, 0], [6, 4]], (0.0, 0.03125), (4.166666666666667, 0.041226833337163815)),
        ([[10, 7], [7, 1]], (7.0, 1.0), (0.07142857142857142, 0.7892680261342813)),
        ([[0, 12], [25, 3]], (12.0, 0.04703102743951604), (3.891891891891892, 0.04851973828025081)),
        ([[1, 1], [0, 0]], (0.0, 1.0), (0.0, 1.0)),
    ];
    for (t, exact, chi2cc) in cases {
        let (a, b) = items(t);
        let r = paired_mcnemar(&a, &b, Method::Exact).unwrap();
        assert_eq!(
            (r.both_fail, r.only_b, r.only_a, r.both_pass),
            (t[0][0] as u64, t[0][1] as u64, t[1][0] as u64, t[1][1] as u64)
        );
        assert_eq!(r.test, "mcnemar-exact");
        assert_eq!(r.mcnemar.statistic, Some(exact.0), "{t:?}");
        assert!(close(r.p_value, exact.1, 1e-12), "{t:?}: exact p {} != {}", r.p_value, exact.1);
        let r = paired_mcnemar(&a, &b, Method::Chi2Cc).unwrap();
        assert!(
            close(r.mcnemar.statistic.unwrap(), chi2cc.0, 1e-12) || chi2cc.0 == r.mcnemar.statistic.unwrap(),
            "{t:?}"
        );
        assert!(close(r.p_value, chi2cc.1, 1e-12), "{t:?}: chi2-cc p {} != {}", r.p_value, chi2cc.1);
        // The difference is in A's favour when A passes items B fails.
        let n = a.len() as f64;
        assert!(close(r.difference, (t[1][0] as f64 - t[0][1] as f64) / n, 1e-15) || r.difference == 0.0);
        assert!((r.difference - (r.rate_a - r.rate_b)).abs() < 1e-15);
    }
}

#[test]
fn paired_mcnemar_refuses_unpaired_input() {
    assert_eq!(
        paired_mcnemar(&[true, false], &[true], Method::Exact).unwrap_err(),
        PairedError::LengthMismatch { a: 2, b: 1 }
    );
    assert_eq!(paired_mcnemar(&[], &[], Method::Exact).unwrap_err(), PairedError::NoItems);
    let e = PairedError::LengthMismatch { a: 2, b: 1 }.to_string();
    assert!(e.contains("2 items") && e.contains("same items"), "{e}");
}

const C95: Confidence = Confidence::NINETY_FIVE;

fn counts(c: &[(u64, u64)]) -> Vec<ClusterCount> {
    c.iter().map(|&(successes, n)| ClusterCount { successes, n }).collect()
}

#[test]
fn clustered_rate_matches_statsmodels_ols_cluster() {
    // (clusters, se, deff, n_eff, Wilson 95 %, robust 95 %) from bench/reference/cluster.py:
    // OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": g}).bse, deff = se²/(p(1−p)/n),
    // and proportion_confint(p·n_eff, n_eff, method="wilson") for the robust bounds.
    type Case = (&'static [(u64, u64)], f64, f64, f64, (f64, f64), (f64, f64));
    let cases: [Case; 4] = [
        (
            &[(3, 4), (0, 5), (6, 6), (2, 7), (1, 3), (4, 4), (0, 2), (5, 9)],
            0.1302401627763111,
            2.720802005012533,
            14.701547531319077,
            (0.37497362106692467, 0.6706452988732111),
            (0.292469711126886, 0.7471720472056914),
        ),
        (
            &[(1, 1), (0, 1), (1, 1), (1, 1), (0, 1), (1, 1), (0, 1)],
            0.20203050891044214,
            1.1666666666666665,
            6.000000000000001,
            (0.2504583645276572, 0.8417801447485302),
            (0.23311330369676792, 0.8539817980314941),
        ),
        (
            &[(10, 10), (0, 10), (10, 10), (0, 10), (10, 10), (10, 10)],
            0.21081851067789203,
            12.000000000000009,
            4.9999999999999964,
            (0.5405686645211968, 0.7727073847647731),
            (0.27519899421099153, 0.9133068508612832),
        ),
        (
            &[(7, 12), (2, 9)],
            0.17687074829931965,
            2.6825396825396806,
            7.828402366863911,
            (0.24469968925375948, 0.6345344563069328),
            (0.16718447751156934, 0.7369837745959529),
        ),
    ];
    for (clusters, se, deff, n_eff, wilson, robust) in cases {
        let r = clustered_rate(&counts(clusters), C95).unwrap();
        let name = format!("{clusters:?}");
        assert!(close(r.robust_se.unwrap(), se, 1e-12), "{name}: se {:?} != {se}", r.robust_se);
        assert!(close(r.design_effect.unwrap(), deff, 1e-12), "{name}: deff {:?} != {deff}", r.design_effect);
        assert!(close(r.effective_n, n_eff, 1e-12), "{name}: n_eff {} != {n_eff}", r.effective_n);
        assert!(close(r.plain.low, wilson.0, 1e-12) && close(r.plain.high, wilson.1, 1e-12), "{name}: {:?}", r.plain);
        assert!(
            close(r.robust.low, robust.0, 1e-12) && close(r.robust.high, robust.1, 1e-12),
            "{name}: {:?}",
            r.robust
        );
        assert_eq!(r.clusters, clusters.len());
        assert_eq!(r.method, "design-effect-wilson");
    }
}

#[test]
fn one_item_per_cluster_leaves_only_the_small_sample_factor() {
    // Σ (y − p)² = n·p(1 − p), so deff = G/(G − 1) exactly (up to rounding).
    for (s, n) in [(3u64, 7u64), (1, 2), (40, 100), (99, 100)] {
        let clusters: Vec<ClusterCount> = (0..n).map(|i| ClusterCount { successes: u64::from(i < s), n: 1 }).collect();
        let r = clustered_rate(&clusters, C95).unwrap();
        let g = n as f64;
        assert!(close(r.design_effect.unwrap(), g / (g - 1.0), 1e-12), "{s}/{n}: {:?}", r.design_effect);
    }
}

#[test]
fn degenerate_clusterings_are_explained() {
    // One cluster: nothing is known about the others.
    let r = clustered_rate(&counts(&[(4, 10), (0, 0)]), C95).unwrap();
    assert_eq!((r.clusters, r.design_effect, r.robust_se, r.effective_n), (1, None, None, 0.0));
    assert_eq!((r.robust.low, r.robust.high), (0.0, 1.0));
    assert!(r.note.contains("one cluster"), "{}", r.note);
    // A rate of 1: no residual, deff = 0/0, the robust interval is Wilson's.
    let r = clustered_rate(&counts(&[(5, 5), (3, 3), (8, 8)]), C95).unwrap();
    assert_eq!((r.design_effect, r.robust_se, r.effective_n), (None, Some(0.0), 16.0));
    assert_eq!(r.robust, r.plain);
    assert_eq!(r.plain.high, 1.0);
    assert!(r.note.contains("cannot be measured"), "{}", r.note);
    let r = clustered_rate(&counts(&[(0, 5), (0, 3)]), C95).unwrap();
    assert_eq!((r.rate, r.robust.low, r.design_effect), (0.0, 0.0, None));
    // Clusters more alike than chance: deff < 1 is reported, the interval is not narrowed.
    let r = clustered_rate(&counts(&[(1, 2), (1, 2), (1, 2), (1, 2)]), C95).unwrap();
    assert_eq!(r.design_effect, Some(0.0));
    assert_eq!((r.robust, r.effective_n), (r.plain, 8.0));
    // Bad input names the cluster.
    let e = clustered_rate(&counts(&[(1, 2), (3, 2)]), C95).unwrap_err();
    assert_eq!(e, ClusterError::SuccessesAboveN { index: 1, successes: 3, n: 2 });
    assert!(e.to_string().starts_with("cluster 1: 3 successes among 2 items"), "{e}");
    assert_eq!(clustered_rate(&counts(&[(0, 0)]), C95).unwrap_err(), ClusterError::NoItems);
    assert_eq!(clustered_rate(&[], C95).unwrap_err(), ClusterError::NoItems);
}

#[test]
fn wilson_and_robust_verdicts_can_disagree() {
    // 21 of 24 pass, but in 3 templates of 8 with one template failing badly: Wilson's interval
    // clears a 0.6 tolerance, the robust one does not.
    let r = clustered_rate(&counts(&[(8, 8), (8, 8), (5, 8)]), C95).unwrap();
    let check = verdict_disagrees(&r.plain, &r.robust, 0.6);
    assert_eq!((check.first, check.second, check.disagree), (Verdict::Meets, Verdict::Inconclusive, true), "{r:?}");
    assert!(!verdict_disagrees(&r.plain, &r.robust, 0.1).disagree);
}

/// The hand case: three clusters of (A passes, B passes) items. Per cluster, the sum of A − B
/// and the item count are C0 = (1, 2), C1 = (0, 3), C2 = (1, 1), and the statistic is
/// mean(A) − mean(B) = Σ(A − B) / n over the drawn items.
fn hand_case() -> (Vec<Vec<usize>>, Vec<(f64, f64)>) {
    let items = vec![(1.0, 0.0), (1.0, 1.0), (0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 0.0)];
    (vec![vec![0, 1], vec![2, 3, 4], vec![5]], items)
}

fn means(items: &[(f64, f64)], drawn: &[usize]) -> (f64, f64) {
    let n = drawn.len() as f64;
    (drawn.iter().map(|&i| items[i].0).sum::<f64>() / n, drawn.iter().map(|&i| items[i].1).sum::<f64>() / n)
}

/// The exact bootstrap distribution of the hand case: the 27 equally likely ordered draws of 3
/// clusters, grouped by how many times each cluster is drawn (k0, k1, k2):
/// difference = (k0 + k2) / (2·k0 + 3·k1 + k2), weight = 3!/(k0!·k1!·k2!).
///
/// | draw | 300 | 030 | 003 | 210 | 201 | 120 | 021 | 102 | 012 | 111 |
/// | d    | 1/2 | 0   | 1   | 2/7 | 3/5 | 1/8 | 1/7 | 3/4 | 2/5 | 1/3 |
/// | /27  | 1   | 1   | 1   | 3   | 3   | 3   | 3   | 3   | 3   | 6   |
const EXACT: [(f64, u32); 10] = [
    (0.0, 1),
    (1.0 / 8.0, 3),
    (1.0 / 7.0, 3),
    (2.0 / 7.0, 3),
    (1.0 / 3.0, 6),
    (2.0 / 5.0, 3),
    (1.0 / 2.0, 1),
    (3.0 / 5.0, 3),
    (3.0 / 4.0, 3),
    (1.0, 1),
];

#[test]
fn paired_bootstrap_converges_to_the_enumerated_distribution() {
    assert_eq!(EXACT.iter().map(|e| e.1).sum::<u32>(), 27);
    let (clusters, items) = hand_case();
    let mut seen: Vec<f64> = vec![];
    let b = 20_000;
    let confidence = Confidence::new(0.8).unwrap();
    let r = paired_bootstrap(&clusters, b, confidence, 11, |drawn| {
        let (a, bb) = means(&items, drawn);
        seen.push(a - bb);
        (a, bb)
    })
    .unwrap();
    // The first call is the observed statistic: A passes 4 of 6, B 2 of 6.
    assert_eq!((r.value_a, r.value_b), (4.0 / 6.0, 2.0 / 6.0));
    assert_eq!(r.difference, r.value_a - r.value_b);
    assert!(close(r.difference, 1.0 / 3.0, 1e-15));
    assert_eq!((r.resamples, r.undefined_resamples, r.clusters, r.items, r.seed), (b, 0, 3, 6, 11));
    assert_eq!(seen.len(), b as usize + 1);
    // Every replicate is one of the ten values, each about as often as its exact probability.
    for (value, weight) in EXACT {
        let share = seen[1..].iter().filter(|&&d| (d - value).abs() < 1e-12).count() as f64 / f64::from(b);
        assert!((share - f64::from(weight) / 27.0).abs() < 0.01, "P(d = {value}) ≈ {share}, exact {weight}/27");
    }
    let accounted: usize = EXACT.iter().map(|e| seen[1..].iter().filter(|&&d| (d - e.0).abs() < 1e-12).count()).sum();
    assert_eq!(accounted, b as usize);
    // The exact 10 % and 90 % quantiles are 1/8 (cumulative 1/27 → 4/27) and 3/4 (23/27 →
    // 26/27), both far from a step, so the percentile interval hits them exactly.
    assert_eq!((r.interval.low, r.interval.high), (1.0 / 8.0, 3.0 / 4.0), "{r:?}");
    // Only the draw of C1 three times gives d ≤ 0 (P = 1/27), every draw gives d ≥ 0: p → 2/27.
    assert!((r.p_value - 2.0 / 27.0).abs() < 0.01, "p {}", r.p_value);
}

#[test]
fn paired_bootstrap_is_deterministic_and_pinned() {
    let (clusters, items) = hand_case();
    let run = |seed| paired_bootstrap(&clusters, 999, C95, seed, |d| means(&items, d)).unwrap();
    assert_eq!(run(5), run(5));
    assert_ne!(run(5).p_value, run(6).p_value);
    // Pinned: a change to the RNG stream or the draw order moves this.
    assert_eq!(run(5).p_value, PINNED_P);
}
const PINNED_P: f64 = 0.082;

#[test]
fn paired_bootstrap_edge_cases() {
    let (clusters, items) = hand_case();
    let stat = |d: &[usize]| means(&items, d);
    assert_eq!(
        paired_bootstrap(&clusters, 0, C95, 1, stat).unwrap_err(),
        PairedError::Resamples { found: 0, max: 1_000_000 }
    );
    assert_eq!(paired_bootstrap(&[vec![], vec![]], 10, C95, 1, stat).unwrap_err(), PairedError::NoItems);
    assert_eq!(
        paired_bootstrap(&clusters, 10, C95, 1, |_| (f64::NAN, 0.0)).unwrap_err(),
        PairedError::ObservedUndefined
    );
    // A statistic undefined whenever cluster 2 is missing from the draw: those replicates drop out.
    let mut calls = 0;
    let r = paired_bootstrap(&clusters, 2000, C95, 3, |d| {
        calls += 1;
        if calls > 1 && !d.contains(&5) { (f64::NAN, 0.0) } else { means(&items, d) }
    })
    .unwrap();
    // P(cluster 2 not drawn) = (2/3)³ = 8/27.
    let share = f64::from(r.undefined_resamples) / 2000.0;
    assert!((share - 8.0 / 27.0).abs() < 0.03, "{share}");
    // Empty clusters are not drawn and not counted.
    let with_empty = vec![vec![0, 1], vec![], vec![2, 3, 4], vec![5]];
    let r = paired_bootstrap(&with_empty, 50, C95, 1, stat).unwrap();
    assert_eq!((r.clusters, r.items), (3, 6));
}

#[test]
fn bootstrap_p_value_rule() {
    // 2·min(1 + #≤0, 1 + #≥0)/(B + 1), capped at 1.
    assert_eq!(bootstrap_p_value(&[0.1, 0.2, 0.3]), 2.0 * 1.0 / 4.0);
    assert_eq!(bootstrap_p_value(&[-0.1, 0.2, 0.3, 0.4]), 2.0 * 2.0 / 5.0);
    assert_eq!(bootstrap_p_value(&[0.0, 0.0]), 1.0);
    assert_eq!(bootstrap_p_value(&[-1.0; 99]), 2.0 / 100.0);
}

#[test]
fn detectable_difference_matches_the_textbook_size() {
    // 62 per group detect 0.1 vs 0.3 with 80 % power (stats::power's own check): the detectable
    // difference from 0.1 at n = 62 is about 0.2.
    let d = detectable_difference(62, 0.1, 0.05, 1).unwrap();
    let diff = d.difference.unwrap();
    assert!((diff - 0.2).abs() < 0.03, "{d:?}");
    assert!(d.power.unwrap() >= 0.8);
    // More items, smaller detectable difference; the same seed, the same answer.
    // Four times the items, about half the difference (it shrinks as 1/√n).
    let big = detectable_difference(248, 0.1, 0.05, 1).unwrap();
    assert!((big.difference.unwrap() / diff - 0.5).abs() < 0.1, "{big:?}");
    assert_eq!(detectable_difference(62, 0.1, 0.05, 1).unwrap(), d);
    // Above ½ it searches downwards; symmetric rates give about the same answer.
    let mirrored = detectable_difference(62, 0.9, 0.05, 1).unwrap();
    assert!((mirrored.difference.unwrap() - diff).abs() < 0.03, "{mirrored:?}");
    // Two items cannot show anything at 80 %.
    assert_eq!(detectable_difference(2, 0.5, 0.05, 1).unwrap().difference, None);
    assert!(detectable_difference(62, 0.1, 2.0, 1).is_err());
}

#[test]
fn detectable_difference_simulated_and_approximated_agree() {
    // Up to 200 items the power is simulated, above approximated: four times the items
    // (800) halve the simulated difference at 200.
    let sim = detectable_difference(200, 0.3, 0.05, 1).unwrap();
    assert_eq!(sim.repetitions, 1000);
    assert!(sim.method.starts_with("simulated"));
    let approx = detectable_difference(800, 0.3, 0.05, 1).unwrap();
    assert_eq!(approx.repetitions, 0);
    assert!(approx.method.starts_with("normal approximation"));
    let (s, a) = (sim.difference.unwrap(), approx.difference.unwrap());
    assert!((a * 2.0 - s).abs() < 0.015, "simulated {s} at 200, approximated {a} at 800");
    // Analytic: (z_0.975 + z_0.8)·√(2·0.3·0.7/800) ≈ 0.0642 to first order (a little more
    // because the variance grows towards ½).
    assert!(a > 0.0642 && a < 0.068, "{a}");
    assert!((approx.power.unwrap() - 0.8).abs() < 1e-9);
    // Large n stays fast and the difference keeps shrinking.
    let huge = detectable_difference(4_000_000, 0.3, 0.05, 1).unwrap();
    assert!(huge.difference.unwrap() < a / 40.0);
}

#[test]
fn clustered_items_make_mcnemar_overconfident_and_the_cluster_bootstrap_does_not() {
    // Six templates of ten instances that all behave alike: A passes templates 0–3, B passes
    // 0–1. McNemar sees 20 independent discordant pairs (p = 2/2^20); the evidence is really
    // two templates, and the cluster bootstrap's p is near 2·(4/6)^6 ≈ 0.18, the chance that a
    // resample draws neither template 2 nor 3.
    let a: Vec<bool> = (0..60).map(|i| i / 10 < 4).collect();
    let b: Vec<bool> = (0..60).map(|i| i / 10 < 2).collect();
    let m = paired_mcnemar(&a, &b, Method::Exact).unwrap();
    assert_eq!((m.only_a, m.only_b), (20, 0));
    assert!(close(m.p_value, 2.0 / 1_048_576.0, 1e-12), "{}", m.p_value);
    let clusters: Vec<Vec<usize>> = (0..6).map(|t| (t * 10..t * 10 + 10).collect()).collect();
    let rate = |v: &[bool], drawn: &[usize]| drawn.iter().filter(|&&i| v[i]).count() as f64 / drawn.len() as f64;
    let r = paired_bootstrap(&clusters, 4000, C95, 2, |d| (rate(&a, d), rate(&b, d))).unwrap();
    assert_eq!(r.difference, m.difference);
    let limit = 2.0 * (4.0f64 / 6.0).powi(6);
    assert!((r.p_value - limit).abs() < 0.03, "bootstrap p {} vs {limit}", r.p_value);
    assert!(r.interval.low <= 0.0, "{r:?}");
    // The clustered rates agree: A's pass rate has a design effect near the template size.
    let per_template: Vec<ClusterCount> =
        (0..6).map(|t| ClusterCount { successes: if t < 4 { 10 } else { 0 }, n: 10 }).collect();
    let deff = clustered_rate(&per_template, C95).unwrap().design_effect.unwrap();
    assert!(close(deff, 6.0 / 5.0 * 10.0, 1e-12), "{deff}");
}

#[test]
fn the_cluster_level_bootstrap_gives_the_item_level_bits() {
    // Per-cluster sums instead of items: the same draws, the same numbers, cost per cluster.
    let (mut clusters, items) = hand_case();
    clusters.insert(1, vec![]);
    let sums: Vec<(f64, f64, f64)> = clusters
        .iter()
        .map(|c| {
            let a = c.iter().map(|&i| items[i].0).sum::<f64>();
            let b = c.iter().map(|&i| items[i].1).sum::<f64>();
            (a, b, c.len() as f64)
        })
        .collect();
    let sizes: Vec<usize> = clusters.iter().map(Vec::len).collect();
    let by_item = paired_bootstrap(&clusters, 999, C95, 5, |d| means(&items, d)).unwrap();
    let by_cluster = paired_bootstrap_by_cluster(&sizes, 999, C95, 5, |drawn| {
        let (mut a, mut b, mut n) = (0.0, 0.0, 0.0);
        for &c in drawn {
            assert!(!clusters[c].is_empty(), "an empty cluster was drawn");
            a += sums[c].0;
            b += sums[c].1;
            n += sums[c].2;
        }
        (a / n, b / n)
    })
    .unwrap();
    assert_eq!(by_item, by_cluster);
    assert_eq!(by_item.p_value, PINNED_P);
    assert_eq!((by_cluster.clusters, by_cluster.items), (3, 6));
}
