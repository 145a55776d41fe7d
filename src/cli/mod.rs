//! Subcommands. Names are stable; later methods add `expand`, `evaluate`, `run`, `bbq`,
//! `mcnemar`, `crosslingual`, `permanova` and `divergence`.

use clap::{Parser, Subcommand};
use evenhand::demo::Experiment;
use evenhand::demo::analysis::Settings;
use evenhand::demo::workspace::Workspace;
use evenhand::formats::{self, ColumnMapping, LoadError};
use evenhand::stats::confidence::Confidence;
use evenhand::stats::power::{self, PowerQuery};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod batch;
mod crosslingual;
mod divergence;
mod requirements;
mod run;
mod transport;

#[derive(Parser)]
#[command(name = "evenhand", version, about = "Evenhand: an LLM bias lab. JSON on stdout, errors on stderr.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a record file (CSV, JSONL or JSON) and list every problem with its line.
    Validate {
        file: PathBuf,
        /// Column mapping for a CSV from another tool, as JSON: {"response": "output", ...}.
        #[arg(long)]
        mapping: Option<String>,
    },
    /// Pass rates with intervals for a record file or a bundle.
    Analyze {
        file: PathBuf,
        /// Fields to group by, comma separated (concern, language, community, model, ...).
        #[arg(long, value_delimiter = ',')]
        group_by: Option<Vec<String>>,
        #[arg(long)]
        tolerance: Option<f64>,
        #[arg(long)]
        confidence: Option<f64>,
    },
    /// Run the built-in demo on the simulated model and write its bundle and reports.
    Demo {
        #[arg(long)]
        out: PathBuf,
        /// An experiment JSON (as in a bundle's "experiment"); defaults to the built-in demo.
        #[arg(long)]
        experiment: Option<PathBuf>,
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long)]
        samples: Option<u32>,
    },
    /// Bias QA benchmarks (BBQ, GG-BBQ, KoBBQ-style): accuracy, diff-bias and the BBQ bias
    /// scores with seeded bootstrap intervals, per category, subset, language, model, variant.
    Bbq {
        /// A data file (BBQ jsonl, GG-BBQ jsonl or a KoBBQ-style table); repeat for several.
        #[arg(long, required = true)]
        data: Vec<PathBuf>,
        /// A predictions file; repeat for several models (the model is the file name unless
        /// the file has a model column).
        #[arg(long)]
        predictions: Vec<PathBuf>,
        /// The predictions' format: bbq, ggbbq or kobbq (benchmark rows with a prediction
        /// field), records (an Evenhand record table); default: a table with id and answer columns.
        #[arg(long)]
        format: Option<String>,
        #[arg(long, default_value_t = 2000)]
        replicates: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also test whether diff-bias differs between the two values of this field (model or language).
        #[arg(long)]
        compare: Option<String>,
    },
    /// How many cases per community a test needs to detect a difference in rates.
    Power {
        #[arg(long)]
        rate_a: f64,
        #[arg(long)]
        rate_b: f64,
        #[arg(long, value_delimiter = ',', default_value = "10,20,40,80,160,320")]
        sizes: Vec<u32>,
        #[arg(long, default_value_t = 0.05)]
        alpha: f64,
        #[arg(long, default_value_t = 2000)]
        repetitions: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// LangBiTe scenario expansion: select templates (seeded), fill in communities and write
    /// one prompt instance per line (JSONL); warnings and the per-group selection on stderr.
    Expand(Box<crate::cli::requirements::ExpandArgs>),
    /// LangBiTe oracles and reports: template verdicts as upstream gives them, every instance
    /// judged (default mode), pass rates with intervals, per-community tests, and the files.
    Evaluate(Box<crate::cli::requirements::EvaluateArgs>),
    /// Cultural divergence CD = H(M,L) - H(M,W) from log-probabilities, sampled completions or
    /// the simulated model, against local and Western reference distributions.
    Divergence(Box<crate::cli::divergence::DivergenceArgs>),
    /// McNemar's test on a paired 2×2 table [[n00, n01], [n10, n11]] (b = n01, c = n10).
    Mcnemar {
        /// The four counts N00,N01,N10,N11.
        #[arg(long)]
        table: String,
        /// exact (binomial, statsmodels' default), midp, chi2 or chi2-cc (continuity corrected).
        #[arg(long, default_value = "exact")]
        method: String,
        /// statsmodels or r: whose continuity correction chi2-cc follows when b = c.
        #[arg(long, default_value = "statsmodels")]
        convention: String,
    },
    /// One-way PERMANOVA (pseudo-F, R², permutation p) with PERMDISP, on embeddings or a
    /// distance matrix, grouped by an id,group file.
    Permanova {
        /// Embeddings: CSV (id,v0,v1,… or id,embedding with a JSON array) or JSONL.
        #[arg(long, conflicts_with = "distances", required_unless_present = "distances")]
        embeddings: Option<PathBuf>,
        /// A square distance matrix as CSV: a corner cell and the ids, then one row per id.
        #[arg(long)]
        distances: Option<PathBuf>,
        /// CSV with columns id and group.
        #[arg(long)]
        groups: PathBuf,
        /// euclidean, chord, cosine, or cosine-similarity-bug (the MSQAD code's bug, labelled).
        #[arg(long, default_value = "euclidean")]
        distance: String,
        #[arg(long, default_value_t = 999)]
        permutations: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Cross-lingual refusals (MSQAD method): refusal rates per language with Wilson intervals,
    /// paired McNemar tests per language pair, topic and model with Holm and BH corrections.
    /// Give a record file, or --simulate to run the simulated model over a question set.
    Crosslingual(Box<crosslingual::Args>),
    /// Send a run spec's plan (cases x models x samples) to the providers, keys from
    /// environment variables; every record is journaled at once, and a rerun resumes.
    Run(Box<run::Args>),
    /// The batch route: export a plan as an OpenAI Batch / Anthropic Message Batches file,
    /// or import a result file into the record table.
    Batch(Box<batch::Args>),
}

/// An error for the user: what went wrong, already located.
struct Failure(String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Failure {
        Failure(e.to_string())
    }
}

fn print_json<T: Serialize>(value: &T) -> Result<(), Failure> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure(format!("{}: cannot read: {e}", path.display())))
}

