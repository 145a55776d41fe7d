//! The demo's numbers, pinned. The wasm tests compare the browser's numbers with the same
//! file, so together they show that the same seed gives the same bits natively and in Chromium.
//! After an intended change: EVENHAND_BLESS=1 cargo test --test golden_demo

use evenhand::demo::workspace::Workspace;

fn check(name: &str, now: &str) {
    let path = format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("EVENHAND_BLESS").is_some() {
        std::fs::write(&path, now).unwrap();
    }
    let golden = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e} (bless it once)"));
    assert!(now == golden, "{name} changed; if intended, bless it (see the top of this file)");
}

#[test]
fn demo_numbers_and_chart_match_the_golden_files() {
    let view = Workspace::demo().view().unwrap();
    check("demo_analysis.json", &(serde_json::to_string_pretty(&view.analysis).unwrap() + "\n"));
    check("demo_chart.svg", &view.chart_svg);
}
