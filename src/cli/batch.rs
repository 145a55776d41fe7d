//! `evenhand batch export|import`: a run spec's plan through OpenAI's Batch API or Anthropic's
//! Message Batches instead of live calls (see [`evenhand::run::batch`]).

use super::run::load_plan;
use super::{Failure, Outcome, note, print_json, read_text, write_atomically};
use evenhand::formats::{self, FileFormat};
use evenhand::providers::ProviderKind;
use evenhand::run::batch::{self, Imported};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(clap::Subcommand)]
pub enum Action {
    /// Write the plan's calls to one provider as its batch request file (OpenAI: JSONL, one
    /// request a line; Anthropic: the Message Batches request body, JSON).
    Export {
        #[arg(long)]
        scenario: PathBuf,
        #[arg(long)]
        cases: Option<PathBuf>,
        /// openai or anthropic.
        #[arg(long)]
        provider: String,
        #[arg(long)]
        out: PathBuf,
    },
    /// Read a provider's batch result file (JSONL) into the plan's records, matching each
    /// result to its call by custom_id; reports the calls without a result and unknown ids.
    Import {
        #[arg(long)]
        scenario: PathBuf,
        #[arg(long)]
        cases: Option<PathBuf>,
        /// openai or anthropic.
        #[arg(long)]
        provider: String,
        /// The result file the provider returned.
        #[arg(long)]
        results: PathBuf,
        /// The record table to write (.csv, .jsonl or .json).
        #[arg(long)]
        out: PathBuf,
    },
}

fn provider(text: &str) -> Result<ProviderKind, Failure> {
    match text.to_ascii_lowercase().as_str() {
        "openai" => Ok(ProviderKind::OpenAi),
        "anthropic" => Ok(ProviderKind::Anthropic),
        _ => Err(Failure::new(format!("--provider: expected openai or anthropic, found {text:?}"))),
    }
}

pub fn run(a: Args) -> Outcome {
    match a.action {
        Action::Export { scenario, cases, provider: p, out } => {
            let kind = provider(&p)?;
            let plan = load_plan(&scenario, cases.as_deref())?;
            let (text, requests) = batch::export(&plan, kind)?;
            write_atomically(&out, &text)?;
            #[derive(Serialize)]
            struct Done {
                provider: String,
                requests: usize,
                out: String,
            }
            print_json(&Done { provider: p.to_ascii_lowercase(), requests, out: out.display().to_string() })?;
            Ok(ExitCode::SUCCESS)
        }
        Action::Import { scenario, cases, provider: p, results, out } => {
            let kind = provider(&p)?;
            let plan = load_plan(&scenario, cases.as_deref())?;
            let name = results.display().to_string();
            let text = read_text(&results)?;
            let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
            let imported: Imported =
                batch::import(&plan, kind, &text, now).map_err(|e| Failure::new(format!("{name}: {e}")))?;
            let out_name = out.display().to_string();
            write_atomically(&out, &formats::write(&imported.records, FileFormat::detect(&out_name, "")))?;
            #[derive(Serialize)]
            struct Done<'a> {
                total: usize,
                #[serde(flatten)]
                imported: &'a Imported,
                out: String,
            }
            if !imported.missing.is_empty() {
                note(format_args!(
                    "evenhand: {name}: {} calls have no result and stay pending",
                    imported.missing.len()
                ));
            }
            if !imported.unknown.is_empty() {
                note(format_args!("evenhand: {name}: {} results match no call of this plan", imported.unknown.len()));
            }
            print_json(&Done { total: imported.records.len(), imported: &imported, out: out_name })?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
