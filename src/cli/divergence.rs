//! `evenhand divergence`: cultural divergence from log-probabilities or sampled completions,
//! or from the simulated model with a cultural lean. Drives the same session as the page.

use super::{Failure, Outcome, note, print_json, read, write, write_cases};
use evenhand::divergence::analysis::SettingsText;
use evenhand::divergence::builtin;
use evenhand::divergence::reference::Columns;
use evenhand::divergence::session::{self, Session, SimRequest};
use evenhand::divergence::simulate::Lean;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A probe set JSON file, or a built-in one: pl-western, de-western.
    #[arg(long, default_value = "pl-western")]
    probes: String,
    /// CULTURE[:ASPECT]=[SHAPE:]FILE, repeatable. CULTURE: local or western; ASPECT may be left
    /// out when the probe set has one aspect; SHAPE: table, ssa, census, geonames or pesel
    /// (detected when absent), or table[name=COLUMN,weight=COLUMN] to map a table's columns. Given files replace the shipped reference of their pair;
    /// several for one pair add up.
    #[arg(long)]
    reference: Vec<String>,
    /// Scoring mode: a table of context_id, filler, logprob (and model).
    #[arg(long, conflicts_with_all = ["records", "simulate"])]
    logprobs: Option<PathBuf>,
    /// A record table: sampled completions (case_id a context id), or the records of a
    /// scoring run (job score, logprob_sum), such as `evenhand run` writes for --plan-out cases.
    #[arg(long, conflicts_with = "simulate")]
    records: Option<PathBuf>,
    /// Write the cases of a live run instead of analyzing: one per context (sample) or per
    /// context and filler (score), as JSONL (or CSV / JSON by extension), for
    /// `evenhand run --cases FILE`; then read its records back with --records.
    #[arg(long, conflicts_with_all = ["logprobs", "records", "simulate"])]
    plan_out: Option<PathBuf>,
    /// With --plan-out: score (log-probabilities from an OpenAI-compatible server) or sample.
    #[arg(long, default_value = "score")]
    mode: String,
    /// Run the simulated model instead: scoring or sampling.
    #[arg(long)]
    simulate: Option<String>,
    /// The simulated model(s): a JSON object or array, e.g. '{"name":"m","lean":0.3,"samples":20}'.
    #[arg(long)]
    lean: Option<String>,
    /// With --simulate: also write the simulated log-probabilities or records (CSV) here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// add-alpha:A, floor:E or none.
    #[arg(long, default_value = "add-alpha:0.5")]
    smoothing: String,
    /// Seed of the bootstrap (and of the simulation).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// nats or bits.
    #[arg(long, default_value = "nats")]
    unit: String,
    #[arg(long, default_value_t = 1000)]
    replicates: u32,
    #[arg(long, default_value_t = 0.95)]
    confidence: f64,
    /// Write the filler chart of one context (the first model's, or MODEL/CONTEXT) as SVG.
    #[arg(long)]
    chart: Option<PathBuf>,
    #[arg(long)]
    chart_context: Option<String>,
    /// Also write the results as CSV (one row per model × overall, aspect, context).
    #[arg(long)]
    csv: Option<PathBuf>,
}

/// One `--reference` argument, taken apart.
struct RefSpec<'a> {
    culture: &'a str,
    aspect: String,
    shape: Option<&'a str>,
    columns: Option<Columns>,
    file: &'a str,
}

/// `local:cities=pesel:file.csv` or `local:cities=table[name=Stadt,weight=Einwohner]:de.csv`.
fn parse_reference<'a>(spec: &'a str, aspects: &[String]) -> Result<RefSpec<'a>, Failure> {
    let bad = |why: &str| {
        Failure::new(format!(
            "--reference {spec:?}: {why}; expected CULTURE[:ASPECT]=[SHAPE:]FILE, e.g. local:cities=pl.tsv or local:cities=table[name=miasto,weight=ludnosc]:pl.csv"
        ))
    };
    let (lhs, rhs) = spec.split_once('=').ok_or_else(|| bad("no '='"))?;
    let (culture, aspect) = match lhs.split_once(':') {
        Some((c, a)) => (c, a.to_string()),
        None if aspects.len() == 1 => (lhs, aspects[0].clone()),
        None => return Err(bad(&format!("name the aspect, one of {}", aspects.join(", ")))),
    };
    let mut columns = None;
    let (shape, file) = if let Some(rest) = rhs.strip_prefix("table[") {
        let (inside, file) =
            rest.split_once("]:").ok_or_else(|| bad("table[...] must be followed by ':' and the file"))?;
        let mut c = Columns::default();
        for pair in inside.split(',').filter(|p| !p.trim().is_empty()) {
            match pair.split_once('=').map(|(k, v)| (k.trim(), v.trim().to_string())) {
                Some(("name", v)) => c.name = Some(v),
                Some(("weight" | "count" | "population", v)) => c.weight = Some(v),
                _ => return Err(bad(&format!("in table[...], expected name=COLUMN or weight=COLUMN, found {pair:?}"))),
            }
        }
        columns = Some(c);
        (Some("table"), file)
    } else {
        match rhs.split_once(':') {
            Some((s, f)) if ["table", "ssa", "census", "geonames", "pesel"].contains(&s) => (Some(s), f),
            _ => (None, rhs),
        }
    };
    if file.is_empty() {
        return Err(bad("no file"));
    }
    Ok(RefSpec { culture, aspect, shape, columns, file })
}

