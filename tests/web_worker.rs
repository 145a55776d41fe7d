//! The wasm facade in headless Chromium, on a worker.
#![cfg(target_arch = "wasm32")]

#[path = "common/facade.rs"]
mod facade;

use wasm_bindgen_test::*;
wasm_bindgen_test_configure!(run_in_dedicated_worker);

#[wasm_bindgen_test]
fn demo_numbers_equal_the_native_ones() {
    facade::demo_numbers_equal_the_native_ones();
}

#[wasm_bindgen_test]
fn every_export_refuses_garbage_without_trapping() {
    facade::every_export_refuses_garbage_without_trapping();
}

#[wasm_bindgen_test]
fn load_reports_lines_and_keeps_earlier_records() {
    facade::load_reports_lines_and_keeps_earlier_records();
}

#[wasm_bindgen_test]
fn unknown_csv_asks_for_a_mapping() {
    facade::unknown_csv_asks_for_a_mapping();
}

#[wasm_bindgen_test]
fn share_and_bundle_round_trip() {
    facade::share_and_bundle_round_trip();
}
