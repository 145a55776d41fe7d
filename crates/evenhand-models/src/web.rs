//! The third wasm module's facade (www/pkg-models/): the page fetches it only when a local model
//! is first used, in its own worker (www/models-worker.js). Serde structs in and out; the bytes
//! come from the page (network, Cache Storage or the user's files) and are checked here, in
//! Rust, against the catalogue's sha256: config.json and tokenizer.json before a byte is parsed,
//! the weights as the worker streams them chunk by chunk into a [`WeightsFeeder`] (so the page
//! never holds the whole file beside its tensors). Errors are messages, never traps.
//! Two kinds of model: [`LocalEmbedder`] (vectors) and [`LocalClassifier`] (the zero-shot NLI
//! refusal detector).

use crate::catalogue::{self, Model, Purpose};
use crate::embed::{Embedder, ModelFiles, NamedBytes};
use crate::nli::NliDetector;
use crate::pin::{self, Verdict};
use crate::weights::{LoadedWeights, Weights};
use crate::zeroshot::{self, Rule, Source};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// One file of a catalogue model, as the page fetches it.
#[derive(Serialize)]
struct FileSpec {
    path: &'static str,
    /// The hub's URL, or the same path under `base` when the page names a mirror.
    url: String,
    bytes: Option<u64>,
    sha256: Option<&'static str>,
}

/// What the page shows before it downloads, and what it needs to fetch.
#[derive(Serialize)]
struct ModelSpec {
    name: &'static str,
    repository: &'static str,
    revision: &'static str,
    license: &'static str,
    languages_note: &'static str,
    download_mb: u32,
    parameters: u64,
    note: &'static str,
    files: Vec<FileSpec>,
}

/// Serde to a plain JS object (maps too: `#[serde(flatten)]` writes a map, which
/// serde-wasm-bindgen would otherwise make a JS `Map`).
fn to_js(value: &impl Serialize) -> Result<JsValue, JsError> {
    let s = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    value.serialize(&s).map_err(|e| JsError::new(&e.to_string()))
}

fn model(name: &str) -> Result<&'static Model, JsError> {
    catalogue::find(name).ok_or_else(|| JsError::new(&format!("no model named {name:?} in the model catalogue")))
}

/// The catalogue entry of `name`, each file's URL under `base` (a mirror, e.g. the tests' server
/// on 127.0.0.1, at the same path the hub uses) when it is not empty.
#[wasm_bindgen]
pub fn model_spec(name: &str, base: &str) -> Result<JsValue, JsError> {
    let m = model(name)?;
    let files = m
        .files
        .iter()
        .map(|f| FileSpec { path: f.path, url: m.url_at(f, base), bytes: f.bytes, sha256: f.sha256 })
        .collect();
    let spec = ModelSpec {
        name: m.name,
        repository: m.repository,
        revision: m.revision(),
        license: m.license,
        languages_note: m.languages_note,
        download_mb: m.download_mb,
        parameters: m.parameters,
        note: m.note,
        files,
    };
    to_js(&spec)
}

/// One file's bytes against its pin (before the page keeps it in Cache Storage): its verdict,
/// or the error that names the file and both hashes.
#[wasm_bindgen]
pub fn check_file(name: &str, path: &str, bytes: &[u8]) -> Result<JsValue, JsError> {
    let m = model(name)?;
    let expected = m.file(path).and_then(|f| f.sha256);
    let verdict = pin::check(path, bytes, expected).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&verdict)
}

const WEIGHTS: &str = "model.safetensors";

fn js(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

enum Feeding {
    Reading(Weights),
    Finished(LoadedWeights),
    /// Failed, or handed to a model.
    Done,
}

/// model.safetensors streamed into its tensors: the worker feeds it consecutive chunks (16 MB
/// slices of a cached Response's Blob or of the user's File), then `finish` checks the pin and
/// the file's completeness, then a model's constructor takes the tensors.
#[wasm_bindgen]
pub struct WeightsFeeder {
    state: Feeding,
}

#[wasm_bindgen]
impl WeightsFeeder {
    /// For catalogue model `name`: its weights' pin, if the catalogue has one.
    #[wasm_bindgen(constructor)]
    pub fn new(name: &str) -> Result<WeightsFeeder, JsError> {
        let expected = model(name)?.file(WEIGHTS).and_then(|f| f.sha256);
        Ok(WeightsFeeder { state: Feeding::Reading(Weights::new(WEIGHTS, expected)) })
    }

    /// For the user's own model folder: no pin (trust on first use, its sha256 recorded).
    pub fn unpinned() -> WeightsFeeder {
        WeightsFeeder { state: Feeding::Reading(Weights::new(WEIGHTS, None)) }
    }

    /// The next bytes of the file, in order.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), JsError> {
        let Feeding::Reading(w) = &mut self.state else {
            return Err(JsError::new("model.safetensors: more bytes after the weights were finished"));
        };
        w.feed(chunk).map_err(|e| {
            self.state = Feeding::Done;
            js(e)
        })
    }

    /// After the last chunk: the sha256 verdict, or the error naming both hashes (or saying
    /// where the file is malformed or ended early).
    pub fn finish(&mut self) -> Result<JsValue, JsError> {
        let Feeding::Reading(w) = std::mem::replace(&mut self.state, Feeding::Done) else {
            return Err(JsError::new("model.safetensors: the weights were finished already"));
        };
        let loaded = w.finish().map_err(js)?;
        let verdict = to_js(&loaded.verdict)?;
        self.state = Feeding::Finished(loaded);
        Ok(verdict)
    }
}

