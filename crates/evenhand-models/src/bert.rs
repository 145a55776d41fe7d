//! A BERT encoder (Devlin et al. 2019) on candle-core/candle-nn, written here rather than taken
//! from candle-transformers (whose build adds minutes). It follows the Hugging Face
//! `BertModel` weight layout (with or without a `bert.` prefix) and config.json, so the
//! sentence-transformers checkpoints load as published. Post-layer-norm, as in the original:
//!
//! h0 = LN(word[id] + position[i] + token_type[t]); per layer ([`crate::layer`], on flat
//! buffers with fused elementwise steps):
//! a = LN(h + W_o · softmax(QKᵀ/√d + mask) V); h = LN(a + W_2 · gelu(W_1 · a)).

use crate::error::ModelError;
use crate::fused::{Activation, Norm};
use crate::layer::{self, Dense, Layer, Scratch};
use candle_core::{D, DType, Device, Module, Tensor};
use candle_nn::{Embedding, VarBuilder};
use std::collections::HashMap;
use std::sync::Mutex;

/// The config.json fields the forward pass uses (others are ignored).
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
pub struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    #[serde(default = "default_act")]
    pub hidden_act: String,
    pub max_position_embeddings: usize,
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default)]
    pub pad_token_id: u32,
}

fn default_act() -> String {
    "gelu".into()
}
fn default_type_vocab() -> usize {
    2
}
fn default_eps() -> f64 {
    1e-12
}

impl Config {
    /// Parses config.json and checks what the forward pass relies on.
    pub fn from_json(file: &str, bytes: &[u8]) -> Result<Config, ModelError> {
        let bad = |message: String| ModelError::Config { file: file.into(), message };
        let c: Config = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
        if c.hidden_size == 0 || c.intermediate_size == 0 {
            return Err(bad("hidden_size and intermediate_size must be positive".into()));
        }
        if c.num_attention_heads == 0 || !c.hidden_size.is_multiple_of(c.num_attention_heads) {
            return Err(bad(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                c.hidden_size, c.num_attention_heads
            )));
        }
        Activation::of(&c.hidden_act).map_err(|m| bad(format!("hidden_act {m}")))?;
        Ok(c)
    }
}

/// How position ids are numbered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Positions {
    /// BERT: 0, 1, 2, ... for every token, padding included (padding is masked anyway).
    Absolute,
    /// RoBERTa/XLM-R: a real token's position is `padding_idx` + its 1-based count among the
    /// row's real tokens; a padding token's is `padding_idx`. So the first token sits at
    /// padding_idx + 1 and a row's positions do not depend on how far it was padded.
    Roberta { padding_idx: u32 },
}

impl Positions {
    /// The position ids of one row of token ids.
    pub fn of(self, ids: &[u32]) -> Vec<u32> {
        match self {
            Positions::Absolute => (0..ids.len() as u32).collect(),
            Positions::Roberta { padding_idx } => {
                let mut seen = 0;
                ids.iter()
                    .map(|&id| {
                        if id == padding_idx {
                            padding_idx
                        } else {
                            seen += 1;
                            padding_idx + seen
                        }
                    })
                    .collect()
            }
        }
    }

    /// The most tokens a row may hold with `table` position embeddings.
    pub fn max_tokens(self, table: usize) -> usize {
        match self {
            Positions::Absolute => table,
            Positions::Roberta { padding_idx } => table.saturating_sub(padding_idx as usize + 1),
        }
    }
}

/// The encoder with its weights loaded.
pub struct Bert {
    pub config: Config,
    positions: Positions,
    word: Embedding,
    position: Embedding,
    token_type: Embedding,
    embeddings_norm: Norm,
    layers: Vec<Layer>,
    activation: Activation,
    device: Device,
    /// The layers' buffers, kept from one batch to the next.
    scratch: Mutex<Scratch>,
}

/// A layer norm's parameters (older checkpoints name them gamma/beta).
fn layer_norm(size: usize, eps: f64, vb: VarBuilder) -> candle_core::Result<Norm> {
    let (w, b) = if vb.contains_tensor("weight") { ("weight", "bias") } else { ("gamma", "beta") };
    Ok(Norm { weight: vb.get(size, w)?.to_vec1()?, bias: vb.get(size, b)?.to_vec1()?, eps: eps as f32 })
}

/// A dense layer's weight (outputs, inputs) and bias, as loaded (not copied).
fn dense(inputs: usize, outputs: usize, vb: VarBuilder) -> candle_core::Result<Dense> {
    Ok(Dense { weight: vb.get((outputs, inputs), "weight")?, bias: vb.get(outputs, "bias")? })
}

