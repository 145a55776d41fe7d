//! Our DeBERTa-v2 classifier against a float64 numpy port of the reference forward pass
//! (tests/deberta_reference.py) over the same tiny random weights (src/tiny.rs), in variants
//! that exercise each branch: log buckets past their range, shared or own position keys, c2p
//! and p2c alone or together, position-biased input and token types. The numpy side runs in
//! the throwaway virtualenv target/models-venv (numpy, safetensors); without it, each test
//! prints why it skips and passes.

mod common;

use common::{python, tmp};
use evenhand_models::deberta::{Config, DebertaV2};
use std::collections::HashMap;
use std::path::Path;

fn reference(py: &Path, dir: &Path, ids: &[Vec<u32>], type_ids: Option<&[Vec<u32>]>) -> Vec<Vec<f64>> {
    let request = serde_json::json!({"dir": dir, "ids": ids, "type_ids": type_ids});
    let v = common::reference(py, "tests/deberta_reference.py", request);
    serde_json::from_value(v["logits"].clone()).unwrap()
}

fn load(dir: &Path) -> DebertaV2 {
    let config = std::fs::read(dir.join("config.json")).unwrap();
    let weights =
        evenhand_models::weights::read_file(&dir.join("model.safetensors"), "model.safetensors", None).unwrap();
    DebertaV2::from_files("config.json", &config, "model.safetensors", weights.tensors).unwrap()
}

/// Sequences of different lengths (the longest past max_relative_positions 16, so both the
/// log buckets and the clamp to the span are reached), seeded ids in 1..vocab.
fn sequences(vocab: u32) -> Vec<Vec<u32>> {
    let mut s = 12345u64;
    [30usize, 5, 1, 17, 24]
        .iter()
        .map(|&n| {
            (0..n)
                .map(|_| {
                    s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    1 + ((s >> 33) as u32) % (vocab - 1)
                })
                .collect()
        })
        .collect()
}

/// Right-pads with id 0 to the longest, with the mask marking the padding.
fn padded(seqs: &[Vec<u32>]) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let t = seqs.iter().map(Vec::len).max().unwrap();
    let fill = |mut row: Vec<u32>| {
        row.resize(t, 0);
        row
    };
    (seqs.iter().map(|s| fill(s.clone())).collect(), seqs.iter().map(|s| fill(vec![1; s.len()])).collect())
}

/// The variant's logits (weights stored as f16 when `half`) against the reference's, on a
/// padded batch: the largest absolute difference, or None when the reference cannot run.
fn check(name: &str, overrides: serde_json::Value, half: bool) -> Option<f64> {
    let py = match python() {
        Ok(p) => p,
        Err(why) => {
            eprintln!("SKIPPED: {why}");
            return None;
        }
    };
    let dir = tmp(&format!("deberta-{name}"));
    evenhand_models::tiny::write_deberta(&dir, 11, &overrides).unwrap();
    if half {
        // As mDeBERTa-v3's checkpoint is published: f16, widened to f32 when loaded.
        let path = dir.join("model.safetensors");
        let w = candle_core::safetensors::load(&path, &candle_core::Device::Cpu).unwrap();
        let w: HashMap<String, candle_core::Tensor> =
            w.into_iter().map(|(k, v)| (k, v.to_dtype(candle_core::DType::F16).unwrap())).collect();
        candle_core::safetensors::save(&w, &path).unwrap();
    }
    let model = load(&dir);
    let seqs = sequences(model.config.vocab_size as u32);
    let (ids, mask) = padded(&seqs);
    // With token types: the second half of each sequence is type 1 (as a pair's hypothesis).
    let types: Vec<Vec<u32>> =
        seqs.iter().map(|s| (0..s.len()).map(|i| u32::from(2 * i >= s.len())).collect()).collect();
    let types = (model.config.type_vocab_size > 1).then_some(types);
    let ours = match &types {
        Some(ty) => model.logits_with_types(&ids, Some(&padded(ty).0), &mask),
        None => model.logits(&ids, &mask),
    };
    let ours: Vec<Vec<f32>> = ours.unwrap().to_vec2().unwrap();
    let theirs = reference(py, &dir, &seqs, types.as_deref());
    assert_eq!((ours.len(), ours[0].len()), (seqs.len(), 3));
    let mut max_abs = 0f64;
    for (a, b) in ours.iter().zip(&theirs) {
        for (x, y) in a.iter().zip(b) {
            max_abs = max_abs.max((*x as f64 - y).abs());
        }
    }
    let spread = theirs.iter().flatten().fold(0f64, |m, y| m.max(y.abs()));
    println!(
        "tiny DeBERTa-v2 {name} vs numpy float64: max abs logit difference {max_abs:.2e} (largest |logit| {spread:.2})"
    );
    assert!(spread > 0.1, "{name}: logits too small to tell anything apart: {theirs:?}");
    assert!(max_abs < 1e-4, "{name}: max abs difference {max_abs}\nours {ours:?}\ntheirs {theirs:?}");
    Some(max_abs)
}

