//! GG-BBQ subset-1 with the synthetic predictors of ../shared/ref/stats/reference_vectors.json:
//! every count and metric must match to 1e-12.

use evenhand::bbq::import;
use evenhand::bbq::metrics::{self, Counts};
use serde_json::Value;

const REF: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/ref");

fn close(ours: Option<f64>, want: &Value, what: &str) {
    match (ours, want.as_f64()) {
        (None, None) => {}
        (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-12, "{what}: ours {a}, reference {b}"),
        (a, _) => panic!("{what}: ours {a:?}, reference {want}"),
    }
}

#[test]
fn ggbbq_subset1_matches_the_reference_vectors() {
    if !std::path::Path::new(REF).exists() {
        eprintln!("skipped: {REF} is absent");
        return;
    }
    let refs: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{REF}/stats/reference_vectors.json")).unwrap()).unwrap();
    let mut examples = vec![];
    for part in ["amb", "disamb"] {
        let path = format!("{REF}/ggbbq/data/subset-1/bbq_de_{part}_test.jsonl");
        let ds = import::read(&path, &std::fs::read(&path).unwrap(), None, None).unwrap();
        assert!(ds.problems.is_empty());
        examples.extend(ds.examples);
    }
    let index = |id: &str| id.rsplit(':').next().unwrap().parse::<usize>().unwrap();
    type Predictor = fn(&evenhand::bbq::Example, usize) -> usize;
    let predictors: [(&str, Predictor); 3] =
        [("always_choice_0", |_, _| 0), ("index_mod_3", |_, i| i % 3), ("always_unknown", |e, _| e.unknown.unwrap())];
    for (name, predict) in predictors {
        let want = &refs["ggbbq_subset1_synthetic"]["predictors"][name];
        let mut counts = Counts::default();
        for ex in &examples {
            counts.add(ex, Some(predict(ex, index(&ex.id))));
        }
        let ours = serde_json::to_value(counts).unwrap();
        for (k, v) in want["counts"].as_object().unwrap() {
            assert_eq!(&ours[k], v, "{name}: count {k}");
        }
        let s = metrics::scores(&counts);
        close(s.acc_amb, &want["Acc_amb"], &format!("{name} Acc_amb"));
        close(s.acc_dis, &want["Acc_disamb"], &format!("{name} Acc_disamb"));
        close(s.diff_bias_amb, &want["diff_bias_amb"], &format!("{name} diff_bias_amb"));
        close(s.diff_bias_dis, &want["diff_bias_disamb"], &format!("{name} diff_bias_disamb"));
        close(s.s_dis, &want["bbq_s_DIS"], &format!("{name} s_DIS"));
        close(s.s_amb, &want["bbq_s_AMB"], &format!("{name} s_AMB"));
        // The bounds hold: |diff-bias| never exceeds its maximum.
        assert!(s.diff_bias_amb.unwrap().abs() <= s.max_diff_bias_amb.unwrap() + 1e-15);
        assert!(s.diff_bias_dis.unwrap().abs() <= s.max_diff_bias_dis.unwrap() + 1e-15);
    }
}
