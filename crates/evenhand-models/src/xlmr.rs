//! XLM-RoBERTa's sequence-classification head. Its encoder is BERT's ([`crate::bert::Bert`]) with
//! RoBERTa's position numbering ([`crate::bert::Positions::Roberta`]) and a single token type;
//! the head differs: no pooler, but dense + tanh on the first token (`<s>`), then `out_proj`.
//! Weights are Hugging Face's `XLMRobertaForSequenceClassification` layout (`roberta.*`,
//! `classifier.dense`, `classifier.out_proj`).

use candle_core::{IndexOp, Module, Tensor};
use candle_nn::{Linear, VarBuilder};

pub struct XlmRobertaHead {
    dense: Linear,
    out_proj: Linear,
}

impl XlmRobertaHead {
    pub fn load(vb: &VarBuilder, hidden: usize, labels: usize) -> candle_core::Result<XlmRobertaHead> {
        let c = vb.pp("classifier");
        Ok(XlmRobertaHead {
            dense: candle_nn::linear(hidden, hidden, c.pp("dense"))?,
            out_proj: candle_nn::linear(hidden, labels, c.pp("out_proj"))?,
        })
    }

    /// Logits (batch, labels) from the last hidden states (batch, tokens, hidden).
    pub fn forward(&self, hidden: &Tensor) -> candle_core::Result<Tensor> {
        let first = hidden.i((.., 0))?.contiguous()?;
        self.out_proj.forward(&self.dense.forward(&first)?.tanh()?)
    }
}
