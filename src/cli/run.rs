//! `evenhand run`: a run spec's plan sent to the providers natively.
//!
//! The run driver ([`evenhand::run::driver`], the same loop the page's run worker runs) owns
//! the [`Engine`] on the main thread, blocked on with pollster; the calls go out on the
//! transport's worker threads ([`Pool`]).
//!
//! Every record the engine settles is appended to `OUT.journal.jsonl` at once, before the
//! next call is considered, so an interrupted run loses nothing it paid for; the next run
//! restores the journal and sends only what is missing (`--fresh` starts over). Keys come
//! from environment variables and are only ever in the dispatches' headers.

use super::transport::{Clock, Pool};
use super::{Failure, Outcome, note, print, print_json, read, read_text, write_atomically};
use evenhand::formats::{self, FileFormat};
use evenhand::providers::ProviderKind;
use evenhand::providers::redact;
use evenhand::providers::spec::AuthScheme;
use evenhand::record::Record;
use evenhand::run::driver::{self, Overhead, Stop};
use evenhand::run::dry_run::DryRunError;
use evenhand::run::{Engine, Plan, RunSpec, cases, journal};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The run spec (JSON): targets, models, samples, parameters, retry policy.
    #[arg(long)]
    pub scenario: PathBuf,
    /// The record table to write at the end (.csv, .jsonl or .json); the journal goes beside it,
    /// locked while the run writes it (a second run on it is refused, naming the holder).
    #[arg(long)]
    pub out: PathBuf,
    /// The cases file (default: the spec's "cases", relative to the spec file).
    #[arg(long)]
    pub cases: Option<PathBuf>,
    /// Start even when the estimate asks for confirmation (many calls or a high cost).
    #[arg(long)]
    pub yes: bool,
    /// Print the estimate (calls, tokens, cost) as JSON and send nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Ignore (and replace) an existing journal: every call is sent again.
    #[arg(long)]
    pub fresh: bool,
    /// Send again the calls the journal holds as failed.
    #[arg(long)]
    pub retry_failed: bool,
    /// Embed texts instead of chatting: a JSONL file of {"id", "text"} lines (as
    /// `evenhand crosslingual --embed-plan-out` writes); the spec's models are embedding models.
    #[arg(long)]
    pub embed: Option<PathBuf>,
    /// Texts per embedding call.
    #[arg(long, default_value_t = 64)]
    pub batch_size: usize,
    /// Where the vectors go, one {"id", "embedding"} line each, appended as they arrive
    /// (default: OUT.embeddings.jsonl).
    #[arg(long)]
    pub embeddings_out: Option<PathBuf>,
}

/// The spec and an embedding texts file as a plan of embedding calls.
fn load_embed_plan(scenario: &Path, texts: &Path, batch: usize) -> Result<Plan, Failure> {
    let spec_name = scenario.display().to_string();
    let text = read_text(scenario)?;
    let spec = RunSpec::from_json(&text).map_err(|e| Failure::new(format!("{spec_name}: {e}")))?;
    let name = texts.display().to_string();
    let items = evenhand::run::embed_texts::read(&name, &read(texts)?).map_err(|p| Failure::new(p.to_string()))?;
    Plan::embed(spec, &items, batch).map_err(|e| Failure::new(format!("{spec_name}: {e}")))
}

/// The vectors file: appended as answers arrive; ids already in it are not written twice
/// (a call re-sent after a crash between the two writes).
struct VectorSink {
    name: String,
    file: std::fs::File,
    seen: std::collections::HashSet<String>,
}

impl VectorSink {
    fn open(path: &Path, fresh: bool) -> Result<VectorSink, Failure> {
        let name = path.display().to_string();
        let mut seen = std::collections::HashSet::new();
        if fresh {
            let _ = std::fs::remove_file(path);
        } else if path.exists() {
            for line in String::from_utf8_lossy(&read(path)?).lines() {
                if let Some(id) = serde_json::from_str::<serde_json::Value>(line)
                    .ok()
                    .and_then(|v| v["id"].as_str().map(str::to_string))
                {
                    seen.insert(id);
                }
            }
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Failure::new(format!("{name}: cannot open for writing: {e}")))?;
        Ok(VectorSink { name, file, seen })
    }