pub fn run(a: &Args) -> Outcome {
    let mut s = Session::default();
    if builtin::PROBE_SETS.contains(&a.probes.as_str()) {
        s.use_builtin(&a.probes)?;
    } else {
        let path = Path::new(&a.probes);
        s.load_probes(&a.probes, &read(path)?)?;
    }
    let state = s.state();
    for w in state.probe_set.iter().flat_map(|p| &p.warnings) {
        note(w);
    }
    let aspects: Vec<String> = state.probe_set.iter().flat_map(|p| p.aspects.iter().map(|x| x.id.clone())).collect();
    for spec in &a.reference {
        let r = parse_reference(spec, &aspects)?;
        let bytes = read(Path::new(r.file))?;
        let r = s.add_reference(r.culture, &r.aspect, r.file, &bytes, r.shape, r.columns.as_ref())?;
        for p in &r.problems {
            note(p);
        }
    }
    if let Some(out) = &a.plan_out {
        return plan_out(&s, out, &a.mode).map(|()| ExitCode::SUCCESS);
    }
    let loaded = match (&a.logprobs, &a.records, &a.simulate) {
        (Some(f), _, _) => s.load_logprobs(&f.display().to_string(), &read(f)?)?,
        (_, Some(f), _) => s.load_records(&f.display().to_string(), &read(f)?)?,
        (_, _, Some(mode)) => {
            let text = a.lean.as_deref().unwrap_or(r#"{"name": "lean", "lean": 0.3}"#);
            let models: Vec<Lean> = if text.trim_start().starts_with('[') {
                serde_json::from_str(text)
            } else {
                serde_json::from_str(text).map(|l| vec![l])
            }
            .map_err(|x| Failure::new(format!("--lean: expected a simulated model as JSON (name, lean, jitter, mass_spread, samples, temperature, unmatched_rate): {x}")))?;
            let d = s.simulate(&SimRequest { mode: mode.clone(), models, seed: a.seed })?;
            if let Some(out) = &a.out {
                write(out, &s.data_csv()?)?;
            }
            d
        }
        _ => return Err(Failure::new("give --logprobs FILE, --records FILE or --simulate scoring|sampling")),
    };
    for p in &loaded.problems {
        note(p);
    }
    let settings = SettingsText {
        smoothing: a.smoothing.clone(),
        unit: a.unit.clone(),
        replicates: a.replicates,
        confidence: a.confidence,
        seed: a.seed,
    }
    .parse()
    .map_err(|x| Failure::new(format!("--{x}")))?;
    let analysis = s.analyze(&settings)?.clone();
    for p in &analysis.problems {
        note(p);
    }
    for k in &analysis.skipped_aspects {
        note(format_args!("aspect {} skipped: {}", k.aspect, k.reason));
    }
    if let Some(path) = &a.chart {
        let first = analysis.models.first().ok_or_else(|| Failure::new("no model to chart"))?;
        let (model, context) = match a.chart_context.as_deref().map(|c| c.rsplit_once('/')) {
            Some(Some((m, c))) => (m.to_string(), c.to_string()),
            Some(None) => (first.model.clone(), a.chart_context.clone().unwrap_or_default()),
            None => {
                let c = first
                    .aspects
                    .first()
                    .and_then(|x| x.contexts.first())
                    .ok_or_else(|| Failure::new("no context to chart"))?;
                (first.model.clone(), c.context.clone())
            }
        };
        write(path, &s.chart(&model, &context)?)?;
    }
    if let Some(path) = &a.csv {
        write(path, &evenhand::divergence::export::results_csv(&analysis))?;
    }
    #[derive(Serialize)]
    struct Out<'a> {
        data: &'a session::DataSummary,
        #[serde(flatten)]
        analysis: &'a evenhand::divergence::Analysis,
    }
    print_json(&Out { data: &loaded, analysis: &analysis })?;
    Ok(ExitCode::SUCCESS)
}

/// `--plan-out`: the run's cases, and a summary of them on stdout.
fn plan_out(s: &Session, out: &Path, mode: &str) -> Result<(), Failure> {
    let mode = evenhand::divergence::runs::Mode::parse(mode).map_err(|e| Failure::new(format!("--{e}")))?;
    let cases = s.run_cases(mode)?;
    write_cases(out, &cases)?;
    let advice = match mode {
        evenhand::divergence::runs::Mode::Score => {
            "run them on an openai-compatible target (one scoring call per case and model; samples do not apply)"
        }
        evenhand::divergence::runs::Mode::Sample => {
            "set samples (N per context) and params.temperature in the run spec"
        }
    };
    let summary = serde_json::json!({
        "mode": mode,
        "cases": cases.len(),
        "file": out.display().to_string(),
        "advice": advice,
        "next": format!("evenhand run --scenario SPEC.json --cases {} --out records.csv, then evenhand divergence --records records.csv", out.display()),
    });
    print_json(&summary)
}
