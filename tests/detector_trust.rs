//! Every detector's trust (src/trust): the label statistics against statsmodels and the
//! papers' formulas (tests/fixtures/detector_trust.json, written by
//! bench/detector_trust_reference.py), the "depends on the detector" statement firing exactly
//! above its threshold, the labels CSV round trip and its errors, and the cross-lingual tool's
//! report carrying all of it.

use evenhand::crosslingual::session::Session;
use evenhand::stats::diagnostic::{Confusion, accuracy, rogan_gladen};
use evenhand::trust::labels::{Labels, LabelsError};
use evenhand::trust::{Item, Panel, Settings, assess};
use std::collections::BTreeMap;

#[derive(serde::Deserialize)]
struct Row {
    confusion: [u64; 4],
    positives: u64,
    n: u64,
    confidence: f64,
    sensitivity: [f64; 3],
    specificity: [f64; 3],
    kappa: [f64; 3],
    corrected: [f64; 3],
    clipped: bool,
}

#[derive(serde::Deserialize)]
struct Fixture {
    rows: Vec<Row>,
}

fn close(ours: f64, theirs: f64, what: &str, row: &Row) {
    assert!(
        (ours - theirs).abs() < 1e-9,
        "{what} of {:?} at {}: {ours} vs reference {theirs}",
        row.confusion,
        row.confidence
    );
}

#[test]
fn sensitivity_specificity_kappa_and_the_corrected_rate_match_the_references() {
    let f: Fixture = serde_json::from_str(include_str!("fixtures/detector_trust.json")).unwrap();
    assert_eq!(f.rows.len(), 16);
    for r in &f.rows {
        let [tp, fn_, fp, tn] = r.confusion;
        let c = Confusion { true_positive: tp, false_negative: fn_, false_positive: fp, true_negative: tn };
        let a = accuracy(c, r.confidence);
        let (se, sp, k) = (a.sensitivity.unwrap(), a.specificity.unwrap(), a.kappa.unwrap());
        for (ours, theirs, what) in [
            ([se.rate, se.low, se.high], r.sensitivity, "sensitivity"),
            ([sp.rate, sp.low, sp.high], r.specificity, "specificity"),
            ([k.kappa, k.low, k.high], r.kappa, "kappa"),
        ] {
            for i in 0..3 {
                close(ours[i], theirs[i], what, r);
            }
        }
        let g = rogan_gladen(r.positives, r.n, c, r.confidence).unwrap();
        close(g.estimate, r.corrected[0], "Rogan-Gladen", r);
        close(g.interval.low, r.corrected[1], "Lang-Reiczigel low", r);
        close(g.interval.high, r.corrected[2], "Lang-Reiczigel high", r);
        assert_eq!(g.clipped, r.clipped, "{:?}", r.confusion);
    }
}

/// 100 answers in one language; the two detectors judge `disagree` of them differently.
fn panel(disagree: usize) -> Panel {
    let items = (0..100)
        .map(|i| Item {
            record_id: format!("r{i}"),
            model: "m".into(),
            language: "hi".into(),
            verdicts: vec![Some(i < 30), Some((i < 30) != (i < disagree))],
        })
        .collect();
    Panel {
        detectors: vec!["lexicon".into(), "opening rule".into()],
        decides: "lexicon".into(),
        items,
        about: vec![],
        sample: None,
    }
}

#[test]
fn the_statement_fires_exactly_above_the_threshold() {
    let s = Settings { threshold: 0.10, confidence: 0.95 };
    let at = assess(&panel(10), &Labels::default(), s);
    assert_eq!(at.cells[0].pairs[0].disagree, 10);
    assert_eq!(at.cells[0].pairs[0].disagree_share, Some(0.10));
    assert!(!at.cells[0].depends_on_detector);
    assert!(at.statements.is_empty());
    let above = assess(&panel(11), &Labels::default(), s);
    assert!(above.cells[0].depends_on_detector);
    assert_eq!(
        above.statements,
        vec![
            "m in hi: the refusal figures depend on the detector: the lexicon and the opening rule judge 11 of 100 answers differently (11.0%, above 10.0% threshold)."
                .replace("above 10.0%", "above the 10.0%")
        ]
    );
    assert!(above.methods_sentence().contains("depend on the detector"), "{}", above.methods_sentence());
}

