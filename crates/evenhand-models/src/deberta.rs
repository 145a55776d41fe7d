//! DeBERTa-v2/v3 for sequence classification (the architecture of mDeBERTa-v3-base XNLI), on
//! candle-core/candle-nn, loading Hugging Face's `DebertaV2ForSequenceClassification` weights
//! by their published names. Post-layer-norm like BERT, but positions enter only through the
//! disentangled attention (src/deberta_attention.rs) unless `position_biased_input`:
//!
//! h0 = LN(word[id] (+ position[i]) (+ token_type[0])) · mask; per layer:
//! a = LN(h + W_o · attention(h)); h = LN(a + W_2 · act(W_1 · a));
//! logits = W_c · act(W_p · h[first token]) (ContextPooler, then the classifier).

use crate::deberta_attention::{Attention, RelativeIndex, masks};
pub use crate::deberta_config::Config;
use crate::error::ModelError;
use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder};
use std::collections::HashMap;

struct Layer {
    attention: Attention,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

/// The classifier with its weights loaded.
pub struct DebertaV2 {
    pub config: Config,
    word: Embedding,
    position: Option<Embedding>,
    /// Token type embeddings, when `type_vocab_size` > 0 (v3 has none).
    token_type: Option<Embedding>,
    embeddings_norm: LayerNorm,
    layers: Vec<Layer>,
    pooler: Linear,
    classifier: Linear,
    device: Device,
}

impl DebertaV2 {
    /// Builds the model from streamed weights ([`crate::weights`]; `file` names them in errors).
    /// Names as in the hub's checkpoints: `deberta.embeddings…`, `deberta.encoder…`,
    /// `pooler.dense`, `classifier`.
    pub fn load(config: Config, file: &str, tensors: HashMap<String, Tensor>) -> Result<DebertaV2, ModelError> {
        let device = Device::Cpu;
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
        DebertaV2::from_var_builder(config, vb, device).map_err(|e| ModelError::weights(file, e))
    }

    /// Parses config.json and loads the weights: the two files a checkpoint needs.
    pub fn from_files(
        config_file: &str,
        config_json: &[u8],
        weights_file: &str,
        tensors: HashMap<String, Tensor>,
    ) -> Result<DebertaV2, ModelError> {
        DebertaV2::load(Config::from_json(config_file, config_json)?, weights_file, tensors)
    }

    fn from_var_builder(config: Config, root: VarBuilder, device: Device) -> candle_core::Result<DebertaV2> {
        let c = &config;
        let (h, eps) = (c.hidden_size, c.layer_norm_eps);
        let vb = root.pp("deberta");
        let e = vb.pp("embeddings");
        let word = candle_nn::embedding(c.vocab_size, h, e.pp("word_embeddings"))?;
        let position = if c.position_biased_input {
            Some(candle_nn::embedding(c.max_position_embeddings, h, e.pp("position_embeddings"))?)
        } else {
            None
        };
        let token_type = if c.type_vocab_size > 0 {
            Some(candle_nn::embedding(c.type_vocab_size, h, e.pp("token_type_embeddings"))?)
        } else {
            None
        };
        let embeddings_norm = candle_nn::layer_norm(h, eps, e.pp("LayerNorm"))?;
        let enc = vb.pp("encoder");
        // The relative embeddings are weights: normalised once, here, for every call.
        let rel = match &c.relative {
            Some(r) => {
                let w = enc.get((2 * r.span, h), "rel_embeddings.weight")?;
                Some(if r.layer_norm { candle_nn::layer_norm(h, eps, enc.pp("LayerNorm"))?.forward(&w)? } else { w })
            }
            None => None,
        };
        let mut layers = vec![];
        for i in 0..c.num_hidden_layers {
            let l = enc.pp(format!("layer.{i}"));
            let a = l.pp("attention");
            layers.push(Layer {
                attention: Attention::load(c, rel.as_ref(), a.pp("self"))?,
                attention_out: candle_nn::linear(h, h, a.pp("output.dense"))?,
                attention_norm: candle_nn::layer_norm(h, eps, a.pp("output.LayerNorm"))?,
                intermediate: candle_nn::linear(h, c.intermediate_size, l.pp("intermediate.dense"))?,
                output: candle_nn::linear(c.intermediate_size, h, l.pp("output.dense"))?,
                output_norm: candle_nn::layer_norm(h, eps, l.pp("output.LayerNorm"))?,
            });
        }
        let pooler = candle_nn::linear(h, c.pooler_hidden_size, root.pp("pooler.dense"))?;
        let classifier = candle_nn::linear(c.pooler_hidden_size, c.labels.len(), root.pp("classifier"))?;
        Ok(DebertaV2 { config, word, position, token_type, embeddings_norm, layers, pooler, classifier, device })
    }

