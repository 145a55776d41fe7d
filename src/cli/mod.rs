//! The `evenhand` command line: the parser, the one error type, and the file and stdout
//! helpers every subcommand goes through. Each family of subcommands has its own file.
//!
//! Everything printed on stdout goes through [`print`], so a reader that stops early (`| head`)
//! ends the command quietly instead of with a panic, and a full disk is an error like any other.

use clap::{CommandFactory, Parser, Subcommand};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod batch;
mod bbq;
mod crosslingual;
mod datasets;
mod divergence;
mod embed;
mod import;
mod lock;
mod nli;
mod records;
mod reference;
mod requirements;
mod run;
mod stats;
mod study;
mod transport;
mod unpinned;

#[derive(Parser)]
#[command(
    name = "evenhand",
    version,
    about = "Evenhand: an LLM bias lab. JSON on stdout, errors on stderr.",
    after_help = "Exit codes: 0 done; 1 validate found bad rows; 2 an error (the message is on stderr); \
                  3 run: every call failed; 141 stdout was closed before everything was written."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a record file (CSV, JSONL, JSON or Parquet) and list every problem with its line.
    Validate(records::ValidateArgs),
    /// Logs of other harnesses (lm-evaluation-harness, Inspect, promptfoo) as a record table,
    /// with --report the analysis: BBQ's figures beside the harness's, paired model tests.
    Import(Box<import::Args>),
    /// Write a record file in another format (csv, jsonl, json or parquet, by the output's
    /// extension or --format); a file with bad rows is refused, its problems listed.
    Convert(records::ConvertArgs),
    /// Pass rates with intervals for a record file or a bundle.
    Analyze(records::AnalyzeArgs),
    /// Run the built-in demo on the simulated model and write its bundle and reports.
    Demo(records::DemoArgs),
    /// Bias QA benchmarks (BBQ, GG-BBQ, KoBBQ-style): accuracy, diff-bias and the BBQ bias
    /// scores with seeded bootstrap intervals, per category, subset, language, model, variant.
    Bbq(bbq::Args),
    /// How many cases per community a test needs to detect a difference in rates.
    Power(stats::PowerArgs),
    /// LangBiTe scenario expansion: select templates (seeded), fill in communities and write
    /// one prompt instance per line (JSONL); warnings and the per-group selection on stderr.
    Expand(Box<requirements::ExpandArgs>),
    /// LangBiTe oracles and reports: template verdicts as upstream gives them, every instance
    /// judged (default mode), pass rates with intervals, per-community tests, and the files.
    Evaluate(Box<requirements::EvaluateArgs>),
    /// Cultural divergence CD = H(M,L) - H(M,W) from log-probabilities, sampled completions or
    /// the simulated model, against local and Western reference distributions.
    Divergence(Box<divergence::Args>),
    /// McNemar's test on a paired 2×2 table [[n00, n01], [n10, n11]] (b = n01, c = n10).
    Mcnemar(stats::McnemarArgs),
    /// One-way PERMANOVA (pseudo-F, R², permutation p) with PERMDISP, on embeddings or a
    /// distance matrix, grouped by an id,group file.
    Permanova(stats::PermanovaArgs),
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
    /// A study: one question asked of several models across the four methods, from the
    /// study document to one report (report.json and a self-contained report.html).
    Study(Box<study::Args>),
    /// Public datasets the methods read (datasets/catalogue.json): list them, fetch them into
    /// a cache with their sha256 checked, verify a folder. Method commands take
    /// `catalogue:NAME[/FILE]` wherever they take a data file.
    Datasets(datasets::Args),
    /// Sentence vectors from a local model folder (offline), written as `evenhand run --embed`
    /// writes them, for `crosslingual --embeddings` and `permanova`.
    Embed(Box<embed::Args>),
    /// The local model catalogue (embedding and NLI models, their files and sha256 pins) as JSON.
    Models,
    /// The command reference (docs/cli.md) as Markdown, from these definitions.
    #[command(hide = true)]
    HelpMarkdown,
}

/// Why a command stopped.
pub enum Failure {
    /// Something the user can act on, already located (file, line, column or option).
    Message(String),
    /// Whoever reads stdout stopped reading: nothing left to say, and no one to say it to.
    BrokenPipe,
}

impl Failure {
    pub fn new(message: impl Into<String>) -> Failure {
        Failure::Message(message.into())
    }
}

/// Core errors already say where they come from; their text is the message.
impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Failure {
        Failure::Message(e.to_string())
    }
}

pub type Outcome = Result<ExitCode, Failure>;

/// Writes `text` to stdout as is. A closed pipe is [`Failure::BrokenPipe`]; any other
/// failure (a full disk behind a redirection) is an error naming stdout.
pub fn print(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| match e.kind() {
        std::io::ErrorKind::BrokenPipe => Failure::BrokenPipe,
        _ => Failure::new(format!("stdout: cannot write: {e}")),
    })
}