#[test]
fn mdeberta_v3_layout_with_shared_keys_and_log_buckets_equals_the_reference_in_f32_and_f16() {
    check("v3", serde_json::json!({}), false);
    check("v3-f16", serde_json::json!({}), true);
}

#[test]
fn own_position_projections_equal_the_reference() {
    check("own-keys", serde_json::json!({"share_att_key": false}), false);
}

#[test]
fn position_biased_input_and_token_types_equal_the_reference() {
    check("biased", serde_json::json!({"position_biased_input": true, "type_vocab_size": 2}), false);
}

#[test]
fn one_relative_term_without_buckets_or_norm_equals_the_reference() {
    // No buckets: distances are clamped at ±6 directly; c2p alone scales by √(2d).
    let plain = serde_json::json!({"position_buckets": -1, "max_relative_positions": 6, "norm_rel_ebd": "none"});
    let mut c2p = plain.clone();
    c2p["pos_att_type"] = serde_json::json!(["c2p"]);
    check("c2p", c2p, false);
    let mut p2c = plain;
    p2c["pos_att_type"] = serde_json::json!("p2c");
    p2c["share_att_key"] = false.into();
    check("p2c", p2c, false);
    check("absolute", serde_json::json!({"relative_attention": false, "position_biased_input": true}), false);
}

#[test]
fn padding_does_not_change_a_sequences_logits() {
    let dir = tmp("deberta-padding");
    evenhand_models::tiny::write_deberta(&dir, 5, &serde_json::json!({})).unwrap();
    let model = load(&dir);
    let seqs = sequences(model.config.vocab_size as u32);
    let (ids, mask) = padded(&seqs);
    let batch: Vec<Vec<f32>> = model.logits(&ids, &mask).unwrap().to_vec2().unwrap();
    for (i, s) in seqs.iter().enumerate() {
        let alone: Vec<Vec<f32>> =
            model.logits(std::slice::from_ref(s), &[vec![1; s.len()]]).unwrap().to_vec2().unwrap();
        let diff = alone[0].iter().zip(&batch[i]).fold(0f32, |m, (a, b)| m.max((a - b).abs()));
        assert!(diff < 1e-5, "sequence {i}: {diff}");
    }
    // And the rows differ, so the comparison above could fail.
    assert!(batch[0].iter().zip(&batch[1]).any(|(a, b)| (a - b).abs() > 1e-3));
}

#[test]
fn bad_inputs_and_missing_tensors_are_errors_not_panics() {
    let dir = tmp("deberta-bad");
    evenhand_models::tiny::write_deberta(&dir, 5, &serde_json::json!({})).unwrap();
    let model = load(&dir);
    let e = model.logits(&[vec![2, 40]], &[vec![1, 1]]).err().unwrap().to_string();
    assert!(e.contains("token id 40") && e.contains("vocabulary of 40"), "{e}");
    assert!(model.logits(&[vec![2, 3], vec![2]], &[vec![1, 1], vec![1]]).is_err());
    assert_eq!(model.logits(&[], &[]).unwrap().dims(), [0, 3]);
    let dir2 = tmp("deberta-bad-types");
    evenhand_models::tiny::write_deberta(&dir2, 5, &serde_json::json!({"type_vocab_size": 2})).unwrap();
    let e = load(&dir2).logits_with_types(&[vec![2, 3]], Some(&[vec![0, 2]]), &[vec![1, 1]]).err().unwrap().to_string();
    assert!(e.contains("token type id 2 is outside type_vocab_size 2"), "{e}");
    // A config that wants its own position keys, over weights that share them.
    let json = evenhand_models::tiny::deberta_config(&serde_json::json!({"share_att_key": false}));
    let config = Config::from_json("config.json", json.to_string().as_bytes()).unwrap();
    let weights =
        evenhand_models::weights::read_file(&dir.join("model.safetensors"), "model.safetensors", None).unwrap();
    let e = DebertaV2::load(config, "model.safetensors", weights.tensors).err().unwrap().to_string();
    assert!(e.starts_with("model.safetensors: weights:") && e.contains("pos_key_proj"), "{e}");
}
