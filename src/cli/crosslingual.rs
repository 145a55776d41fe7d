//! `evenhand crosslingual`: the cross-lingual analysis of a record file, or of a run of the
//! simulated model over a question set (written to --out so the page's flow can be redone).

use super::{Failure, print_json, read, write};
use evenhand::crosslingual::analysis::Settings;
use evenhand::crosslingual::detect::Detector;
use evenhand::crosslingual::permanova;
use evenhand::crosslingual::session::{RunRequest, Session};
use evenhand::crosslingual::{questions, simulate};
use evenhand::stats::distance::Distance;
use evenhand::stats::mcnemar::{Convention, Method};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A record file (CSV, JSONL or JSON) with cross-lingual records.
    #[arg(long)]
    pub records: Option<PathBuf>,
    /// Question set(s): evenhand-questions JSON or MSQAD JSON (default: the built-in set).
    #[arg(long)]
    pub questions: Vec<PathBuf>,
    /// Run the simulated model (built-in language effect) instead of reading records.
    #[arg(long)]
    pub simulate: bool,
    /// Analyse the question set's own reference responses (e.g. MSQAD's released ones).
    #[arg(long)]
    pub references: bool,
    /// Write records.csv, embeddings.jsonl, analysis.json and the two charts here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Response embeddings: CSV record_id,embedding (JSON array) or JSONL.
    #[arg(long)]
    pub embeddings: Option<PathBuf>,
    #[arg(long, default_value = "exact")]
    pub method: String,
    #[arg(long, default_value = "statsmodels")]
    pub convention: String,
    /// lexicon, label (column refusal_label) or judge (column judge_verdict).
    #[arg(long, default_value = "lexicon")]
    pub detector: String,
    #[arg(long, value_delimiter = ',')]
    pub languages: Vec<String>,
    /// Prompt modes to run and analyse (default: all).
    #[arg(long, value_delimiter = ',')]
    pub modes: Vec<String>,
    #[arg(long, default_value_t = 3)]
    pub samples: u32,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// PERMANOVA permutations per language pair and topic (default 999; 0 skips PERMANOVA).
    /// Runs whenever the records have embeddings (simulated, or from --embeddings).
    #[arg(long)]
    pub permutations: Option<u32>,
    /// Distance between embeddings: chord (default), euclidean, cosine, or
    /// cosine-similarity-bug (the published MSQAD code's bug, labelled as such).
    #[arg(long, default_value = "chord")]
    pub distance: String,
}

pub fn method(text: &str) -> Result<Method, Failure> {
    Ok(match text.to_ascii_lowercase().as_str() {
        "exact" => Method::Exact,
        "midp" | "mid-p" => Method::MidP,
        "chi2" => Method::Chi2,
        "chi2-cc" | "chi2cc" => Method::Chi2Cc,
        _ => return Err(Failure(format!("--method: expected exact, midp, chi2 or chi2-cc, found {text:?}"))),
    })
}

fn convention(text: &str) -> Result<Convention, Failure> {
    match text.to_ascii_lowercase().as_str() {
        "statsmodels" => Ok(Convention::Statsmodels),
        "r" => Ok(Convention::R),
        _ => Err(Failure(format!("--convention: expected statsmodels or r, found {text:?}"))),
    }
}

fn detector(text: &str) -> Result<Detector, Failure> {
    Detector::ALL
        .into_iter()
        .find(|d| d.as_str() == text)
        .ok_or_else(|| Failure(format!("--detector: expected lexicon, label or judge, found {text:?}")))
}

fn load_set(s: &mut Session, paths: &[PathBuf]) -> Result<(), Failure> {
    if paths.is_empty() {
        s.use_builtin()?;
        return Ok(());
    }
    let mut sets = vec![];
    for p in paths {
        sets.push(questions::read(&p.display().to_string(), &read(p)?)?);
    }
    let merged = questions::merge(sets)?;
    s.use_set(&paths[0].display().to_string(), merged);
    Ok(())
}

pub fn run(a: Args) -> Result<ExitCode, Failure> {
    let mut s = Session::default();
    s.set_settings(Settings {
        method: method(&a.method)?,
        convention: convention(&a.convention)?,
        detector: detector(&a.detector)?,
        modes: a.modes.clone(),
        seed: a.seed,
        ..Settings::default()
    })?;
    match (&a.records, a.simulate, a.references) {
        (None, false, true) => {
            load_set(&mut s, &a.questions)?;
            s.use_references()?;
        }
        (Some(path), false, false) => {
            let summary = s.load_records(&path.display().to_string(), &read(path)?)?;
            for p in summary.problems.iter().chain(&summary.warnings) {
                eprintln!("{p}");
            }
        }
        (None, true, false) => {
            load_set(&mut s, &a.questions)?;
            let req = RunRequest {
                languages: a.languages.clone(),
                modes: a.modes.clone(),
                samples: a.samples,
                seed: a.seed,
                behaviour: Some(simulate::Behaviour::default()),
            };
            let total = s.plan_run(req)?.total;
            while s.step(64)?.done < total {}
        }
        _ => {
            return Err(Failure(
                "give one of --records FILE, --simulate or --references (with --questions or the built-in set)".into(),
            ));
        }
    }
    if let Some(path) = &a.embeddings {
        let n = s.load_embeddings(&path.display().to_string(), &read(path)?)?;
        eprintln!("{}: {n} records got an embedding", path.display());
    }
    for p in &s.dataset().problems {
        eprintln!("{p}");
    }
    let has_embeddings = s.dataset().embeddings.iter().filter(|e| e.is_some()).count() >= 2;
    let permutations = a.permutations.unwrap_or(999) as usize;
    if has_embeddings && permutations > 0 {
        let distance = Distance::parse(&a.distance).ok_or_else(|| {
            Failure(format!(
                "--distance: expected euclidean, chord, cosine or cosine-similarity-bug, found {:?}",
                a.distance
            ))
        })?;
        let settings = permanova::Settings { permutations, distance, seed: a.seed, modes: a.modes.clone() };
        let total = s.permanova_plan(settings)?.total;
        while s.permanova_step(8)?.done < total {}
    }
    let view = s.view()?;
    let report = serde_json::to_value(&view.report)?;
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).map_err(|e| Failure(format!("{}: cannot create: {e}", dir.display())))?;
        write(dir, "records.csv", &s.export("csv")?)?;
        write(dir, "embeddings.jsonl", &s.export("embeddings")?)?;
        write(dir, "analysis.json", &serde_json::to_string_pretty(&report)?)?;
        write(dir, "refusal_rates.svg", &view.rates_svg)?;
        if let Some(svg) = &view.projection_svg {
            write(dir, "embeddings_pca.svg", svg)?;
        }
    }
    print_json(&report)?;
    Ok(ExitCode::SUCCESS)
}
