//! Writes a tiny random-weight BERT NLI classifier (config.json, model.safetensors) over a real
//! tokenizer.json into a folder, for tests that need a model folder a user could pick: the
//! page's end-to-end NLI test (tests/e2e/local-nli.spec.mjs) runs it, then compares the page's
//! verdicts with `evenhand crosslingual --nli-model-dir` on the same folder.
//!
//! Usage: write_tiny_nli OUT_DIR TOKENIZER_JSON [SEED]

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(out), Some(tokenizer)) = (args.first(), args.get(1)) else {
        eprintln!("usage: write_tiny_nli OUT_DIR TOKENIZER_JSON [SEED]");
        return ExitCode::from(2);
    };
    let seed = match args.get(2).map(|s| s.parse::<u64>()) {
        None => 1,
        Some(Ok(s)) => s,
        Some(Err(e)) => {
            eprintln!("SEED: expected a whole number, found {:?} ({e})", args[2]);
            return ExitCode::from(2);
        }
    };
    let bytes = match std::fs::read(tokenizer) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{tokenizer}: cannot read: {e}");
            return ExitCode::FAILURE;
        }
    };
    match evenhand_models::tiny::write_classifier_with_tokenizer(&PathBuf::from(out), seed, &bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
