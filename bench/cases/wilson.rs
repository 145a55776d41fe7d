//! Wilson intervals for many proportions: the case that every pass-rate table multiplies.
//! Prints JSON: seconds, and a few intervals for the cross-check against the peer.
//! bench-size: 1000000

use evenhand::stats::proportion::Wilson;
use std::time::Instant;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    // The same deterministic data as the peer script: successes = i % 97, trials = 100 + i % 50.
    let data: Vec<(u64, u64)> = (0..n as u64).map(|i| (i % 97, 100 + i % 50)).collect();
    let start = Instant::now();
    let wilson = Wilson::new(0.95);
    let mut sum = 0.0;
    for &(k, t) in &data {
        let p = wilson.interval(k, t).expect("valid proportion");
        sum += p.low + p.high;
    }
    let seconds = start.elapsed().as_secs_f64();
    let sample: Vec<[f64; 2]> =
        data.iter().take(5).map(|&(k, t)| wilson.interval(k, t).map(|p| [p.low, p.high]).unwrap()).collect();
    println!("{}", serde_json::json!({ "seconds": seconds, "checksum": sum, "sample": sample }));
}
