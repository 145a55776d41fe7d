//! `evenhand import lm-eval|inspect|promptfoo FILE...`: other harnesses' logs as a record table,
//! and (with `--report`) what Evenhand makes of them: BBQ's figures beside the harness's own,
//! the paired comparison of the models, pass rates of graded results.

use super::{Failure, Outcome, note, print_json, read, write_bytes, write_cases};
use evenhand::logs::{self, Harness};
use evenhand::study::format::Statistics;
use evenhand::study::logs as analysis;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The harness that wrote the logs: lm-eval, inspect or promptfoo. Each file is also
    /// recognised by its content, and one written by another harness is refused.
    harness: String,
    /// Log files: lm-eval's samples_<task>_<time>.jsonl with the results_<time>.json beside
    /// it, Inspect's .eval or .json logs, promptfoo's results.json. A folder is read whole.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The record table to write (csv, jsonl, json or parquet, by extension).
    #[arg(long)]
    out: PathBuf,
    /// Also write the analysis: per model BBQ's figures with intervals beside the harness's,
    /// the paired comparison of two or more models, pass rates of graded results (JSON).
    #[arg(long)]
    report: Option<PathBuf>,
    /// Confidence level of every interval.
    #[arg(long, default_value_t = 0.95)]
    confidence: f64,
    /// Bootstrap replicates (BBQ's intervals and the paired bootstraps).
    #[arg(long, default_value_t = 1000)]
    replicates: u32,
}

/// The files given, a folder's files in name order.
fn expand(files: &[PathBuf]) -> Result<Vec<(String, Vec<u8>)>, Failure> {
    let mut out = vec![];
    for f in files {
        if f.is_dir() {
            let mut inner: Vec<PathBuf> = std::fs::read_dir(f)
                .map_err(|e| Failure::new(format!("{}: cannot read the folder: {e}", f.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect();
            inner.sort();
            for p in inner {
                out.push((p.display().to_string(), read(&p)?));
            }
        } else {
            out.push((f.display().to_string(), read(f)?));
        }
    }
    Ok(out)
}

pub fn run(a: Args) -> Outcome {
    let harness = Harness::parse(&a.harness).ok_or_else(|| {
        Failure::new(format!("harness: expected lm-eval, inspect or promptfoo, found {:?}", a.harness))
    })?;
    let files = expand(&a.files)?;
    for (name, bytes) in &files {
        match logs::detect(bytes) {
            Some(k) if k.harness() == harness => {}
            Some(k) => {
                return Err(Failure::new(format!(
                    "{name}: this is a {} log, not {}'s; give it with `evenhand import {}`",
                    k.harness().title(),
                    harness.title(),
                    k.harness().as_str()
                )));
            }
            None => return Err(logs::read(name, bytes, None).unwrap_err().into()),
        }
    }
    let logs = logs::read_all(&files)?;
    for log in &logs {
        for n in &log.notes {
            note(format!("{}: {n}", log.file));
        }
    }
    let (records, rebuilt) = analysis::records(&logs);
    for p in &rebuilt.problems {
        note(p);
    }
    for m in &rebuilt.missing {
        note(m);
    }
    write_cases(&a.out, &records)?;
    let statistics = Statistics {
        confidence: evenhand::stats::confidence::Confidence::new(a.confidence)
            .map_err(|e| Failure::new(format!("--confidence: {e}")))?,
        replicates: a.replicates,
        ..Statistics::default()
    };
    if let Some(path) = &a.report {
        let report = analysis::analyse(&logs, &statistics, "")?;
        let text = serde_json::to_string_pretty(&report).map_err(|e| Failure::new(e.to_string()))?;
        write_bytes(path, text.as_bytes())?;
    }
    #[derive(Serialize)]
    struct Done {
        harness: &'static str,
        logs: Vec<analysis::LogSummary>,
        records: usize,
        bbq_records: usize,
        bbq_examples: usize,
        out: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        report: Option<String>,
    }
    print_json(&Done {
        harness: harness.as_str(),
        logs: logs
            .iter()
            .map(|l| {
                let mut s = analysis::summary(l);
                s.reported.clear();
                s
            })
            .collect(),
        records: records.len(),
        bbq_records: rebuilt.records.len(),
        bbq_examples: rebuilt.examples.len(),
        out: a.out.display().to_string(),
        report: a.report.as_ref().map(|p| p.display().to_string()),
    })?;
    Ok(ExitCode::SUCCESS)
}
