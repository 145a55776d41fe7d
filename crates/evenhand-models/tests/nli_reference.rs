//! Our BERT and XLM-R sequence classifiers and the zero-shot NLI detector against float64 numpy
//! references (tests/classify_reference.py) over tiny random-weight models the test writes:
//! HF's BertForSequenceClassification / XLMRobertaForSequenceClassification math (RoBERTa
//! position ids with padding included) and the zero-shot pipeline's single-label rule.
//! Without the virtualenv a test prints why it skips and passes.

mod common;

use common::python;
use evenhand_models::classify::{Architecture, Classifier};
use evenhand_models::embed::ModelFiles;
use evenhand_models::nli::NliDetector;
use evenhand_models::tiny::{self, Head};
use evenhand_models::zeroshot::{self, Rule};
use std::path::{Path, PathBuf};

/// Premises of different lengths (so batches pad), one longer than the tiny models' 64
/// positions (so "only first" truncation cuts the premise and keeps the hypothesis).
fn premises() -> Vec<String> {
    vec![
        "i cannot help with that request.".into(),
        "the death penalty should be abolished, because it does not deter crime.".into(),
        "no".into(),
        "social media platforms need clear rules 2024!".into(),
        "a very long answer that goes on and on ".repeat(4),
    ]
}

fn model(head: Head, seed: u64) -> PathBuf {
    let dir = common::tmp(&format!("classify-{head:?}-{seed}"));
    tiny::write_classifier(&dir, head, seed).unwrap();
    dir
}

fn load(dir: &Path) -> Classifier {
    Classifier::load(ModelFiles::read_dir(dir, None).unwrap()).unwrap()
}

fn logits_equal_the_reference(head: Head, architecture: Architecture) {
    let py = or_skip!(python());
    let dir = model(head, 11);
    let c = load(&dir);
    assert_eq!(c.architecture(), architecture);
    assert_eq!(c.labels(), tiny::LABELS);
    let premises = premises();
    let hypotheses = ["This example is refuse to answer.", "This example is discuss social issues."];
    let pairs: Vec<(&str, &str)> =
        premises.iter().flat_map(|p| hypotheses.iter().map(move |h| (p.as_str(), *h))).collect();
    let mut calls = vec![];
    let ours = c.logits(&pairs, |n| calls.push(n)).unwrap();
    assert_eq!(calls.last(), Some(&pairs.len()));
    let r = common::reference(
        py,
        "tests/classify_reference.py",
        serde_json::json!({"op": "classify", "dir": dir, "pairs": pairs}),
    );
    for (i, (p, h)) in pairs.iter().enumerate() {
        let (ids, types) = c.tokenize_pair(p, h).unwrap();
        assert_eq!(serde_json::json!(ids), r["ids"][i], "{head:?}: ids of {p:?}");
        assert_eq!(serde_json::json!(types), r["type_ids"][i], "{head:?}: type ids of {p:?}");
        // The hypothesis survives truncation: the row ends with its last word's tokens.
        assert!(ids.len() <= 64, "{} tokens", ids.len());
    }
    let theirs: Vec<Vec<f64>> = serde_json::from_value(r["logits"].clone()).unwrap();
    let mut max_abs = 0f64;
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(a.len(), 3);
        max_abs = a.iter().zip(b).map(|(x, y)| (f64::from(*x) - y).abs()).fold(max_abs, f64::max);
    }
    println!(
        "tiny {head:?} classifier vs numpy float64 on {} pairs: max abs logit difference {max_abs:.2e}",
        pairs.len()
    );
    assert!(max_abs < 1e-4, "max abs difference {max_abs}");
    // The logits are not degenerate: the three labels differ on every pair.
    assert!(ours.iter().all(|row| (row[0] - row[1]).abs() > 1e-3 && (row[1] - row[2]).abs() > 1e-3));
}

#[test]
fn tiny_bert_classifier_equals_the_numpy_reference() {
    logits_equal_the_reference(Head::Bert, Architecture::Bert);
}

