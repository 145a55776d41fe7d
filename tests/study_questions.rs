//! A study's cross-lingual method names a list of question-set files (issue 25: the upload slot
//! and the Cross-lingual tool take several MSQAD topic files at once, the study document took
//! one): each file with its name and sha256, merged as the tool merges them; a study of one
//! file still reads (and keeps its sha256); a file listed twice, by name or by content, is
//! refused naming it; `study init --questions` writes the list and `study plan` reads it.

#[path = "common/cli.rs"]
mod cli;

use evenhand::study;

fn sha256(bytes: &[u8]) -> String {
    study::format::sha256(bytes)
}

fn torture() -> Vec<u8> {
    std::fs::read("tests/fixtures/crosslingual/Torture.json").unwrap()
}

/// Another topic of our own (MSQAD's topic and ids come from the file name), other bytes.
fn drugs() -> Vec<u8> {
    String::from_utf8(torture()).unwrap().replace("\"title\": \"t\"", "\"title\": \"d\"").into_bytes()
}

fn study_text(questions: serde_json::Value) -> String {
    serde_json::json!({
        "format": "evenhand-study", "version": 1, "title": "several sets", "question": "q?",
        "targets": ["simulated:fair", "simulated:skewed"],
        "methods": {"crosslingual": {"questions": questions, "languages": ["en", "es"], "modes": ["non_acceptable"]}},
        "statistics": {"replicates": 200},
    })
    .to_string()
}

fn one(file: &str, bytes: &[u8]) -> serde_json::Value {
    serde_json::json!({"file": file, "sha256": sha256(bytes)})
}

#[test]
fn a_list_of_question_files_is_asked_for_file_by_file_and_merged() {
    let text = study_text(serde_json::json!([one("Torture.json", &torture()), one("Drugs.json", &drugs())]));
    let mut s = study::Session::open("s.json", &text).unwrap();
    assert_eq!(
        s.missing(),
        vec![
            ("methods.crosslingual.questions[0]".to_string(), "Torture.json".to_string()),
            ("methods.crosslingual.questions[1]".to_string(), "Drugs.json".to_string()),
        ]
    );
    assert_eq!(s.add_file("Torture.json", &torture()).unwrap().len(), 1);
    // Each file is checked against its own sha256.
    let e = s.add_file("Drugs.json", &torture()).unwrap_err();
    assert!(e.to_string().contains("methods.crosslingual.questions[1]"), "{e}");
    assert!(s.add_file("Drugs.json", &drugs()).unwrap().is_empty());

    let x = s.inputs().unwrap().crosslingual.clone().unwrap();
    assert_eq!(x.files.len(), 2);
    assert_eq!((x.files[0].source.as_str(), x.files[0].sha256.clone()), ("Torture.json", sha256(&torture())));
    assert_eq!((x.files[1].source.as_str(), x.files[1].sha256.clone()), ("Drugs.json", sha256(&drugs())));
    // Three questions per file, two languages, one mode: twelve cases, both topics.
    assert_eq!(x.cases.len(), 12, "{}", x.provenance.size);
    assert!(x.provenance.size.starts_with("6 questions, 12 cases"), "{}", x.provenance.size);

    // Written back as the list, in the study's order; the report's methods name each file's digest.
    let saved: serde_json::Value = serde_json::to_value(&s.study).unwrap();
    assert_eq!(saved["methods"]["crosslingual"]["questions"][1]["file"], "Drugs.json");
    s.simulate().unwrap();
    let r = s.report("2026-01-01T00:00:00Z").unwrap();
    let methods = serde_json::to_string(&r.methods_text).unwrap();
    for (file, bytes) in [("Torture.json", torture()), ("Drugs.json", drugs())] {
        assert!(methods.contains(&format!("{file} (SHA-256 {})", sha256(&bytes))), "{methods}");
    }
}

#[test]
fn a_study_of_one_question_file_still_reads_and_keeps_its_sha256() {
    let text = study_text(one("Torture.json", &torture()));
    let s = study::Session::open("s.json", &text).unwrap();
    let x = s.study.methods.crosslingual.as_ref().unwrap();
    assert_eq!(x.questions.len(), 1);
    assert_eq!(s.missing(), vec![("methods.crosslingual.questions".to_string(), "Torture.json".to_string())]);
    // Written as the single object it was (a one-element list is that object), so the study's
    // sha256, which its runs and bundles are filed under, does not change.
    let saved: serde_json::Value = serde_json::to_value(&s.study).unwrap();
    assert_eq!(saved["methods"]["crosslingual"]["questions"], one("Torture.json", &torture()));
    let listed = study_text(serde_json::json!([one("Torture.json", &torture())]));
    let again = study::Session::open("s.json", &listed).unwrap();
    assert_eq!(again.study, s.study);
    // The example study (the built-in set, one object) reads as a list of one.
    let example = study::Session::open("example.json", study::example::TEXT).unwrap();
    assert_eq!(example.study.methods.crosslingual.as_ref().unwrap().questions.len(), 1);
}

