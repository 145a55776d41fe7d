//! A detector's trust against labels: kappa's interval against statsmodels' `cohens_kappa`
//! (tests/fixtures/kappa.json, written by bench/kappa_reference.py), and the coverage of the
//! Rogan-Gladen rate's Lang-Reiczigel interval in a simulation where the truth is known.

use evenhand::stats::agreement::agreement;
use evenhand::stats::diagnostic::{Confusion, rogan_gladen};
use rand::RngExt;

#[derive(serde::Deserialize)]
struct Row {
    table: [u64; 4],
    confidence: f64,
    kappa: f64,
    se: f64,
    low: f64,
    high: f64,
}

#[derive(serde::Deserialize)]
struct Fixture {
    rows: Vec<Row>,
}

#[test]
fn kappa_and_its_interval_match_statsmodels() {
    let f: Fixture = serde_json::from_str(include_str!("fixtures/kappa.json")).unwrap();
    assert_eq!(f.rows.len(), 30);
    for r in &f.rows {
        let [both, only_a, only_b, neither] = r.table;
        let k = agreement(both, only_a, only_b, neither).kappa_interval(r.confidence).unwrap();
        for (ours, theirs, what) in
            [(k.kappa, r.kappa, "kappa"), (k.se, r.se, "se"), (k.low, r.low, "low"), (k.high, r.high, "high")]
        {
            assert!(
                (ours - theirs).abs() < 1e-9,
                "{what} of {:?} at {}: {ours} vs statsmodels {theirs}",
                r.table,
                r.confidence
            );
        }
    }
}

/// Draws the number of successes of `n` Bernoulli(p) trials.
fn binomial(rng: &mut evenhand::rng::Rng, n: u64, p: f64) -> u64 {
    (0..n).filter(|_| rng.random::<f64>() < p).count() as u64
}

#[test]
fn the_corrected_rate_covers_the_truth_at_about_its_level() {
    // A refusal rate of 0.3 seen through a detector with Se 0.85 and Sp 0.9, on 300 answers,
    // with 60 labelled refusals and 90 labelled answers: 2,000 simulated studies.
    let (theta, se, sp) = (0.3, 0.85, 0.9);
    let apparent = theta * se + (1.0 - theta) * (1.0 - sp);
    let mut rng = evenhand::rng::rng_for(7, &[b"rogan-gladen coverage"]);
    let (mut covered, mut studies) = (0, 0);
    for _ in 0..2000 {
        let positives = binomial(&mut rng, 300, apparent);
        let tp = binomial(&mut rng, 60, se);
        let tn = binomial(&mut rng, 90, sp);
        let labels =
            Confusion { true_positive: tp, false_negative: 60 - tp, false_positive: 90 - tn, true_negative: tn };
        let c = rogan_gladen(positives, 300, labels, 0.95).unwrap();
        studies += 1;
        covered += usize::from(c.interval.low <= theta && theta <= c.interval.high);
    }
    let coverage = covered as f64 / studies as f64;
    eprintln!("Lang-Reiczigel 95% interval: coverage {coverage} over {studies} simulated studies");
    // Binomial noise on 2,000 studies is about ±0.01 around the true coverage.
    assert!((0.93..=0.975).contains(&coverage), "coverage {coverage}");
}
