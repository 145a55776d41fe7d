//! Sequence-pair classification (an NLI model's premise/hypothesis logits), as Hugging Face's
//! `*ForSequenceClassification` models compute them, written here on candle. Which head runs is
//! config.json's `architectures[0]`; each architecture is one variant of [`Head`]: BERT and
//! XLM-R share our BERT encoder, DeBERTa-v2 (mDeBERTa-v3) is its own model ([`crate::deberta`]).
//!
//! Pairs are tokenized by the model's own tokenizer.json, post-processor included (BERT's
//! `[CLS] a [SEP] b [SEP]` with type ids 0/1, XLM-R's `<s> a </s></s> b </s>`), truncated
//! "only first" as the zero-shot pipeline does: the premise is cut, the hypothesis kept.

use crate::bert::{Bert, Config, Positions};
use crate::deberta::DebertaV2;
use crate::embed::{ModelFiles, Provenance};
use crate::error::ModelError;
use crate::xlmr::XlmRobertaHead;
use candle_core::{DType, Device, IndexOp, Module, Tensor};
use candle_nn::{Linear, VarBuilder};
use std::collections::BTreeMap;
use tokenizers::{Tokenizer, TruncationStrategy};

/// The classification fields of config.json (the encoder's are [`Config`]).
#[derive(Debug, Clone, serde::Deserialize)]
struct LabelsConfig {
    #[serde(default)]
    architectures: Vec<String>,
    #[serde(default)]
    id2label: BTreeMap<String, String>,
    #[serde(default)]
    label2id: BTreeMap<String, usize>,
}

/// The architectures this crate can classify with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Architecture {
    Bert,
    XlmRoberta,
    DebertaV2,
}

impl Architecture {
    /// From config.json's `architectures[0]`; anything else is an error naming it.
    pub fn of(name: &str) -> Result<Architecture, String> {
        match name {
            "BertForSequenceClassification" => Ok(Architecture::Bert),
            "XLMRobertaForSequenceClassification" | "RobertaForSequenceClassification" => Ok(Architecture::XlmRoberta),
            "DebertaV2ForSequenceClassification" => Ok(Architecture::DebertaV2),
            other => Err(format!(
                "architecture {other:?} is not one of BertForSequenceClassification, \
                 XLMRobertaForSequenceClassification, RobertaForSequenceClassification, \
                 DebertaV2ForSequenceClassification"
            )),
        }
    }
}

/// BERT's head: the pooler (dense + tanh on [CLS]) then the classifier.
pub struct BertHead {
    pooler: Linear,
    classifier: Linear,
}

impl BertHead {
    fn load(vb: &VarBuilder, hidden: usize, labels: usize) -> candle_core::Result<BertHead> {
        Ok(BertHead {
            pooler: candle_nn::linear(hidden, hidden, vb.pp("bert.pooler.dense"))?,
            classifier: candle_nn::linear(hidden, labels, vb.pp("classifier"))?,
        })
    }

    fn forward(&self, hidden: &Tensor) -> candle_core::Result<Tensor> {
        let cls = hidden.i((.., 0))?.contiguous()?;
        self.classifier.forward(&self.pooler.forward(&cls)?.tanh()?)
    }
}

/// An encoder and its classification head, one variant per architecture.
pub enum Head {
    Bert { encoder: Bert, head: BertHead },
    XlmRoberta { encoder: Bert, head: XlmRobertaHead },
    DebertaV2(Box<DebertaV2>),
}

impl Head {
    fn load(
        a: Architecture,
        config: Config,
        positions: Positions,
        vb: &VarBuilder,
        labels: usize,
    ) -> candle_core::Result<Head> {
        let h = config.hidden_size;
        Ok(match a {
            Architecture::Bert => Head::Bert {
                head: BertHead::load(vb, h, labels)?,
                encoder: Bert::from_var_builder(config, vb.pp("bert"), positions)?,
            },
            Architecture::XlmRoberta => Head::XlmRoberta {
                head: XlmRobertaHead::load(vb, h, labels)?,
                encoder: Bert::from_var_builder(config, vb.pp("roberta"), positions)?,
            },
            // Its own config and weights: Classifier::load builds it with DebertaV2::load.
            Architecture::DebertaV2 => candle_core::bail!("DeBERTa-v2 is not built on the BERT encoder"),
        })
    }

    /// Logits, (batch, labels), of equally long padded rows.
    fn logits(&self, ids: &[Vec<u32>], types: &[Vec<u32>], mask: &[Vec<u32>]) -> candle_core::Result<Tensor> {
        match self {
            Head::Bert { encoder, head } => head.forward(&encoder.forward(ids, types, mask)?),
            Head::XlmRoberta { encoder, head } => head.forward(&encoder.forward(ids, types, mask)?),
            Head::DebertaV2(d) => d.logits_with_types(ids, Some(types), mask),
        }
    }
}

/// A loaded pair classifier: head, tokenizer and labels.
pub struct Classifier {
    head: Head,
    /// The id padding is filled with.
    pad: u32,
    tokenizer: Tokenizer,
    architecture: Architecture,
    /// Label names by id.
    labels: Vec<String>,
    label2id: Vec<(String, usize)>,
    provenance: Provenance,
}

/// Pairs per forward pass (both hypotheses of 16 answers).
pub const BATCH: usize = 32;

