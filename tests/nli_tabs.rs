//! The local NLI detector in the Requirements tab's and the study's sessions (issue 26): the
//! answers out, P(refuse) back into the records' nli_* columns, the evaluation decided by the
//! chosen detector as `evenhand evaluate --detector` decides it, and the study's detector
//! table, methods text, bundle and share link carrying the NLI verdicts.

use evenhand::crosslingual::detect::{Detector, NLI_COLUMN, NLI_MODEL_COLUMN, NLI_RULE_COLUMN};
use evenhand::crosslingual::nli::NliBatch;
use evenhand::requirements::outcome::Outcome;
use evenhand::requirements::session::{DEFAULT_SCENARIO, EvalQuery, PlanQuery, Session};
use evenhand::requirements::simulate::SimBias;
use evenhand::requirements::summary::{self, Mode};
use evenhand::stats::confidence::Confidence;

const MODEL: &str = "tiny-nli (test)";

fn answered() -> Session {
    let mut s = Session::default();
    assert!(s.set_scenario(DEFAULT_SCENARIO).ok);
    let q = PlanQuery { models: vec!["sim-model".into()], ..PlanQuery::default() };
    s.plan(&q).unwrap();
    s.simulate(&SimBias { refusal: 0.2, ..SimBias::default() }).unwrap();
    s
}

fn batch(ids: Vec<String>, p: impl Fn(usize) -> f64) -> NliBatch {
    let p_refuse = (0..ids.len()).map(p).collect();
    NliBatch { model: MODEL.into(), rule: "argmax".into(), ids, p_refuse }
}

#[test]
fn requirements_nli_columns_decide_the_evaluation_as_the_cli_does() {
    let mut s = answered();
    let items = s.nli_items().unwrap();
    assert_eq!(items.len(), s.records.len(), "one item per answered record");
    assert_eq!(s.detectors(), vec![Detector::Lexicon]);

    // Without the columns the NLI detector judges nothing: the non-passing answers are listed.
    let q = EvalQuery { detector: Detector::Nli, ..EvalQuery::default() };
    let bare = s.evaluate(&q).unwrap();
    assert!(bare.problem_count > 0, "answers without an NLI verdict are listed");
    assert!(bare.problems.iter().all(|p| p.message.contains("nli detector gave no verdict")), "{:?}", bare.problems);
    assert_eq!(bare.outcomes.get(&Outcome::Refused).copied().unwrap_or(0), 0);

    // Every other answer a refusal by the model.
    let ids: Vec<String> = items.iter().map(|i| i.id.clone()).collect();
    let n = s.add_nli(&batch(ids, |i| if i % 2 == 0 { 0.9 } else { 0.1 })).unwrap();
    assert_eq!(n, s.records.len());
    assert_eq!(s.detectors(), vec![Detector::Lexicon, Detector::Nli]);
    assert!(s.records.iter().all(|r| r.extra[NLI_MODEL_COLUMN] == MODEL && r.extra[NLI_RULE_COLUMN] == "argmax"));
    let view = s.evaluate(&q).unwrap();
    assert_eq!(view.detector, Detector::Nli);
    assert_eq!(view.problem_count, 0, "{:?}", view.problems);
    assert_eq!(view.outcomes.values().sum::<usize>(), s.records.len());
    // The CLI's path over the same records gives the same outcomes.
    let sc = s.scenario.clone().unwrap();
    let cli = summary::evaluate_with(&sc, &s.records, Mode::Default, 1, Confidence::NINETY_FIVE, Detector::Nli);
    let mut counts = std::collections::BTreeMap::new();
    for e in &cli.evaluations {
        *counts.entry(e.outcome).or_insert(0usize) += 1;
    }
    assert_eq!(view.outcomes, counts);
    let lexicon = s.evaluate(&EvalQuery::default()).unwrap();
    assert_ne!(view.outcomes, lexicon.outcomes, "the detector changes the refusals");
    // The records exported keep the columns.
    assert!(s.records_jsonl().contains(NLI_COLUMN));
    // LangBiTe's mode keeps upstream's verdicts: another detector is refused, not ignored.
    let compat = EvalQuery { compat: true, detector: Detector::Nli, ..EvalQuery::default() };
    assert!(s.evaluate(&compat).unwrap_err().to_string().contains("detector"));
}

#[test]
fn requirements_nli_batch_is_all_or_nothing() {
    let mut s = answered();
    let before = s.records.clone();
    let mut ids: Vec<String> = s.nli_items().unwrap().iter().map(|i| i.id.clone()).collect();
    ids.push("no-such-record".into());
    let err = s.add_nli(&batch(ids, |_| 0.5)).unwrap_err().to_string();
    assert!(err.contains("no-such-record"), "{err}");
    assert_eq!(s.records, before, "nothing written");
    assert!(Session::default().nli_items().is_err(), "no records: an error, not an empty list");
}