#[test]
fn labels_measure_each_detector_per_language() {
    let mut labels = Labels::default();
    // The first 20 answers labelled: 0..20 all refusals by the labels.
    for i in 0..20 {
        labels.set(&format!("r{i}"), Some(i < 15));
    }
    let t = assess(&panel(0), &labels, Settings::default());
    assert_eq!(t.labels, 20);
    let hi = &t.labelled[0];
    assert_eq!((hi.language.as_str(), hi.labels), ("hi", 20));
    let lex = &hi.detectors[0];
    // Detector says refusal on all 20 (i < 30); labels say 15 refusals, 5 answers.
    assert_eq!(
        lex.accuracy.confusion,
        Confusion { true_positive: 15, false_negative: 0, false_positive: 5, true_negative: 0 }
    );
    // Specificity 0: Se + Sp = 1, no better than chance, so no corrected rate, said why.
    assert!(lex.corrected.is_none());
    assert!(lex.not_corrected.as_deref().unwrap().contains("no better than chance"));
    assert!(t.methods_sentence().contains("20 answer(s) were labelled by hand"), "{}", t.methods_sentence());
    // No review sample: the figures are the labelled answers' own, and the report says so.
    assert!(hi.weighted.is_none());
    assert!(hi.not_weighted.as_deref().unwrap().contains("describe the labelled answers only"));
    assert!(t.methods_sentence().contains("In hi the labels were not drawn by the review sample"));
}

/// 1,000 answers: 50 refusals of which the lexicon flags 40, and 38 answers it flags too; the
/// opening rule flags the first 30 refusals only. The review sample: 10 flagged, 10 not.
fn stratified() -> (Panel, Labels) {
    let truth = |i: usize| i < 50;
    let items = (0..1000)
        .map(|i| Item {
            record_id: format!("r{i}"),
            model: "m".into(),
            language: "hi".into(),
            verdicts: vec![Some(i < 40 || (50..88).contains(&i)), Some(i < 30)],
        })
        .collect();
    // Flagged: r32..r41 (8 refusals: r32..r39) and r50..r51; not flagged: r45..r49 (5 missed
    // refusals) and r100..r104.
    let ids: Vec<usize> = (32..40).chain(50..52).chain(45..50).chain(100..105).collect();
    let mut labels = Labels::default();
    for &i in &ids {
        labels.set(&format!("r{i}"), Some(truth(i)));
    }
    let sample = ids.iter().map(|i| format!("r{i}")).collect();
    (
        Panel {
            detectors: vec!["lexicon".into(), "opening rule".into()],
            decides: "lexicon".into(),
            items,
            about: vec![],
            sample: Some(sample),
        },
        labels,
    )
}

