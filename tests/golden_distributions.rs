//! The distribution functions' bits over a grid of arguments, pinned in
//! tests/golden/distributions.json; tests/web_distributions.rs checks the same grid in Chromium
//! against the same file, which shows native and wasm builds compute the same bits.
//! After an intended change: EVENHAND_BLESS=1 cargo test --test golden_distributions

#[path = "common/distributions.rs"]
mod distributions;

#[test]
fn distribution_bits_match_the_golden_file() {
    let grid = distributions::grid();
    let path = format!("{}/tests/golden/distributions.json", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("EVENHAND_BLESS").is_some() {
        std::fs::write(&path, distributions::render(&grid)).unwrap();
    }
    let pinned = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e} (bless it once)"));
    let differences = distributions::differences(&grid, &pinned);
    assert!(
        differences.is_empty(),
        "{} values differ from distributions.json; if intended, bless it (see the top of this file):\n{}",
        differences.len(),
        differences.join("\n")
    );
}

#[test]
fn the_grid_reaches_the_tails() {
    // The golden file only means something if the grid holds tails, not only comfortable values.
    let grid = distributions::grid();
    let value = |name: &str| grid.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name}")).1;
    assert!(value("normal::cdf(-30.0)") > 0.0 && value("normal::cdf(-30.0)") < 1e-190);
    assert!(value("chisq::sf(300.0, 1.0)") > 0.0 && value("chisq::sf(300.0, 1.0)") < 1e-60);
    assert!(value("student::quantile(1e-12, 0.1)") < -1e100);
    assert!((value("student::quantile(0.975, 10000000.0)") - 1.959_963_984_540_054).abs() < 1e-6);
    assert!((value("chisq::sf(10000000.0, 10000000.0)") - 0.5).abs() < 1e-3);
    assert!(grid.len() > 600, "{}", grid.len());
}