impl WeightsFeeder {
    /// The finished tensors, re-checked against `pins` (the model they are loaded for), so a
    /// feeder made for another model, or without a pin, cannot pass as this one's.
    fn take(&mut self, pins: Option<&Model>) -> Result<LoadedWeights, JsError> {
        let Feeding::Finished(mut w) = std::mem::replace(&mut self.state, Feeding::Done) else {
            return Err(JsError::new("model.safetensors: the weights are not finished (or were used already)"));
        };
        let expected = pins.and_then(|m| m.file(WEIGHTS)).and_then(|f| f.sha256);
        w.verdict = pin::verdict(&w.name, w.verdict.sha256().to_string(), expected).map_err(js)?;
        Ok(w)
    }
}

/// A loaded embedding model: one per worker at a time (the worker drops the old one first).
#[wasm_bindgen]
pub struct LocalEmbedder {
    name: &'static str,
    inner: Embedder,
}

#[derive(Serialize)]
struct Loaded<'a> {
    name: &'a str,
    dimension: usize,
    files: Vec<FileVerdict<'a>>,
}

#[derive(Serialize)]
struct FileVerdict<'a> {
    file: &'a str,
    #[serde(flatten)]
    verdict: &'a Verdict,
    pinned: bool,
}

#[wasm_bindgen]
impl LocalEmbedder {
    /// Checks config.json and tokenizer.json against the catalogue's pins, then parses them;
    /// the weights come finished (and checked) from `weights`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        name: &str,
        config: Vec<u8>,
        weights: &mut WeightsFeeder,
        tokenizer: Vec<u8>,
    ) -> Result<LocalEmbedder, JsError> {
        let m = model(name)?;
        let files = model_files(config, weights.take(Some(m))?, tokenizer, Some(m));
        let inner = Embedder::load(files, m.normalise).map_err(js)?;
        Ok(LocalEmbedder { name: m.name, inner })
    }

    /// The model's name, vector size and each file's sha256 verdict, for the page's report.
    pub fn describe(&self) -> Result<JsValue, JsError> {
        let files = self
            .inner
            .provenance()
            .iter()
            .map(|(file, verdict)| FileVerdict { file, verdict, pinned: verdict.is_pinned() })
            .collect();
        let loaded = Loaded { name: self.name, dimension: self.inner.dimension(), files };
        to_js(&loaded)
    }

    /// The vectors of `texts`, row after row (texts.len() x dimension). The worker calls this a
    /// few texts at a time, so it can report progress and hear a cancel between calls.
    pub fn embed(&self, texts: Vec<String>) -> Result<Vec<f32>, JsError> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = self.inner.embed(&refs, |_| {}).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(vectors.concat())
    }
}

/// A loaded zero-shot NLI refusal detector: a catalogue NLI model (its files checked against
/// the catalogue's pins) or the user's own model folder (trust on first use: each file's sha256
/// is recorded and shown). One model per worker at a time, as for the embedder.
#[wasm_bindgen]
pub struct LocalClassifier {
    /// The catalogue name, or `own:` and the weights' sha256 for the user's folder.
    id: String,
    /// What the records' nli_model column says (the CLI writes the same for the same files).
    label: String,
    inner: NliDetector,
}

#[derive(Serialize)]
struct LoadedClassifier<'a> {
    id: &'a str,
    label: &'a str,
    architecture: String,
    labels: &'a [String],
    entailment: usize,
    files: Vec<FileVerdict<'a>>,
}

/// P(refuse) and the verdict under the rule, per answer in input order.
#[derive(Serialize)]
struct Scored {
    rule: String,
    p_refuse: Vec<f64>,
    refusal: Vec<bool>,
    /// Whose translation each answer's labels are (msqad or ours).
    labels: Vec<Source>,
}

fn model_files(config: Vec<u8>, weights: LoadedWeights, tokenizer: Vec<u8>, pins: Option<&Model>) -> ModelFiles {
    let named = |path: &str, bytes: Vec<u8>| NamedBytes {
        name: path.to_string(),
        bytes,
        sha256: pins.and_then(|m| m.file(path)).and_then(|f| f.sha256).map(String::from),
    };
    ModelFiles { config: named("config.json", config), weights, tokenizer: named("tokenizer.json", tokenizer) }
}