impl Bert {
    /// Builds the encoder from streamed weights ([`crate::weights`]; `file` names them in errors).
    pub fn load(config: Config, file: &str, tensors: HashMap<String, Tensor>) -> Result<Bert, ModelError> {
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu);
        // sentence-transformers saves the bare encoder; BertFor* checkpoints prefix it.
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") { vb.pp("bert") } else { vb };
        Bert::from_var_builder(config, vb, Positions::Absolute).map_err(|e| ModelError::weights(file, e))
    }

    /// The encoder under `vb` (already at its prefix: `bert`, `roberta`, or none), numbering
    /// positions as `positions` says. XLM-R's encoder is this one with RoBERTa positions.
    pub fn from_var_builder(config: Config, vb: VarBuilder, positions: Positions) -> candle_core::Result<Bert> {
        let device = vb.device().clone();
        let (h, eps) = (config.hidden_size, config.layer_norm_eps);
        let e = vb.pp("embeddings");
        let word = candle_nn::embedding(config.vocab_size, h, e.pp("word_embeddings"))?;
        let position = candle_nn::embedding(config.max_position_embeddings, h, e.pp("position_embeddings"))?;
        let token_type = candle_nn::embedding(config.type_vocab_size, h, e.pp("token_type_embeddings"))?;
        let embeddings_norm = layer_norm(h, eps, e.pp("LayerNorm"))?;
        let mut layers = vec![];
        for i in 0..config.num_hidden_layers {
            let l = vb.pp(format!("encoder.layer.{i}"));
            let a = l.pp("attention");
            layers.push(Layer {
                query: dense(h, h, a.pp("self.query"))?,
                key: dense(h, h, a.pp("self.key"))?,
                value: dense(h, h, a.pp("self.value"))?,
                attention_out: dense(h, h, a.pp("output.dense"))?,
                attention_norm: layer_norm(h, eps, a.pp("output.LayerNorm"))?,
                intermediate: dense(h, config.intermediate_size, l.pp("intermediate.dense"))?,
                output: dense(config.intermediate_size, h, l.pp("output.dense"))?,
                output_norm: layer_norm(h, eps, l.pp("output.LayerNorm"))?,
            });
        }
        let activation = Activation::of(&config.hidden_act).map_err(candle_core::Error::msg)?;
        let scratch = Mutex::default();
        Ok(Bert { config, positions, word, position, token_type, embeddings_norm, layers, activation, device, scratch })
    }

    /// The last hidden states, (batch, tokens, hidden), for equally long rows of token ids,
    /// token type ids and an attention mask (1 = token, 0 = padding).
    pub fn forward(&self, ids: &[Vec<u32>], type_ids: &[Vec<u32>], mask: &[Vec<u32>]) -> candle_core::Result<Tensor> {
        let (b, t) = (ids.len(), ids.first().map_or(0, Vec::len));
        let most = self.max_tokens();
        if t > most {
            candle_core::bail!("{t} tokens, more than the {most} the position embeddings allow");
        }
        if [ids, type_ids, mask].iter().any(|rows| rows.len() != b || rows.iter().any(|r| r.len() != t)) {
            candle_core::bail!("token ids, type ids and mask are not all {b} rows of {t}");
        }
        let rows = |v: &[Vec<u32>]| Tensor::from_vec(v.concat(), (b, t), &self.device);
        let positions: Vec<Vec<u32>> = ids.iter().map(|row| self.positions.of(row)).collect();
        let positions = rows(&positions)?;
        let (ids, type_ids) = (rows(ids)?, rows(type_ids)?);
        let x =
            ((self.word.forward(&ids)? + self.position.forward(&positions)?)? + self.token_type.forward(&type_ids)?)?;
        let hidden = self.config.hidden_size;
        let mut h = x.flatten_all()?.to_vec1::<f32>()?;
        for row in h.chunks_mut(hidden) {
            crate::fused::layer_norm(&self.embeddings_norm, row);
        }
        let batch = layer::Batch::new(mask, hidden, self.config.num_attention_heads);
        let mut scratch = self.scratch.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        scratch.fit(&batch, self.config.intermediate_size);
        for layer in &self.layers {
            layer.forward(&batch, &mut h, &mut scratch, self.activation)?;
        }
        Tensor::from_vec(h, (b, t, hidden), &self.device)
    }

    /// The most tokens a row may hold.
    pub fn max_tokens(&self) -> usize {
        self.positions.max_tokens(self.config.max_position_embeddings)
    }
}

/// Mean of the hidden states over the unmasked tokens, (batch, hidden); each row optionally
/// scaled to unit length (sentence-transformers' Pooling then Normalize).
pub fn mean_pool(hidden: &Tensor, mask: &[Vec<u32>], normalise: bool) -> candle_core::Result<Vec<Vec<f32>>> {
    let (b, t, _) = hidden.dims3()?;
    let m = Tensor::from_vec(mask.concat(), (b, t), hidden.device())?.to_dtype(DType::F32)?.unsqueeze(2)?;
    let sum = hidden.broadcast_mul(&m)?.sum(1)?;
    let count = m.sum(1)?.clamp(1e-9, f64::MAX)?;
    let mut pooled = sum.broadcast_div(&count)?;
    if normalise {
        let norm = pooled.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?.clamp(1e-12, f64::MAX)?;
        pooled = pooled.broadcast_div(&norm)?;
    }
    pooled.to_vec2()
}
