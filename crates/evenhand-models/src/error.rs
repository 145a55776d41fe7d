//! The one error type of the crate: every variant names the file it is about.

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The bytes are not the ones the catalogue (or the user's pin) names: nothing is parsed.
    #[error("{file}: sha256 {found} does not match the pinned {expected}; the file was not used")]
    HashMismatch { file: String, expected: String, found: String },
    #[error("{file}: cannot read: {message}")]
    Read { file: String, message: String },
    #[error("{file}: not a config.json this crate can run: {message}")]
    Config { file: String, message: String },
    /// A config.json field this crate's forward pass does not implement (or cannot read).
    #[error("{file}: config field `{field}`: {message}")]
    ConfigField { file: String, field: String, message: String },
    #[error("{file}: cannot load the tokenizer: {message}")]
    Tokenizer { file: String, message: String },
    #[error("{file}: weights: {message}")]
    Weights { file: String, message: String },
    /// An answer in a language the zero-shot rule has no labels for.
    #[error(
        "answer {item}: language {language:?} has no zero-shot labels (MSQAD's en, ko, zh, es, de, hi; ours fr, pl, ca)"
    )]
    Language { item: usize, language: String },
    /// A failure inside the forward pass (shapes, a token id outside the vocabulary, ...).
    #[error("{context}: {message}")]
    Compute { context: String, message: String },
}

impl ModelError {
    pub(crate) fn weights(file: &str, e: impl std::fmt::Display) -> ModelError {
        ModelError::Weights { file: file.into(), message: e.to_string() }
    }

    pub(crate) fn compute(context: &str, e: impl std::fmt::Display) -> ModelError {
        ModelError::Compute { context: context.into(), message: e.to_string() }
    }
}