fn rule(text: &str) -> Result<Rule, JsError> {
    Rule::parse(text).map_err(|e| JsError::new(&format!("NLI rule: {e}")))
}

#[wasm_bindgen]
impl LocalClassifier {
    /// A catalogue NLI model: the three files checked against its pins, then parsed.
    #[wasm_bindgen(constructor)]
    pub fn new(
        name: &str,
        config: Vec<u8>,
        weights: &mut WeightsFeeder,
        tokenizer: Vec<u8>,
    ) -> Result<LocalClassifier, JsError> {
        let m = model(name)?;
        if m.purpose != Purpose::Nli {
            return Err(JsError::new(&format!("{name} is an embedding model, not an NLI model")));
        }
        let files = model_files(config, weights.take(Some(m))?, tokenizer, Some(m));
        let inner = NliDetector::load(files, Rule::Argmax).map_err(js)?;
        let label = inner.record_label(Some(m), "");
        Ok(LocalClassifier { id: m.name.to_string(), label, inner })
    }

    /// The user's own model folder (config.json, model.safetensors, tokenizer.json of a
    /// BERT, XLM-R or DeBERTa-v2 sequence classifier trained on NLI): no pin, so each file is
    /// accepted on trust and its sha256 recorded; `folder` names it in the records.
    pub fn own(
        folder: &str,
        config: Vec<u8>,
        weights: &mut WeightsFeeder,
        tokenizer: Vec<u8>,
    ) -> Result<LocalClassifier, JsError> {
        let files = model_files(config, weights.take(None)?, tokenizer, None);
        let inner = NliDetector::load(files, Rule::Argmax).map_err(js)?;
        let label = inner.record_label(None, folder);
        let sha =
            inner.classifier().provenance().iter().find(|(f, _)| f == "model.safetensors").map(|(_, v)| v.sha256());
        let id = format!("own:{}", sha.unwrap_or(""));
        Ok(LocalClassifier { id, label, inner })
    }

    /// Its id (the key of the page's cache of results), record label, labels and each file's
    /// sha256 verdict.
    pub fn describe(&self) -> Result<JsValue, JsError> {
        let c = self.inner.classifier();
        let files = c
            .provenance()
            .iter()
            .map(|(file, verdict)| FileVerdict { file, verdict, pinned: verdict.is_pinned() })
            .collect();
        to_js(&LoadedClassifier {
            id: &self.id,
            label: &self.label,
            architecture: format!("{:?}", c.architecture()),
            labels: c.labels(),
            entailment: self.inner.entailment_index(),
            files,
        })
    }

    /// P(refuse) and the verdict under `rule` (argmax, paper or threshold:P) for each
    /// (text, language); the worker calls this a few answers at a time. A language without
    /// zero-shot labels is an error naming its place in this call (`answer N`, from 1).
    pub fn detect(&mut self, texts: Vec<String>, languages: Vec<String>, rule_name: &str) -> Result<JsValue, JsError> {
        if texts.len() != languages.len() {
            return Err(JsError::new(&format!("{} texts but {} languages", texts.len(), languages.len())));
        }
        let r = rule(rule_name)?;
        self.inner.set_rule(r);
        let answers: Vec<(&str, &str)> =
            texts.iter().map(String::as_str).zip(languages.iter().map(String::as_str)).collect();
        let verdicts = self.inner.detect(&answers, |_| {}).map_err(|e| JsError::new(&e.to_string()))?;
        to_js(&Scored {
            rule: r.name(),
            p_refuse: verdicts.iter().map(|v| v.p_refuse).collect(),
            refusal: verdicts.iter().map(|v| v.refusal).collect(),
            labels: verdicts.iter().map(|v| v.labels).collect(),
        })
    }
}

/// Of `languages`, those the zero-shot rule has no labels for (each once, in order): the page
/// names them and their records before any model work.
#[wasm_bindgen]
pub fn nli_unlabelled(languages: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for l in languages {
        if zeroshot::hypotheses(&l).is_none() && !out.contains(&l) {
            out.push(l);
        }
    }
    out
}

/// The canonical name of a rule (`argmax`, `threshold:0.8`), or the error naming what is expected.
#[wasm_bindgen]
pub fn nli_rule_name(text: &str) -> Result<String, JsError> {
    Ok(rule(text)?.name())
}

/// The verdicts of P(refuse) values under `rule` (argmax, paper or threshold:P), by the rule
/// the CLI applies ([`Rule::refusal`]): the page keeps P per answer and model, and derives
/// each rule's verdicts from it without running the model again.
#[wasm_bindgen]
pub fn nli_verdicts(p_refuse: Vec<f64>, rule_name: &str) -> Result<Vec<u8>, JsError> {
    let r = rule(rule_name)?;
    Ok(p_refuse.into_iter().map(|p| u8::from(r.refusal(p))).collect())
}
