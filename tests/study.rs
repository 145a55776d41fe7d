//! The study end to end, natively: located errors from the CLI, the report JSON of a fixed
//! study and records (the golden the wasm test compares the page's report with), the HTML's
//! self-containment, and the example study's methods text (a snapshot).
//! After an intended change: EVENHAND_BLESS=1 cargo test --test study

#[path = "common/cli.rs"]
mod cli;
#[path = "common/study.rs"]
mod fixture;

use evenhand::study;
use evenhand::study::session::Origin;

fn bless() -> bool {
    std::env::var_os("EVENHAND_BLESS").is_some()
}

fn golden(path: &str, got: &str) {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    if bless() {
        std::fs::write(&full, got).unwrap();
    }
    let want = std::fs::read_to_string(&full).unwrap();
    assert!(want == got, "{path} differs; if intended, rerun with EVENHAND_BLESS=1\n--- got:\n{got}");
}

/// The uploaded records of the parity fixture, written to `dir`.
fn upload_records(dir: &std::path::Path) -> std::path::PathBuf {
    let mut s = study::Session::open("upload.json", fixture::UPLOAD).unwrap();
    s.simulate().unwrap();
    let jsonl = evenhand::formats::write(&s.records, evenhand::formats::FileFormat::Jsonl);
    let path = dir.join("records.jsonl");
    std::fs::write(&path, fixture::relabel(&jsonl)).unwrap();
    path
}

