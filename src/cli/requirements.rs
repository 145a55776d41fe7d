//! `evenhand expand`: a LangBiTe scenario and its libraries to prompt instances (JSONL).

use super::datasets::{resolve_dir, resolve_one};
use super::{Failure, Outcome, create_dir, note, print, read, read_text, write};
use evenhand::requirements::{self, expand, library, ourlib, placeholder, scenario};
use evenhand::stats::confidence::Confidence;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ExpandArgs {
    /// The scenario JSON (LangBiTe's input format, current or legacy), or catalogue:NAME/FILE.
    #[arg(long)]
    scenario: PathBuf,
    /// A template library for one language, LANG=PATH (tab-separated .csv, .json prompt form, or our own
    /// format, a .json object with "format": "evenhand-requirements/1", detected); PATH may be
    /// catalogue:NAME/FILE; repeatable.
    #[arg(long = "library")]
    libraries: Vec<String>,
    /// Where LangBiTe's prompts_<lang>.csv live (the folder itself, prompts/ or langbite/resources/ under it),
    /// or catalogue:langbite (every library fetched); used for languages without --library.
    #[arg(long)]
    langbite_dir: Option<PathBuf>,
    /// The seed of template sampling (only groups larger than nTemplates are sampled); default:
    /// the scenario's `evenhand.seed`, else 1.
    #[arg(long)]
    seed: Option<u64>,
    /// Write the instances here instead of stdout.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also write the selection (groups with the template ids taken) and the counts as JSON.
    #[arg(long)]
    manifest: Option<PathBuf>,
}

fn library_path(args: &ExpandArgs, lang: &str) -> Result<Option<PathBuf>, Failure> {
    for spec in &args.libraries {
        if let Some((l, p)) = spec.split_once('=')
            && l.to_lowercase() == lang
        {
            return Ok(Some(resolve_one(Path::new(p))?.path));
        }
    }
    let Some(dir) = args.langbite_dir.as_ref() else { return Ok(None) };
    let dir = resolve_dir(dir)?;
    let name = format!("prompts_{lang}.csv");
    Ok([dir.join(&name), dir.join("prompts").join(&name), dir.join("langbite/resources").join(&name)]
        .into_iter()
        .find(|p| p.is_file()))
}

