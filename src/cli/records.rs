//! The record table and the demo method: `validate`, `analyze` and `demo`.

use super::{Failure, Outcome, create_dir, note, print_json, read, records_parquet, write_bytes, write_in};
use evenhand::demo::Experiment;
use evenhand::demo::analysis::Settings;
use evenhand::demo::workspace::Workspace;
use evenhand::formats::{self, ColumnMapping, LoadError};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ValidateArgs {
    file: PathBuf,
    /// Column mapping for a CSV from another tool, as JSON: {"response": "output", ...}.
    #[arg(long)]
    mapping: Option<String>,
}

#[derive(clap::Args)]
pub struct ConvertArgs {
    /// The record file to read (CSV, JSONL, JSON or Parquet).
    file: PathBuf,
    /// Where to write.
    #[arg(long)]
    out: PathBuf,
    /// csv, jsonl, json or parquet; by default the extension of --out.
    #[arg(long)]
    format: Option<String>,
    /// Column mapping for a CSV from another tool, as JSON: {"response": "output", ...}.
    #[arg(long)]
    mapping: Option<String>,
}

#[derive(clap::Args)]
pub struct AnalyzeArgs {
    file: PathBuf,
    /// Fields to group by, comma separated (concern, language, community, model, ...).
    #[arg(long, value_delimiter = ',')]
    group_by: Option<Vec<String>>,
    #[arg(long)]
    tolerance: Option<f64>,
    #[arg(long)]
    confidence: Option<f64>,
}

#[derive(clap::Args)]
pub struct DemoArgs {
    #[arg(long)]
    out: PathBuf,
    /// An experiment JSON (as in a bundle's "experiment"); defaults to the built-in demo.
    #[arg(long)]
    experiment: Option<PathBuf>,
    #[arg(long)]
    seed: Option<u64>,
    #[arg(long)]
    samples: Option<u32>,
}

pub fn validate(a: ValidateArgs) -> Outcome {
    let mapping: Option<ColumnMapping> = a
        .mapping
        .map(|m| serde_json::from_str(&m))
        .transpose()
        .map_err(|e| Failure::new(format!("--mapping: expected a JSON object of field to column: {e}")))?;
    let name = a.file.display().to_string();
    // Validation keeps no record (formats::check), so a table of any length fits in memory.
    match formats::check(&name, &read(&a.file)?, mapping.as_ref()) {
        Ok(loaded) => {
            for p in loaded.errors.iter().chain(&loaded.warnings) {
                note(p);
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
                records: loaded.count(),
                errors: &loaded.errors,
                warnings: &loaded.warnings,
            })?;
            Ok(if loaded.errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Err(LoadError::NeedsMapping(req)) => {
            print_json(&req)?;
            Err(Failure::new(format!(
                "{name}: no column maps to {}; pass --mapping '{{\"response\": \"<column>\"}}' (columns: {})",
                req.missing.join(", "),
                req.headers.join(", ")
            )))
        }
        Err(e) => Err(e.into()),
    }
}

pub fn convert(a: ConvertArgs) -> Outcome {
    let out_name = a.out.display().to_string();
    let format = match a.format.as_deref() {
        Some(f) => f.to_ascii_lowercase(),
        None => a.out.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default(),
    };
    let mapping: Option<ColumnMapping> = a
        .mapping
        .map(|m| serde_json::from_str(&m))
        .transpose()
        .map_err(|e| Failure::new(format!("--mapping: expected a JSON object of field to column: {e}")))?;
    let name = a.file.display().to_string();
    let loaded = formats::load(&name, &read(&a.file)?, mapping.as_ref())?;
    for p in loaded.errors.iter().chain(&loaded.warnings) {
        note(p);
    }
    if !loaded.errors.is_empty() {
        return Err(Failure::new(format!(
            "{name}: {} rows were not read (listed above); nothing written",
            loaded.errors.len()
        )));
    }
    let bytes = match format.as_str() {
        "parquet" | "parq" | "pq" => records_parquet(&out_name, &loaded.records)?,
        "csv" => formats::write(&loaded.records, formats::FileFormat::Csv).into_bytes(),
        "jsonl" | "ndjson" => formats::write(&loaded.records, formats::FileFormat::Jsonl).into_bytes(),
        "json" => formats::write(&loaded.records, formats::FileFormat::Json).into_bytes(),
        other => {
            return Err(Failure::new(format!(
                "--format: expected csv, jsonl, json or parquet, found {other:?} (from {out_name})"
            )));
        }
    };
    write_bytes(&a.out, &bytes)?;
    #[derive(Serialize)]
    struct Done<'a> {
        file: &'a str,
        out: &'a str,
        format: &'a str,
        records: usize,
        warnings: usize,
    }
    print_json(&Done {
        file: &name,
        out: &out_name,
        format: &format,
        records: loaded.records.len(),
        warnings: loaded.warnings.len(),
    })?;
    Ok(ExitCode::SUCCESS)
}

pub fn analyze(a: AnalyzeArgs) -> Outcome {
    let name = a.file.display().to_string();
    let bytes = read(&a.file)?;
    let mut ws = Workspace::demo();
    let text = String::from_utf8_lossy(&bytes);
    if text.contains("\"evenhand-bundle\"") {
        let summary = ws.open_bundle(&name, &text, None)?;
        if summary.identical == Some(false) {
            note(format_args!("{name}: the recomputed numbers differ from the ones stored in the bundle"));
        }
    } else {
        let summary = ws.load(&name, &bytes, None)?;
        for p in summary.errors.iter().chain(&summary.warnings) {
            note(p);
        }
    }
    let mut settings: Settings = ws.settings.clone();
    if let Some(g) = a.group_by {
        settings.group_by = g;
    }
    settings.tolerance = a.tolerance.unwrap_or(settings.tolerance);
    if let Some(c) = a.confidence {
        settings.confidence = evenhand::stats::confidence::Confidence::new(c)
            .map_err(|e| Failure::new(e.in_field("--confidence").to_string()))?;
    }
    ws.set_settings(settings)?;
    print_json(&ws.view()?.analysis)?;
    Ok(ExitCode::SUCCESS)
}

pub fn demo(a: DemoArgs) -> Outcome {
    let mut exp: Experiment = match &a.experiment {
        Some(path) => {
            serde_json::from_slice(&read(path)?).map_err(|e| Failure::new(format!("{}: {e}", path.display())))?
        }
        None => Experiment::default(),
    };
    exp.seed = a.seed.unwrap_or(exp.seed);
    exp.samples = a.samples.unwrap_or(exp.samples);
    let mut ws = Workspace::demo();
    ws.run(exp)?;
    let out = &a.out;
    create_dir(out)?;
    let view = ws.view()?;
    let files = vec![
        write_in(out, "bundle.json", &ws.bundle()?)?,
        write_in(out, "records.csv", &ws.export("csv")?)?,
        write_in(out, "records.jsonl", &ws.export("jsonl")?)?,
        write_in(out, "analysis.json", &serde_json::to_string_pretty(&view.analysis)?)?,
        write_in(out, "pass_rates.svg", &view.chart_svg)?,
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