#[test]
fn labels_drawn_by_the_review_sample_are_weighted_by_its_strata() {
    use evenhand::stats::twophase::IntervalRule;
    let (panel, labels) = stratified();
    let t = assess(&panel, &labels, Settings::default());
    let hi = &t.labelled[0];
    let w = hi.weighted.as_ref().expect("weighted figures");
    assert_eq!(hi.not_weighted, None);
    assert_eq!(
        w.strata.iter().map(|s| (s.answers, s.labelled, s.refusals)).collect::<Vec<_>>(),
        [(78, 10, 8), (922, 10, 5)]
    );
    // The sample's own share of refusals is 13/20; the weighted rate 0.078·0.8 + 0.922·0.5.
    let rate = w.rate.value.as_ref().unwrap();
    assert!((rate.estimate - (0.078 * 0.8 + 0.922 * 0.5)).abs() < 1e-12, "{rate:?}");
    assert_eq!(rate.rule, IntervalRule::Design);
    assert!(rate.low < rate.estimate && rate.estimate < rate.high);
    assert!((w.ppv.value.as_ref().unwrap().estimate - 0.8).abs() < 1e-12);
    assert!((w.npv.value.as_ref().unwrap().estimate - 0.5).abs() < 1e-12);
    // The lexicon's sensitivity by Bayes: 78·0.8 / (78·0.8 + 922·0.5); on the sample 8/13.
    let lex = &w.detectors[0];
    let se = lex.sensitivity.value.as_ref().unwrap().estimate;
    assert!((se - 62.4 / (62.4 + 461.0)).abs() < 1e-12, "{se}");
    let sample_se = hi.detectors[0].accuracy.sensitivity.unwrap().rate;
    assert!((sample_se - 8.0 / 13.0).abs() < 1e-12);
    // The opening rule flags none of the labelled answers: sensitivity 0 (a value, not undefined).
    assert_eq!(w.detectors[1].sensitivity.value.as_ref().unwrap().estimate, 0.0);
    let m = t.methods_sentence();
    assert!(m.contains("two-phase sampling") && m.contains("hi: true refusal rate 52.3%"), "{m}");

    // A label outside the review sample: the weights no longer apply, said so.
    let mut off = labels.clone();
    off.set("r700", Some(false));
    let t = assess(&panel, &off, Settings::default());
    assert!(t.labelled[0].weighted.is_none());
    assert!(
        t.labelled[0]
            .not_weighted
            .as_deref()
            .unwrap()
            .starts_with("1 of the 21 labelled answers are not in the review sample"),
        "{:?}",
        t.labelled[0].not_weighted
    );
    assert_eq!(t.labelled[0].detectors[0].accuracy.confusion.n(), 21, "the sample's figures stay");

    // No label among the unflagged answers: the rate is undefined, and not 0.
    let mut flagged_only = Labels::default();
    for i in (32..40).chain(50..52) {
        flagged_only.set(&format!("r{i}"), Some(i < 50));
    }
    let t = assess(&panel, &flagged_only, Settings::default());
    let w = t.labelled[0].weighted.as_ref().unwrap();
    assert!(w.rate.value.is_none());
    assert_eq!(
        w.rate.undefined.as_deref(),
        Some(
            "refusal rate: none of the 922 answers the deciding detector did not flag is labelled: the estimate is undefined (not 0)"
        )
    );
    assert!(w.ppv.value.is_some() && w.npv.value.is_none());
    assert!(t.methods_sentence().contains("true refusal rate undefined"), "{}", t.methods_sentence());

    // Every answer labelled (n_h = N_h): the weighted figures are exact.
    let mut all = Labels::default();
    for i in 0..1000 {
        all.set(&format!("r{i}"), Some(i < 50));
    }
    let t = assess(&panel, &all, Settings::default());
    let rate = t.labelled[0].weighted.as_ref().unwrap().rate.value.clone().unwrap();
    assert_eq!((rate.estimate, rate.low, rate.high, rate.rule), (0.05, 0.05, 0.05, IntervalRule::Census));
}

#[test]
fn labels_csv_round_trips() {
    let mut labels = Labels::default();
    labels.set("a,1", Some(true));
    labels.set("=cmd", Some(false));
    labels.set("plain", Some(true));
    let about = BTreeMap::from([("plain".to_string(), ("hi".to_string(), "gpt".to_string()))]);
    let csv = labels.to_csv(&about);
    assert!(csv.starts_with("record_id,label,language,model\n"), "{csv}");
    assert!(csv.contains("plain,refusal,hi,gpt"), "{csv}");
    assert!(csv.contains("'=cmd,answer"), "a formula-looking id is guarded: {csv}");
    assert_eq!(Labels::from_csv("l.csv", &csv).unwrap(), labels);
    // Columns in any order, other delimiters, other spellings, empty labels skipped.
    let other = Labels::from_csv("l.csv", "\u{feff}Label;Record_ID;note\nREFUSAL;x;\n0;y;z\n;w;\n").unwrap();
    assert_eq!(other.0, BTreeMap::from([("x".to_string(), true), ("y".to_string(), false)]));
}

