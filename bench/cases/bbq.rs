//! Scoring 100,000 bias-QA predictions: BBQ Sexual_orientation (../shared/ref) tiled to
//! 116 copies, 100,224 examples, one prediction each given as a letter ("A"/"B"/"C") so that the answer
//! parser runs too. Times what scoring costs on the page's path (read and parse the
//! predictions, match them, count, score; one bootstrap replicate); reading the data is not timed.
//! Prints JSON: seconds and [acc_amb, s_amb, s_dis] for the cross-check with lm-eval.
//! bench-size: 100000

use evenhand::bbq::session::Session;
use std::time::Instant;

fn main() {
    let copies: usize = std::env::args().nth(1).and_then(|a| a.parse::<usize>().ok()).map_or(116, |n| n.div_ceil(864));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/ref/bbq/data/Sexual_orientation.jsonl");
    let Ok(base) = std::fs::read_to_string(path) else {
        println!("{{\"skipped\": \"{path} is absent\"}}");
        return;
    };
    let (data, preds) = tile(&base, copies);
    let mut s = Session::default();
    s.settings.replicates = 1;
    // Reading the benchmark is not timed (lm-eval's peer prepares its documents untimed too).
    s.add_data("Sexual_orientation.jsonl", data.as_bytes()).expect("data");
    let start = Instant::now();
    s.add_predictions("model.csv", preds.as_bytes(), None).expect("predictions");
    let v = s.view();
    let seconds = start.elapsed().as_secs_f64();
    let o = &v.report.overall.scores;
    println!(
        "{}",
        serde_json::json!({ "seconds": seconds, "examples": v.report.judged, "sample": [[o.acc_amb, o.s_amb, o.s_dis]] })
    );
}

/// The same tiling and predictions as bench/cases/bbq_lmeval.py and bench/web/bbq.mjs:
/// copy k gets example ids shifted by k·100000; prediction = (i·7 + i/3) mod 3 as a letter.
fn tile(base: &str, copies: usize) -> (String, String) {
    let mut data = String::new();
    let mut preds = String::from("id,prediction\n");
    let mut i = 0usize;
    for k in 0..copies {
        for line in base.lines().filter(|l| !l.trim().is_empty()) {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            let id = v["example_id"].as_u64().unwrap() as usize + k * 100_000;
            v["example_id"] = id.into();
            data.push_str(&v.to_string());
            data.push('\n');
            let letter = ["A", "B", "C"][(i * 7 + i / 3) % 3];
            preds.push_str(&format!("Sexual_orientation:{id},{letter}\n"));
            i += 1;
        }
    }
    (data, preds)
}
