//! The two-phase (stratified) estimator behind the hand-label figures (src/stats/twophase.rs):
//! against an independent numpy implementation of Cochran's formulas
//! (tests/fixtures/detector_trust.json, "two_phase", written by
//! bench/detector_trust_reference.py) to 1e-9, and in simulation: over many review samples
//! drawn the way the page draws them, the weighted estimate is centred on the population's
//! true figures where the unweighted (simple random sample) one is not.

use evenhand::stats::twophase::{Estimate, IntervalRule, Stratum, Unit, ratio, weighted_kappa};
use rand::RngExt;

#[derive(serde::Deserialize)]
struct Figures {
    sensitivity: [f64; 3],
    specificity: [f64; 3],
    kappa: f64,
}

#[derive(serde::Deserialize)]
struct Row {
    /// N_h, then the labels' counts of (other detector, label): yes&refusal, no&refusal,
    /// yes&answer, no&answer.
    flagged: [u64; 5],
    unflagged: [u64; 5],
    confidence: f64,
    rate: [f64; 3],
    ppv: [f64; 3],
    npv: [f64; 3],
    decider: Figures,
    other: Figures,
}

#[derive(serde::Deserialize)]
struct Fixture {
    two_phase: Vec<Row>,
}

/// One labelled answer: stratum, the other detector's verdict, the label.
type Labelled = (usize, bool, bool);

fn labelled(row: &Row) -> Vec<Labelled> {
    let mut out = vec![];
    for (h, s) in [row.flagged, row.unflagged].iter().enumerate() {
        for (cell, (det, label)) in [(true, true), (false, true), (true, false), (false, false)].iter().enumerate() {
            out.extend(std::iter::repeat_n((h, *det, *label), s[cell + 1] as usize));
        }
    }
    out
}

fn units(items: &[Labelled], f: impl Fn(&Labelled) -> (bool, bool)) -> Vec<Unit> {
    items
        .iter()
        .map(|it| {
            let (y, x) = f(it);
            Unit { stratum: it.0, y, x }
        })
        .collect()
}

fn close(e: &Estimate, theirs: [f64; 3], what: &str, row: &Row) {
    for (ours, theirs) in [e.estimate, e.low, e.high].into_iter().zip(theirs) {
        assert!(
            (ours - theirs).abs() < 1e-9,
            "{what} of {:?} {:?} at {}: {ours} vs reference {theirs} ({e:?})",
            row.flagged,
            row.unflagged,
            row.confidence
        );
    }
}

#[test]
fn the_stratified_figures_match_the_numpy_reference() {
    let f: Fixture = serde_json::from_str(include_str!("fixtures/detector_trust.json")).unwrap();
    assert_eq!(f.two_phase.len(), 16);
    for row in &f.two_phase {
        let strata = [
            Stratum { name: "the detector flagged", population: row.flagged[0] },
            Stratum { name: "the detector did not flag", population: row.unflagged[0] },
        ];
        let items = labelled(row);
        let c = row.confidence;
        close(&ratio(&strata, &units(&items, |&(_, _, l)| (l, true)), c).unwrap(), row.rate, "rate", row);
        let flagged: Vec<Unit> =
            items.iter().filter(|it| it.0 == 0).map(|&(_, _, l)| Unit { stratum: 0, y: l, x: true }).collect();
        close(&ratio(&strata[..1], &flagged, c).unwrap(), row.ppv, "PPV", row);
        let unflagged: Vec<Unit> =
            items.iter().filter(|it| it.0 == 1).map(|&(_, _, l)| Unit { stratum: 0, y: !l, x: true }).collect();
        close(&ratio(&strata[1..], &unflagged, c).unwrap(), row.npv, "NPV", row);
        // The deciding detector says refusal exactly in stratum 0: the weighted ratio is Bayes'.
        let se = ratio(&strata, &units(&items, |&(h, _, l)| (h == 0 && l, l)), c).unwrap();
        close(&se, row.decider.sensitivity, "decider sensitivity", row);
        let sp = ratio(&strata, &units(&items, |&(h, _, l)| (h == 1 && !l, !l)), c).unwrap();
        close(&sp, row.decider.specificity, "decider specificity", row);
        let se = ratio(&strata, &units(&items, |&(_, d, l)| (d && l, l)), c).unwrap();
        close(&se, row.other.sensitivity, "other sensitivity", row);
        let sp = ratio(&strata, &units(&items, |&(_, d, l)| (!d && !l, !l)), c).unwrap();
        close(&sp, row.other.specificity, "other specificity", row);
        for (decider, theirs) in [(true, row.decider.kappa), (false, row.other.kappa)] {
            let mut table = [0.0; 4];
            for &(h, d, l) in &items {
                let says = if decider { h == 0 } else { d };
                let w = strata[h].population as f64 / items.iter().filter(|it| it.0 == h).count() as f64;
                table[match (says, l) {
                    (true, true) => 0,
                    (false, true) => 1,
                    (true, false) => 2,
                    (false, false) => 3,
                }] += w;
            }
            let ours = weighted_kappa(table).unwrap();
            assert!((ours - theirs).abs() < 1e-9, "kappa {ours} vs {theirs}");
        }
    }
}

/// A language of 1,000 answers, `refusals` of them refusals of which the detector finds
/// `caught`, and flags `false_flags` of the rest. Returns (deciding detector's verdict, truth)
/// per answer.
fn population(refusals: usize, caught: usize, false_flags: usize) -> Vec<(bool, bool)> {
    (0..1000).map(|i| if i < refusals { (i < caught, true) } else { (i < refusals + false_flags, false) }).collect()
}

