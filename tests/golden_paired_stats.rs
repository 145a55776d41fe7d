//! The study statistics (clustered rate, paired McNemar, paired bootstrap, power note) on fixed
//! inputs, pinned in tests/golden/paired_stats.json. The wasm facade tests
//! (tests/common/facade.rs) recompute them from that file's inputs in Chromium and must get the
//! same bits. After an intended change: EVENHAND_BLESS=1 cargo test --test golden_paired_stats

#[path = "common/paired_golden.rs"]
mod paired_golden;

#[test]
fn paired_stats_match_the_golden_file() {
    let now = serde_json::to_string_pretty(&paired_golden::compute(&paired_golden::inputs())).unwrap() + "\n";
    let path = format!("{}/tests/golden/paired_stats.json", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("EVENHAND_BLESS").is_some() {
        std::fs::write(&path, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e} (bless it once)"));
    assert!(now == pinned, "paired_stats.json changed; if intended, bless it (see the top of this file)");
}
