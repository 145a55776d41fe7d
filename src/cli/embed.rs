//! `evenhand embed`: sentence vectors from a local model folder, offline. Reads the texts
//! `evenhand crosslingual --embed-plan-out` writes (JSONL `{"id", "text"}`) and writes the
//! vectors as `evenhand run --embed` does (JSONL `{"id", "embedding", "model"}`), so
//! `evenhand crosslingual --embeddings OUT --embedding-model M` and `evenhand permanova` take
//! them as they take a provider's. `evenhand models` lists the model catalogue.

use super::{Failure, Outcome, note, print_json, read, write};
use evenhand_models::catalogue::{self, MODELS, Model};
use evenhand_models::pin::{UNVERIFIED, Verdict};
use evenhand_models::{Embedder, ModelFiles};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Texts to embed: JSONL, one {"id", "text"} per line (ids unique across the files).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The model folder: config.json, model.safetensors and tokenizer.json (a BERT encoder).
    #[arg(long)]
    pub model_dir: PathBuf,
    /// The catalogue model the folder holds (see `evenhand models`): each file's sha256 is
    /// checked against the catalogue's pin before use. Without it, or for a file the catalogue
    /// could not pin, the files are used on trust and labelled unverified.
    #[arg(long)]
    pub model: Option<String>,
    /// Where the vectors go: JSONL, one {"id", "embedding", "model"} per text.
    #[arg(long)]
    pub out: PathBuf,
    /// Scale each vector to unit length: yes or no (default: as the catalogue entry says;
    /// yes for a folder outside the catalogue).
    #[arg(long)]
    pub normalise: Option<Yes>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Yes {
    Yes,
    No,
}

#[derive(serde::Serialize)]
struct FileReport {
    file: String,
    #[serde(flatten)]
    verdict: Verdict,
}

pub fn run(a: Args) -> Outcome {
    let model: Option<&Model> = match &a.model {
        Some(name) => Some(catalogue::find(name).ok_or_else(|| {
            let names: Vec<_> = MODELS.iter().map(|m| m.name).collect();
            Failure::new(format!("--model: expected one of {}, found {name:?}", names.join(", ")))
        })?),
        None => None,
    };
    let mut texts: Vec<(String, String)> = vec![];
    let mut seen = std::collections::HashMap::new();
    for path in &a.files {
        let name = path.display().to_string();
        for (id, text) in evenhand::run::embed_texts::read(&name, &read(path)?)? {
            if let Some(first) = seen.insert(id.clone(), name.clone()) {
                return Err(Failure::new(format!("{name}: id {id:?} is also in {first}; ids must be unique")));
            }
            texts.push((id, text));
        }
    }
    let normalise = match a.normalise {
        Some(y) => matches!(y, Yes::Yes),
        None => model.is_none_or(|m| m.normalise),
    };
    let embedder = Embedder::load(ModelFiles::read_dir(&a.model_dir, model)?, normalise)?;
    let label = model.map_or_else(|| format!("local:{}", dir_name(&a.model_dir)), |m| m.repository.to_string());
    let files: Vec<FileReport> = embedder
        .provenance()
        .iter()
        .map(|(file, verdict)| FileReport { file: file.clone(), verdict: verdict.clone() })
        .collect();
    let unverified = files.iter().any(|f| !f.verdict.is_pinned());
    if unverified {
        note(format_args!("{label}: {UNVERIFIED}"));
    }
    let refs: Vec<&str> = texts.iter().map(|(_, t)| t.as_str()).collect();
    let started = std::time::Instant::now();
    let mut last = 0;
    let vectors = embedder.embed(&refs, |done| {
        if done - last >= 256 || done == refs.len() {
            note(format_args!("embedded {done}/{}", refs.len()));
            last = done;
        }
    })?;
    let seconds = started.elapsed().as_secs_f64();
    let mut out = String::new();
    for ((id, _), v) in texts.iter().zip(&vectors) {
        out.push_str(&serde_json::json!({"id": id, "embedding": v, "model": label}).to_string());
        out.push('\n');
    }
    write(&a.out, &out)?;
    print_json(&serde_json::json!({
        "texts": texts.len(),
        "dimension": embedder.dimension(),
        "model": label,
        "normalised": normalise,
        "out": a.out.display().to_string(),
        "seconds": seconds,
        "files": files,
        "note": if unverified { Some(UNVERIFIED) } else { None },
    }))?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn dir_name(dir: &std::path::Path) -> String {
    dir.canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| dir.display().to_string())
}

/// `evenhand models`: the catalogue as JSON.
pub fn list() -> Outcome {
    print_json(&MODELS)?;
    Ok(ExitCode::SUCCESS)
}
