//! The three binomial interval methods a study may name, against statsmodels'
//! `proportion_confint` (tests/fixtures/proportion_confint.json, written by
//! bench/proportion_confint.py), and their use in the clustered rate.

use evenhand::stats::cluster::{ClusterCount, clustered_rate_with};
use evenhand::stats::confidence::Confidence;
use evenhand::stats::proportion::Method;

#[derive(serde::Deserialize)]
struct Row {
    successes: u64,
    n: u64,
    confidence: f64,
    method: Method,
    low: f64,
    high: f64,
}

#[derive(serde::Deserialize)]
struct Fixture {
    rows: Vec<Row>,
}

#[test]
fn every_method_matches_statsmodels() {
    let text = include_str!("fixtures/proportion_confint.json");
    let f: Fixture = serde_json::from_str(text).unwrap();
    assert_eq!(f.rows.len(), 108);
    let mut worst = 0.0f64;
    for m in Method::ALL {
        assert!(f.rows.iter().any(|r| r.method == m), "{m:?} has reference rows");
    }
    for r in &f.rows {
        let got = r.method.interval(r.successes, r.n, r.confidence).unwrap();
        let err = (got.low - r.low).abs().max((got.high - r.high).abs());
        worst = worst.max(err);
        assert!(
            err < 1e-9,
            "{:?} {}/{} at {}: got ({}, {}), statsmodels ({}, {})",
            r.method,
            r.successes,
            r.n,
            r.confidence,
            got.low,
            got.high,
            r.low,
            r.high
        );
    }
    println!("largest difference from statsmodels over {} intervals: {worst:e}", f.rows.len());
}

#[test]
fn the_methods_differ_where_they_should() {
    // Clopper-Pearson is the widest of the three on a small sample; all stay in [0, 1].
    let [w, cp, ac] = Method::ALL.map(|m| m.interval(1, 10, 0.95).unwrap());
    assert!(cp.high - cp.low > w.high - w.low && cp.high - cp.low > ac.high - ac.low, "{w:?} {cp:?} {ac:?}");
    assert_eq!(Method::AgrestiCoull.interval(0, 10, 0.95).unwrap().low, 0.0, "clipped at 0");
    assert!(Method::ClopperPearson.interval(3, 2, 0.95).is_none());
}

#[test]
fn the_clustered_rate_uses_the_method_for_both_intervals() {
    let clusters = [
        ClusterCount { successes: 9, n: 10 },
        ClusterCount { successes: 2, n: 10 },
        ClusterCount { successes: 8, n: 10 },
        ClusterCount { successes: 3, n: 10 },
    ];
    let c95 = Confidence::NINETY_FIVE;
    let cp = clustered_rate_with(&clusters, c95, Method::ClopperPearson).unwrap();
    let plain = Method::ClopperPearson.interval(22, 40, 0.95).unwrap();
    assert!((cp.plain.low - plain.low).abs() < 1e-12 && (cp.plain.high - plain.high).abs() < 1e-12);
    assert!(cp.design_effect.unwrap() > 1.0);
    let (low, high) = Method::ClopperPearson.bounds(cp.rate, cp.effective_n, 0.95);
    assert_eq!((cp.robust.low, cp.robust.high), (low, high), "the robust interval is the method's on the effective n");
    let w = clustered_rate_with(&clusters, c95, Method::Wilson).unwrap();
    assert_ne!(w.robust, cp.robust);
    assert_eq!(w.design_effect, cp.design_effect, "the design effect does not depend on the interval method");
}
