//! The statistics on their own: `power`, `mcnemar` and `permanova`, and the option values
//! they share with the method subcommands.

use super::{Failure, Outcome, note, print_json, read};
use evenhand::formats::embeddings as emb;
use evenhand::stats::distance::Distance;
use evenhand::stats::mcnemar::{self, Convention, Method, Table};
use evenhand::stats::multivariate::Vectors;
use evenhand::stats::permanova::{self, Input, Options};
use evenhand::stats::permdisp::Center;
use evenhand::stats::power::{self as power_calc, PowerQuery};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct PowerArgs {
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
}

#[derive(clap::Args)]
pub struct McnemarArgs {
    /// The four counts N00,N01,N10,N11.
    #[arg(long)]
    table: String,
    /// exact (binomial, statsmodels' default), midp, chi2 or chi2-cc (continuity corrected).
    #[arg(long, default_value = "exact")]
    method: String,
    /// statsmodels or r: whose continuity correction chi2-cc follows when b = c.
    #[arg(long, default_value = "statsmodels")]
    convention: String,
}

#[derive(clap::Args)]
pub struct PermanovaArgs {
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
    /// PERMDISP's centre: centroid (group means) or median (spatial medians, as scikit-bio's
    /// and vegan's default). The output's permdisp.center and permdisp.mode name it.
    #[arg(long, default_value = "centroid")]
    permdisp: String,
}

/// `--method` of the McNemar tests.
pub fn method(text: &str) -> Result<Method, Failure> {
    Ok(match text.to_ascii_lowercase().as_str() {
        "exact" => Method::Exact,
        "midp" | "mid-p" => Method::MidP,
        "chi2" => Method::Chi2,
        "chi2-cc" | "chi2cc" => Method::Chi2Cc,
        _ => return Err(Failure::new(format!("--method: expected exact, midp, chi2 or chi2-cc, found {text:?}"))),
    })
}

/// `--convention` of the McNemar tests.
pub fn convention(text: &str) -> Result<Convention, Failure> {
    match text.to_ascii_lowercase().as_str() {
        "statsmodels" => Ok(Convention::Statsmodels),
        "r" => Ok(Convention::R),
        _ => Err(Failure::new(format!("--convention: expected statsmodels or r, found {text:?}"))),
    }
}

/// `--distance` between embeddings.
pub fn distance(text: &str) -> Result<Distance, Failure> {
    Distance::parse(text).ok_or_else(|| {
        Failure::new(format!("--distance: expected euclidean, chord, cosine or cosine-similarity-bug, found {text:?}"))
    })
}

pub fn power(a: PowerArgs) -> Outcome {
    let q = PowerQuery {
        rate_a: a.rate_a,
        rate_b: a.rate_b,
        sizes: a.sizes,
        alpha: a.alpha,
        repetitions: a.repetitions,
        seed: a.seed,
    };
    print_json(&power_calc::power(&q)?)?;
    Ok(ExitCode::SUCCESS)
}

pub fn mcnemar(a: McnemarArgs) -> Outcome {
    let table = &a.table;
    let counts: Vec<u64> = table
        .split(',')
        .map(|s| s.trim().parse::<u64>())
        .collect::<Result<_, _>>()
        .ok()
        .filter(|c: &Vec<u64>| c.len() == 4)
        .ok_or_else(|| {
            Failure::new(format!("--table: expected four non-negative integers N00,N01,N10,N11, found {table:?}"))
        })?;
    let (method, convention) = (method(&a.method)?, convention(&a.convention)?);
    let t =
        Table::new(counts[0], counts[1], counts[2], counts[3]).map_err(|e| Failure::new(format!("--table: {e}")))?;
    print_json(&mcnemar::mcnemar(&t, method, convention))?;
    Ok(ExitCode::SUCCESS)
}

pub fn permanova(a: PermanovaArgs) -> Outcome {
    let groups_name = a.groups.display().to_string();
    let group_rows = emb::read_groups(&groups_name, &read(&a.groups)?)?;
    let center = Center::parse(&a.permdisp)
        .ok_or_else(|| Failure::new(format!("--permdisp: expected centroid or median, found {:?}", a.permdisp)))?;
    let options = Options { permutations: a.permutations, seed: a.seed, permdisp: center };
    let (unused, report) = if let Some(path) = &a.embeddings {
        let d = distance(&a.distance)?;
        let name = path.display().to_string();
        let mut table = emb::read_embeddings(&name, &read(path)?)?;
        let (labels, unused) = emb::labels_for(&table.ids, (&name, &table.lines), &group_rows, &groups_name)?;
        let v = Vectors::from_flat(table.dim, std::mem::take(&mut table.values)).map_err(|e| table.locate(e))?;
        (unused, permanova::permanova(Input::Vectors(&v, d), &labels, options).map_err(|e| table.locate(e))?)
    } else {
        let path = a.distances.as_ref().ok_or_else(|| Failure::new("expected --embeddings or --distances"))?;
        let name = path.display().to_string();
        let (ids, dm) = emb::read_distance_matrix(&name, &read(path)?)?;
        let located = |e: evenhand::stats::multivariate::MultivariateError| Failure::new(format!("{name}: {e}"));
        let (labels, unused) = emb::labels_for(&ids, (&name, &[]), &group_rows, &groups_name)?;
        (unused, permanova::permanova(Input::Matrix(&dm), &labels, options).map_err(located)?)
    };
    if !unused.is_empty() {
        note(format_args!(
            "{groups_name}: {} ids have no vector and were ignored (first: {:?})",
            unused.len(),
            unused[0]
        ));
    }
    if let Some(w) = &report.warning {
        note(format_args!("evenhand: {w}"));
    }
    print_json(&report)?;
    Ok(ExitCode::SUCCESS)
}