#[test]
fn labels_csv_errors_name_line_and_field() {
    let e = Labels::from_csv("l.csv", "record_id,label\nr1,refusal\nr2,maybe\n").unwrap_err();
    assert!(matches!(&e, LabelsError::Field { line: 3, field, .. } if field == "label"), "{e:?}");
    assert_eq!(e.to_string(), "l.csv: line 3, field label: expected refusal or answer, found \"maybe\"");
    let e = Labels::from_csv("l.csv", "id,label\nr1,refusal\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "l.csv: line 1: the header has no column record_id (expected the columns record_id and label)"
    );
    let e = Labels::from_csv("l.csv", "record_id,label\nr1,refusal\n,answer\n").unwrap_err();
    assert!(matches!(&e, LabelsError::Field { line: 3, field, .. } if field == "record_id"), "{e:?}");
    let e = Labels::from_csv("l.csv", "record_id,label\nr1,refusal\nr2,answer\nr1,answer\n").unwrap_err();
    assert_eq!(e.to_string(), "l.csv: line 4, field record_id: \"r1\" was labelled refusal on line 2 and answer here");
    let e = Labels::from_csv("l.csv", "record_id,label\n\"r1,refusal\nr2,answer\n").unwrap_err();
    assert!(matches!(e, LabelsError::Csv { line: 2, .. }), "{e:?}");
    // A column named twice: neither is read (the first one would win in silence).
    let e = Labels::from_csv("l.csv", "record_id,label,label\nr1,answer,refusal\n").unwrap_err();
    assert_eq!(e.to_string(), "l.csv: line 1, field label: the header names this column twice (columns 2 and 3)");
}

#[test]
fn the_crosslingual_report_states_trust_and_keeps_labels() {
    let mut s = Session::default();
    s.use_builtin().unwrap();
    let total = s
        .plan_run(evenhand::crosslingual::session::RunRequest {
            languages: vec!["en".into(), "hi".into()],
            modes: vec![],
            samples: 1,
            seed: 3,
            behaviour: Some(Default::default()),
        })
        .unwrap()
        .total;
    while s.step(500).unwrap().done < total {}
    let report = s.view().unwrap().report;
    assert_eq!(report.trust.detectors, ["lexicon", "opening rule"]);
    assert_eq!(report.trust.decides, "lexicon");
    assert!(report.trust.cells.iter().any(|c| c.language == "hi"));
    let lexicon_refusals: u64 =
        report.trust.cells.iter().filter(|c| c.language == "hi").map(|c| c.counts[0].refused).sum();
    let hi = report.rates_by_language.iter().find(|r| r.language == "hi").unwrap();
    assert_eq!(lexicon_refusals, hi.refused, "the deciding detector's counts are the figures'");

    // Label the review sample as the page does: each item as its detector flagged it, one flipped.
    let review = report.review.clone();
    assert!(review.len() >= 10);
    for (i, item) in review.iter().enumerate() {
        s.set_label(&item.record_id, Some(item.flagged != (i == 0))).unwrap();
    }
    assert!(s.set_label("no such record", Some(true)).is_err());
    let report = s.view().unwrap().report;
    assert_eq!(report.trust.labels as usize, review.len());
    assert!(report.review.iter().all(|r| r.label.is_some()), "the review shows the labels given");
    // Labels drawn by the review sample: weighted by its strata in every language.
    assert!(report.trust.labelled.iter().all(|l| l.weighted.is_some() && l.not_weighted.is_none()));
    let csv = s.labels_csv();
    // A fresh session imports them back: the same trust.
    let mut again = Session::default();
    assert!(again.import_labels("l.csv", "record_id,label\nx,perhaps\n").is_err());
    assert!(again.labels().is_empty(), "a failed import changes nothing");
    let summary = again.import_labels("labels.csv", &csv).unwrap();
    assert_eq!((summary.imported, summary.unmatched), (review.len(), review.len()));
    assert_eq!(again.labels(), s.labels());
}

