//! `evenhand study plan|run|report`: a study from its document to its report, the same core
//! as the page's study flow. Files the study names are read from beside the study file.
//! `run` answers the simulated targets and sends the provider targets' calls through the same
//! engine and journal as `evenhand run` (a rerun resumes); `report` writes report.json and
//! report.html from the study, its simulated targets and the record files given.

use super::{Failure, Outcome, create_dir, note, print_json, read, read_text, write_in};
use evenhand::study::{self, Session};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(clap::Subcommand)]
pub enum Command {
    /// Write a study file to start from: the example study (two simulated models, all four
    /// methods, built-in data), with --targets to name your own models instead.
    Init(InitArgs),
    /// Calls, prompt tokens and cost per method and target, as JSON on stdout.
    Plan(Common),
    /// Answer the simulated targets and run the provider targets (keys from environment
    /// variables, as `evenhand run`); writes cases.jsonl, run-spec.json, records.jsonl (and its
    /// journal), then the report, into --out.
    Run(RunArgs),
    /// Write report.json and report.html into --out from the study, its simulated targets and
    /// the record files given.
    Report(ReportArgs),
}

#[derive(clap::Args)]
pub struct Common {
    /// The study document (evenhand-study v1 JSON).
    #[arg(long)]
    pub study: PathBuf,
}

#[derive(clap::Args)]
pub struct InitArgs {
    /// Where the study file goes.
    #[arg(long, default_value = "study.json")]
    pub out: PathBuf,
    /// The study's targets, comma-separated (`provider:model`, e.g.
    /// `openai:gpt-4o-mini,anthropic:claude-3-5-haiku-latest`); default: the example's two
    /// simulated models.
    #[arg(long, value_delimiter = ',')]
    pub targets: Vec<String>,
    /// A question-set file for the cross-lingual method (evenhand-questions or MSQAD JSON),
    /// instead of the built-in set; repeatable (MSQAD has one file per topic), the files merged.
    /// Each must lie in the study's folder, where `plan` and `run` read it; the study names it
    /// with its sha256. A file given twice (same path or same bytes) is refused.
    #[arg(long)]
    pub questions: Vec<PathBuf>,
    /// Replace an existing file.
    #[arg(long)]
    pub force: bool,
}

#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub common: Common,
    /// The folder the cases, records, journal and report go to.
    #[arg(long)]
    pub out: PathBuf,
    /// A run spec to use instead of the study's skeleton (base URLs, limits, retry policy);
    /// it must name exactly the study's provider targets, and its samples must be 1, since the
    /// study's cases carry their samples (checked before the first call).
    #[arg(long)]
    pub spec: Option<PathBuf>,
    /// Start even when the estimate asks for confirmation.
    #[arg(long)]
    pub yes: bool,
    /// Ignore an existing journal: every call is sent again.
    #[arg(long)]
    pub fresh: bool,
    #[command(flatten)]
    pub nli: super::nli::NliArgs,
}

#[derive(clap::Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub common: Common,
    /// A record file: a table with a method column, or METHOD=FILE for one method's records
    /// (requirements, bbq, crosslingual, divergence). Repeatable.
    #[arg(long)]
    pub records: Vec<String>,
    #[arg(long)]
    pub out: PathBuf,
    /// The report's timestamp (default: now), for reports that must be byte-identical.
    #[arg(long, hide = true)]
    pub generated_at: Option<String>,
    #[command(flatten)]
    pub nli: super::nli::NliArgs,
}

fn open(path: &Path) -> Result<Session, Failure> {
    let name = path.display().to_string();
    let mut s = Session::open(&name, &read_text(path)?)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    for (field, file) in s.missing() {
        let bytes = read(&in_study_folder(&name, dir, &field, &file)?)?;
        s.add_file(&file, &bytes)?;
    }
    Ok(s)
}

