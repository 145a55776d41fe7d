//! PERMANOVA + PERMDISP numbers on a fixed data set, pinned in tests/golden/permanova.json.
//! The wasm facade tests (tests/common/facade.rs) run the same data from that file in Chromium
//! and must get the same bits, which shows that the same seed gives the same F and p there.
//! After an intended change: EVENHAND_BLESS=1 cargo test --test golden_permanova

use evenhand::stats::distance::Distance;
use evenhand::stats::multivariate::Vectors;
use evenhand::stats::permanova::{Input, Options, permanova};
use evenhand::stats::permanova_query::PermanovaQuery;

#[path = "common/permanova_large.rs"]
mod large;

/// 45 points in R^6, three groups; integer arithmetic only, so the data are exact.
fn fixture() -> (usize, Vec<f64>, Vec<String>) {
    let dim = 6;
    let mut values = vec![];
    let mut groups = vec![];
    for i in 0..45usize {
        let g = i % 3;
        for k in 0..dim {
            values.push(((i * 37 + k * 11 + i * k * 5) % 29) as f64 / 8.0 + if k == g { 0.75 } else { 0.0 });
        }
        groups.push(["en", "ko", "hi"][g].to_string());
    }
    (dim, values, groups)
}

#[test]
fn permanova_numbers_match_the_golden_file() {
    let (dim, values, groups) = fixture();
    let v = Vectors::from_flat(dim, values.clone()).unwrap();
    let options = Options { permutations: 499, seed: 2026, ..Options::default() };
    let mut golden = serde_json::json!({
        "query": {"dim": dim, "groups": groups, "permutations": 499, "seed": 2026},
        "values": values,
    });
    for d in [Distance::Euclidean, Distance::Chord, Distance::Cosine] {
        let r = permanova(Input::Vectors(&v, d), &groups, options).unwrap();
        assert!(r.p < 0.05 && r.f > 1.0, "{d:?}: the fixture has a group effect");
        golden[d.name()] = serde_json::to_value(&r).unwrap();
    }
    let now = serde_json::to_string_pretty(&golden).unwrap() + "\n";
    let path = format!("{}/tests/golden/permanova.json", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("EVENHAND_BLESS").is_some() {
        std::fs::write(&path, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e} (bless it once)"));
    assert!(now == pinned, "permanova.json changed; if intended, bless it (see the top of this file)");
}

/// 600 points: the group sums run over three slices of 256 points. The browser (which adds
/// member rows instead of running the matrix product) must reproduce these bits.
/// After an intended change: EVENHAND_BLESS=1 cargo test --test golden_permanova
#[test]
fn permanova_past_one_slice_matches_its_golden_file() {
    let mut golden = serde_json::Map::new();
    for (groups, distance) in large::CASES {
        let (_, values, _) = large::fixture(groups);
        let q: PermanovaQuery = serde_json::from_value(large::query(groups, distance)).unwrap();
        let mut job = q.job(values).unwrap();
        job.advance(usize::MAX);
        let r = job.result().unwrap();
        assert!(r.p < 0.05, "{groups} {distance}: the fixture has a group effect");
        golden.insert(format!("{groups} groups, {distance}"), serde_json::to_value(&r).unwrap());
    }
    let now = serde_json::to_string_pretty(&golden).unwrap() + "\n";
    let path = format!("{}/tests/golden/permanova_large.json", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("EVENHAND_BLESS").is_some() {
        std::fs::write(&path, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e} (bless it once)"));
    assert!(now == pinned, "permanova_large.json changed; if intended, bless it (see above)");
}