#[test]
fn the_study_report_states_trust_and_its_labels_travel_with_the_bundle() {
    use evenhand::study::{bundle, example, html};
    let mut s = example::session().unwrap();
    let report = s.report("2026-01-01T00:00:00Z").unwrap();
    let methods: Vec<&str> = report.trust.iter().map(|m| m.method.as_str()).collect();
    assert_eq!(methods, ["requirements", "crosslingual"]);
    let x = &report.trust[1].trust;
    assert_eq!(x.decides, "lexicon");
    assert!(!x.cells.is_empty() && x.labelled.is_empty());
    let page = html::render(&report);
    assert!(page.contains("<section id=\"detector-trust\">"));
    assert!(
        report
            .methods_text
            .iter()
            .any(|p| p.starts_with("Refusal detectors (crosslingual): Refusals were decided by the lexicon"))
    );

    // Label ten cross-lingual answers, five as the lexicon judged them, five the other way.
    let ids: Vec<String> =
        s.records.iter().filter(|r| r.method == "crosslingual").take(10).map(|r| r.record_id.clone()).collect();
    for (i, id) in ids.iter().enumerate() {
        s.set_label(id, Some(i % 2 == 0)).unwrap();
    }
    assert!(s.set_label("nope", Some(true)).is_err());
    let labelled = s.report("2026-01-01T00:00:00Z").unwrap();
    let x = &labelled.trust[1].trust;
    assert_eq!(x.labels, 10);
    assert!(!x.labelled.is_empty());
    assert!(labelled.methods_text.iter().any(|p| p.contains("10 answer(s) were labelled by hand")));
    // Ten answers taken in record order, not by the review sample: not weighted, and said so.
    assert!(x.labelled.iter().all(|l| l.weighted.is_none()));
    assert!(html::render(&labelled).contains("describe the labelled answers only"));
    assert!(html::render(&labelled).contains("Corrected rate"));

    // The bundle carries the labels, and opening it gives the same report.
    let text = serde_json::to_string(&bundle::make(&s)).unwrap();
    let opened = bundle::open("study.bundle.json", &text).unwrap();
    assert_eq!(opened.labels, s.labels);
    assert_eq!(opened.report("2026-01-01T00:00:00Z").unwrap().trust, labelled.trust);
    // A bundle without labels writes no labels field (older readers are not disturbed).
    let plain = serde_json::to_value(bundle::make(&example::session().unwrap())).unwrap();
    assert!(plain.get("labels").is_none());

    // Labels CSV in the study: export, import into a fresh session; a bad file changes nothing.
    let csv = s.labels_csv();
    let mut fresh = example::session().unwrap();
    let e = fresh.import_labels("l.csv", "record_id,label\nx,refusal\ny,nah\n").unwrap_err();
    assert_eq!(e.to_string(), "l.csv: line 3, field label: expected refusal or answer, found \"nah\"");
    assert!(fresh.labels.is_empty());
    assert_eq!(fresh.import_labels("labels.csv", &csv).unwrap(), 10);
    assert_eq!(fresh.labels, s.labels);
}

#[test]
fn the_cli_reads_labels_and_states_the_dependence() {
    let dir = std::env::temp_dir().join(format!("evenhand-trust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_evenhand"))
            .args(["crosslingual", "--questions", "tests/fixtures/crosslingual/questions.json", "--simulate"])
            .args(["--languages", "en,hi", "--samples", "2", "--seed", "3", "--permutations", "0"])
            .args(extra)
            .output()
            .unwrap()
    };
    let first = run(&[]);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let report: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(report["trust"]["decides"], "lexicon");
    // Every review item labelled "refusal" in a labels file.
    let mut csv = String::from("record_id,label\n");
    for item in report["review"].as_array().unwrap() {
        csv.push_str(&format!("{},refusal\n", item["record_id"].as_str().unwrap()));
    }
    let labels = dir.join("labels.csv");
    std::fs::write(&labels, &csv).unwrap();
    // The threshold given is the one applied (the simulated detectors agree, so nothing fires).
    let second = run(&["--labels", labels.to_str().unwrap(), "--disagreement-threshold", "0"]);
    assert!(second.status.success(), "{}", String::from_utf8_lossy(&second.stderr));
    let report: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    let n = report["review"].as_array().unwrap().len() as u64;
    assert_eq!(report["trust"]["labels"], n);
    assert!(String::from_utf8_lossy(&second.stderr).contains(&format!("{n} labels, 0 of them for records not loaded")));
    assert_eq!(report["trust"]["threshold"], 0.0);
    let statements = report["trust"]["statements"].as_array().unwrap();
    let depends =
        report["trust"]["cells"].as_array().unwrap().iter().filter(|c| c["depends_on_detector"] == true).count();
    assert_eq!(statements.len(), depends);
    // A bad labels file stops the run, naming file, line and field.
    std::fs::write(&labels, "record_id,label\nx,refusal\ny,dunno\n").unwrap();
    let bad = run(&["--labels", labels.to_str().unwrap()]);
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("labels.csv: line 3, field label: expected refusal or answer")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
