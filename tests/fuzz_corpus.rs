//! The bounded fuzz pass of `cargo test`: each reader gets its seed corpus replayed and then a
//! few thousand mutants (or about two seconds, whichever comes first), with the harness of
//! fuzz/ (`./build.sh fuzz` runs the long version). A panic fails the test and names the file
//! the shrunk input was saved to under target/fuzz-crashes/<target>/.

#![cfg(not(target_arch = "wasm32"))] // the harness uses the file system
#![allow(dead_code)] // the harness's reporting helpers are used by its own main only

#[path = "../fuzz/engine.rs"]
mod engine;
#[path = "../fuzz/mutate.rs"]
mod mutate;
#[path = "../fuzz/targets.rs"]
mod targets;

use std::time::Duration;

/// Mutants per target; the time cap below keeps a slow debug build within budget.
const EXECS: u64 = 2_000;

fn fuzz(name: &str) {
    let t = targets::find(name).unwrap_or_else(|| panic!("no fuzz target {name}"));
    let cfg = engine::Config {
        seed: 1,
        seconds: 2.0,
        max_execs: EXECS,
        // Debug builds are slow; here only a hang would be a finding.
        slow: Duration::from_secs(5),
        hang: Duration::from_secs(60),
        keep_current: false,
    };
    let r = engine::run(t, &cfg);
    println!("{}", engine::line(&r));
    assert!(r.seeds >= 3, "{name}: expected at least 3 seeds in fuzz/corpus/{name}/, found {}", r.seeds);
    assert!(r.seeds_accepted >= 1, "{name}: the reader refused every seed; the corpus no longer fits the format");
    assert!(
        r.crashes.is_empty(),
        "{name}: {} input(s) panicked the reader: {:?}",
        r.crashes.len(),
        r.crashes.iter().map(|(at, path)| format!("{at} -> {}", path.display())).collect::<Vec<_>>()
    );
    assert!(r.execs > r.seeds as u64, "{name}: no mutant ran");
}

macro_rules! fuzz_tests {
    ($($name:ident),* $(,)?) => {
        $( #[test] fn $name() { fuzz(stringify!($name)); } )*

        /// Every target has a test here and a corpus folder, and every corpus folder a target.
        #[test]
        fn every_target_is_tested_and_every_corpus_folder_is_a_target() {
            let tested = [$(stringify!($name)),*];
            for t in targets::TARGETS {
                assert!(tested.contains(&t.name), "target {} has no test in tests/fuzz_corpus.rs", t.name);
            }
            for entry in std::fs::read_dir(engine::CORPUS_DIR).expect("fuzz/corpus exists") {
                let name = entry.unwrap().file_name().to_string_lossy().to_string();
                assert!(targets::find(&name).is_some(), "fuzz/corpus/{name} belongs to no target");
                let files = engine::seeds(&name).len();
                assert!((3..=10).contains(&files), "fuzz/corpus/{name}: {files} seeds, expected 3 to 10");
            }
        }
    };
}

fuzz_tests!(
    records_csv,
    records_jsonl,
    records_json,
    records_parquet,
    cases,
    run_spec,
    journal,
    embed_texts,
    langbite_scenario,
    langbite_library_tsv,
    langbite_library_json,
    our_library,
    langbite_reports,
    bbq_data,
    ggbbq_data,
    kobbq_data,
    bbq_predictions,
    python_literal,
    questions,
    msqad,
    crosslingual_embeddings,
    crosslingual_distances,
    probes,
    reference,
    logprobs,
    embeddings,
    groups,
    distance_matrix,
    bundle,
    share_link,
    batch_results_openai,
    batch_results_anthropic,
    study,
    catalogue,
    catalogue_paths,
    parquet_limits,
    nonfinite,
    harness_lm_eval,
    harness_inspect_eval,
    harness_inspect_json,
    harness_promptfoo,
);