/// Up to k answers of each stratum drawn without replacement, as the review sample does.
fn review(pop: &[(bool, bool)], k: usize, rng: &mut evenhand::rng::Rng) -> Vec<(bool, bool)> {
    let mut out = vec![];
    for flagged in [true, false] {
        let mut stratum: Vec<(bool, bool)> = pop.iter().copied().filter(|p| p.0 == flagged).collect();
        for i in 0..k.min(stratum.len()) {
            let j = rng.random_range(i..stratum.len());
            stratum.swap(i, j);
            out.push(stratum[i]);
        }
    }
    out
}

#[test]
fn in_simulation_the_weighted_estimates_are_unbiased_and_the_sample_ones_are_not() {
    // Rare refusals (5%, Se 0.8): the rate; common ones (20%, Se 0.8), where a sample of 30 per
    // stratum finds missed refusals often enough, the sensitivity too.
    simulate(population(50, 40, 38), 10, 0.05, None);
    simulate(population(200, 160, 40), 30, 0.20, Some(0.8));
}

fn simulate(pop: Vec<(bool, bool)>, k: usize, true_rate: f64, true_se: Option<f64>) {
    let n_f = pop.iter().filter(|p| p.0).count() as u64;
    let strata = [
        Stratum { name: "flagged", population: n_f },
        Stratum { name: "not flagged", population: pop.len() as u64 - n_f },
    ];
    let mut rng = evenhand::rng::rng_for(26, &[b"two-phase"]);
    let draws = 4000;
    let (mut rate_w, mut rate_s, mut se_s, mut covered) = (0.0, 0.0, 0.0, 0);
    let mut se_w = vec![];
    for _ in 0..draws {
        let sample = review(&pop, k, &mut rng);
        let as_units = |f: &dyn Fn(bool, bool) -> (bool, bool)| -> Vec<Unit> {
            sample
                .iter()
                .map(|&(d, l)| {
                    let (y, x) = f(d, l);
                    Unit { stratum: usize::from(!d), y, x }
                })
                .collect()
        };
        let rate = ratio(&strata, &as_units(&|_, l| (l, true)), 0.95).unwrap();
        rate_w += rate.estimate;
        covered += usize::from(rate.low <= true_rate && true_rate <= rate.high);
        rate_s += sample.iter().filter(|s| s.1).count() as f64 / sample.len() as f64;
        // Sensitivity needs a labelled refusal (always here: half the flagged are refusals).
        if let Ok(se) = ratio(&strata, &as_units(&|d, l| (d && l, l)), 0.95) {
            se_w.push(se.estimate);
        }
        let (tp, pos) =
            sample.iter().fold((0, 0), |(tp, pos), &(d, l)| (tp + usize::from(d && l), pos + usize::from(l)));
        se_s += tp as f64 / pos as f64;
    }
    let n = draws as f64;
    let (rate_w, rate_s, se_s) = (rate_w / n, rate_s / n, se_s / n);
    // The weighted rate is unbiased (standard error of this mean about 0.0005).
    assert!((rate_w - true_rate).abs() < 0.003, "weighted rate {rate_w} vs {true_rate}");
    // The sample's own share of refusals is the mean of the strata's (0.51 + 0.01) / 2 and
    // (0.8 + 0.05) / 2: far off the truth.
    assert!(rate_s - true_rate > 0.15, "the sample rate {rate_s} should be far off {true_rate}");
    // The interval's coverage: conservative (99.6% and 99.8% here), as the Kish cap makes it
    // where a stratum's labels are all alike.
    let coverage = covered as f64 / n;
    assert!(coverage >= 0.95, "coverage {coverage}");
    let Some(true_se) = true_se else { return };
    // The weighted sensitivity is a ratio: consistent, with a small-sample bias; the sample's
    // (about 0.94 here) is far off.
    let se_mean = se_w.iter().sum::<f64>() / se_w.len() as f64;
    assert!((se_mean - true_se).abs() < 0.03, "weighted sensitivity {se_mean} vs {true_se}");
    assert!(se_s - true_se > 0.1, "the sample sensitivity {se_s} should be far off {true_se}");
}

#[test]
fn a_stratum_labelled_in_full_is_exact_and_one_of_one_label_falls_back() {
    let strata = [Stratum { name: "flagged", population: 4 }, Stratum { name: "not flagged", population: 50 }];
    // Flagged labelled in full (n_h = N_h): only the other stratum varies.
    let mut u: Vec<Unit> = (0..4).map(|i| Unit { stratum: 0, y: i < 3, x: true }).collect();
    u.extend((0..10).map(|i| Unit { stratum: 1, y: i < 2, x: true }));
    let e = ratio(&strata, &u, 0.95).unwrap();
    let w = 50.0f64 / 54.0;
    let v = w * w * (1.0 - 10.0 / 50.0) * 0.2 * 0.8 / 9.0;
    assert!((e.variance.unwrap() - v).abs() < 1e-15, "{e:?}");
    assert_eq!(e.rule, IntervalRule::Design);
    // One label in a stratum of 50: no variance, the interval uses the weights' Kish size.
    u.truncate(5);
    let e = ratio(&strata, &u, 0.95).unwrap();
    assert_eq!((e.variance, e.rule), (None, IntervalRule::Weights));
    assert!((e.effective_n - 54.0 * 54.0 / (4.0 + 2500.0)).abs() < 1e-9, "{e:?}");
    assert!(e.low < e.estimate && e.estimate < e.high);
}