/// Where a file the study names lies: inside the study's folder, never absolute, upward or
/// through a link out of it. A study is a document anyone can send; refusing before anything
/// is read means no error can quote a byte (or a digest) of a file it had no right to.
fn in_study_folder(study: &str, dir: &Path, field: &str, file: &str) -> Result<PathBuf, Failure> {
    let refuse = |why: &str| {
        Failure::new(format!(
            "{study}: field {field}: {file:?} {why}; a file a study names is read from the study's folder \
             (a relative path without '..'), so put it there; nothing was read"
        ))
    };
    if !evenhand::catalogue::safe_path(file) {
        return Err(refuse("is not inside the study's folder"));
    }
    let at = file.split('/').fold(dir.to_path_buf(), |p, part| p.join(part));
    let base = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    if let (Ok(real), Ok(folder)) = (at.canonicalize(), base.canonicalize())
        && !real.starts_with(&folder)
    {
        return Err(refuse("leads out of the study's folder through a symbolic link"));
    }
    Ok(at)
}

fn now() -> String {
    let ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    evenhand::run::rfc3339(ms)
}

fn write_report(s: &Session, out: &Path, generated_at: &str) -> Outcome {
    create_dir(out)?;
    let r = s.report(generated_at)?;
    let json = write_in(out, "report.json", &study::html::report_json(&r))?;
    let html = write_in(out, "report.html", &study::html::render(&r))?;
    print_json(&serde_json::json!({
        "report_json": json.display().to_string(),
        "report_html": html.display().to_string(),
        "models": r.models,
        "comparisons": r.family.size,
        "significant": r.family.significant,
    }))?;
    Ok(ExitCode::SUCCESS)
}

/// With `--nli-model-dir`: the NLI detector over the requirements and cross-lingual answers,
/// its P(refuse) into their records, so the report's detector table compares it with the
/// lexicon (which still decides the study's figures) and the methods text names it.
fn judge_refusals(s: &mut Session, a: &super::nli::NliArgs) -> Result<(), Failure> {
    let Some(dir) = &a.nli_model_dir else { return Ok(()) };
    let items = s.nli_items()?;
    if items.is_empty() {
        return Err(Failure::new(
            "--nli-model-dir: the study has no answered requirements or cross-lingual records to judge",
        ));
    }
    let (batch, counts) = super::nli::run(a, dir, &items)?;
    if let Some(c) = &counts {
        super::nli::report(c);
    }
    let n = s.add_nli(&batch)?;
    note(format_args!("NLI detector: P(refuse) for {n} records"));
    Ok(())
}

/// `same_name`: another record file given has this file's base name, so the path as given
/// names it (two files, two entries in the methods text).
fn add_records(s: &mut Session, spec: &str, same_name: bool) -> Result<(), Failure> {
    let (method, path) = match spec.split_once('=') {
        Some((m, p)) if study::format::METHODS.contains(&m) => (Some(m), p),
        _ => (None, spec),
    };
    let path = Path::new(path);
    // The file's name alone, as the page knows it: the report quotes it, and must not differ
    // between the two by where the file happened to lie.
    let name = match path.file_name() {
        Some(n) if !same_name => n.to_string_lossy().into_owned(),
        _ => path.display().to_string(),
    };
    let summary = s.add_records(&name, &read(path)?, method, study::session::Origin::Uploaded)?;
    for p in &summary.problems {
        note(format_args!("warning: {p}"));
    }
    Ok(())
}

/// The example study's text, with the targets replaced when some are given; checked by opening
/// it, so a mistyped target is refused here rather than at the first `plan`.
fn init(a: &InitArgs) -> Outcome {
    if a.out.exists() && !a.force {
        return Err(Failure::new(format!("{}: the file exists; --force replaces it", a.out.display())));
    }
    let questions = question_files(a)?;
    let text = if a.targets.is_empty() && questions.is_empty() {
        study::example::TEXT.to_string()
    } else {
        let mut doc: serde_json::Value = serde_json::from_str(study::example::TEXT)?;
        if !a.targets.is_empty() {
            doc["targets"] = serde_json::json!(a.targets);
            doc["title"] = serde_json::json!("My study");
        }
        if !questions.is_empty() {
            let listed: Vec<_> = questions
                .iter()
                .map(|(file, bytes)| serde_json::json!({"file": file, "sha256": study::format::sha256(bytes)}))
                .collect();
            doc["methods"]["crosslingual"]["questions"] = serde_json::json!(listed);
            // The example's languages are the built-in set's; the files' own are asked.
            doc["methods"]["crosslingual"]["languages"] = serde_json::json!([]);
        }
        serde_json::to_string_pretty(&doc)? + "\n"
    };
    let name = a.out.display().to_string();
    let mut s = Session::open(&name, &text)?;
    for (file, bytes) in &questions {
        s.add_file(file, bytes)?;
    }
    super::write(&a.out, &text)?;
    print_json(&serde_json::json!({
        "study": name,
        "targets": s.study.targets.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
        "next": format!("evenhand study plan --study {name}"),
    }))?;
    Ok(ExitCode::SUCCESS)
}