pub fn expand(args: &ExpandArgs) -> Outcome {
    for spec in &args.libraries {
        if !spec.contains('=') {
            return Err(Failure::new(format!("--library: expected LANG=PATH, found {spec:?}")));
        }
    }
    let scenario_path = resolve_one(&args.scenario)?.path;
    let name = scenario_path.display().to_string();
    let text = read_text(&scenario_path)?;
    // The LangBiTeForAPI payload carries the scenario and one language's templates together.
    let api = scenario::api_payload(&text);
    let config = api.as_ref().map_or(text.as_str(), |a| a.config.as_str());
    let parsed = scenario::parse(&name, config)?;
    for w in &parsed.warnings {
        note(format_args!("warning: {w}"));
    }
    let sc = parsed.scenario;
    let mut markups: BTreeMap<String, String> =
        requirements::DEFAULT_MARKUPS.iter().map(|(c, m)| (c.to_string(), m.to_string())).collect();
    markups.extend(sc.requirements.iter().map(|r| (r.concern.clone(), r.markup.clone())));
    let mut libraries = BTreeMap::new();
    let mut ours = BTreeMap::new();
    let mut languages: Vec<&String> = sc.requirements.iter().flat_map(|r| &r.languages).collect();
    languages.sort();
    languages.dedup();
    for lang in languages {
        let inline = api.as_ref().filter(|a| a.input_language.as_ref() == Some(lang)).and_then(|a| a.prompts.clone());
        let (file, bytes) = match (library_path(args, lang)?, inline) {
            (Some(path), _) => (path.display().to_string(), read(&path)?),
            (None, Some(prompts)) => (format!("{name}#prompts"), prompts.into_bytes()),
            (None, None) => {
                return Err(Failure::new(format!(
                    "no library for language {lang}: pass --library {lang}=PATH or --langbite-dir DIR"
                )));
            }
        };
        if file.ends_with(".json") && bytes.first() == Some(&b'{') {
            // Our own library format (datasets/requirements/README.md), detected by its `format` key.
            let text = utf8(&file, bytes)?;
            if !ourlib::read::is_ours(&text) {
                return Err(Failure::new(format!(
                    "{file}: a JSON object but not {}: expected a \"format\" key with that value",
                    ourlib::FORMAT
                )));
            }
            let loaded = ourlib::read::read(&file, &text)?;
            for w in &loaded.warnings {
                note(format_args!("warning: {w}"));
            }
            all_or_nothing(&loaded.errors)?;
            if loaded.library.language != *lang {
                return Err(Failure::new(format!(
                    "{file}: field language: the file is {:?} but was given for {lang}",
                    loaded.library.language
                )));
            }
            ours.insert(lang.clone(), (file, loaded.library));
            continue;
        }
        let loaded = if file.ends_with(".json") || file.ends_with("#prompts") {
            library::read_json(&file, lang, &utf8(&file, bytes)?)
        } else {
            library::read_tsv(&file, lang, &bytes)
        }?;
        for w in loaded.warnings.iter().chain(&placeholder::audit(&loaded.library, &markups)) {
            note(format_args!("warning: {w}"));
        }
        all_or_nothing(&loaded.errors)?;
        libraries.insert(lang.clone(), loaded.library);
    }
    let seed = args.seed.or(sc.evenhand.as_ref().map(|e| e.seed)).unwrap_or(1);
    let exp = match (ours.is_empty(), libraries.is_empty()) {
        (true, _) => expand::expand(&sc, &libraries, seed, expand::Composition::Compat),
        (false, true) => ourlib::instantiate::expand(&sc, &ours, seed),
        (false, false) => {
            return Err(Failure::new(format!(
                "one run takes either LangBiTe libraries ({}) or our own ({}), not both",
                libraries.keys().cloned().collect::<Vec<_>>().join(", "),
                ours.keys().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
    }?;
    for w in &exp.warnings {
        note(format_args!("warning: {w}"));
    }
    let mut out = String::new();
    for i in &exp.instances {
        out.push_str(&serde_json::to_string(i)?);
        out.push('\n');
    }
    match &args.out {
        Some(path) => write(path, &out)?,
        None => print(&out)?,
    }
    let counts: Vec<serde_json::Value> = expand::counts(&exp.instances)
        .into_iter()
        .map(|((concern, language), n)| serde_json::json!({"concern": concern, "language": language, "instances": n}))
        .collect();
    for c in &counts {
        note(c);
    }
    if let Some(path) = &args.manifest {
        let manifest = serde_json::json!({
            "seed": exp.seed,
            "composition": exp.composition,
            "groups": exp.groups,
            "counts": counts,
            "instances": exp.instances.len(),
        });
        write(path, &serde_json::to_string_pretty(&manifest)?)?;
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args)]
pub struct EvaluateArgs {
    /// The scenario JSON the records were planned from (its tolerances and deltas are used).
    #[arg(long)]
    scenario: PathBuf,
    /// The record table (CSV, JSONL or JSON) with the responses, as `evenhand expand` + a run write it.
    #[arg(long)]
    records: PathBuf,
    /// `langbite` reproduces upstream's verdicts only; the default also judges every instance
    /// and adds the statistics.
    #[arg(long)]
    compat: Option<String>,
    /// Folder for the reports (created if missing). In every CSV, LangBiTe's included, a text
    /// cell a spreadsheet would run as a formula (=, +, -, @) starts with an added `'`.
    #[arg(long)]
    out: PathBuf,
    /// Seed of the permutation tests and bootstrap intervals; default: the scenario's
    /// `evenhand.statistics.seed`, else 1.
    #[arg(long)]
    seed: Option<u64>,
    /// Confidence level of the intervals; default: `evenhand.statistics.confidence`, else 0.95.
    #[arg(long)]
    confidence: Option<f64>,
    /// LangBiTe's file-name timestamp (YYYYmmddHHMMSS); the current time when absent.
    #[arg(long)]
    timestamp: Option<String>,
    /// Write the LLM judge's cases (a seeded audit sample of passes and failures) to this JSONL
    /// file, to run with `evenhand run --cases` on any provider.
    #[arg(long)]
    judge_plan_out: Option<PathBuf>,
    /// Passes and failures sampled per group for the judge.
    #[arg(long, default_value_t = 10)]
    judge_per_outcome: usize,
    /// The judge's answered records (from that run): their agreement with the oracle goes to
    /// DIR/judge.json.
    #[arg(long)]
    judge_records: Option<PathBuf>,
    /// Who decides that an answer the oracle does not pass is a refusal (the provider's own
    /// refusal and the -1 sentinel always are): lexicon (our phrase lexicon), nli (column
    /// nli_p_refuse, filled by --nli-model-dir or uploaded with nli_rule), judge (column
    /// judge_verdict) or label (column refusal_label). An answer without the chosen
    /// detector's verdict is not judged (listed).
    #[arg(long, default_value = "lexicon")]
    detector: String,
    #[command(flatten)]
    nli: super::nli::NliArgs,
}

/// `evenhand evaluate`: oracles, statistics and every report for a LangBiTe-style run.
pub fn evaluate(args: &EvaluateArgs) -> Outcome {
    use evenhand::crosslingual::detect::Detector;
    use evenhand::requirements::summary::{self, Mode};
    let mode = match args.compat.as_deref() {
        None => Mode::Default,
        Some("langbite") => Mode::Langbite,
        Some(other) => return Err(Failure::new(format!("--compat: expected langbite, found {other:?}"))),
    };
    if mode == Mode::Langbite && (args.judge_plan_out.is_some() || args.judge_records.is_some()) {
        return Err(Failure::new(
            "--judge-plan-out and --judge-records need the default mode (the judge reviews instance outcomes)",
        ));
    }
    let confidence = args
        .confidence
        .map(|c| Confidence::new(c).map_err(|e| e.in_field("--confidence").to_string()).map_err(Failure::new))
        .transpose()?;
    let timestamp = match &args.timestamp {
        Some(t) if t.len() == 14 && t.chars().all(|c| c.is_ascii_digit()) => t.clone(),
        Some(t) => return Err(Failure::new(format!("--timestamp: expected 14 digits (YYYYmmddHHMMSS), found {t:?}"))),
        None => {
            let ms =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
            summary::langbite_timestamp(ms)
        }
    };
    let scenario_path = resolve_one(&args.scenario)?.path;
    let name = scenario_path.display().to_string();
    let scenario_bytes = read(&scenario_path)?;
    let text = utf8(&name, scenario_bytes.clone())?;
    let parsed = scenario::parse(&name, &text)?;
    for w in &parsed.warnings {
        note(format_args!("warning: {w}"));
    }
    let detector = super::crosslingual::detector(&args.detector)?;
    if mode == Mode::Langbite && (detector != Detector::Lexicon || args.nli.nli_model_dir.is_some()) {
        return Err(Failure::new(
            "--detector and --nli-model-dir need the default mode (--compat langbite keeps upstream's verdicts)",
        ));
    }
    let records_name = args.records.display().to_string();
    let record_bytes = read(&args.records)?;
    let mut loaded = evenhand::formats::load(&records_name, &record_bytes, None)?;
    for p in &loaded.errors {
        note(format_args!("error: {p}"));
    }
    if loaded.records.is_empty() {
        return Err(Failure::new(format!("{records_name}: no records could be read")));
    }
    let stats = parsed.scenario.evenhand.as_ref().map(|e| e.statistics.clone()).unwrap_or_default();
    let confidence = match confidence {
        Some(c) => c,
        None => {
            Confidence::new(stats.confidence).map_err(|e| e.in_field("evenhand.statistics.confidence").to_string())?
        }
    };
    let seed = args.seed.unwrap_or(stats.seed);
    let mut nli = serde_json::Value::Null;
    if let Some(dir) = &args.nli.nli_model_dir {
        let lexicon = evenhand::text::refusal::Lexicon::builtin();
        let items = evenhand::crosslingual::nli::items_of(&loaded.records, &lexicon).map_err(Failure::new)?;
        let (batch, cascade) = super::nli::run(&args.nli, dir, &items)?;
        if let Some(c) = &cascade {
            super::nli::report(c);
        }
        let n = evenhand::crosslingual::nli::write(&mut loaded.records, &batch, &lexicon).map_err(Failure::new)?;
        note(format_args!("{}: {n} records got an NLI verdict", dir.display()));
        // The records with the detector's columns, so the verdicts can be read again.
        create_dir(&args.out)?;
        write(
            &args.out.join("records.csv"),
            &evenhand::formats::write(&loaded.records, evenhand::formats::FileFormat::Csv),
        )?;
        nli = serde_json::json!({
            "model": batch.model,
            "rule": batch.rule,
            "model_runs": batch.ids.len(),
            "spared": cascade.map(|c| c.spared),
            "records": n,
        });
    }
    let s = summary::evaluate_with(&parsed.scenario, &loaded.records, mode, seed, confidence, detector);
    for p in &s.problems {
        note(format_args!("warning: not judged: {p}"));
    }
    let hash = |b: &[u8]| format!("{:016x}", evenhand::rng::stable_hash(&[b]));
    let provenance = serde_json::json!({
        "scenario": {"file": name, "fnv1a64": hash(&scenario_bytes)},
        "records": {"file": records_name, "fnv1a64": hash(&record_bytes), "unreadable_rows": loaded.errors.len()},
    });
    for (file, contents) in summary::files(&s, &loaded.records, &timestamp, &provenance) {
        let path = args.out.join(&file);
        if let Some(dir) = path.parent() {
            create_dir(dir)?;
        }
        write(&path, &contents)?;
    }
    let mut judge = serde_json::Value::Null;
    if let Some(path) = &args.judge_plan_out {
        let sample =
            evenhand::requirements::judge::audit_sample(&loaded.records, &s.evaluations, args.judge_per_outcome, seed);
        let cases = evenhand::requirements::judge::cases(&loaded.records, &s.evaluations, &sample);
        let text = evenhand::formats::write(&cases, evenhand::formats::FileFormat::Jsonl);
        write(path, &text)?;
        judge = serde_json::json!({"cases": cases.len(), "plan": path.display().to_string()});
    }
    if let Some(path) = &args.judge_records {
        let name = path.display().to_string();
        let judged = evenhand::formats::load(&name, &read(path)?, None)?;
        let report = evenhand::requirements::judge::compare(&s.evaluations, &judged.records);
        write(&args.out.join("judge.json"), &(serde_json::to_string_pretty(&report)? + "\n"))?;
        judge = serde_json::json!({"judged": report.agreement.n, "unusable": report.unusable, "kappa": report.agreement.kappa});
    }
    let count = |v: &str| s.templates.iter().filter(|t| t.verdict.as_str() == v).count();
    let summary = serde_json::json!({
        "detector": detector.as_str(),
        "nli": nli,
        "judge": judge,
        "mode": s.mode,
        "records": loaded.records.len(),
        "unreadable_rows": loaded.errors.len(),
        "templates": {"passed": count("Passed"), "failed": count("Failed"), "error": count("Error")},
        "groups": s.groups.len(),
        "not_judged": s.problems.len(),
        "out": args.out.display().to_string(),
    });
    print(&format!("{summary}\n"))?;
    if !loaded.errors.is_empty() {
        // The reports are written from the rows that could be read; the exit status says that
        // some could not, as validate's does, so a script never takes a partial file for whole.
        note(format_args!(
            "evenhand: {records_name}: {} rows could not be read and were left out of the evaluation (listed above)",
            loaded.errors.len()
        ));
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn utf8(file: &str, bytes: Vec<u8>) -> Result<String, Failure> {
    Ok(evenhand::formats::decode(file, &bytes)?.to_string())
}

/// A library with errors is refused whole, every error listed (one per line).
fn all_or_nothing<E: std::fmt::Display>(errors: &[E]) -> Result<(), Failure> {
    if errors.is_empty() {
        return Ok(());
    }
    Err(Failure::new(errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")))
}