#[test]
fn the_cli_report_equals_the_golden_and_is_self_contained() {
    let dir = cli::temp("study", "parity");
    let records = upload_records(&dir);
    let study_path = dir.join("parity.json");
    std::fs::write(&study_path, fixture::PARITY).unwrap();
    let out = dir.join("out");
    let (code, stdout, stderr) = cli::evenhand(&[
        "study",
        "report",
        "--study",
        study_path.to_str().unwrap(),
        "--records",
        records.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--generated-at",
        fixture::GENERATED_AT,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("report.html"), "{stdout}");
    let json = std::fs::read_to_string(out.join("report.json")).unwrap();
    golden("tests/golden/study_report.json", &json);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let models: Vec<&str> = report["models"].as_array().unwrap().iter().map(|m| m["model"].as_str().unwrap()).collect();
    assert_eq!(models, ["sim:fair", "gpt-4o-mini"]);
    assert_eq!(report["sections"].as_array().unwrap().len(), 4);
    // The uploaded model is the skewed profile: BBQ diff-bias must come out different.
    let differs = report["sections"][1]["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["figure"] == "diff-bias · ambiguous" && c["significant"] == true);
    assert!(differs, "the skewed upload should differ from the fair model in ambiguous diff-bias");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let lower = html.to_lowercase();
    assert!(!lower.contains("<script"));
    for bad in ["src=\"http", "href=\"http", "src='http", "href='http", "url(", "@import", "<link", "<iframe"] {
        assert!(!lower.contains(bad), "report.html holds {bad}");
    }
    // Every comparison's adjusted p-value shown in the HTML is the JSON's, rounded.
    for c in report["sections"].as_array().unwrap().iter().flat_map(|s| s["comparisons"].as_array().unwrap()) {
        let p = c["p_adjusted"].as_f64().unwrap();
        let shown = if p < 0.0001 { "&lt; 0.0001".to_string() } else { format!("{p:.4}") };
        assert!(html.contains(&shown), "p {p} not in the HTML");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_study_is_refused_with_file_line_and_field() {
    let dir = cli::temp("study", "bad");
    let path = dir.join("bad.json");
    let text = fixture::PARITY.replace("\"samples\": 1", "\"samples\": 1, \"sampels\": 2");
    std::fs::write(&path, text).unwrap();
    let (code, _, stderr) = cli::evenhand(&["study", "plan", "--study", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("bad.json:13:"), "{stderr}");
    assert!(stderr.contains("sampels"), "{stderr}");
    let text = fixture::PARITY.replace("\"completions\": 5", "\"completions\": \"5\"");
    std::fs::write(&path, text).unwrap();
    let (code, _, stderr) = cli::evenhand(&["study", "plan", "--study", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("methods.divergence.completions"), "{stderr}");
    // The issue's case: a language listed twice used to ask every question twice (n doubled).
    let text = fixture::PARITY.replace("\"languages\": [\"en\", \"hi\"]", "\"languages\": [\"en\", \"en\", \"hi\"]");
    std::fs::write(&path, text).unwrap();
    let (code, _, stderr) = cli::evenhand(&["study", "plan", "--study", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("methods.crosslingual.languages[1]: \"en\" is listed twice"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_plan_counts_calls_for_provider_targets_only() {
    let s = study::Session::open("parity.json", fixture::PARITY).unwrap();
    let plan = s.plan().unwrap();
    let cases = s.run_cases().unwrap();
    assert_eq!(plan.calls as usize, cases.len(), "one call per run case for the one provider target");
    for row in &plan.rows {
        assert_eq!(row.simulated, row.target.starts_with("simulated:"));
        assert_eq!(row.calls == 0, row.simulated);
        if !row.simulated {
            assert!(row.cost.is_some_and(|c| c > 0.0), "gpt-4o-mini is priced: {row:?}");
        }
    }
    let ids: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.case_id.as_str()).collect();
    assert_eq!(ids.len(), cases.len(), "case ids are unique across methods and samples");
}

#[test]
fn run_records_come_back_to_their_method_and_sample() {
    // A run's records as the engine writes them: the case's columns, its own record id.
    let mut s = study::Session::open("parity.json", fixture::PARITY).unwrap();
    let text = answered_records(&s, |_, _| {});
    let summary = s.add_records("run.jsonl", text.as_bytes(), None, Origin::Run).unwrap();
    assert_eq!(summary.by_method.len(), 4, "{summary:?}");
    let div = s.records_of("divergence");
    assert!(div.iter().all(|r| !r.case_id.contains('#')), "the sample suffix is removed");
    assert_eq!(div.iter().map(|r| r.sample_index).max(), Some(4), "five completions per context");
}

/// The parity study's cases answered by gpt-4o-mini: `answer(method, index)` gives the response.
fn answered_run(s: &study::Session, answer: impl Fn(&str, usize) -> String) -> String {
    answered_records(s, |r, i| r.response = answer(&r.method, i))
}

#[test]
fn records_of_the_studys_own_run_are_not_called_uploaded() {
    let open = || {
        let mut s = study::Session::open("parity.json", fixture::PARITY).unwrap();
        s.simulate().unwrap();
        s
    };
    let mut run = open();
    let text = answered_run(&run, |_, _| "A".into());
    run.add_records("study-run.jsonl", text.as_bytes(), None, Origin::Run).unwrap();
    let r = run.report("T").unwrap();
    assert!(!r.limitations.iter().any(|l| l.contains("Uploaded")), "{:#?}", r.limitations);
    assert!(r.methods_text.iter().any(|p| p.contains("collected by this study's own run")), "{:#?}", r.methods_text);
    let mut up = open();
    up.add_records("elsewhere.jsonl", text.as_bytes(), None, Origin::Uploaded).unwrap();
    let r = up.report("T").unwrap();
    assert!(r.limitations.iter().any(|l| l.contains("Uploaded responses (elsewhere.jsonl)")), "{:#?}", r.limitations);
    assert!(!r.methods_text.iter().any(|p| p.contains("collected by this study's own run")));
    // The origin survives a bundle.
    let again = study::bundle::open("b.json", &serde_json::to_string(&study::bundle::make(&run)).unwrap()).unwrap();
    assert_eq!(again.sources.iter().find(|x| x.name == "study-run.jsonl").map(|x| x.origin), Some(Origin::Run));
}

#[test]
fn bbq_accuracy_all_has_the_conditions_denominator_when_answers_are_out_of_choice() {
    let mut s = study::Session::open("parity.json", fixture::PARITY).unwrap();
    s.simulate().unwrap();
    // About 15 % of the answers name no choice; the rest alternate between letters.
    let text = answered_run(&s, |_, i| if i % 7 == 0 { "banana".into() } else { ["A", "B", "C"][i % 3].into() });
    s.add_records("run.jsonl", text.as_bytes(), None, Origin::Run).unwrap();
    let r = s.report("T").unwrap();
    let bbq = r.sections.iter().find(|x| x.method == "bbq").unwrap();
    let f = |name: &str| bbq.figures.iter().find(|f| f.figure == name && f.model == "gpt-4o-mini").unwrap().clone();
    let (all, amb, dis) = (f("accuracy · all"), f("accuracy · ambiguous"), f("accuracy · disambiguated"));
    assert_eq!(all.n, amb.n + dis.n, "one denominator: the answers within the choices");
    let (a, x, y) = (all.value.unwrap(), amb.value.unwrap(), dis.value.unwrap());
    assert!(a >= x.min(y) - 1e-9 && a <= x.max(y) + 1e-9, "all {a} lies between the conditions {x} and {y}");
    let outside = bbq.summary.split(" outside them").next().unwrap().rsplit('(').next().unwrap();
    assert!(outside.parse::<u64>().unwrap() > 0, "the summary states the answers left out: {}", bbq.summary);
    // The paired comparison reads the same accuracy as the figure.
    let c = bbq.comparisons.iter().find(|c| c.figure == "accuracy · all").unwrap();
    let v = if c.model_a == "gpt-4o-mini" { c.value_a } else { c.value_b };
    assert!((v - a).abs() < 1e-12, "comparison {v} vs figure {a}");
}

#[test]
fn a_method_without_a_section_is_named_in_the_limitations_with_the_reason() {
    // Letters for every case: BBQ reads them, the divergence method finds no filler in them.
    let mut s = study::Session::open("parity.json", fixture::PARITY).unwrap();
    let text = answered_run(&s, |_, _| "A".into());
    s.add_records("run.jsonl", text.as_bytes(), None, Origin::Run).unwrap();
    let r = s.report("T").unwrap();
    let methods: Vec<&str> = r.sections.iter().map(|x| x.method.as_str()).collect();
    assert!(!methods.contains(&"divergence") && methods.contains(&"bbq"), "{methods:?}");
    assert_eq!(r.omitted.len(), 1, "{:?}", r.omitted);
    assert_eq!(r.omitted[0].method, "divergence");
    let line = r.limitations.iter().find(|l| l.starts_with("No divergence section: ")).expect("a limitation says why");
    assert!(line.len() > "No divergence section: .".len() + 10, "{line}");
}

/// The study's cases answered by gpt-4o-mini, each record shaped by `edit` (record, index).
fn answered_records(s: &study::Session, edit: impl Fn(&mut evenhand::record::Record, usize)) -> String {
    let mut answered = s.run_cases().unwrap();
    for (i, r) in answered.iter_mut().enumerate() {
        r.provider = "openai".into();
        r.model = "gpt-4o-mini".into();
        r.record_id = format!("run:{i}");
        r.status = evenhand::record::Status::Ok;
        r.response = "A".into();
        edit(r, i);
    }
    evenhand::formats::write(&answered, evenhand::formats::FileFormat::Jsonl)
}

#[test]
fn both_refusal_detectors_are_counted_and_their_disagreement_reported() {
    let mut s = study::Session::open("parity.json", fixture::PARITY).unwrap();
    // Every third cross-lingual answer mentions a refusal phrase only after answering.
    let late = "Here is a full answer to the question. I'm sorry, but that is all I know.";
    let text = answered_run(&s, |m, i| if m == "crosslingual" && i % 3 == 0 { late.into() } else { "A".into() });
    let cases = s.run_cases().unwrap();
    let late_in = |lang: &str| {
        cases.iter().enumerate().filter(|(i, r)| r.method == "crosslingual" && i % 3 == 0 && r.language == lang).count()
            as u64
    };
    s.add_records("run.jsonl", text.as_bytes(), None, Origin::Run).unwrap();
    let r = s.report("T").unwrap();
    let x = r.sections.iter().find(|x| x.method == "crosslingual").unwrap();
    let t = x.detectors.as_ref().unwrap();
    assert_eq!(t.detectors, ["lexicon", "opening rule"], "no other detector has verdicts");
    assert_eq!(t.decides, "lexicon");
    let cells: Vec<_> = t.cells.iter().filter(|c| c.model == "gpt-4o-mini").collect();
    assert_eq!(cells.iter().map(|c| c.language.as_str()).collect::<Vec<_>>(), ["en", "hi"]);
    for c in &cells {
        let expected = late_in(&c.language);
        assert!(expected > 0);
        assert_eq!((c.counts[0].refused, c.counts[1].refused), (expected, 0), "{c:?}");
        assert_eq!(c.pairs[0].disagree, expected);
    }
    assert!(x.notes.iter().any(|n| n.contains("the lexicon decides")), "{:?}", x.notes);
    let req = r.sections.iter().find(|x| x.method == "requirements").unwrap();
    assert!(
        req.detectors.as_ref().unwrap().cells.iter().all(|c| c.pairs[0].disagree == 0),
        "no late refusal among the requirement answers"
    );
    let limit = r.limitations.iter().find(|l| l.contains("opening rule")).expect("a detectors limitation");
    let en = cells[0];
    assert!(
        limit.contains(&format!("crosslingual, gpt-4o-mini in en: {} of {}", late_in("en"), en.pairs[0].n)),
        "{limit}"
    );
}

#[test]
fn the_detector_table_counts_the_nli_column_and_says_where_the_figures_depend_on_the_detector() {
    let mut s = study::Session::open("parity.json", fixture::PARITY).unwrap();
    let refusal = "I'm sorry, I cannot answer that.";
    // Cross-lingual: every fifth answer a refusal the lexicon and the opening rule see; the NLI
    // model (columns as `evenhand crosslingual --nli-model-dir` writes them) calls every fourth
    // answer in hi a refusal and agrees with the lexicon in en. Requirements answers carry an
    // NLI verdict of "answer" on every record.
    let nli = |r: &mut evenhand::record::Record, p: f64| {
        r.extra.insert("nli_p_refuse".into(), p.to_string());
        r.extra.insert("nli_rule".into(), "argmax".into());
        r.extra.insert("nli_model".into(), "test/nli-model at commit abc".into());
    };
    let text = answered_records(&s, |r, i| {
        if r.method == "crosslingual" {
            let lexicon = i % 5 == 0;
            if lexicon {
                r.response = refusal.into();
            }
            let model = if r.language == "hi" { i % 4 == 0 } else { lexicon };
            nli(r, if model { 0.9 } else { 0.1 });
        } else if r.method == "requirements" {
            nli(r, 0.2);
        }
    });
    let cases = s.run_cases().unwrap();
    s.add_records("run.jsonl", text.as_bytes(), None, Origin::Run).unwrap();
    let r = s.report("T").unwrap();
    let x = r.sections.iter().find(|x| x.method == "crosslingual").unwrap();
    let t = x.detectors.as_ref().unwrap();
    assert_eq!(t.detectors, ["lexicon", "opening rule", "NLI model"]);
    assert_eq!(t.threshold, evenhand::study::detectors::DEPENDS_SHARE);
    for lang in ["en", "hi"] {
        // Hand counts from the cases.
        let (mut n, mut lex, mut model, mut both) = (0u64, 0u64, 0u64, 0u64);
        for (i, _) in cases.iter().enumerate().filter(|(_, c)| c.method == "crosslingual" && c.language == lang) {
            let (a, b) = (i % 5 == 0, if lang == "hi" { i % 4 == 0 } else { i % 5 == 0 });
            n += 1;
            lex += u64::from(a);
            model += u64::from(b);
            both += u64::from(a && b);
        }
        let cell = t.cells.iter().find(|c| c.model == "gpt-4o-mini" && c.language == lang).unwrap();
        let refused: Vec<u64> = cell.counts.iter().map(|k| k.refused).collect();
        assert_eq!(refused, [lex, lex, model], "{lang}");
        assert!(cell.counts.iter().all(|k| k.judged == n));
        let p = cell.pairs.iter().find(|p| p.a == "lexicon" && p.b == "NLI model").unwrap();
        let (only_a, only_b) = (lex - both, model - both);
        assert_eq!((p.n, p.both, p.only_a, p.only_b, p.neither), (n, both, only_a, only_b, n - lex - only_b));
        let k = evenhand::stats::agreement::agreement(both, only_a, only_b, n - lex - only_b);
        assert_eq!(p.kappa, k.kappa);
        assert!(p.kappa_interval.is_some(), "{p:?}");
        let past = (only_a + only_b) as f64 / n as f64 > evenhand::study::detectors::DEPENDS_SHARE;
        assert_eq!(cell.depends_on_detector, past, "{lang}: {} of {n} differ", only_a + only_b);
        assert_eq!(lang == "hi", past, "the fixture's hi disagrees past the share, its en not at all");
        let said = t.statements.iter().any(|s| s.starts_with(&format!("gpt-4o-mini in {lang}:")));
        assert_eq!(said, past);
        assert_eq!(x.notes.iter().any(|s| s.starts_with(&format!("gpt-4o-mini in {lang}:"))), past);
    }
    assert!(t.statements.iter().all(|s| s.contains("depend on the detector")), "{:?}", t.statements);
    let req = r.sections.iter().find(|x| x.method == "requirements").unwrap().detectors.as_ref().unwrap();
    assert!(req.detectors.contains(&"NLI model".to_string()), "{:?}", req.detectors);
    // The methods text names the NLI model and its rule, for both methods.
    for method in ["requirements", "crosslingual"] {
        let para = r
            .methods_text
            .iter()
            .find(|p| p.starts_with(&format!("Refusal detectors ({method})")))
            .expect("a detectors paragraph");
        assert!(para.contains("test/nli-model at commit abc") && para.contains("argmax"), "{para}");
    }
    let html = evenhand::study::html::render(&r);
    assert!(html.contains("<th>NLI model</th>"), "the section's table has the NLI column");
}

#[test]
fn bbq_samples_are_items_of_their_own_paired_sample_by_sample() {
    let study_with = |samples: u32| {
        let text = fixture::PARITY
            .replace("\"samples\": 1", &format!("\"samples\": {samples}"))
            .replace("\"openai:gpt-4o-mini\"", "\"simulated:skewed\"");
        let mut s = study::Session::open("parity.json", &text).unwrap();
        s.simulate().unwrap();
        s.report("T").unwrap()
    };
    let (one, two) = (study_with(1), study_with(2));
    let bbq = |r: &study::report::Report| r.sections.iter().find(|x| x.method == "bbq").unwrap().clone();
    let (b1, b2) = (bbq(&one), bbq(&two));
    let acc = |b: &evenhand::study::sections::Section| {
        b.figures.iter().find(|f| f.figure == "accuracy · all" && f.model == "sim:fair").unwrap().clone()
    };
    // Accuracy counts the answers within the choices, which differ from sample to sample.
    assert!(acc(&b2).n > acc(&b1).n, "each sample is an item");
    let cmp = |b: &evenhand::study::sections::Section| {
        b.comparisons.iter().find(|c| c.figure == "accuracy · all").unwrap().clone()
    };
    assert_eq!(cmp(&b2).items, cmp(&b1).items.map(|n| 2 * n), "the models are paired sample by sample");
    assert_eq!(cmp(&b2).n, cmp(&b1).n, "the bootstrap's n is its clusters, the same with more samples");
    // The clusters stay the template groups: more samples, not more clusters.
    let clusters = |b: &evenhand::study::sections::Section| acc(b).clustered.unwrap().clusters;
    assert_eq!(clusters(&b2), clusters(&b1));
    assert!(b2.summary.contains("2 samples per example"), "{}", b2.summary);
    assert!(two.methods_text.iter().any(|p| p.contains("paired sample by sample")));
}

#[test]
fn every_bbq_n_is_the_count_its_figure_was_computed_on() {
    let r = study::example::session().unwrap().report("T").unwrap();
    let bbq = r.sections.iter().find(|x| x.method == "bbq").unwrap();
    let models: std::collections::BTreeSet<&str> = bbq.figures.iter().map(|f| f.model.as_str()).collect();
    for m in models {
        let n = |name: &str| bbq.figures.iter().find(|f| f.figure == name && f.model == m).unwrap().n;
        let all = bbq.figures.iter().find(|f| f.figure == "accuracy · all" && f.model == m).unwrap();
        // Accuracy per condition counts that condition's examples only, as diff-bias does.
        assert_eq!(n("accuracy · ambiguous"), n("diff-bias · ambiguous"), "{m}");
        assert_eq!(n("accuracy · disambiguated"), n("diff-bias · disambiguated"), "{m}");
        assert!(n("accuracy · ambiguous") < all.n && n("accuracy · disambiguated") < all.n, "{m}");
        assert!(n("accuracy · ambiguous") + n("accuracy · disambiguated") <= all.n, "{m}");
        // The paired bootstraps resample template groups: n is their count, the items beside it.
        let clusters = all.clustered.as_ref().unwrap().clusters as u64;
        for c in bbq.comparisons.iter().filter(|c| c.model_a == m) {
            assert_eq!(c.n, clusters, "{}: n is the resampled clusters", c.figure);
            let items = c.items.expect("the item count beside the clusters");
            // The paired items include the out-of-choice answers that accuracy leaves out.
            assert!(items > c.n && items >= all.n, "{}: {items} items in {} clusters", c.figure, c.n);
        }
    }
    for b in &r.breakdowns {
        // Where clusters are resampled (the bootstraps; not McNemar, whose n is its items).
        for c in b.comparisons.iter().filter(|c| c.test.contains("bootstrap")) {
            assert!(c.items.unwrap() >= c.n, "{}: clusters {} items {:?}", c.figure, c.n, c.items);
        }
    }
    let html = study::html::render(&r);
    assert!(html.contains(" clusters ("), "the HTML shows the clusters with the items beside them");
    // The wide tables (figures, paired comparisons) scroll in their box rather than being cut off.
    assert!(html.contains(".wrap{overflow-x:auto"), "a scrolling wrapper style");
    assert!(html.contains("<div class=\"wrap\"><table><thead><tr><th>Figure</th><th>A</th>"), "paired table wrapped");
}

#[test]
fn the_named_interval_method_is_used_and_named() {
    let cp = fixture::PARITY.replace("\"interval\": \"wilson\"", "\"interval\": \"clopper_pearson\"");
    let report = |text: &str| {
        let mut s = study::Session::open("parity.json", text).unwrap();
        s.simulate().unwrap();
        s.report("T").unwrap()
    };
    let (w, c) = (report(fixture::PARITY), report(&cp));
    let rate =
        |r: &study::report::Report| r.sections[0].figures.iter().find(|f| f.successes.is_some()).unwrap().clone();
    let (fw, fc) = (rate(&w), rate(&c));
    assert_eq!((fw.interval_method.as_str(), fc.interval_method.as_str()), ("wilson", "clopper_pearson"));
    let (iw, ic) = (fw.interval.unwrap(), fc.interval.unwrap());
    assert!(ic.high - ic.low > iw.high - iw.low, "Clopper-Pearson is wider: {iw:?} {ic:?}");
    let stats = c.methods_text.iter().find(|p| p.starts_with("Statistics:")).unwrap();
    assert!(stats.contains("Clopper-Pearson intervals (Clopper & Pearson 1934)"), "{stats}");
    assert!(!stats.contains("Wilson"), "{stats}");
    assert!(c.references.iter().any(|x| x.key == "Clopper & Pearson 1934"));
    assert!(!c.references.iter().any(|x| x.key == "Wilson 1927"));
    let bad = fixture::PARITY.replace("\"interval\": \"wilson\"", "\"interval\": \"wald\"");
    let e = study::Session::open("parity.json", &bad).err().unwrap();
    assert!(e.to_string().contains("statistics.interval"), "{e}");
}

#[test]
fn langbite_and_gg_bbq_are_cited_with_the_venue_we_hold() {
    let s = study::Session::open("parity.json", fixture::PARITY).unwrap();
    let refs = study::methods_text::references(&s.study);
    let text = |key: &str| refs.iter().find(|c| c.key == key).unwrap().text.clone();
    let langbite = text("Morales et al. 2024");
    assert!(langbite.contains("arXiv:2404.18558") && langbite.contains("SoftwareX"), "{langbite}");
    let gg = text("Satheesh et al. 2025");
    assert!(gg.contains("2025.gebnlp-1.14") && gg.contains("arXiv:2507.16410"), "{gg}");
}

#[test]
fn the_example_report_is_deterministic_and_its_methods_text_is_pinned() {
    let a = study::example::session().unwrap().report("T").unwrap();
    let b = study::example::session().unwrap().report("T").unwrap();
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    let mut text = a.methods_text.join("\n\n");
    text.push('\n');
    // The version changes with every release; the snapshot should not.
    let text = text.replace(evenhand::VERSION, "VERSION");
    golden("tests/golden/study_methods.txt", &text);
    assert!(a.references.iter().any(|c| c.text.contains("BBQ")));
}

/// A BBQ-only study of `targets` (English, built-in set).
fn bbq_study(targets: &[&str]) -> String {
    let t: Vec<String> = targets.iter().map(|t| format!("{t:?}")).collect();
    format!(
        r#"{{"format": "evenhand-study", "version": 1, "title": "t", "targets": [{}],
            "methods": {{"bbq": {{"dataset": {{"builtin": "evenhand"}}, "languages": ["en"]}}}},
            "statistics": {{"replicates": 200}}}}"#,
        t.join(", ")
    )
}

/// The BBQ records the simulated `profile` gives, relabelled as `provider` and `model` answered.
fn bbq_records_as(profile: &str, provider: &str, model: &str) -> (String, usize) {
    let mut s = study::Session::open("s.json", &bbq_study(&[&format!("simulated:{profile}")])).unwrap();
    s.simulate().unwrap();
    for r in &mut s.records {
        r.provider = provider.into();
        r.model = model.into();
    }
    (evenhand::formats::write(&s.records, evenhand::formats::FileFormat::Jsonl), s.records.len())
}

fn no_self_comparison(r: &study::report::Report) {
    let all: Vec<_> = r.sections.iter().flat_map(|x| x.comparisons.iter()).collect();
    assert!(!all.is_empty(), "the two targets are compared");
    assert!(all.iter().all(|c| c.model_a != c.model_b), "a target compared with itself");
}

#[test]
fn targets_that_share_a_model_name_are_not_merged() {
    // One model name from two providers: two targets, compared with each other.
    let mut s = study::Session::open("s.json", &bbq_study(&["openai:gpt-4o", "openai-compatible:gpt-4o"])).unwrap();
    let mut n = 0;
    for (provider, profile) in [("openai", "fair"), ("openai-compatible", "skewed")] {
        let (jsonl, count) = bbq_records_as(profile, provider, "gpt-4o");
        s.add_records(&format!("{provider}.jsonl"), jsonl.as_bytes(), Some("bbq"), Origin::Uploaded).unwrap();
        n = count;
    }
    let r = s.report("T").unwrap();
    let rows: Vec<(&str, &str, u64)> =
        r.models.iter().map(|m| (m.target.as_str(), m.model.as_str(), m.records)).collect();
    assert_eq!(
        rows,
        [
            ("openai:gpt-4o", "openai:gpt-4o", n as u64),
            ("openai-compatible:gpt-4o", "openai-compatible:gpt-4o", n as u64)
        ]
    );
    no_self_comparison(&r);

    // A simulated profile beside a provider model of the same record name.
    let mut s = study::Session::open("s.json", &bbq_study(&["simulated:fair", "openai:sim:fair"])).unwrap();
    let (jsonl, n) = bbq_records_as("skewed", "openai", "sim:fair");
    s.add_records("openai.jsonl", jsonl.as_bytes(), Some("bbq"), Origin::Uploaded).unwrap();
    s.simulate().unwrap();
    assert_eq!(s.records.len(), 2 * n, "simulating keeps the provider model's records");
    let r = s.report("T").unwrap();
    let rows: Vec<(&str, u64)> = r.models.iter().map(|m| (m.model.as_str(), m.records)).collect();
    assert_eq!(rows, [("simulated:fair", n as u64), ("openai:sim:fair", n as u64)]);
    no_self_comparison(&r);
}

#[test]
fn a_spec_that_asks_other_calls_than_the_study_is_refused_before_any() {
    let dir = cli::temp("study", "spec");
    let study_path = dir.join("parity.json");
    std::fs::write(&study_path, fixture::PARITY).unwrap();
    let out = dir.join("out");
    // Port 9 answers nothing: a call, had one been made, would show as failed records.
    let cases = [
        (
            r#"{"targets": [{"provider": "openai", "models": ["gpt-4o-mini"]}], "samples": 2}"#,
            "field samples: expected 1, found 2",
        ),
        (
            r#"{"targets": [{"provider": "openai", "models": ["gpt-4o-mini", "gpt-4o"]}]}"#,
            "field targets[0].models[1]: the study does not name openai:gpt-4o;",
        ),
        (
            r#"{"targets": [{"provider": "openai-compatible", "base_url": "http://127.0.0.1:9/v1", "models": ["x"]}]}"#,
            "the study does not name openai-compatible:x;",
        ),
    ];
    for (spec, expected) in cases {
        let spec_path = dir.join("spec.json");
        std::fs::write(&spec_path, spec).unwrap();
        let (code, _, stderr) = cli::evenhand(&[
            "study",
            "run",
            "--study",
            study_path.to_str().unwrap(),
            "--spec",
            spec_path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--yes",
        ]);
        assert_ne!(code, 0, "{stderr}");
        assert!(stderr.contains(expected), "{expected:?} in {stderr}");
        assert!(!out.join("records.jsonl").exists() && !out.join("cases.jsonl").exists(), "nothing was started");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_share_link_asking_for_too_much_work_is_refused_at_once() {
    use base64::Engine;
    // The issue's link: samples 100, completions 1,000, replicates 100,000 (52 s and 7.75 GB before).
    let text = study::example::TEXT
        .replace("\"completions\": 20", "\"completions\": 1000")
        .replace("\"samples\": 1,", "\"samples\": 100,")
        .replace("\"replicates\": 1000", "\"replicates\": 100000");
    let packed = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9);
    let link = format!("#s1.{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(packed));
    let started = std::time::Instant::now();
    let e = study::bundle::open_share(&link).expect_err("refused");
    assert!(started.elapsed().as_secs_f64() < 5.0, "refused before any work: {:?}", started.elapsed());
    assert!(matches!(e, study::StudyError::TooLarge { .. }), "{e:?}");
    let shown = e.to_string();
    assert!(shown.contains("samples (100) x methods.divergence.completions (1000) x targets (2)"), "{shown}");
    // The same study from the CLI.
    let dir = cli::temp("study", "budget");
    let path = dir.join("big.json");
    std::fs::write(&path, &text).unwrap();
    let (code, _, stderr) = cli::evenhand(&["study", "plan", "--study", path.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(stderr.contains("above the limit of"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The methods text's record counts, summed ("N record(s) uploaded from ...").
fn provenance_total(r: &study::report::Report) -> usize {
    let p = r.methods_text.iter().find(|p| p.starts_with("Records: ")).expect("a provenance paragraph");
    p.split("; ").map(|c| c.trim_start_matches("Records: ").split(' ').next().unwrap().parse::<usize>().unwrap()).sum()
}

#[test]
fn two_record_files_of_one_name_are_two_sources_and_the_counts_add_up() {
    let mut s = study::Session::open("s.json", &bbq_study(&["openai:gpt-4o", "anthropic:claude"])).unwrap();
    let (a, n) = bbq_records_as("fair", "openai", "gpt-4o");
    let (b, _) = bbq_records_as("skewed", "anthropic", "claude");
    s.add_records("records.jsonl", a.as_bytes(), Some("bbq"), Origin::Uploaded).unwrap();
    s.add_records("records.jsonl", b.as_bytes(), Some("bbq"), Origin::Uploaded).unwrap();
    assert_eq!(s.sources.len(), 2, "{:?}", s.sources);
    let r = s.report("T").unwrap();
    let analysed: u64 = r.models.iter().map(|m| m.records).sum();
    assert_eq!(analysed, 2 * n as u64);
    assert_eq!(provenance_total(&r), 2 * n);
    // A later file for the same target replaces the earlier one's records, and its count.
    let (a2, _) = bbq_records_as("skewed", "openai", "gpt-4o");
    s.add_records("again.jsonl", a2.as_bytes(), Some("bbq"), Origin::Uploaded).unwrap();
    let r = s.report("T").unwrap();
    assert_eq!(provenance_total(&r), 2 * n, "{:?}", r.methods_text);

    // From the CLI: a/records.jsonl and b/records.jsonl are named by their paths.
    let dir = cli::temp("study", "same-name");
    std::fs::write(dir.join("s.json"), bbq_study(&["openai:gpt-4o", "anthropic:claude"])).unwrap();
    for (sub, text) in [("a", &a), ("b", &b)] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        std::fs::write(dir.join(sub).join("records.jsonl"), text).unwrap();
    }
    let arg = |p: std::path::PathBuf| p.to_str().unwrap().to_string();
    let (code, _, stderr) = cli::evenhand(&[
        "study",
        "report",
        "--study",
        &arg(dir.join("s.json")),
        "--records",
        &format!("bbq={}", arg(dir.join("a/records.jsonl"))),
        "--records",
        &format!("bbq={}", arg(dir.join("b/records.jsonl"))),
        "--out",
        &arg(dir.join("out")),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let report = std::fs::read_to_string(dir.join("out/report.json")).unwrap();
    assert!(report.contains("a/records.jsonl") && report.contains("b/records.jsonl"), "both files are named");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn repeated_record_ids_are_reported_at_load_and_reconciled_in_the_report() {
    let mut s = study::Session::open("s.json", &bbq_study(&["openai:gpt-4o"])).unwrap();
    let (a, n) = bbq_records_as("fair", "openai", "gpt-4o");
    let twice = format!("{a}{a}");
    let summary = s.add_records("big.jsonl", twice.as_bytes(), Some("bbq"), Origin::Uploaded).unwrap();
    let said: Vec<String> = summary.problems.iter().map(|p| p.to_string()).collect();
    let first_id = s.records[0].record_id.clone();
    assert!(
        said.iter().any(|p| p.contains(&format!(
            "{n} record(s) repeat a record id already loaded and were left out (first: {first_id}"
        ))),
        "{said:?}"
    );
    assert_eq!(summary.records, n);
    let r = s.report("T").unwrap();
    assert_eq!(r.models[0].records, n as u64);
    assert_eq!(provenance_total(&r), n);
    assert!(
        r.methods_text
            .iter()
            .any(|p| p
                .contains(&format!("A further {n} record(s) repeated a record id already loaded and were left out ("))),
        "{:?}",
        r.methods_text
    );
}

#[test]
fn paired_replicates_are_raised_until_a_real_difference_can_survive_the_family() {
    // The issue's five-model case scaled down: 100 replicates put a bootstrap p at or above
    // 2/101, which Holm over the family lifts above alpha, so no bootstrap comparison could differ.
    let text = fixture::PARITY
        .replace("\"openai:gpt-4o-mini\"", "\"simulated:skewed\"")
        .replace("\"correction\": \"bh\"", "\"correction\": \"holm\"")
        .replace("\"replicates\": 200", "\"replicates\": 100");
    let mut s = study::Session::open("parity.json", &text).unwrap();
    s.simulate().unwrap();
    let r = s.report("T").unwrap();
    let f = &r.family;
    assert!(f.bootstrap_comparisons > 0);
    let floor_at_100 = 2.0 / 101.0;
    assert!(floor_at_100 * f.size as f64 > f.alpha, "at 100 replicates no bootstrap comparison could differ");
    assert!(f64::from(f.paired_replicates) >= 20.0 * f.size as f64 / f.alpha, "{f:?}");
    assert_eq!(f.paired_replicates % 1000, 0);
    let floor = f.smallest_p.unwrap();
    assert!((floor - 2.0 / (f64::from(f.paired_replicates) + 1.0)).abs() < 1e-15);
    assert!(f.smallest_adjusted_p.unwrap() < f.alpha / 5.0, "{f:?}");
    let bbq = r.sections.iter().find(|x| x.method == "bbq").unwrap();
    let c = bbq.comparisons.iter().find(|c| c.figure == "diff-bias · ambiguous").unwrap();
    assert!(c.p_value < floor_at_100, "{c:?}");
    assert!(c.significant, "the skewed profile's ambiguous diff-bias now differs: {c:?}");
    assert!(f.replicates_note.contains("the study asked for 100; raised"), "{}", f.replicates_note);
    assert!(f.replicates_note.contains("Holm's correction over"), "{}", f.replicates_note);
    let stats = r.methods_text.iter().find(|p| p.starts_with("Statistics:")).unwrap();
    assert!(stats.contains(&format!("{} resamples", f.paired_replicates)), "{stats}");
    let html = study::html::render(&r);
    assert!(html.contains("smallest p a paired bootstrap can give"));
    // Enough asked for already: nothing is raised.
    assert_eq!(study::report::paired_replicates(50_000, f.size, f.alpha, Default::default()), 50_000);
}
