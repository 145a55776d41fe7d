//! The wasm facade in headless Chromium, on a worker; the tests are in common/facade.rs.
#![cfg(target_arch = "wasm32")]

#[macro_use]
#[path = "common/facade.rs"]
mod facade;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);

all_facade_tests!();
