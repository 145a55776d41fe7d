//! A tiny BERT with seeded random weights, for tests: its config.json, model.safetensors and a
//! lower-case letter-by-letter WordPiece tokenizer.json, written to a folder. Small enough that
//! a forward pass takes microseconds, large enough (2 layers, 4 heads, GELU, padding) to
//! exercise every part of the encoder against a reference implementation.

use crate::error::ModelError;
use candle_core::{Device, Tensor};
use std::collections::HashMap;
use std::path::Path;

pub const HIDDEN: usize = 16;
const LAYERS: usize = 2;
const HEADS: usize = 4;
const INTERMEDIATE: usize = 32;
const POSITIONS: usize = 64;

/// [PAD] [UNK] [CLS] [SEP], then a..z, ##a..##z, digits and a little punctuation.
fn vocabulary() -> Vec<String> {
    let mut v: Vec<String> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"].map(String::from).to_vec();
    v.extend(('a'..='z').map(String::from));
    v.extend(('a'..='z').map(|c| format!("##{c}")));
    v.extend(('0'..='9').map(String::from));
    v.extend([".", ",", "?", "!", "'"].map(String::from));
    v
}

fn config(vocab: usize) -> serde_json::Value {
    serde_json::json!({
        "architectures": ["BertModel"], "model_type": "bert",
        "vocab_size": vocab, "hidden_size": HIDDEN, "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS, "intermediate_size": INTERMEDIATE, "hidden_act": "gelu",
        "max_position_embeddings": POSITIONS, "type_vocab_size": 2, "layer_norm_eps": 1e-12,
        "pad_token_id": 0
    })
}

fn tokenizer(vocab: &[String]) -> serde_json::Value {
    let special = |id: usize, content: &str| {
        serde_json::json!({"id": id, "content": content, "single_word": false, "lstrip": false,
            "rstrip": false, "normalized": false, "special": true})
    };
    let ids: serde_json::Map<String, serde_json::Value> =
        vocab.iter().enumerate().map(|(i, t)| (t.clone(), i.into())).collect();
    let token = |name: &str| serde_json::json!({"SpecialToken": {"id": name, "type_id": 0}});
    serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [special(0, "[PAD]"), special(1, "[UNK]"), special(2, "[CLS]"), special(3, "[SEP]")],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
            "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing",
            "single": [token("[CLS]"), {"Sequence": {"id": "A", "type_id": 0}}, token("[SEP]")],
            "pair": [token("[CLS]"), {"Sequence": {"id": "A", "type_id": 0}}, token("[SEP]"),
                {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100, "vocab": ids}
    })
}

/// xorshift64*: uniform numbers in [-scale, scale), the same for a seed on every target.
struct Draws(u64);

impl Draws {
    fn tensor(&mut self, shape: &[usize], centre: f32, scale: f32) -> candle_core::Result<Tensor> {
        let n = shape.iter().product();
        let v: Vec<f32> = (0..n)
            .map(|_| {
                self.0 ^= self.0 >> 12;
                self.0 ^= self.0 << 25;
                self.0 ^= self.0 >> 27;
                let u = (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40) as f32 / (1u64 << 24) as f32;
                centre + scale * (2.0 * u - 1.0)
            })
            .collect();
        Tensor::from_vec(v, shape, &Device::Cpu)
    }
}

fn weights(vocab: usize, seed: u64) -> candle_core::Result<HashMap<String, Tensor>> {
    let mut d = Draws(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut w = HashMap::new();
    let mut put = |name: String, shape: &[usize], centre: f32, scale: f32| -> candle_core::Result<()> {
        w.insert(name, d.tensor(shape, centre, scale)?);
        Ok(())
    };
    put("embeddings.word_embeddings.weight".into(), &[vocab, HIDDEN], 0.0, 1.0)?;
    put("embeddings.position_embeddings.weight".into(), &[POSITIONS, HIDDEN], 0.0, 0.5)?;
    put("embeddings.token_type_embeddings.weight".into(), &[2, HIDDEN], 0.0, 0.5)?;
    put("embeddings.LayerNorm.weight".into(), &[HIDDEN], 1.0, 0.2)?;
    put("embeddings.LayerNorm.bias".into(), &[HIDDEN], 0.0, 0.2)?;
    for i in 0..LAYERS {
        let p = format!("encoder.layer.{i}");
        for m in ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"] {
            put(format!("{p}.{m}.weight"), &[HIDDEN, HIDDEN], 0.0, 0.5)?;
            put(format!("{p}.{m}.bias"), &[HIDDEN], 0.0, 0.2)?;
        }
        put(format!("{p}.intermediate.dense.weight"), &[INTERMEDIATE, HIDDEN], 0.0, 0.5)?;
        put(format!("{p}.intermediate.dense.bias"), &[INTERMEDIATE], 0.0, 0.2)?;
        put(format!("{p}.output.dense.weight"), &[HIDDEN, INTERMEDIATE], 0.0, 0.3)?;
        put(format!("{p}.output.dense.bias"), &[HIDDEN], 0.0, 0.2)?;
        for n in ["attention.output.LayerNorm", "output.LayerNorm"] {
            put(format!("{p}.{n}.weight"), &[HIDDEN], 1.0, 0.2)?;
            put(format!("{p}.{n}.bias"), &[HIDDEN], 0.0, 0.2)?;
        }
    }
    Ok(w)
}

/// Writes config.json, model.safetensors and tokenizer.json for the seed into `dir`.
pub fn write(dir: &Path, seed: u64) -> Result<(), ModelError> {
    let io = |file: &str, e: std::io::Error| ModelError::Read { file: file.into(), message: e.to_string() };
    let vocab = vocabulary();
    std::fs::create_dir_all(dir).map_err(|e| io(&dir.display().to_string(), e))?;
    for (name, value) in [("config.json", config(vocab.len())), ("tokenizer.json", tokenizer(&vocab))] {
        let path = dir.join(name);
        std::fs::write(&path, value.to_string()).map_err(|e| io(&path.display().to_string(), e))?;
    }
    let path = dir.join("model.safetensors");
    let name = path.display().to_string();
    let w = weights(vocab.len(), seed).map_err(|e| ModelError::weights(&name, e))?;
    candle_core::safetensors::save(&w, &path).map_err(|e| ModelError::weights(&name, e))
}
