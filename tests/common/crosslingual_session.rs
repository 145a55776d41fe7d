//! A Cross-lingual session with response embeddings, for the tests of its PERMANOVA family.

use evenhand::crosslingual::session::{RunRequest, Session};

/// The fixture question set (6 questions) run on the simulated model in en, de and hi.
pub fn simulated() -> Session {
    let mut s = Session::default();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/crosslingual/questions.json");
    s.load_questions("questions.json", &std::fs::read(path).unwrap()).unwrap();
    let languages = ["en", "de", "hi"].map(String::from).to_vec();
    let r = RunRequest { languages, modes: vec![], samples: 3, seed: 4, behaviour: None };
    let total = s.plan_run(r).unwrap().total;
    while s.step(50).unwrap().done < total {}
    s
}
