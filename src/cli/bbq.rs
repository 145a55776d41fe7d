//! `evenhand bbq`: bias QA benchmarks (BBQ, GG-BBQ, KoBBQ-style) scored from predictions.

use super::{Failure, Outcome, note, print_json, read};
use evenhand::bbq::{import, metrics, score};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
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
}

pub fn run(a: Args) -> Outcome {
    let mut examples = vec![];
    for path in &a.data {
        let name = path.display().to_string();
        let ds = import::read(&name, &read(path)?, None, None)?;
        for p in &ds.problems {
            note(p);
        }
        examples.extend(ds.examples);
    }
    // Predictions are judged as they are read: what is kept per answer is what the metrics need.
    let mut judge = score::Judge::new(&examples, "predictions", false);
    for path in &a.predictions {
        let name = path.display().to_string();
        let bytes = read(path)?;
        let model = import::stem(&name).to_string();
        match a.format.as_deref() {
            Some(f @ ("bbq" | "ggbbq" | "kobbq")) => {
                let f = match f {
                    "bbq" => import::Format::Bbq,
                    "ggbbq" => import::Format::Ggbbq,
                    _ => import::Format::Kobbq,
                };
                let rows = import::read(&name, &bytes, Some(f), None)?;
                if rows.inline_predictions.is_empty() {
                    // Rows without the field would judge nothing and report an empty result.
                    return Err(Failure::new(format!(
                        "{name}: no row carried a prediction; --format {} reads it from the field `prediction` \
                         (for other layouts, pass a table with an id and an answer column and no --format)",
                        a.format.as_deref().unwrap_or_default()
                    )));
                }
                for p in score::inline_predictions(&examples, &rows, &model) {
                    judge.take(&p);
                }
            }
            None | Some("records") | Some("table") => {
                let problems = score::scan_predictions(&name, &bytes, &model, &mut |p| judge.take(&p))?;
                for p in &problems {
                    note(p);
                }
            }
            Some(other) => {
                return Err(Failure::new(format!("--format: expected bbq, ggbbq, kobbq or records, found {other:?}")));
            }
        }
    }
    let settings = metrics::BootstrapSettings { replicates: a.replicates, seed: a.seed, ..Default::default() };
    let matched = judge.finish();
    for p in &matched.unmatched {
        note(p);
    }
    let report = score::report(&examples, &matched, &settings);
    let comparison = match a.compare.as_deref() {
        None => None,
        Some(field @ ("model" | "language")) => {
            let key = |j: &metrics::Judged| {
                if field == "model" { j.model.clone() } else { examples[j.example].language.clone() }
            };
            let mut values: Vec<String> = matched.judged.iter().map(key).collect();
            values.sort();
            values.dedup();
            let [x, y] = &values[..] else {
                return Err(Failure::new(format!(
                    "--compare {field}: expected exactly two values, found {}: {values:?}",
                    values.len()
                )));
            };
            let side = |v: &String| matched.judged.iter().filter(|j| &key(j) == v).cloned().collect::<Vec<_>>();
            Some((x.clone(), y.clone(), metrics::compare(&examples, &side(x), &side(y), &settings)))
        }
        Some(other) => {
            return Err(Failure::new(format!("--compare: expected model or language, found {other:?}")));
        }
    };
    #[derive(Serialize)]
    struct Out {
        report: score::Report,
        comparison: Option<(String, String, metrics::Comparison)>,
    }
    print_json(&Out { report, comparison })?;
    Ok(ExitCode::SUCCESS)
}
