//! Sentence embeddings: the model's own tokenizer, the BERT encoder, mean pooling over the
//! attention mask and (for models trained with it) L2 normalisation, as sentence-transformers
//! computes them. Texts are encoded in batches of similar length, so little is padding.

use crate::bert::{self, Bert, Config};
use crate::error::ModelError;
use crate::pin::{self, Verdict};
use crate::weights::LoadedWeights;
use tokenizers::{Tokenizer, TruncationStrategy};

/// The three files a model needs: config.json and tokenizer.json as bytes with the sha256 each
/// must have (None: no pin, used on trust and labelled so), and the weights already streamed
/// into tensors and checked against their pin ([`crate::weights`]), so the file's bytes are
/// never held whole beside them.
pub struct ModelFiles {
    pub config: NamedBytes,
    pub weights: LoadedWeights,
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
    /// Checks config.json's and tokenizer.json's sha256 before parsing them (the weights were
    /// checked as they streamed in), then loads the tokenizer and builds the encoder.
    pub fn load(files: ModelFiles, normalise: bool) -> Result<Embedder, ModelError> {
        let provenance = files.check()?;
        let config = Config::from_json(&files.config.name, &files.config.bytes)?;
        let tokenizer = load_tokenizer(&files.tokenizer.name, &files.tokenizer.bytes, config.max_position_embeddings)?;
        let bert = Bert::load(config, &files.weights.name, files.weights.tensors)?;
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
    /// Checks config.json and tokenizer.json against their pins: with the weights' verdict,
    /// each file's name and verdict in the order config, weights, tokenizer.
    pub fn check(&self) -> Result<Provenance, ModelError> {
        let (c, t) = (&self.config, &self.tokenizer);
        let config = pin::check(&c.name, &c.bytes, c.sha256.as_deref())?;
        let tokenizer = pin::check(&t.name, &t.bytes, t.sha256.as_deref())?;
        Ok(vec![
            (c.name.clone(), config),
            (self.weights.name.clone(), self.weights.verdict.clone()),
            (t.name.clone(), tokenizer),
        ])
    }

    /// config.json, model.safetensors and tokenizer.json from a folder, each with the sha256
    /// the catalogue entry pins (None for a model outside the catalogue: trust on first use).
    /// The two small files are read whole (first, so a missing one fails before the weights
    /// are read); the weights stream in [`crate::weights::CHUNK`]s into their tensors.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_dir(dir: &std::path::Path, model: Option<&crate::catalogue::Model>) -> Result<ModelFiles, ModelError> {
        let pin = |file: &str| model.and_then(|m| m.file(file)).and_then(|f| f.sha256);
        let one = |file: &str| -> Result<NamedBytes, ModelError> {
            let path = dir.join(file);
            let name = path.display().to_string();
            let bytes =
                std::fs::read(&path).map_err(|e| ModelError::Read { file: name.clone(), message: e.to_string() })?;
            Ok(NamedBytes { name, bytes, sha256: pin(file).map(String::from) })
        };
        let (config, tokenizer) = (one("config.json")?, one("tokenizer.json")?);
        let path = dir.join("model.safetensors");
        let weights = crate::weights::read_file(&path, &path.display().to_string(), pin("model.safetensors"))?;
        Ok(ModelFiles { config, weights, tokenizer })
    }
}
