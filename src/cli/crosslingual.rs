//! `evenhand crosslingual`: the cross-lingual analysis of a record file, or of a run of the
//! simulated model over a question set (written to --out so the page's flow can be redone).
//!
//! A provider run goes: `--plan-out cases.jsonl` -> `evenhand run --cases cases.jsonl --out R.csv`
//! -> `--records R.csv` (failed calls are counted in the report), with `--embed-plan-out` and
//! `--embeddings E --embedding-model M` for the vectors and `--judge-plan-out` and
//! `--judge-records` for an LLM judge.

use super::datasets::resolve;
use super::stats::{convention, distance, method};
use super::{Failure, Outcome, create_dir, note, print_json, read, write, write_cases, write_in};
use evenhand::crosslingual::analysis::Settings;
use evenhand::crosslingual::detect::Detector;
use evenhand::crosslingual::permanova;
use evenhand::crosslingual::runs::{self, EmbeddingBatch};
use evenhand::crosslingual::session::{CasesRequest, RunRequest, Session};
use evenhand::crosslingual::{questions, simulate};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A record file (CSV, JSONL or JSON) with cross-lingual records.
    #[arg(long)]
    pub records: Option<PathBuf>,
    /// Question set(s): evenhand-questions JSON, MSQAD JSON, or catalogue:NAME[/FILE] (default:
    /// the built-in set).
    #[arg(long)]
    pub questions: Vec<PathBuf>,
    /// Run the simulated model (built-in language effect) instead of reading records.
    #[arg(long)]
    pub simulate: bool,
    /// Analyze the question set's own reference responses (e.g. MSQAD's released ones).
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
    /// lexicon, label (column refusal_label), judge (column judge_verdict) or nli (column
    /// nli_p_refuse, filled by --nli-model-dir or uploaded with nli_rule; the cascade's rule
    /// cascade:R lets the lexicon decide its hits).
    #[arg(long, default_value = "lexicon")]
    pub detector: String,
    #[arg(long, value_delimiter = ',')]
    pub languages: Vec<String>,
    /// Prompt modes to run and analyze (default: all).
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
    /// Write the chat cases of a provider run (question set x --languages x --modes) to this
    /// file (.jsonl, .csv or .json) for `evenhand run --cases`, and stop.
    #[arg(long)]
    pub plan_out: Option<PathBuf>,
    /// Write the responses to embed as JSONL {"id", "text"} (id = the record id the vector
    /// is attached by; give the vectors back with --embeddings).
    #[arg(long)]
    pub embed_plan_out: Option<PathBuf>,
    /// Write the LLM judge's cases (one per answered response) for `evenhand run --cases`.
    #[arg(long)]
    pub judge_plan_out: Option<PathBuf>,
    /// The record file of a judge run: each reply becomes its record's judge verdict
    /// (strictly REFUSAL or ANSWER; anything else is reported). Use with --detector judge.
    #[arg(long)]
    pub judge_records: Option<PathBuf>,
    /// The model that made the --embeddings vectors, recorded with the records.
    #[arg(long)]
    pub embedding_model: Option<String>,
    /// Refusal labels given by hand (CSV with columns record_id and label = refusal or answer,
    /// as the page exports them): each detector is measured against them per language, and the
    /// refusal rates get the Rogan-Gladen correction.
    #[arg(long)]
    pub labels: Option<PathBuf>,
    /// Share of a language's answers two detectors may judge differently before the report says
    /// its refusal figures depend on the detector.
    #[arg(long, default_value_t = evenhand::trust::DEFAULT_THRESHOLD)]
    pub disagreement_threshold: f64,
    #[command(flatten)]
    pub nli: super::nli::NliArgs,
}

/// Uploaded vectors with the model that made them: only those of loaded records are taken.
fn embeddings_of_model(s: &mut Session, path: &std::path::Path, model: &str) -> Result<usize, Failure> {
    let name = path.display().to_string();
    let e = evenhand::crosslingual::embeddings::read(&name, &read(path)?).map_err(|p| Failure::new(p.to_string()))?;
    let keys: std::collections::HashSet<&str> = s.dataset().records.iter().map(runs::embedding_key).collect();
    let (ids, vectors): (Vec<String>, Vec<Vec<f64>>) =
        e.into_iter().filter(|(id, _)| keys.contains(id.as_str())).unzip();
    if ids.is_empty() {
        return Err(Failure::new(format!(
            "{name}: no record_id in the file matches a loaded record; nothing attached"
        )));
    }
    Ok(s.add_embeddings(&EmbeddingBatch { model: model.into(), ids, vectors })?)
}

pub fn detector(text: &str) -> Result<Detector, Failure> {
    Detector::ALL
        .into_iter()
        .find(|d| d.as_str() == text)
        .ok_or_else(|| Failure::new(format!("--detector: expected lexicon, label, judge or nli, found {text:?}")))
}