    /// The call's record lists its texts' ids, space-separated, in input order.
    fn write(&mut self, record: &Record, vectors: &[Vec<f64>]) -> Result<(), String> {
        let mut text = String::new();
        for (id, v) in record.prompt.split(' ').zip(vectors) {
            if self.seen.insert(id.to_string()) {
                text.push_str(&serde_json::json!({"id": id, "embedding": v, "model": record.model}).to_string());
                text.push('\n');
            }
        }
        self.file.write_all(text.as_bytes()).map_err(|e| format!("{}: cannot append: {e}", self.name))
    }
}

/// The spec and its cases as a plan. Shared with `evenhand batch`.
pub fn load_plan(scenario: &Path, cases_path: Option<&Path>) -> Result<Plan, Failure> {
    let (spec, spec_name, path) = load_spec(scenario, cases_path)?;
    let name = path.display().to_string();
    let cases = cases::read(&name, &read(&path)?)
        .map_err(|problems| Failure::new(problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")))?;
    Plan::chat(spec, &cases).map_err(|e| Failure::new(format!("{spec_name}: {e}")))
}

/// The run spec, its name for messages, and the path of its cases file.
fn load_spec(scenario: &Path, cases_path: Option<&Path>) -> Result<(RunSpec, String, PathBuf), Failure> {
    let spec_name = scenario.display().to_string();
    let text = read_text(scenario)?;
    let spec = RunSpec::from_json(&text).map_err(|e| Failure::new(format!("{spec_name}: {e}")))?;
    let path = match (cases_path, &spec.cases) {
        (Some(p), _) => p.to_path_buf(),
        (None, Some(rel)) => scenario.parent().unwrap_or(Path::new(".")).join(rel),
        (None, None) => {
            return Err(Failure::new(format!("{spec_name}: no cases: pass --cases FILE or set \"cases\" in the spec")));
        }
    };
    Ok((spec, spec_name, path))
}

/// Each target's key, from its environment variable. A provider that needs a key and has
/// none is an error naming the variable; a local server (Ollama, an OpenAI-compatible URL)
/// may go without, unless the spec named a variable for it.
fn keys(spec: &RunSpec) -> Result<HashMap<String, String>, Failure> {
    let mut keys = HashMap::new();
    for t in &spec.targets {
        let var = t.key_variable();
        match std::env::var(&var).ok().filter(|k| !k.trim().is_empty()) {
            Some(k) => {
                keys.insert(t.id.clone(), k.trim().to_string());
            }
            None => {
                let optional = t.provider.spec().auth == AuthScheme::None
                    || (t.provider == ProviderKind::OpenAiCompatible && t.key_env.is_none());
                if !optional {
                    return Err(Failure::new(format!(
                        "target {:?} ({}) needs a key: set the environment variable {var}",
                        t.id,
                        t.provider.spec().label
                    )));
                }
            }
        }
    }
    Ok(keys)
}

/// Masks every key in `text` (a last guard on what is printed).
fn scrub(text: &str, keys: &HashMap<String, String>) -> String {
    keys.values().fold(text.to_string(), |t, k| redact(&t, Some(k)))
}

/// How often the run reports its progress on stderr (ms).
const REPORT_MS: f64 = 1000.0;

/// The driver's store: vectors (for an embedding run), then the journal line, then progress
/// once a second on stderr.
struct Journal {
    journal: std::fs::File,
    name: String,
    vectors: Option<VectorSink>,
}

impl driver::Store for Journal {
    fn store(&mut self, record: &Record, embeddings: Option<&[Vec<f64>]>) -> Result<(), String> {
        // Vectors first: a journaled call must have its vectors on disk.
        if let (Some(sink), Some(v)) = (&mut self.vectors, embeddings) {
            sink.write(record, v)?;
        }
        self.journal
            .write_all(journal::line(record).as_bytes())
            .map_err(|e| format!("{}: cannot append: {e}", self.name))
    }

    fn tick(&mut self, engine: &mut Engine, now: f64) {
        let p = engine.progress(now);
        let eta = p.eta_s.map_or("?".to_string(), |s| format!("{s:.0} s"));
        note(format_args!(
            "run: {}/{} done, {} failed, {} remaining, {} in flight, {:.1} calls/s, ETA {eta}",
            p.answered + p.failed,
            p.total,
            p.failed,
            p.remaining,
            p.in_flight,
            p.per_second
        ));
    }
}

fn journal_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".journal.jsonl");
    out.with_file_name(name)
}

