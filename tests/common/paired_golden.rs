//! The study statistics on fixed inputs, computed the same way natively
//! (tests/golden_paired_stats.rs, which pins tests/golden/paired_stats.json) and in Chromium
//! (tests/common/facade.rs), so the two must give the same bits.

use evenhand::stats::cluster::{ClusterCount, clustered_rate};
use evenhand::stats::confidence::Confidence;
use evenhand::stats::mcnemar::Method;
use evenhand::stats::paired::{detectable_difference, paired_bootstrap, paired_mcnemar};
use serde_json::{Value, json};

/// The inputs: small, exact, ours (the browser reads them back from the golden file).
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
pub fn inputs() -> Value {
    json!({
        "clusters": [[3, 4], [0, 5], [6, 6], [2, 7], [1, 3], [4, 4], [0, 2], [5, 9]],
        "mcnemar": {"a": [true, true, false, true, false, false, true, true, true, false, true, false],
                    "b": [true, false, false, false, true, false, false, false, true, false, false, false]},
        "bootstrap": {"clusters": [[0, 1], [2, 3, 4], [5], [6, 7, 8, 9]],
                      "items": [[1, 0], [1, 1], [0, 0], [1, 0], [0, 1], [1, 0], [1, 1], [0, 1], [1, 0], [1, 0]],
                      "resamples": 999, "seed": 5},
        "detectable": [[62, 0.1, 0.05, 1], [2000, 0.3, 0.05, 1]],
    })
}

/// Every result on `inputs`, as JSON.
pub fn compute(inputs: &Value) -> Value {
    let pairs = |v: &Value| -> Vec<(u64, u64)> { serde_json::from_value(v.clone()).unwrap() };
    let clusters: Vec<ClusterCount> =
        pairs(&inputs["clusters"]).into_iter().map(|(successes, n)| ClusterCount { successes, n }).collect();
    let rate = clustered_rate(&clusters, Confidence::NINETY_FIVE).unwrap();
    let bools = |v: &Value| -> Vec<bool> { serde_json::from_value(v.clone()).unwrap() };
    let (a, b) = (bools(&inputs["mcnemar"]["a"]), bools(&inputs["mcnemar"]["b"]));
    let mcnemar = paired_mcnemar(&a, &b, Method::Exact).unwrap();
    let boot = &inputs["bootstrap"];
    let groups: Vec<Vec<usize>> = serde_json::from_value(boot["clusters"].clone()).unwrap();
    let items: Vec<(f64, f64)> = serde_json::from_value(boot["items"].clone()).unwrap();
    let resamples = boot["resamples"].as_u64().unwrap() as u32;
    let seed = boot["seed"].as_u64().unwrap();
    let bootstrap = paired_bootstrap(&groups, resamples, Confidence::NINETY_FIVE, seed, |drawn| {
        let n = drawn.len() as f64;
        (drawn.iter().map(|&i| items[i].0).sum::<f64>() / n, drawn.iter().map(|&i| items[i].1).sum::<f64>() / n)
    })
    .unwrap();
    let detectable: Vec<Value> = inputs["detectable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            let d = detectable_difference(
                q[0].as_u64().unwrap() as u32,
                q[1].as_f64().unwrap(),
                q[2].as_f64().unwrap(),
                q[3].as_u64().unwrap(),
            )
            .unwrap();
            serde_json::to_value(d).unwrap()
        })
        .collect();
    json!({
        "inputs": inputs,
        "clustered_rate": rate,
        "paired_mcnemar": mcnemar,
        "paired_bootstrap": bootstrap,
        "detectable": detectable,
    })
}