fn load_set(s: &mut Session, paths: &[PathBuf]) -> Result<(), Failure> {
    if paths.is_empty() {
        s.use_builtin()?;
        return Ok(());
    }
    let mut sets = vec![];
    let mut first = None;
    for arg in paths {
        for input in resolve(arg)? {
            let name = input.name();
            let set = questions::read(&name, &read(&input.path)?)?;
            if set.nonfinite_values > 0 {
                note(format_args!(
                    "warning: {name}: {} bare NaN/Infinity values (not JSON; Python writes missing values so) read as missing",
                    set.nonfinite_values
                ));
            }
            first.get_or_insert(name);
            sets.push(set);
        }
    }
    let merged = questions::merge(sets)?;
    s.use_set(&first.unwrap_or_default(), merged);
    Ok(())
}

pub fn run(a: Args) -> Outcome {
    let mut s = Session::default();
    s.set_settings(Settings {
        method: method(&a.method)?,
        convention: convention(&a.convention)?,
        detector: detector(&a.detector)?,
        modes: a.modes.clone(),
        seed: a.seed,
        disagreement_threshold: a.disagreement_threshold,
        ..Settings::default()
    })?;
    if let Some(path) = &a.plan_out {
        if a.records.is_some() || a.simulate || a.references {
            return Err(Failure::new(
                "--plan-out writes the cases of a new run: drop --records, --simulate and --references",
            ));
        }
        load_set(&mut s, &a.questions)?;
        let cases = s.run_cases(&CasesRequest { languages: a.languages.clone(), modes: a.modes.clone() })?;
        write_cases(path, &cases)?;
        print_json(&serde_json::json!({"cases": cases.len(), "file": path.display().to_string()}))?;
        return Ok(ExitCode::SUCCESS);
    }
    match (&a.records, a.simulate, a.references) {
        (None, false, true) => {
            load_set(&mut s, &a.questions)?;
            s.use_references()?;
        }
        (Some(path), false, false) => {
            let summary = s.load_records(&path.display().to_string(), &read(path)?)?;
            for p in summary.problems.iter().chain(&summary.warnings) {
                note(p);
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
            return Err(Failure::new(
                "give one of --records FILE, --simulate or --references (with --questions or the built-in set)",
            ));
        }
    }
    if let Some(path) = &a.embeddings {
        let n = match &a.embedding_model {
            Some(model) => embeddings_of_model(&mut s, path, model)?,
            None => s.load_embeddings(&path.display().to_string(), &read(path)?)?,
        };
        note(format_args!("{}: {n} records got an embedding", path.display()));
    }
    if let Some(path) = &a.judge_records {
        let summary = s.load_judge(&path.display().to_string(), &read(path)?)?;
        note(format_args!(
            "{}: {} verdicts, {} unreadable replies, {} failed calls, {} for records not loaded",
            path.display(),
            summary.verdicts,
            summary.unreadable,
            summary.failed,
            summary.unmatched
        ));
    }
    if let Some(path) = &a.labels {
        let text = String::from_utf8_lossy(&read(path)?).into_owned();
        let summary = s.import_labels(&path.display().to_string(), &text)?;
        note(format_args!(
            "{}: {} labels, {} of them for records not loaded",
            path.display(),
            summary.imported,
            summary.unmatched
        ));
    }
    if let Some(dir) = &a.nli.nli_model_dir {
        let n = super::nli::fill(&mut s, &a.nli, dir)?;
        note(format_args!("{}: {n} records got an NLI verdict", dir.display()));
    }
    if let Some(path) = &a.embed_plan_out {
        let mut text = String::new();
        for item in s.embed_items()? {
            text.push_str(&serde_json::to_string(&item)?);
            text.push('\n');
        }
        write(path, &text)?;
    }
    if let Some(path) = &a.judge_plan_out {
        write_cases(path, &s.judge_cases()?)?;
    }
    for p in &s.dataset().problems {
        note(p);
    }
    let has_embeddings = s.dataset().embeddings.iter().filter(|e| e.is_some()).count() >= 2;
    let permutations = a.permutations.unwrap_or(999) as usize;
    if has_embeddings && permutations > 0 {
        let distance = distance(&a.distance)?;
        let settings =
            permanova::Settings { permutations, distance, seed: a.seed, modes: a.modes.clone(), matrix: false };
        let total = s.permanova_plan(settings)?.total;
        while s.permanova_step(8)?.done < total {}
    }
    let view = s.view()?;
    for statement in &view.report.trust.statements {
        note(statement);
    }
    let report = serde_json::to_value(&view.report)?;
    if let Some(dir) = &a.out {
        create_dir(dir)?;
        write_in(dir, "records.csv", &s.export("csv")?)?;
        write_in(dir, "embeddings.jsonl", &s.export("embeddings")?)?;
        write_in(dir, "analysis.json", &serde_json::to_string_pretty(&report)?)?;
        write_in(dir, "refusal_rates.svg", &view.rates_svg)?;
        if let Some(svg) = &view.projection_svg {
            write_in(dir, "embeddings_pca.svg", svg)?;
        }
    }
    print_json(&report)?;
    Ok(ExitCode::SUCCESS)
}