    /// The class logits, (batch, labels), in `config.labels` order, for equally long rows of
    /// token ids and an attention mask (1 = token, 0 = padding). Every token is of type 0
    /// (what a model without token types, such as mDeBERTa-v3, needs).
    pub fn logits(&self, ids: &[Vec<u32>], mask: &[Vec<u32>]) -> candle_core::Result<Tensor> {
        self.logits_with_types(ids, None, mask)
    }

    /// As [`DebertaV2::logits`], with the tokenizer's token type ids (used when the config has
    /// `type_vocab_size` > 0; ignored otherwise, as the reference ignores them).
    pub fn logits_with_types(
        &self,
        ids: &[Vec<u32>],
        type_ids: Option<&[Vec<u32>]>,
        mask: &[Vec<u32>],
    ) -> candle_core::Result<Tensor> {
        let c = &self.config;
        let (b, t) = (ids.len(), ids.first().map_or(0, Vec::len));
        if b == 0 {
            return Tensor::zeros((0, c.labels.len()), DType::F32, &self.device);
        }
        if t == 0 || ids.iter().any(|r| r.len() != t) || mask.len() != b || mask.iter().any(|r| r.len() != t) {
            candle_core::bail!("token ids and masks must be {b} non-empty rows of one length");
        }
        if type_ids.is_some_and(|ty| ty.len() != b || ty.iter().any(|r| r.len() != t)) {
            candle_core::bail!("token type ids must be {b} rows of {t}, as the token ids");
        }
        if let Some(&id) = ids.iter().flatten().find(|&&id| id as usize >= c.vocab_size) {
            candle_core::bail!("token id {id} is outside the vocabulary of {}", c.vocab_size);
        }
        if c.position_biased_input && t > c.max_position_embeddings {
            candle_core::bail!("{t} tokens, more than max_position_embeddings {}", c.max_position_embeddings);
        }
        let mut x = self.word.forward(&Tensor::from_vec(ids.concat(), (b, t), &self.device)?)?;
        if let Some(p) = &self.position {
            x = x.broadcast_add(&p.forward(&Tensor::arange(0u32, t as u32, &self.device)?)?)?;
        }
        if let Some(tt) = &self.token_type {
            let types = match type_ids {
                Some(ty) => {
                    if let Some(&y) = ty.iter().flatten().find(|&&y| y as usize >= c.type_vocab_size) {
                        candle_core::bail!("token type id {y} is outside type_vocab_size {}", c.type_vocab_size);
                    }
                    Tensor::from_vec(ty.concat(), (b, t), &self.device)?
                }
                None => Tensor::zeros((b, t), DType::U32, &self.device)?,
            };
            x = (x + tt.forward(&types)?)?;
        }
        let (key_bias, query_mask) = masks(mask, t, &self.device)?;
        // Padding rows of the embeddings are zeroed, as the reference does.
        let mut h = self.embeddings_norm.forward(&x)?.broadcast_mul(&query_mask.reshape((b, t, 1))?)?;
        let rel = match &c.relative {
            Some(r) => Some(RelativeIndex::new(r, b, c.num_attention_heads, t, &self.device)?),
            None => None,
        };
        for l in &self.layers {
            let context = l.attention.forward(&h, rel.as_ref(), &key_bias, &query_mask)?;
            let a = l.attention_norm.forward(&(l.attention_out.forward(&context)? + &h)?)?;
            let f = l.output.forward(&c.hidden_act.apply(&l.intermediate.forward(&a)?)?)?;
            h = l.output_norm.forward(&(f + a)?)?;
        }
        let first = h.narrow(1, 0, 1)?.squeeze(1)?;
        let pooled = c.pooler_hidden_act.apply(&self.pooler.forward(&first)?)?;
        self.classifier.forward(&pooled)
    }
}

/// Softmax of each row of logits, as probabilities per label.
pub fn probabilities(logits: &Tensor) -> candle_core::Result<Vec<Vec<f32>>> {
    candle_nn::ops::softmax_last_dim(logits)?.to_vec2()
}
