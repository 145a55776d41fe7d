//! A tiny BERT with seeded random weights, for tests: its config.json, model.safetensors and a
//! lower-case letter-by-letter WordPiece tokenizer.json, written to a folder; and tiny
//! BERT / XLM-R sequence classifiers (3 NLI labels) the same way. Small enough that
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

/// The shapes of a tiny model: what differs between BERT and XLM-R.
struct Shape {
    vocab: usize,
    positions: usize,
    types: usize,
    /// Where the encoder's weights sit: "" (a bare encoder), "bert." or "roberta.".
    prefix: &'static str,
}

fn weights(shape: &Shape, head: Option<Head>, seed: u64) -> candle_core::Result<HashMap<String, Tensor>> {
    let mut d = Draws(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut w = HashMap::new();
    let mut put = |name: String, shape: &[usize], centre: f32, scale: f32| -> candle_core::Result<()> {
        w.insert(name, d.tensor(shape, centre, scale)?);
        Ok(())
    };
    let e = format!("{}embeddings", shape.prefix);
    put(format!("{e}.word_embeddings.weight"), &[shape.vocab, HIDDEN], 0.0, 1.0)?;
    put(format!("{e}.position_embeddings.weight"), &[shape.positions, HIDDEN], 0.0, 0.5)?;
    put(format!("{e}.token_type_embeddings.weight"), &[shape.types, HIDDEN], 0.0, 0.5)?;
    put(format!("{e}.LayerNorm.weight"), &[HIDDEN], 1.0, 0.2)?;
    put(format!("{e}.LayerNorm.bias"), &[HIDDEN], 0.0, 0.2)?;
    for i in 0..LAYERS {
        let p = format!("{}encoder.layer.{i}", shape.prefix);
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
    // The heads' weights are drawn large enough that the labels' logits differ visibly.
    match head {
        None => {}
        Some(Head::Bert) => {
            put("bert.pooler.dense.weight".into(), &[HIDDEN, HIDDEN], 0.0, 0.5)?;
            put("bert.pooler.dense.bias".into(), &[HIDDEN], 0.0, 0.2)?;
            put("classifier.weight".into(), &[LABELS.len(), HIDDEN], 0.0, 1.0)?;
            put("classifier.bias".into(), &[LABELS.len()], 0.0, 0.5)?;
        }
        Some(Head::XlmRoberta) => {
            put("classifier.dense.weight".into(), &[HIDDEN, HIDDEN], 0.0, 0.5)?;
            put("classifier.dense.bias".into(), &[HIDDEN], 0.0, 0.2)?;
            put("classifier.out_proj.weight".into(), &[LABELS.len(), HIDDEN], 0.0, 1.0)?;
            put("classifier.out_proj.bias".into(), &[LABELS.len()], 0.0, 0.5)?;
        }
    }
    Ok(w)
}

/// The tiny classifiers' architectures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    Bert,
    XlmRoberta,
}

/// The three NLI labels in id order: entailment in the middle, so a rule that took the last
/// logit (the pipeline's fallback) or the first would be caught.
pub const LABELS: [&str; 3] = ["contradiction", "entailment", "neutral"];

fn save(
    dir: &Path,
    files: [(&str, serde_json::Value); 2],
    w: candle_core::Result<HashMap<String, Tensor>>,
) -> Result<(), ModelError> {
    let io = |file: &str, e: std::io::Error| ModelError::Read { file: file.into(), message: e.to_string() };
    std::fs::create_dir_all(dir).map_err(|e| io(&dir.display().to_string(), e))?;
    for (name, value) in files {
        let path = dir.join(name);
        std::fs::write(&path, value.to_string()).map_err(|e| io(&path.display().to_string(), e))?;
    }
    let path = dir.join("model.safetensors");
    let name = path.display().to_string();
    let w = w.map_err(|e| ModelError::weights(&name, e))?;
    candle_core::safetensors::save(&w, &path).map_err(|e| ModelError::weights(&name, e))
}

/// A tiny DeBERTa-v2 classifier's config.json: 2 layers, hidden 32, 4 heads, relative attention
/// with 8 log buckets over 16 relative positions (so 24-token inputs reach past both), c2p and
/// p2c with shared keys, three labels; `overrides` replaces any of these fields.
pub fn deberta_config(overrides: &serde_json::Value) -> serde_json::Value {
    let mut c = serde_json::json!({
        "architectures": ["DebertaV2ForSequenceClassification"], "model_type": "deberta-v2",
        "vocab_size": 40, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
        "intermediate_size": 64, "hidden_act": "gelu", "max_position_embeddings": 64,
        "type_vocab_size": 0, "relative_attention": true, "max_relative_positions": 16,
        "position_buckets": 8, "norm_rel_ebd": "layer_norm", "share_att_key": true,
        "pos_att_type": ["p2c", "c2p"], "position_biased_input": false, "layer_norm_eps": 1e-7,
        "pooler_hidden_size": 32, "pooler_hidden_act": "gelu", "pad_token_id": 0,
        "id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"},
        "label2id": {"entailment": 0, "neutral": 1, "contradiction": 2}
    });
    if let (Some(c), Some(o)) = (c.as_object_mut(), overrides.as_object()) {
        c.extend(o.clone());
    }
    c
}