fn write(dir: &Path, name: &str, text: &str) -> Result<PathBuf, Failure> {
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|e| Failure(format!("{}: cannot write: {e}", path.display())))?;
    Ok(path)
}

fn validate(file: &Path, mapping: Option<String>) -> Result<ExitCode, Failure> {
    let mapping: Option<ColumnMapping> = mapping
        .map(|m| serde_json::from_str(&m))
        .transpose()
        .map_err(|e| Failure(format!("--mapping: expected a JSON object of field to column: {e}")))?;
    let name = file.display().to_string();
    match formats::load(&name, &read(file)?, mapping.as_ref()) {
        Ok(loaded) => {
            for p in loaded.errors.iter().chain(&loaded.warnings) {
                eprintln!("{p}");
            }
            #[derive(Serialize)]
            struct Report<'a> {
                file: &'a str,
                format: &'a str,
                records: usize,
                errors: &'a [formats::Problem],
                warnings: &'a [formats::Problem],
            }
            print_json(&Report {
                file: &name,
                format: loaded.format,
                records: loaded.records.len(),
                errors: &loaded.errors,
                warnings: &loaded.warnings,
            })?;
            Ok(if loaded.errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Err(LoadError::NeedsMapping(req)) => {
            print_json(&req)?;
            Err(Failure(format!(
                "{name}: no column maps to {}; pass --mapping '{{\"response\": \"<column>\"}}' (columns: {})",
                req.missing.join(", "),
                req.headers.join(", ")
            )))
        }
        Err(e) => Err(e.into()),
    }
}

fn analyze(
    file: &Path,
    group_by: Option<Vec<String>>,
    tolerance: Option<f64>,
    confidence: Option<f64>,
) -> Result<ExitCode, Failure> {
    let name = file.display().to_string();
    let bytes = read(file)?;
    let mut ws = Workspace::demo();
    let text = String::from_utf8_lossy(&bytes);
    if text.contains("\"evenhand-bundle\"") {
        let summary = ws.open_bundle(&name, &text, None)?;
        if summary.identical == Some(false) {
            eprintln!("{name}: the recomputed numbers differ from the ones stored in the bundle");
        }
    } else {
        let summary = ws.load(&name, &bytes, None)?;
        for p in summary.errors.iter().chain(&summary.warnings) {
            eprintln!("{p}");
        }
    }
    let mut settings: Settings = ws.settings.clone();
    if let Some(g) = group_by {
        settings.group_by = g;
    }
    settings.tolerance = tolerance.unwrap_or(settings.tolerance);
    if let Some(c) = confidence {
        settings.confidence = Confidence::new(c).map_err(|e| Failure(e.in_field("--confidence").to_string()))?;
    }
    ws.set_settings(settings)?;
    print_json(&ws.view()?.analysis)?;
    Ok(ExitCode::SUCCESS)
}

fn demo(out: &Path, experiment: Option<PathBuf>, seed: Option<u64>, samples: Option<u32>) -> Result<ExitCode, Failure> {
    let mut exp: Experiment = match experiment {
        Some(path) => serde_json::from_slice(&read(&path)?).map_err(|e| Failure(format!("{}: {e}", path.display())))?,
        None => Experiment::default(),
    };
    exp.seed = seed.unwrap_or(exp.seed);
    exp.samples = samples.unwrap_or(exp.samples);
    let mut ws = Workspace::demo();
    ws.run(exp)?;
    std::fs::create_dir_all(out).map_err(|e| Failure(format!("{}: cannot create: {e}", out.display())))?;
    let view = ws.view()?;
    let files = vec![
        write(out, "bundle.json", &ws.bundle()?)?,
        write(out, "records.csv", &ws.export("csv")?)?,
        write(out, "records.jsonl", &ws.export("jsonl")?)?,
        write(out, "analysis.json", &serde_json::to_string_pretty(&view.analysis)?)?,
        write(out, "pass_rates.svg", &view.chart_svg)?,
    ];
    #[derive(Serialize)]
    struct Done {
        records: usize,
        simulated: bool,
        share_fragment: String,
        files: Vec<PathBuf>,
        analysis: evenhand::demo::analysis::Analysis,
    }
    print_json(&Done {
        records: ws.records.len(),
        simulated: true,
        share_fragment: ws.share_fragment()?,
        files,
        analysis: view.analysis,
    })?;
    Ok(ExitCode::SUCCESS)
}

fn bbq(
    data: &[PathBuf],
    predictions: &[PathBuf],
    format: Option<&str>,
    replicates: u32,
    seed: u64,
    compare: Option<String>,
) -> Result<ExitCode, Failure> {
    use evenhand::bbq::{import, metrics, score};
    let mut examples = vec![];
    for path in data {
        let name = path.display().to_string();
        let ds = import::read(&name, &read(path)?, None, None)?;
        for p in &ds.problems {
            eprintln!("{p}");
        }
        examples.extend(ds.examples);
    }
    let mut preds = vec![];
    for path in predictions {
        let name = path.display().to_string();
        let bytes = read(path)?;
        let model = import::stem(&name).to_string();
        let mut found = match format {
            Some("bbq" | "ggbbq" | "kobbq") => {
                let f = match format {
                    Some("bbq") => import::Format::Bbq,
                    Some("ggbbq") => import::Format::Ggbbq,
                    _ => import::Format::Kobbq,
                };
                let rows = import::read(&name, &bytes, Some(f), None)?;
                score::inline_predictions(&examples, &rows, &model)
            }
            None | Some("records") | Some("table") => {
                let (p, problems) = score::read_predictions(&name, &bytes, &model)?;
                for p in &problems {
                    eprintln!("{p}");
                }
                p
            }
            Some(other) => {
                return Err(Failure(format!("--format: expected bbq, ggbbq, kobbq or records, found {other:?}")));
            }
        };
        preds.append(&mut found);
    }
    let settings = metrics::BootstrapSettings { replicates, seed, ..Default::default() };
    let matched = score::judge(&examples, &preds, "predictions");
    for p in &matched.unmatched {
        eprintln!("{p}");
    }
    let report = score::report(&examples, &matched, &settings);
    let comparison = match compare.as_deref() {
        None => None,
        Some(field @ ("model" | "language")) => {
            let key = |j: &metrics::Judged| {
                if field == "model" { j.model.clone() } else { examples[j.example].language.clone() }
            };
            let mut values: Vec<String> = matched.judged.iter().map(key).collect();
            values.sort();
            values.dedup();
            let [a, b] = &values[..] else {
                return Err(Failure(format!(
                    "--compare {field}: expected exactly two values, found {}: {values:?}",
                    values.len()
                )));
            };
            let side = |v: &String| matched.judged.iter().filter(|j| &key(j) == v).cloned().collect::<Vec<_>>();
            Some((a.clone(), b.clone(), metrics::compare(&examples, &side(a), &side(b), &settings)))
        }
        Some(other) => {
            return Err(Failure(format!("--compare: expected model or language, found {other:?}")));
        }
    };
    #[derive(Serialize)]
    struct Out {
        report: evenhand::bbq::score::Report,
        comparison: Option<(String, String, metrics::Comparison)>,
    }
    print_json(&Out { report, comparison })?;
    Ok(ExitCode::SUCCESS)
}

fn mcnemar(table: &str, method: &str, convention: &str) -> Result<ExitCode, Failure> {
    use evenhand::stats::mcnemar::{self, Convention, Method, Table};
    let counts: Vec<u64> = table
        .split(',')
        .map(|s| s.trim().parse::<u64>())
        .collect::<Result<_, _>>()
        .ok()
        .filter(|c: &Vec<u64>| c.len() == 4)
        .ok_or_else(|| {
            Failure(format!("--table: expected four non-negative integers N00,N01,N10,N11, found {table:?}"))
        })?;
    let method = match method.to_ascii_lowercase().as_str() {
        "exact" => Method::Exact,
        "midp" | "mid-p" => Method::MidP,
        "chi2" => Method::Chi2,
        "chi2-cc" | "chi2cc" => Method::Chi2Cc,
        _ => return Err(Failure(format!("--method: expected exact, midp, chi2 or chi2-cc, found {method:?}"))),
    };
    let convention = match convention.to_ascii_lowercase().as_str() {
        "statsmodels" => Convention::Statsmodels,
        "r" => Convention::R,
        _ => return Err(Failure(format!("--convention: expected statsmodels or r, found {convention:?}"))),
    };
    let t = Table { n00: counts[0], n01: counts[1], n10: counts[2], n11: counts[3] };
    print_json(&mcnemar::mcnemar(&t, method, convention))?;
    Ok(ExitCode::SUCCESS)
}

fn permanova(
    embeddings: Option<PathBuf>,
    distances: Option<PathBuf>,
    groups: &Path,
    distance: &str,
    permutations: usize,
    seed: u64,
) -> Result<ExitCode, Failure> {
    use evenhand::formats::embeddings as emb;
    use evenhand::stats::distance::{Distance, DistanceMatrix};
    use evenhand::stats::multivariate::Vectors;
    use evenhand::stats::permanova::{self, Input, Options};
    let groups_name = groups.display().to_string();
    let group_rows = emb::read_groups(&groups_name, &read(groups)?)?;
    let options = Options { permutations, seed };
    let (unused, report) = if let Some(path) = embeddings {
        let d = Distance::parse(distance).ok_or_else(|| {
            Failure(format!(
                "--distance: expected euclidean, chord, cosine or cosine-similarity-bug, found {distance:?}"
            ))
        })?;
        let name = path.display().to_string();
        let table = emb::read_embeddings(&name, &read(&path)?)?;
        let (labels, unused) = emb::labels_for(&table.ids, &group_rows, &groups_name)?;
        let v = Vectors::from_flat(table.dim, table.values).map_err(|e| Failure(format!("{name}: {e}")))?;
        let r = permanova::permanova(Input::Vectors(&v, d), &labels, options)
            .map_err(|e| Failure(format!("{name}: {e}")))?;
        (unused, r)
    } else {
        let path = distances.ok_or_else(|| Failure("expected --embeddings or --distances".into()))?;
        let name = path.display().to_string();
        let (ids, rows) = emb::read_distance_matrix(&name, &read(&path)?)?;
        let dm = DistanceMatrix::from_square(&rows).map_err(|e| Failure(format!("{name}: {e}")))?;
        let (labels, unused) = emb::labels_for(&ids, &group_rows, &groups_name)?;
        let r =
            permanova::permanova(Input::Matrix(&dm), &labels, options).map_err(|e| Failure(format!("{name}: {e}")))?;
        (unused, r)
    };
    if !unused.is_empty() {
        eprintln!("{groups_name}: {} ids have no vector and were ignored (first: {:?})", unused.len(), unused[0]);
    }
    if let Some(w) = report.warning {
        eprintln!("evenhand: {w}");
    }
    print_json(&report)?;
    Ok(ExitCode::SUCCESS)
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Validate { file, mapping } => validate(&file, mapping),
        Command::Analyze { file, group_by, tolerance, confidence } => analyze(&file, group_by, tolerance, confidence),
        Command::Demo { out, experiment, seed, samples } => demo(&out, experiment, seed, samples),
        Command::Bbq { data, predictions, format, replicates, seed, compare } => {
            bbq(&data, &predictions, format.as_deref(), replicates, seed, compare)
        }
        Command::Power { rate_a, rate_b, sizes, alpha, repetitions, seed } => {
            let q = PowerQuery { rate_a, rate_b, sizes, alpha, repetitions, seed };
            power::power(&q).map_err(Failure::from).and_then(|p| print_json(&p)).map(|_| ExitCode::SUCCESS)
        }
        Command::Mcnemar { table, method, convention } => mcnemar(&table, &method, &convention),
        Command::Expand(args) => crate::cli::requirements::expand(&args).map_err(Failure),
        Command::Evaluate(args) => crate::cli::requirements::evaluate(&args).map_err(Failure),
        Command::Divergence(args) => crate::cli::divergence::run(&args).map(|_| ExitCode::SUCCESS).map_err(Failure),
        Command::Permanova { embeddings, distances, groups, distance, permutations, seed } => {
            permanova(embeddings, distances, &groups, &distance, permutations, seed)
        }
        Command::Crosslingual(args) => crosslingual::run(*args),
        Command::Run(args) => run::run(*args),
        Command::Batch(args) => batch::run(*args),
    };
    match result {
        Ok(code) => code,
        Err(Failure(message)) => {
            eprintln!("evenhand: {message}");
            ExitCode::from(2)
        }
    }
}