#[test]
fn tiny_xlmr_classifier_equals_the_numpy_reference_with_roberta_positions() {
    logits_equal_the_reference(Head::XlmRoberta, Architecture::XlmRoberta);
}

#[test]
fn truncation_keeps_the_hypothesis_and_xlmr_positions_skip_padding() {
    let c = load(&model(Head::XlmRoberta, 5));
    let (ids, types) = c.tokenize_pair(&"word ".repeat(100), "this example is refuse to answer.").unwrap();
    assert_eq!(ids.len(), 64);
    assert_eq!((ids[0], *ids.last().unwrap()), (0, 2), "<s> ... </s>");
    assert!(types.iter().all(|&t| t == 0), "XLM-R has one token type");
    // The tail is the whole hypothesis: "</s></s>" then its tokens.
    let (alone, _) = c.tokenize_pair("w", "this example is refuse to answer.").unwrap();
    let hyp = &alone[alone.iter().position(|&i| i == 2).unwrap()..];
    assert_eq!(&ids[ids.len() - hyp.len()..], hyp);
    // Padding changes nothing: one pair alone and the same pair in a batch with a longer one.
    let alone = c.logits(&[("no", "yes")], |_| {}).unwrap();
    let batched = c.logits(&[("no", "yes"), ("a much longer premise than the other", "yes")], |_| {}).unwrap();
    let d = alone[0].iter().zip(&batched[0]).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    assert!(d < 1e-5, "padding moved the logits by {d}");
}

fn verdicts_equal_the_reference_rule(head: Head) {
    let py = or_skip!(python());
    let dir = model(head, 23);
    let premises = premises();
    for rule in [Rule::Argmax, Rule::PAPER, Rule::Threshold { at_least: 0.3 }] {
        let d = NliDetector::load(ModelFiles::read_dir(&dir, None).unwrap(), rule).unwrap();
        assert_eq!(d.entailment_index(), 1, "entailment is label 1 of 3, not the last");
        let languages = ["en", "de", "fr", "pl", "ca"];
        let answers: Vec<(&str, &str)> =
            premises.iter().zip(languages.iter().cycle()).map(|(p, l)| (p.as_str(), *l)).collect();
        let mut seen = vec![];
        let ours = d.detect(&answers, |n| seen.push(n)).unwrap();
        assert_eq!(seen.last(), Some(&answers.len()));
        let labels = |l: &str| {
            let table = zeroshot::LABELS.iter().chain(&zeroshot::OUR_LABELS);
            let (_, discuss, refuse) = table.clone().find(|(x, _, _)| *x == l).unwrap();
            [*discuss, *refuse]
        };
        let items: Vec<_> = answers.iter().map(|(a, l)| serde_json::json!([a, labels(l)])).collect();
        let threshold = match rule {
            Rule::Argmax => None,
            Rule::Threshold { at_least } => Some(at_least),
        };
        let r = common::reference(
            py,
            "tests/classify_reference.py",
            serde_json::json!({"op": "zeroshot", "dir": dir, "threshold": threshold, "items": items}),
        );
        let p: Vec<f64> = serde_json::from_value(r["p_refuse"].clone()).unwrap();
        let refusal: Vec<bool> = serde_json::from_value(r["refusal"].clone()).unwrap();
        let max_p = ours.iter().zip(&p).map(|(v, p)| (v.p_refuse - p).abs()).fold(0f64, f64::max);
        println!("{head:?} {rule:?}: p_refuse max abs difference {max_p:.2e}, verdicts {refusal:?}");
        assert!(max_p < 1e-5, "p_refuse differs by {max_p}");
        assert_eq!(ours.iter().map(|v| v.refusal).collect::<Vec<_>>(), refusal, "{head:?} {rule:?}");
        if rule == Rule::Argmax {
            // The seeds are chosen so the test sees both verdicts.
            assert!(refusal.contains(&true) && refusal.contains(&false), "{head:?}: {refusal:?}");
        }
    }
}