/// `init --questions`: each file as the study names it (its path from the study's folder, with
/// '/'), with its bytes; a file given twice, by path or by content, is refused naming both.
fn question_files(a: &InitArgs) -> Result<Vec<(String, Vec<u8>)>, Failure> {
    let dir = a.out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let folder = dir.canonicalize().map_err(|e| Failure::new(format!("{}: {e}", dir.display())))?;
    let mut out: Vec<(String, Vec<u8>)> = vec![];
    for path in &a.questions {
        let real = path.canonicalize().map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
        let Ok(inside) = real.strip_prefix(&folder) else {
            return Err(Failure::new(format!(
                "--questions {}: not in the study's folder ({}); `study plan` and `study run` read the files a \
                 study names from there, so copy it there first",
                path.display(),
                folder.display()
            )));
        };
        let name = inside.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
        let bytes = read(path)?;
        let digest = study::format::sha256(&bytes);
        if let Some((first, _)) = out.iter().find(|(n, b)| *n == name || study::format::sha256(b) == digest) {
            let why = if *first == name { "is given twice" } else { "has the same bytes (sha256) as" };
            let also = if *first == name { String::new() } else { format!(" {first}") };
            return Err(Failure::new(format!(
                "--questions {name} {why}{also}: each question file once, or its questions are asked twice; nothing was written"
            )));
        }
        out.push((name, bytes));
    }
    Ok(out)
}

pub fn run(a: Args) -> Outcome {
    match a.command {
        Command::Init(i) => init(&i),
        Command::Plan(c) => {
            let s = open(&c.study)?;
            print_json(&s.plan()?)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Report(r) => {
            let mut s = open(&r.common.study)?;
            if s.study.targets.iter().any(|t| t.is_simulated()) {
                s.simulate()?;
            }
            let base = |spec: &str| {
                let path =
                    spec.split_once('=').filter(|(m, _)| study::format::METHODS.contains(m)).map_or(spec, |x| x.1);
                Path::new(path).file_name().map(|n| n.to_os_string())
            };
            for spec in &r.records {
                let same_name = r.records.iter().filter(|o| base(o) == base(spec)).count() > 1;
                add_records(&mut s, spec, same_name)?;
            }
            judge_refusals(&mut s, &r.nli)?;
            write_report(&s, &r.out, &r.generated_at.unwrap_or_else(now))
        }
        Command::Run(r) => {
            let mut s = open(&r.common.study)?;
            if let Some(p) = &r.spec {
                // Checked before anything is written or sent (study::spec_check).
                let name = p.display().to_string();
                let spec = evenhand::run::RunSpec::from_json(&read_text(p)?)
                    .map_err(|e| Failure::new(format!("{name}: {e}")))?;
                study::spec_check::check(&s.study, &name, &spec)?;
            }
            create_dir(&r.out)?;
            if s.study.targets.iter().any(|t| t.is_simulated()) {
                s.simulate()?;
            }
            if s.study.targets.iter().any(|t| !t.is_simulated()) {
                let cases = r.out.join("cases.jsonl");
                super::write_cases(&cases, &s.run_cases()?)?;
                let spec = match &r.spec {
                    Some(p) => p.clone(),
                    None => write_in(&r.out, "run-spec.json", &serde_json::to_string_pretty(&s.run_spec())?)?,
                };
                let records = r.out.join("records.jsonl");
                let args = super::run::Args {
                    scenario: spec,
                    out: records.clone(),
                    cases: Some(cases),
                    yes: r.yes,
                    dry_run: false,
                    fresh: r.fresh,
                    retry_failed: false,
                    embed: None,
                    batch_size: 64,
                    embeddings_out: None,
                };
                super::run::run(args)?;
                let summary = s.add_records("records.jsonl", &read(&records)?, None, study::session::Origin::Run)?;
                for p in &summary.problems {
                    note(format_args!("warning: {p}"));
                }
            }
            judge_refusals(&mut s, &r.nli)?;
            write_report(&s, &r.out, &now())
        }
    }
}