/// `value` as indented JSON and a newline on stdout.
pub fn print_json<T: Serialize>(value: &T) -> Result<(), Failure> {
    print(&(serde_json::to_string_pretty(value)? + "\n"))
}

/// A warning or a progress line on stderr. If stderr itself is gone there is nowhere left to
/// report that, so the failure is dropped rather than turned into a panic.
pub fn note(text: impl std::fmt::Display) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// The file's bytes. A Parquet file (by its name or its "PAR1" magic) comes back as JSON Lines,
/// one object per row, which every reader that takes a data file reads: so each command
/// that reads a table reads Parquet, with problems located at the row (row 1 is line 1).
pub fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    let bytes = std::fs::read(path).map_err(|e| Failure::new(format!("{}: cannot read: {e}", path.display())))?;
    let name = path.display().to_string();
    if evenhand_parquet::is_parquet(&bytes) || evenhand_parquet::is_parquet_name(&name) {
        let table = evenhand_parquet::to_jsonl(&bytes).map_err(|e| Failure::new(format!("{name}: {e}")))?;
        return Ok(table.jsonl.into_bytes());
    }
    Ok(bytes)
}

/// The file as text, or an error at the line and column of its first byte that is not UTF-8
/// (a leading byte-order mark is dropped).
pub fn read_text(path: &Path) -> Result<String, Failure> {
    let bytes = read(path)?;
    let text = evenhand::formats::decode(&path.display().to_string(), &bytes)?;
    Ok(text.to_string())
}

pub fn write(path: &Path, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text).map_err(|e| Failure::new(format!("{}: cannot write: {e}", path.display())))
}

/// Writes `dir/name` and returns its path.
pub fn write_in(dir: &Path, name: &str, text: &str) -> Result<PathBuf, Failure> {
    let path = dir.join(name);
    write(&path, text)?;
    Ok(path)
}

/// Writes `text` to a temporary file beside `path` and renames it over, so a reader never
/// sees half a table.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), Failure> {
    let mut tmp = path.as_os_str().to_os_string();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    write(&tmp, text)?;
    std::fs::rename(&tmp, path).map_err(|e| Failure::new(format!("{}: cannot write: {e}", path.display())))
}

/// Records or cases for `evenhand run --cases`, in the format the name says (.csv, .json,
/// .parquet), JSONL otherwise.
pub fn write_cases(path: &Path, records: &[evenhand::record::Record]) -> Result<(), Failure> {
    use evenhand::formats::FileFormat;
    let name = path.display().to_string();
    if evenhand_parquet::is_parquet_name(&name) {
        return write_bytes(path, &records_parquet(&name, records)?);
    }
    let format = match FileFormat::detect(&name, "") {
        FileFormat::Csv if !name.to_ascii_lowercase().ends_with(".csv") => FileFormat::Jsonl,
        f => f,
    };
    write(path, &evenhand::formats::write(records, format))
}

/// Records as a Parquet file: one column per field and extra column, typed as in JSONL
/// (text, integers, numbers); the JSON fields (communities, params, choices, logprobs) as JSON text.
pub fn records_parquet(name: &str, records: &[evenhand::record::Record]) -> Result<Vec<u8>, Failure> {
    let rows: Vec<_> = records.iter().map(evenhand::formats::row::to_json).collect();
    evenhand_parquet::from_rows(&rows).map_err(|e| Failure::new(format!("{name}: {e}")))
}

pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    std::fs::write(path, bytes).map_err(|e| Failure::new(format!("{}: cannot write: {e}", path.display())))
}

pub fn create_dir(dir: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(dir).map_err(|e| Failure::new(format!("{}: cannot create: {e}", dir.display())))
}

pub fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Validate(a) => records::validate(a),
        Command::Import(a) => import::run(*a),
        Command::Analyze(a) => records::analyze(a),
        Command::Convert(a) => records::convert(a),
        Command::Demo(a) => records::demo(a),
        Command::Bbq(a) => bbq::run(a),
        Command::Power(a) => stats::power(a),
        Command::Mcnemar(a) => stats::mcnemar(a),
        Command::Permanova(a) => stats::permanova(a),
        Command::Expand(a) => requirements::expand(&a),
        Command::Evaluate(a) => requirements::evaluate(&a),
        Command::Divergence(a) => divergence::run(&a),
        Command::Crosslingual(a) => crosslingual::run(*a),
        Command::Run(a) => run::run(*a),
        Command::Batch(a) => batch::run(*a),
        Command::Study(a) => study::run(*a),
        Command::Datasets(a) => datasets::run(a),
        Command::Embed(a) => embed::run(*a),
        Command::Models => embed::list(),
        Command::HelpMarkdown => print(&reference::markdown(Cli::command())).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        // What a shell reports for a command ended by SIGPIPE (128 + 13).
        Err(Failure::BrokenPipe) => ExitCode::from(141),
        Err(Failure::Message(message)) => {
            note(format_args!("evenhand: {message}"));
            ExitCode::from(2)
        }
    }
}