impl Classifier {
    /// Checks config.json's and tokenizer.json's sha256 before parsing them (the weights were
    /// checked as they streamed in), then loads config, tokenizer and weights.
    pub fn load(files: ModelFiles) -> Result<Classifier, ModelError> {
        let provenance = files.check()?;
        let name = &files.config.name;
        let bad = |message: String| ModelError::Config { file: name.clone(), message };
        let lc: LabelsConfig = serde_json::from_slice(&files.config.bytes).map_err(|e| bad(e.to_string()))?;
        let first = lc.architectures.first().ok_or_else(|| bad("no architectures listed".into()))?;
        let architecture = Architecture::of(first).map_err(bad)?;
        let labels = label_names(&lc).map_err(bad)?;
        let mut label2id: Vec<(String, usize)> = lc.label2id.into_iter().collect();
        if label2id.is_empty() {
            label2id = labels.iter().enumerate().map(|(i, l)| (l.clone(), i)).collect();
        }
        if let Some((l, i)) = label2id.iter().find(|(_, i)| *i >= labels.len()) {
            return Err(bad(format!("label2id gives {l:?} id {i}, but id2label has {} labels", labels.len())));
        }
        let weights = &files.weights.name;
        let (head, pad, max_tokens) = if architecture == Architecture::DebertaV2 {
            let config = crate::deberta_config::Config::from_json(name, &files.config.bytes)?;
            let (pad, max_tokens) = (config.pad_token_id, config.max_position_embeddings);
            let model = DebertaV2::load(config, weights, files.weights.tensors)?;
            (Head::DebertaV2(Box::new(model)), pad, max_tokens)
        } else {
            let config = Config::from_json(name, &files.config.bytes)?;
            let positions = match architecture {
                Architecture::XlmRoberta => Positions::Roberta { padding_idx: config.pad_token_id },
                _ => Positions::Absolute,
            };
            let (pad, max_tokens) = (config.pad_token_id, positions.max_tokens(config.max_position_embeddings));
            let vb = VarBuilder::from_tensors(files.weights.tensors, DType::F32, &Device::Cpu);
            let head = Head::load(architecture, config, positions, &vb, labels.len())
                .map_err(|e| ModelError::weights(weights, e))?;
            (head, pad, max_tokens)
        };
        let tokenizer = pair_tokenizer(&files.tokenizer.name, &files.tokenizer.bytes, max_tokens)?;
        Ok(Classifier { head, pad, tokenizer, architecture, labels, label2id, provenance })
    }

    pub fn architecture(&self) -> Architecture {
        self.architecture
    }

    pub fn provenance(&self) -> &Provenance {
        &self.provenance
    }

    /// Label names in id order.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// config.json's label2id, as (name, id).
    pub fn label2id(&self) -> &[(String, usize)] {
        &self.label2id
    }

    /// Token ids and type ids of one (premise, hypothesis) pair.
    pub fn tokenize_pair(&self, premise: &str, hypothesis: &str) -> Result<(Vec<u32>, Vec<u32>), ModelError> {
        let e = self.tokenizer.encode((premise, hypothesis), true).map_err(|e| ModelError::compute("tokenizer", e))?;
        Ok((e.get_ids().to_vec(), e.get_type_ids().to_vec()))
    }

    /// One row of logits (in label id order) per (premise, hypothesis) pair, in input order;
    /// `progress` is called with the count of pairs done.
    pub fn logits(&self, pairs: &[(&str, &str)], mut progress: impl FnMut(usize)) -> Result<Vec<Vec<f32>>, ModelError> {
        let mut tokens = vec![];
        for (p, h) in pairs {
            tokens.push(self.tokenize_pair(p, h)?);
        }
        let mut out = vec![vec![]; pairs.len()];
        let mut done = 0;
        for b in crate::batch::batches(&tokens, BATCH, self.pad) {
            let rows: Vec<Vec<f32>> = self
                .head
                .logits(&b.ids, &b.types, &b.mask)
                .and_then(|t| t.to_vec2())
                .map_err(|e| ModelError::compute("classifier forward pass", e))?;
            for (&i, row) in b.rows.iter().zip(rows) {
                out[i] = row;
            }
            done += b.rows.len();
            progress(done);
        }
        Ok(out)
    }
}

/// id2label in id order; ids must be 0..n without gaps.
fn label_names(c: &LabelsConfig) -> Result<Vec<String>, String> {
    if c.id2label.is_empty() {
        return Err("no id2label: the number of labels is unknown".into());
    }
    let mut named: Vec<(usize, String)> = vec![];
    for (k, v) in &c.id2label {
        let id = k.parse::<usize>().map_err(|_| format!("id2label key {k:?} is not a number"))?;
        named.push((id, v.clone()));
    }
    named.sort();
    if named.iter().enumerate().any(|(i, (id, _))| i != *id) {
        return Err(format!("id2label ids are not 0..{}", named.len()));
    }
    Ok(named.into_iter().map(|(_, v)| v).collect())
}

/// The tokenizer with its own post-processor, without padding, truncated "only first" to
/// what the model takes (or less, when tokenizer.json sets less).
pub fn pair_tokenizer(file: &str, bytes: &[u8], max_tokens: usize) -> Result<Tokenizer, ModelError> {
    crate::embed::tokenizer_truncating(file, bytes, max_tokens, Some(TruncationStrategy::OnlyFirst))
}