/// Writes config.json and model.safetensors of a tiny random DeBERTa-v2 classifier into `dir`,
/// with exactly the tensors its config asks for, named as the hub's checkpoints name them.
pub fn write_deberta(dir: &Path, seed: u64, overrides: &serde_json::Value) -> Result<(), ModelError> {
    let io = |file: &str, e: std::io::Error| ModelError::Read { file: file.into(), message: e.to_string() };
    std::fs::create_dir_all(dir).map_err(|e| io(&dir.display().to_string(), e))?;
    let json = deberta_config(overrides);
    let path = dir.join("config.json");
    let name = path.display().to_string();
    std::fs::write(&path, json.to_string()).map_err(|e| io(&name, e))?;
    let c = crate::deberta_config::Config::from_json(&name, json.to_string().as_bytes())?;
    let path = dir.join("model.safetensors");
    let name = path.display().to_string();
    let w = deberta_weights(&c, seed).map_err(|e| ModelError::weights(&name, e))?;
    candle_core::safetensors::save(&w, &path).map_err(|e| ModelError::weights(&name, e))
}

/// A tensor to draw: name, shape, centre, half-width.
type Spec = (String, Vec<usize>, f32, f32);

fn deberta_weights(c: &crate::deberta_config::Config, seed: u64) -> candle_core::Result<HashMap<String, Tensor>> {
    let (h, inter) = (c.hidden_size, c.intermediate_size);
    let mut s: Vec<Spec> = vec![];
    let norm = |s: &mut Vec<Spec>, p: &str| {
        s.push((format!("{p}.weight"), vec![h], 1.0, 0.2));
        s.push((format!("{p}.bias"), vec![h], 0.0, 0.2));
    };
    let e = "deberta.embeddings";
    s.push((format!("{e}.word_embeddings.weight"), vec![c.vocab_size, h], 0.0, 1.0));
    if c.position_biased_input {
        s.push((format!("{e}.position_embeddings.weight"), vec![c.max_position_embeddings, h], 0.0, 0.5));
    }
    if c.type_vocab_size > 0 {
        s.push((format!("{e}.token_type_embeddings.weight"), vec![c.type_vocab_size, h], 0.0, 0.5));
    }
    norm(&mut s, &format!("{e}.LayerNorm"));
    if let Some(r) = &c.relative {
        s.push(("deberta.encoder.rel_embeddings.weight".into(), vec![2 * r.span, h], 0.0, 1.0));
        if r.layer_norm {
            norm(&mut s, "deberta.encoder.LayerNorm");
        }
    }
    for i in 0..c.num_hidden_layers {
        let p = format!("deberta.encoder.layer.{i}");
        let mut linears = vec!["attention.self.query_proj", "attention.self.key_proj", "attention.self.value_proj"];
        if c.relative.is_some() && !c.share_att_key {
            linears.extend(c.c2p.then_some("attention.self.pos_key_proj"));
            linears.extend(c.p2c.then_some("attention.self.pos_query_proj"));
        }
        linears.push("attention.output.dense");
        for m in linears {
            s.push((format!("{p}.{m}.weight"), vec![h, h], 0.0, 0.4));
            s.push((format!("{p}.{m}.bias"), vec![h], 0.0, 0.2));
        }
        s.push((format!("{p}.intermediate.dense.weight"), vec![inter, h], 0.0, 0.4));
        s.push((format!("{p}.intermediate.dense.bias"), vec![inter], 0.0, 0.2));
        s.push((format!("{p}.output.dense.weight"), vec![h, inter], 0.0, 0.3));
        s.push((format!("{p}.output.dense.bias"), vec![h], 0.0, 0.2));
        norm(&mut s, &format!("{p}.attention.output.LayerNorm"));
        norm(&mut s, &format!("{p}.output.LayerNorm"));
    }
    let (pool, labels) = (c.pooler_hidden_size, c.labels.len());
    s.push(("pooler.dense.weight".into(), vec![pool, h], 0.0, 0.4));
    s.push(("pooler.dense.bias".into(), vec![pool], 0.0, 0.2));
    s.push(("classifier.weight".into(), vec![labels, pool], 0.0, 0.5));
    s.push(("classifier.bias".into(), vec![labels], 0.0, 0.2));
    let mut d = Draws(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    s.into_iter().map(|(name, shape, centre, scale)| Ok((name, d.tensor(&shape, centre, scale)?))).collect()
}

/// A tiny DeBERTa-v2 NLI classifier: [`write_deberta`]'s model over this module's WordPiece
/// vocabulary (with its tokenizer.json), labelled with [`LABELS`] (entailment not last).
pub fn write_deberta_classifier(dir: &Path, seed: u64) -> Result<(), ModelError> {
    let vocab = vocabulary();
    let id2label: serde_json::Map<String, serde_json::Value> =
        LABELS.iter().enumerate().map(|(i, l)| (i.to_string(), (*l).into())).collect();
    let label2id: serde_json::Map<String, serde_json::Value> =
        LABELS.iter().enumerate().map(|(i, l)| ((*l).to_string(), i.into())).collect();
    let overrides = serde_json::json!({"vocab_size": vocab.len(), "id2label": id2label, "label2id": label2id});
    write_deberta(dir, seed, &overrides)?;
    let path = dir.join("tokenizer.json");
    std::fs::write(&path, tokenizer(&vocab).to_string())
        .map_err(|e| ModelError::Read { file: path.display().to_string(), message: e.to_string() })
}

/// Writes a tiny sequence classifier (3 NLI labels) for the seed into `dir`: BERT with its
/// pooler, or XLM-R (RoBERTa positions from padding_idx + 1, one token type, `<s>`/`</s>`
/// tokens and the RoBERTa post-processor).
pub fn write_classifier(dir: &Path, head: Head, seed: u64) -> Result<(), ModelError> {
    let id2label: serde_json::Map<String, serde_json::Value> =
        LABELS.iter().enumerate().map(|(i, l)| (i.to_string(), (*l).into())).collect();
    let label2id: serde_json::Map<String, serde_json::Value> =
        LABELS.iter().enumerate().map(|(i, l)| ((*l).to_string(), i.into())).collect();
    match head {
        Head::Bert => {
            let vocab = vocabulary();
            let mut c = config(vocab.len());
            c["architectures"] = serde_json::json!(["BertForSequenceClassification"]);
            c["id2label"] = id2label.into();
            c["label2id"] = label2id.into();
            let shape = Shape { vocab: vocab.len(), positions: POSITIONS, types: 2, prefix: "bert." };
            save(dir, [("config.json", c), ("tokenizer.json", tokenizer(&vocab))], weights(&shape, Some(head), seed))
        }
        Head::XlmRoberta => {
            let mut vocab = vocabulary();
            vocab.splice(0..4, ["<s>", "<pad>", "</s>", "<unk>"].map(String::from));
            let positions = POSITIONS + 2;
            let mut c = config(vocab.len());
            c["architectures"] = serde_json::json!(["XLMRobertaForSequenceClassification"]);
            c["model_type"] = "xlm-roberta".into();
            c["max_position_embeddings"] = positions.into();
            c["type_vocab_size"] = 1.into();
            c["pad_token_id"] = 1.into();
            c["id2label"] = id2label.into();
            c["label2id"] = label2id.into();
            let shape = Shape { vocab: vocab.len(), positions, types: 1, prefix: "roberta." };
            save(
                dir,
                [("config.json", c), ("tokenizer.json", xlmr_tokenizer(&vocab))],
                weights(&shape, Some(head), seed),
            )
        }
    }
}

/// A tiny random BERT NLI classifier (3 labels, as [`write_classifier`]) over someone else's
/// tokenizer.json (the same JSON, written into `dir` with the rest): a real vocabulary (the tests use
/// all-MiniLM-L6-v2's WordPiece) with the model's embedding table sized to it and `[PAD]` as
/// padding. The tokenizer must be a BERT one (its post-processor gives type ids 0 and 1).
pub fn write_classifier_with_tokenizer(dir: &Path, seed: u64, tokenizer_json: &[u8]) -> Result<(), ModelError> {
    let bad = |message: String| ModelError::Tokenizer { file: "tokenizer.json".into(), message };
    let t: serde_json::Value = serde_json::from_slice(tokenizer_json).map_err(|e| bad(e.to_string()))?;
    let vocab = t["model"]["vocab"].as_object().ok_or_else(|| bad("no model.vocab object (not WordPiece?)".into()))?;
    let ids = vocab.values().chain(t["added_tokens"].as_array().into_iter().flatten().map(|a| &a["id"]));
    let size = ids.filter_map(serde_json::Value::as_u64).max().map_or(0, |m| m as usize + 1);
    let pad = vocab.get("[PAD]").and_then(serde_json::Value::as_u64).unwrap_or(0);
    let id2label: serde_json::Map<String, serde_json::Value> =
        LABELS.iter().enumerate().map(|(i, l)| (i.to_string(), (*l).into())).collect();
    let label2id: serde_json::Map<String, serde_json::Value> =
        LABELS.iter().enumerate().map(|(i, l)| ((*l).to_string(), i.into())).collect();
    let mut c = config(size);
    c["architectures"] = serde_json::json!(["BertForSequenceClassification"]);
    c["pad_token_id"] = pad.into();
    c["id2label"] = id2label.into();
    c["label2id"] = label2id.into();
    let shape = Shape { vocab: size, positions: POSITIONS, types: 2, prefix: "bert." };
    save(dir, [("config.json", c), ("tokenizer.json", t)], weights(&shape, Some(Head::Bert), seed))
}

/// The WordPiece tokenizer with XLM-R's special tokens and the RoBERTa post-processor
/// (`<s> A </s></s> B </s>`, every type id 0).
fn xlmr_tokenizer(vocab: &[String]) -> serde_json::Value {
    let mut t = tokenizer(vocab);
    let special = |id: usize, content: &str| {
        serde_json::json!({"id": id, "content": content, "single_word": false, "lstrip": false,
            "rstrip": false, "normalized": false, "special": true})
    };
    t["added_tokens"] =
        serde_json::json!([special(0, "<s>"), special(1, "<pad>"), special(2, "</s>"), special(3, "<unk>")]);
    t["post_processor"] = serde_json::json!({"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
        "trim_offsets": true, "add_prefix_space": false});
    t["model"]["unk_token"] = "<unk>".into();
    t
}

/// Writes config.json, model.safetensors and tokenizer.json for the seed into `dir`.
pub fn write(dir: &Path, seed: u64) -> Result<(), ModelError> {
    let vocab = vocabulary();
    let shape = Shape { vocab: vocab.len(), positions: POSITIONS, types: 2, prefix: "" };
    save(
        dir,
        [("config.json", config(vocab.len())), ("tokenizer.json", tokenizer(&vocab))],
        weights(&shape, None, seed),
    )
}
