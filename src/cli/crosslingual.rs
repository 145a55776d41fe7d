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

pub struct Args {
    pub records: Option<PathBuf>,
    pub questions: Vec<PathBuf>,
    pub simulate: bool,
    pub references: bool,
    pub out: Option<PathBuf>,
    pub embeddings: Option<PathBuf>,
    pub method: String,
    pub convention: String,
    pub detector: String,
    pub languages: Vec<String>,
    pub modes: Vec<String>,
    pub samples: u32,
    pub seed: u64,
    pub permutations: Option<u32>,
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
