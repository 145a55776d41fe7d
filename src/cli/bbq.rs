//! `evenhand bbq`: bias QA benchmarks (BBQ, GG-BBQ, KoBBQ-style) scored from predictions.

use super::datasets::{Input, resolve};
use super::{Failure, Outcome, note, print_json, read};
use evenhand::bbq::example::Example;
use evenhand::bbq::{import, metrics, score};
use evenhand::catalogue::FileFormat;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A data file (BBQ jsonl, GG-BBQ jsonl or a KoBBQ-style table), or catalogue:NAME[/FILE];
    /// repeat for several. Without --predictions, the answers the rows carry are scored
    /// (a `prediction` field, or BBQ's released `<model>_pred_<format>` columns, one model each).
    #[arg(long, required = true)]
    data: Vec<PathBuf>,
    /// A predictions file, or catalogue:NAME[/FILE]; repeat for several models (the model is
    /// the file name unless the file has a model column, or BBQ's `<model>_pred_<format>` columns).
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
    // Answers the data rows carry themselves (a `prediction` field, BBQ's released
    // `<model>_pred_<format>` columns): used when no --predictions is given.
    let mut carried = vec![];
    for arg in &a.data {
        for input in resolve(arg)? {
            let name = input.name();
            let ds = import::read(&name, &read(&input.path)?, None, input.language())?;
            for p in &ds.problems {
                note(p);
            }
            carried.extend(score::inline_predictions(&ds.examples, &ds, import::stem(&name)));
            examples.extend(ds.examples);
        }
    }
    // Predictions are judged as they are read: what is kept per answer is what the metrics need.
    let mut judge = score::Judge::new(&examples, "predictions", false);
    let mut count = 0;
    for arg in &a.predictions {
        for input in resolve(arg)? {
            count += predictions(&a, &examples, &input, &mut judge)?;
        }
    }
    if a.predictions.is_empty() {
        count = carried.len();
        for p in &carried {
            judge.take(p);
        }
    }
    let settings = metrics::BootstrapSettings { replicates: a.replicates, seed: a.seed, ..Default::default() };
    let matched = judge.finish();
    for p in &matched.unmatched {
        note(p);
    }
    // Joined by id is not enough: answers that do not fit their examples were made on other data.
    let given = if a.predictions.is_empty() {
        "the data's predictions".to_string()
    } else {
        a.predictions.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    };
    matched.refuse_misfits(&given)?;
    if matched.judged.is_empty() {
        return Err(Failure::new(nothing_judged(&a, examples.len(), count)));
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

/// Judges the predictions of one file, read as --format says (or as the catalogue says the file
/// is), and returns how many were read.
fn predictions(a: &Args, examples: &[Example], input: &Input, judge: &mut score::Judge) -> Result<usize, Failure> {
    let name = input.name();
    let bytes = read(&input.path)?;
    let model = import::stem(&name).to_string();
    let from_catalogue = input.file.as_ref().map(|f| f.format);
    let format = match (a.format.as_deref(), from_catalogue) {
        (Some(f), _) => Some(f),
        (None, Some(FileFormat::BbqJsonl | FileFormat::BbqPredictionsJsonl)) => Some("bbq"),
        (None, Some(FileFormat::GgbbqJsonl)) => Some("ggbbq"),
        (None, Some(FileFormat::KobbqTsv)) => Some("kobbq"),
        (None, _) => None,
    };
    Ok(match format {
        Some(f @ ("bbq" | "ggbbq" | "kobbq")) => {
            let format = match f {
                "bbq" => import::Format::Bbq,
                "ggbbq" => import::Format::Ggbbq,
                _ => import::Format::Kobbq,
            };
            let rows = import::read(&name, &bytes, Some(format), input.language())?;
            if rows.inline_predictions.is_empty() {
                // Rows without the field would judge nothing and report an empty result.
                return Err(Failure::new(format!(
                    "{name}: no row carried a prediction; --format {f} reads it from the field `prediction` \
                     or from BBQ's `<model>_pred_<format>` columns (for other layouts, pass a table with an id \
                     and an answer column and no --format)"
                )));
            }
            let found = score::inline_predictions(examples, &rows, &model);
            for p in &found {
                judge.take(p);
            }
            found.len()
        }
        None | Some("records") | Some("table") => {
            let mut count = 0;
            let problems = score::scan_predictions(&name, &bytes, &model, &mut |p| {
                count += 1;
                judge.take(&p)
            })?;
            for p in &problems {
                note(p);
            }
            count
        }
        Some(other) => {
            return Err(Failure::new(format!("--format: expected bbq, ggbbq, kobbq or records, found {other:?}")));
        }
    })
}

/// Why no example was judged: a result with no answers in it must not pass for one.
fn nothing_judged(a: &Args, examples: usize, predictions: usize) -> String {
    if examples == 0 {
        "no example was read from --data (see the problems above); nothing to judge".into()
    } else if predictions == 0 && a.predictions.is_empty() {
        format!(
            "{examples} examples read, but no predictions: pass --predictions FILE, or data rows that carry \
             their answers (a `prediction` field, or BBQ's `<model>_pred_<format>` columns)"
        )
    } else {
        format!(
            "none of the {predictions} predictions matched one of the {examples} examples (see the unmatched \
             predictions above); check that the predictions belong to this data"
        )
    }
}
