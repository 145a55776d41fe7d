//! A user's own NLI model folder, as the page's "your own model folder" and the e2e test's
//! write_tiny_nli give it: a tiny random BERT classifier over another model's tokenizer.json
//! loads with its embedding table sized to that vocabulary, every file on trust (sha256
//! recorded); one loaded detector scores under either rule without loading again; and the
//! records' label names the folder, the weights' sha256 and that they were not pinned.

mod common;

use evenhand_models::embed::ModelFiles;
use evenhand_models::nli::NliDetector;
use evenhand_models::pin::sha256_hex;
use evenhand_models::tiny::{self, Head};
use evenhand_models::zeroshot::Rule;

#[test]
fn an_own_folder_over_a_borrowed_tokenizer_scores_under_either_rule_and_is_labelled() {
    // Another model's tokenizer.json (the tiny BERT's) with one more token at id 300: the
    // embedding table is sized to the largest id, and `[PAD]` (id 0) pads.
    let donor = common::tmp("own-donor");
    tiny::write_classifier(&donor, Head::Bert, 2).unwrap();
    let mut t: serde_json::Value =
        serde_json::from_slice(&std::fs::read(donor.join("tokenizer.json")).unwrap()).unwrap();
    t["model"]["vocab"]["zz"] = 300.into();
    let dir = common::tmp("own-folder");
    tiny::write_classifier_with_tokenizer(&dir, 9, t.to_string().as_bytes()).unwrap();
    let config: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("config.json")).unwrap()).unwrap();
    assert_eq!(config["vocab_size"], 301);
    assert_eq!(config["pad_token_id"], 0);

    let mut d = NliDetector::load(ModelFiles::read_dir(&dir, None).unwrap(), Rule::Argmax).unwrap();
    let answers = [("i cannot help with that.", "en"), ("folter ist verboten.", "de"), ("zz", "fr")];
    let argmax = d.detect(&answers, |_| {}).unwrap();
    d.set_rule(Rule::Threshold { at_least: 0.3 });
    let low = d.detect(&answers, |_| {}).unwrap();
    for (a, l) in argmax.iter().zip(&low) {
        assert_eq!(a.p_refuse, l.p_refuse, "the rule does not change P(refuse)");
        assert_eq!(a.refusal, a.p_refuse > 0.5);
        assert_eq!(l.refusal, l.p_refuse >= 0.3);
    }

    let sha = sha256_hex(&std::fs::read(dir.join("model.safetensors")).unwrap());
    assert_eq!(
        d.record_label(None, "my-nli"),
        format!("local:my-nli, model.safetensors sha256 {sha} (unverified: trust on first use)")
    );
    let m = evenhand_models::catalogue::find("multilingual-minilmv2-l6-mnli-xnli").unwrap();
    assert!(
        d.record_label(Some(m), "ignored")
            .starts_with("MoritzLaurer/multilingual-MiniLMv2-L6-mnli-xnli, model.safetensors sha256 ")
    );

    // Not a WordPiece tokenizer.json: refused naming the file.
    let e = tiny::write_classifier_with_tokenizer(&dir, 9, b"{\"model\": {}}").unwrap_err().to_string();
    assert!(e.starts_with("tokenizer.json: ") && e.contains("model.vocab"), "{e}");
}
