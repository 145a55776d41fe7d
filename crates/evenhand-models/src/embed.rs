//! Sentence embeddings: the model's own tokenizer, the BERT encoder, mean pooling over the
//! attention mask and (for models trained with it) L2 normalisation, as sentence-transformers
//! computes them. Texts are encoded in batches of similar length, so little is padding.

use crate::bert::{self, Bert, Config};
use crate::error::ModelError;
use crate::pin::{self, Verdict};
use tokenizers::{Tokenizer, TruncationStrategy};

/// The three files a BERT embedding model needs, as bytes, with the sha256 each must have
/// (None: no pin, used on trust and labelled so).
pub struct ModelFiles {
    pub config: NamedBytes,
    pub weights: NamedBytes,
    pub tokenizer: NamedBytes,
}

pub struct NamedBytes {
    /// The name errors and reports use (a path, or the catalogue's file name).
    pub name: String,
    pub bytes: Vec<u8>,
    pub sha256: Option<String>,
}

/// Each file's name and how its bytes were accepted, for the report.
pub type Provenance = Vec<(String, Verdict)>;

pub struct Embedder {
    bert: Bert,
    tokenizer: Tokenizer,
    normalise: bool,
    provenance: Provenance,
}

/// Texts per forward pass: large enough to amortise the matrix products, small enough that a
/// batch of 512-token texts stays within a few hundred MB.
pub const BATCH: usize = 32;

impl Embedder {
    /// Checks every file's sha256 before parsing it, then loads the tokenizer and the weights.
    pub fn load(files: ModelFiles, normalise: bool) -> Result<Embedder, ModelError> {
        let mut provenance = vec![];
        for f in [&files.config, &files.weights, &files.tokenizer] {
            provenance.push((f.name.clone(), pin::check(&f.name, &f.bytes, f.sha256.as_deref())?));
        }
        let config = Config::from_json(&files.config.name, &files.config.bytes)?;
        let tokenizer = load_tokenizer(&files.tokenizer.name, &files.tokenizer.bytes, config.max_position_embeddings)?;
        let bert = Bert::load(config, &files.weights.name, files.weights.bytes)?;
        Ok(Embedder { bert, tokenizer, normalise, provenance })
    }

    pub fn provenance(&self) -> &Provenance {
        &self.provenance
    }

    pub fn dimension(&self) -> usize {
        self.bert.config.hidden_size
    }

    /// Token ids, token type ids and mask of one text, as the tokenizer gives them (with the
    /// model's special tokens, truncated to what the model takes).
    pub fn tokenize(&self, text: &str) -> Result<(Vec<u32>, Vec<u32>), ModelError> {
        let e = self.tokenizer.encode(text, true).map_err(|e| ModelError::compute("tokenizer", e))?;
        Ok((e.get_ids().to_vec(), e.get_type_ids().to_vec()))
    }

    /// One vector per text, in input order; `progress` is called with the count done.
    pub fn embed(&self, texts: &[&str], mut progress: impl FnMut(usize)) -> Result<Vec<Vec<f32>>, ModelError> {
        let mut tokens = vec![];
        for t in texts {
            tokens.push(self.tokenize(t)?);
        }
        let mut out = vec![vec![]; texts.len()];
        let mut done = 0;
        for b in crate::batch::batches(&tokens, BATCH, self.bert.config.pad_token_id) {
            let pooled = self
                .bert
                .forward(&b.ids, &b.types, &b.mask)
                .and_then(|h| bert::mean_pool(&h, &b.mask, self.normalise))
                .map_err(|e| ModelError::compute("BERT forward pass", e))?;
            for (&i, v) in b.rows.iter().zip(pooled) {
                out[i] = v;
            }
            done += b.rows.len();
            progress(done);
        }
        Ok(out)
    }
}

/// The tokenizer as its tokenizer.json defines it, without its padding (batches are padded
/// here) and, when it sets none, truncated to the model's positions.
pub fn load_tokenizer(file: &str, bytes: &[u8], max_positions: usize) -> Result<Tokenizer, ModelError> {
    tokenizer_truncating(file, bytes, max_positions, None)
}

/// The same, with the truncation strategy set (a pair classifier cuts only the first text).
pub fn tokenizer_truncating(
    file: &str,
    bytes: &[u8],
    max_tokens: usize,
    strategy: Option<TruncationStrategy>,
) -> Result<Tokenizer, ModelError> {
    let err = |e: tokenizers::Error| ModelError::Tokenizer { file: file.into(), message: e.to_string() };
    let mut t = Tokenizer::from_bytes(bytes).map_err(err)?;
    t.with_padding(None);
    let mut params = t.get_truncation().cloned().unwrap_or_default();
    params.max_length = t.get_truncation().map_or(max_tokens, |p| p.max_length.min(max_tokens));
    if let Some(strategy) = strategy {
        params.strategy = strategy;
    }
    t.with_truncation(Some(params)).map_err(err)?;
    Ok(t)
}

impl ModelFiles {
    /// config.json, model.safetensors and tokenizer.json from a folder, each with the sha256
    /// the catalogue entry pins (None for a model outside the catalogue: trust on first use).
    pub fn read_dir(dir: &std::path::Path, model: Option<&crate::catalogue::Model>) -> Result<ModelFiles, ModelError> {
        let one = |file: &str| -> Result<NamedBytes, ModelError> {
            let path = dir.join(file);
            let name = path.display().to_string();
            let bytes =
                std::fs::read(&path).map_err(|e| ModelError::Read { file: name.clone(), message: e.to_string() })?;
            let sha256 = model.and_then(|m| m.file(file)).and_then(|f| f.sha256).map(String::from);
            Ok(NamedBytes { name, bytes, sha256 })
        };
        Ok(ModelFiles {
            config: one("config.json")?,
            weights: one("model.safetensors")?,
            tokenizer: one("tokenizer.json")?,
        })
    }
}
