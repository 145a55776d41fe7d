//! The distribution functions in headless Chromium: the grid of tests/common/distributions.rs,
//! computed by the wasm build, must give the bits the native build pinned in
//! tests/golden/distributions.json (tests/golden_distributions.rs).
#![cfg(target_arch = "wasm32")]

#[path = "common/distributions.rs"]
mod distributions;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const GOLDEN: &str = include_str!("golden/distributions.json");

#[wasm_bindgen_test::wasm_bindgen_test]
fn distributions_give_the_native_bits() {
    let differences = distributions::differences(&distributions::grid(), GOLDEN);
    assert!(
        differences.is_empty(),
        "{} values differ from the native ones:\n{}",
        differences.len(),
        differences.join("\n")
    );
}