#[derive(Serialize)]
struct Summary {
    total: u64,
    answered: u64,
    failed: u64,
    pending: u64,
    /// Records taken from the journal instead of being sent.
    restored: usize,
    /// Calls settled by this invocation, and the attempts after their first.
    settled_now: u64,
    retries: u64,
    seconds: f64,
    calls_per_second: f64,
    tokens_in: u64,
    tokens_out: u64,
    cost: f64,
    currency: String,
    out: String,
    journal: String,
    failures: Vec<evenhand::run::progress::Failure>,
}

/// Fails unless `path` can be written the way the run writes it at the end (a temporary file
/// beside it, renamed over it): not a folder, in a folder that exists and takes new files.
fn check_writable(path: &Path) -> Result<(), Failure> {
    let name = path.display();
    if path.is_dir() {
        return Err(Failure::new(format!("{name}: is a folder; --out expects a file name such as {name}/records.csv")));
    }
    let mut tmp = path.as_os_str().to_os_string();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let existed = tmp.exists();
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&tmp)
        .map_err(|e| Failure::new(format!("{name}: cannot be written ({e}); nothing was sent")))?;
    if !existed {
        let _ = std::fs::remove_file(&tmp);
    }
    Ok(())
}

pub fn run(a: Args) -> Outcome {
    if a.dry_run && a.embed.is_none() {
        // The estimate is read case by case (run::dry_run), never holding the plan's calls.
        let (spec, spec_name, cases) = load_spec(&a.scenario, a.cases.as_deref())?;
        let name = cases.display().to_string();
        let estimate = evenhand::run::dry_run::estimate(&spec, &name, &read(&cases)?).map_err(|e| match e {
            DryRunError::Cases(_) => Failure::new(e.to_string()),
            DryRunError::Plan(e) => Failure::new(format!("{spec_name}: {e}")),
        })?;
        print_json(&estimate)?;
        return Ok(ExitCode::SUCCESS);
    }
    let plan = match &a.embed {
        Some(texts) => load_embed_plan(&a.scenario, texts, a.batch_size)?,
        None => load_plan(&a.scenario, a.cases.as_deref())?,
    };
    let estimate = plan.estimate();
    if a.dry_run {
        print_json(&estimate)?;
        return Ok(ExitCode::SUCCESS);
    }
    if !estimate.confirm.is_empty() && !a.yes {
        print_json(&estimate)?;
        return Err(Failure::new(format!(
            "this run needs confirmation ({}); check the estimate above and pass --yes to start it",
            estimate.confirm.join("; ")
        )));
    }
    // Every output path is checked before the first call: a run that pays for its calls and
    // then cannot write its table has lost them (the journal keeps them, but say it now).
    check_writable(&a.out)?;
    if let Some(path) = &a.embeddings_out {
        check_writable(path)?;
    }
    let keys = keys(&plan.spec)?;
    let out_name = a.out.display().to_string();
    let format = FileFormat::detect(&out_name, "");
    let journal_file = journal_path(&a.out);
    // Held until the run ends: a second run on this journal would send every call again.
    let _lock = super::lock::acquire(&journal_file)?;
    let jname = journal_file.display().to_string();
    let mut engine = Engine::new(plan, &keys);
    let mut restored = 0;
    let mut tail = journal::Tail::Clean;
    if a.fresh {
        match std::fs::remove_file(&journal_file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Failure::new(format!("{jname}: cannot remove: {e}"))),
        }
    } else if journal_file.exists() {
        let text = read_text(&journal_file)?;
        let j = journal::read(&jname, &text)?;
        for w in &j.warnings {
            note(format_args!("evenhand: {w}"));
        }
        tail = j.tail;
        restored = engine.restore(&j.records);
        let stale = engine.stale();
        if !stale.is_empty() {
            let shown: Vec<&str> = stale.iter().take(5).map(String::as_str).collect();
            note(format_args!(
                "evenhand: {jname}: {} records were made for a different request (prompt, model or parameters changed since) and will be sent again: {}{}",
                stale.len(),
                shown.join(", "),
                if stale.len() > shown.len() { ", ..." } else { "" }
            ));
        }
        let pending = j.records.iter().filter(|r| r.status == evenhand::record::Status::Pending).count();
        if pending > 0 {
            note(format_args!(
                "evenhand: {jname}: {pending} records were still pending (never answered) and will be sent"
            ));
        }
        let unknown = j.records.len().saturating_sub(restored + stale.len() + pending);
        if unknown > 0 {
            note(format_args!(
                "evenhand: {jname}: {unknown} records belong to no call of this plan and were left alone"
            ));
        }
    }
    if a.retry_failed {
        engine.retry_failed();
    }
    let vectors = match &a.embed {
        Some(_) => {
            let path = a.embeddings_out.clone().unwrap_or_else(|| {
                let mut name = a.out.file_name().unwrap_or_default().to_os_string();
                name.push(".embeddings.jsonl");
                a.out.with_file_name(name)
            });
            Some(VectorSink::open(&path, a.fresh)?)
        }
        None => None,
    };
    let mut journal = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&journal_file)
        .map_err(|e| Failure::new(format!("{jname}: cannot open for writing: {e}")))?;
    // A crash may have left the last line without its newline; never glue a record onto it.
    match tail {
        journal::Tail::Clean => {}
        journal::Tail::MissingNewline => {
            journal.write_all(b"\n").map_err(|e| Failure::new(format!("{jname}: cannot append: {e}")))?
        }
        journal::Tail::Cut { keep } => {
            journal.set_len(keep).map_err(|e| Failure::new(format!("{jname}: cannot drop the cut last line: {e}")))?
        }
    }

    let workers = engine.plan().spec.targets.iter().map(|t| t.concurrency as usize).sum::<usize>();
    let pool = Pool::new(workers);
    let engine = RefCell::new(engine);
    let overhead = RefCell::new(Overhead::default());
    let mut store = Journal { journal, name: jname.clone(), vectors };
    let clock = Clock::start();
    let stop = pollster::block_on(driver::drive(
        &engine,
        &pool,
        &clock,
        &mut store,
        &overhead,
        &mut futures_util::stream::pending(),
        REPORT_MS,
    ));
    drop(pool);
    let mut engine = engine.into_inner();
    let settled_now = overhead.borrow().calls;
    let now = || driver::Clock::now(&clock);
    let seconds = now() / 1000.0;
    let records: Vec<Record> = engine.records().cloned().collect();
    write_atomically(&a.out, &formats::write(&records, format))?;
    let p = engine.progress(now());
    let summary = Summary {
        total: p.total,
        answered: p.answered,
        failed: p.failed,
        pending: p.remaining,
        restored,
        settled_now,
        retries: p.retries,
        seconds,
        calls_per_second: if seconds > 0.0 { settled_now as f64 / seconds } else { 0.0 },
        tokens_in: p.tokens_in,
        tokens_out: p.tokens_out,
        cost: p.cost,
        currency: p.currency.clone(),
        out: out_name,
        journal: jname,
        failures: p.failures.into_iter().take(20).collect(),
    };
    let printed = print(&(scrub(&serde_json::to_string_pretty(&summary)?, &keys) + "\n"));
    // A journal that could not be written matters more than a reader that went away.
    if let Stop::StoreFailed(e) = stop {
        return Err(Failure::new(e));
    }
    printed?;
    Ok(if p.total > 0 && p.failed == p.total { ExitCode::from(3) } else { ExitCode::SUCCESS })
}