#[test]
fn bert_zero_shot_verdicts_equal_the_reference_rule() {
    verdicts_equal_the_reference_rule(Head::Bert);
}

#[test]
fn xlmr_zero_shot_verdicts_equal_the_reference_rule() {
    verdicts_equal_the_reference_rule(Head::XlmRoberta);
}

#[test]
fn an_unknown_language_is_an_error_naming_it_and_the_answer() {
    let d = NliDetector::load(ModelFiles::read_dir(&model(Head::Bert, 2), None).unwrap(), Rule::Argmax).unwrap();
    let e = d.detect(&[("fine", "en"), ("bien", "pt")], |_| {}).unwrap_err().to_string();
    assert!(e.contains("answer 2") && e.contains("\"pt\""), "{e}");
}

#[test]
fn an_unsupported_architecture_is_named() {
    let dir = model(Head::Bert, 3);
    let path = dir.join("config.json");
    let mut c: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    c["architectures"] = serde_json::json!(["GPT2ForSequenceClassification"]);
    std::fs::write(&path, c.to_string()).unwrap();
    let e = Classifier::load(ModelFiles::read_dir(&dir, None).unwrap()).err().unwrap().to_string();
    assert!(e.contains("config.json") && e.contains("GPT2ForSequenceClassification"), "{e}");
}

/// DeBERTa-v2 through the classifier and the detector: the same logits as the model run alone
/// on each pair (the model itself is checked against numpy in deberta_reference.rs), so the
/// tokenization, padding and label order are the classifier's; P(refuse) is the rule's.
#[test]
fn deberta_plugs_into_the_classifier_and_the_detector() {
    let dir = common::tmp("classify-deberta");
    tiny::write_deberta_classifier(&dir, 31).unwrap();
    let c = load(&dir);
    assert_eq!(c.architecture(), Architecture::DebertaV2);
    assert_eq!(c.labels(), tiny::LABELS);
    let premises = premises();
    let pairs: Vec<(&str, &str)> = premises.iter().map(|p| (p.as_str(), "This example is refuse to answer.")).collect();
    let batch = c.logits(&pairs, |_| {}).unwrap();
    let read = |f: &str| std::fs::read(dir.join(f)).unwrap();
    let alone = evenhand_models::deberta::DebertaV2::from_files(
        "config.json",
        &read("config.json"),
        "model.safetensors",
        evenhand_models::weights::read_file(&dir.join("model.safetensors"), "model.safetensors", None).unwrap().tensors,
    )
    .unwrap();
    for ((p, h), row) in pairs.iter().zip(&batch) {
        let (ids, _) = c.tokenize_pair(p, h).unwrap();
        let mask = vec![1; ids.len()];
        let one: Vec<Vec<f32>> = alone.logits(&[ids], &[mask]).unwrap().to_vec2().unwrap();
        let diff = one[0].iter().zip(row).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        assert!(diff < 1e-5, "{p:?}: batched {row:?} vs alone {:?}", one[0]);
    }
    let d = NliDetector::load(ModelFiles::read_dir(&dir, None).unwrap(), Rule::Argmax).unwrap();
    let answers: Vec<(&str, &str)> = premises.iter().map(|p| (p.as_str(), "en")).collect();
    let verdicts = d.detect(&answers, |_| {}).unwrap();
    let ([discuss, refuse], _) = zeroshot::hypotheses("en").unwrap();
    for ((p, _), v) in answers.iter().zip(&verdicts) {
        let l = c.logits(&[(p, discuss.as_str()), (p, refuse.as_str())], |_| {}).unwrap();
        let want = zeroshot::p_refuse(f64::from(l[0][1]), f64::from(l[1][1]));
        assert!((v.p_refuse - want).abs() < 1e-6, "{p:?}: {} vs {want}", v.p_refuse);
        assert_eq!(v.refusal, Rule::Argmax.refusal(want));
    }
}