#[test]
fn study_nli_columns_reach_the_detector_table_methods_text_and_bundle() {
    let mut s = evenhand::study::example::session().unwrap();
    let items = s.nli_items().unwrap();
    assert!(!items.is_empty());
    let methods =
        |id: &str| s.records.iter().filter(|r| r.record_id == id).map(|r| r.method.clone()).collect::<Vec<_>>();
    for i in &items {
        assert!(methods(&i.id).iter().all(|m| evenhand::study::nli::METHODS.contains(&m.as_str())), "{}", i.id);
    }
    let table = |s: &evenhand::study::session::Session| {
        evenhand::study::detectors::table(&s.records_of("crosslingual"), 0.95).expect("a detector table").detectors
    };
    assert!(!table(&s).iter().any(|d| d == "NLI model"));
    assert!(evenhand::study::bundle::share_lacks(&s).is_empty(), "the example's link rebuilds it");

    let ids = items.iter().map(|i| i.id.clone()).collect();
    let n = s.add_nli(&batch(ids, |i| if i % 3 == 0 { 0.95 } else { 0.05 })).unwrap();
    assert!(n >= items.len());
    let other = s.records.iter().filter(|r| !evenhand::study::nli::METHODS.contains(&r.method.as_str()));
    assert!(other.clone().count() > 0 && other.clone().all(|r| !r.extra.contains_key(NLI_COLUMN)));

    let report = s.report("t").unwrap();
    let tables: Vec<_> = report.sections.iter().filter_map(|x| x.detectors.as_ref()).collect();
    assert!(!tables.is_empty());
    for t in &tables {
        assert!(t.detectors.iter().any(|d| d == "NLI model"), "{:?}", t.detectors);
        assert!(t.cells.iter().all(|c| c.pairs.iter().any(|p| p.a == "lexicon" && p.b == "NLI model")));
    }
    assert!(report.methods_text.iter().any(|p| p.contains(MODEL)), "the methods text names the model");

    // The bundle carries the columns; the study-only link would not, so it says so.
    let text = serde_json::to_string(&evenhand::study::bundle::make(&s)).unwrap();
    let reopened = evenhand::study::bundle::open("bundle.json", &text).unwrap();
    let cols = |r: &evenhand::record::Record| {
        (r.record_id.clone(), r.extra.get(NLI_COLUMN).cloned(), r.extra.get(NLI_MODEL_COLUMN).cloned())
    };
    assert_eq!(reopened.records.iter().map(cols).collect::<Vec<_>>(), s.records.iter().map(cols).collect::<Vec<_>>());
    assert!(table(&reopened).iter().any(|d| d == "NLI model"), "the reopened bundle's table shows NLI");
    let lacks = evenhand::study::bundle::share_lacks(&s);
    assert!(lacks.iter().any(|l| l.contains("NLI")), "{lacks:?}");
}

#[test]
fn a_cascade_whose_answers_the_lexicon_all_decided_still_offers_the_nli_detector() {
    let mut s = answered();
    assert!(s.nli_items().unwrap().iter().any(|i| i.lexicon), "the simulated refusals are flagged");
    // The model judged nothing (say every answer left was cached elsewhere, or none was left):
    // the lexicon's refusals carry the cascade rule and no probability.
    let none = NliBatch { model: MODEL.into(), rule: "cascade:argmax".into(), ids: vec![], p_refuse: vec![] };
    assert_eq!(s.add_nli(&none).unwrap(), 0);
    assert!(
        s.records.iter().all(|r| r.extra.get(evenhand::crosslingual::detect::NLI_COLUMN).is_none_or(|p| p.is_empty()))
    );
    assert_eq!(s.detectors(), vec![Detector::Lexicon, Detector::Nli]);
}

/// The page's NLI model choices (www/views/nli-panel.js, MODEL_OPTIONS) are written out in
/// JavaScript so the first load need not fetch the models module; they must stay the catalogue's:
/// every id a catalogue NLI model, its "about N MB" the catalogue's download size, and
/// "unverified, not pinned" exactly when the catalogue pins no commit.
#[test]
fn the_pages_nli_model_choices_are_the_catalogues() {
    use evenhand_models::catalogue::{self, Purpose};
    let js = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/www/views/nli-panel.js")).unwrap();
    let block = js.split("const MODEL_OPTIONS = {").nth(1).and_then(|b| b.split("};").next()).expect("MODEL_OPTIONS");
    let entry = regex::Regex::new(r#""([a-z0-9-]+)":\s*"([^"]*)""#).unwrap();
    let size = regex::Regex::new(r"about (\d+) MB").unwrap();
    let mut seen = 0;
    for c in entry.captures_iter(block) {
        let (id, label) = (&c[1], &c[2]);
        let m = catalogue::find(id).unwrap_or_else(|| panic!("{id}: not in the model catalogue"));
        assert_eq!(m.purpose, Purpose::Nli, "{id}");
        let mb: u32 = size.captures(label).unwrap_or_else(|| panic!("{id}: no size in {label:?}"))[1].parse().unwrap();
        assert_eq!(mb, m.download_mb, "{id}: the page says about {mb} MB");
        assert_eq!(label.contains("unverified, not pinned"), m.commit.is_none(), "{id}: {label}");
        seen += 1;
    }
    assert!(seen >= 2, "{seen} catalogue models found in MODEL_OPTIONS");
}