#[test]
fn a_question_file_listed_twice_is_refused_naming_it() {
    let same_name = study_text(serde_json::json!([one("Torture.json", &torture()), one("Torture.json", &drugs())]));
    let e = study::Session::open("s.json", &same_name).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("field methods.crosslingual.questions[1]"), "{text}");
    assert!(text.contains("\"Torture.json\" is listed twice"), "{text}");

    let same_bytes = study_text(serde_json::json!([one("Torture.json", &torture()), one("Copy.json", &torture())]));
    let text = study::Session::open("s.json", &same_bytes).unwrap_err().to_string();
    assert!(text.contains("field methods.crosslingual.questions[1]"), "{text}");
    assert!(text.contains("\"Copy.json\" has the same sha256 as \"Torture.json\""), "{text}");

    let builtin_twice = study_text(serde_json::json!([{"builtin": "evenhand"}, {"builtin": "evenhand"}]));
    let text = study::Session::open("s.json", &builtin_twice).unwrap_err().to_string();
    assert!(text.contains("questions[1]") && text.contains("listed twice"), "{text}");

    let none = study_text(serde_json::json!([]));
    let text = study::Session::open("s.json", &none).unwrap_err().to_string();
    assert!(text.contains("field methods.crosslingual.questions") && text.contains("at least one"), "{text}");

    // A bad entry of the list is located at its index.
    let bad = study_text(serde_json::json!([one("Torture.json", &torture()), {"file": "x.json", "sha": "00"}]));
    let p = study::format::parse("s.json", &bad).unwrap_err();
    assert_eq!(p.field.as_deref(), Some("methods.crosslingual.questions[1].sha"), "{p:?}");
}

#[test]
fn init_writes_the_question_files_given_and_plan_reads_them() {
    let dir = cli::temp("study-questions", "init");
    std::fs::write(dir.join("Torture.json"), torture()).unwrap();
    std::fs::create_dir_all(dir.join("msqad")).unwrap();
    std::fs::write(dir.join("msqad/Drugs.json"), drugs()).unwrap();
    std::fs::write(dir.join("Copy.json"), torture()).unwrap();
    let out = dir.join("study.json");
    let o = out.to_str().unwrap();
    let q = |name: &str| dir.join(name).to_str().unwrap().to_string();
    // `study init --out study.json --questions A --questions B`: (exit code, stderr).
    let init = |a: &str, b: &str| {
        let (code, _, stderr) =
            cli::evenhand(&["study", "init", "--out", o, "--questions", &q(a), "--questions", &q(b)]);
        (code, stderr)
    };

    // The same file twice, by path or by content: refused naming it, nothing written.
    let (code, stderr) = init("Torture.json", "Torture.json");
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--questions Torture.json is given twice"), "{stderr}");
    let (code, stderr) = init("Torture.json", "Copy.json");
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("Copy.json has the same bytes (sha256) as Torture.json"), "{stderr}");
    assert!(!out.exists());

    let (code, stderr) = init("Torture.json", "msqad/Drugs.json");
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(
        doc["methods"]["crosslingual"]["questions"],
        serde_json::json!([one("Torture.json", &torture()), one("msqad/Drugs.json", &drugs())])
    );
    let (code, stdout, stderr) = cli::evenhand(&["study", "plan", "--study", o]);
    assert_eq!(code, 0, "{stderr}");
    let plan: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    // Six questions (three per topic) in the files' six languages, one mode.
    let cases = plan["cases"].as_array().unwrap();
    assert!(cases.contains(&serde_json::json!(["crosslingual", 36])), "{stdout}");

    // A file outside the study's folder is refused (plan and run could not read it there).
    let other = cli::temp("study-questions", "elsewhere");
    std::fs::write(other.join("Torture.json"), torture()).unwrap();
    let (code, _, stderr) = cli::evenhand(&[
        "study",
        "init",
        "--out",
        dir.join("b.json").to_str().unwrap(),
        "--questions",
        other.join("Torture.json").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not in the study's folder"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(&other).ok();
}
