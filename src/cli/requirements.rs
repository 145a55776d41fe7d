//! `evenhand expand`: a LangBiTe scenario and its libraries to prompt instances (JSONL).

use clap::Args;
use evenhand::requirements::{self, expand, library, ourlib, placeholder, scenario};
use evenhand::stats::confidence::Confidence;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct ExpandArgs {
    /// The scenario JSON (LangBiTe's input format, current or legacy).
    #[arg(long)]
    scenario: PathBuf,
    /// A template library for one language, LANG=PATH (tab-separated .csv, .json prompt form, or our own
    /// format, a .json object with "format": "evenhand-requirements/1", detected); repeatable.
    #[arg(long = "library")]
    libraries: Vec<String>,
    /// Where LangBiTe's prompts_<lang>.csv live (the folder itself, prompts/ or langbite/resources/ under it);
    /// used for languages without --library.
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

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))
}

fn library_path(args: &ExpandArgs, lang: &str) -> Option<PathBuf> {
    for spec in &args.libraries {
        if let Some((l, p)) = spec.split_once('=')
            && l.to_lowercase() == lang
        {
            return Some(PathBuf::from(p));
        }
    }
    let dir = args.langbite_dir.as_ref()?;
    let name = format!("prompts_{lang}.csv");
    [dir.join(&name), dir.join("prompts").join(&name), dir.join("langbite/resources").join(&name)]
        .into_iter()
        .find(|p| p.is_file())
}

pub fn expand(args: &ExpandArgs) -> Result<ExitCode, String> {
    for spec in &args.libraries {
        if !spec.contains('=') {
            return Err(format!("--library: expected LANG=PATH, found {spec:?}"));
        }
    }
    let name = args.scenario.display().to_string();
    let text = String::from_utf8(read(&args.scenario)?).map_err(|e| format!("{name}: not UTF-8: {e}"))?;
    // The LangBiTeForAPI payload carries the scenario and one language's templates together.
    let api = scenario::api_payload(&text);
    let config = api.as_ref().map_or(text.as_str(), |a| a.config.as_str());
    let parsed = scenario::parse(&name, config).map_err(|e| e.to_string())?;
    for w in &parsed.warnings {
        eprintln!("warning: {w}");
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
        let (file, bytes) = match (library_path(args, lang), inline) {
            (Some(path), _) => (path.display().to_string(), read(&path)?),
            (None, Some(prompts)) => (format!("{name}#prompts"), prompts.into_bytes()),
            (None, None) => {
                return Err(format!(
                    "no library for language {lang}: pass --library {lang}=PATH or --langbite-dir DIR"
                ));
            }
        };
        if file.ends_with(".json") && bytes.first() == Some(&b'{') {
            // Our own library format (datasets/requirements/README.md), detected by its `format` key.
            let text = String::from_utf8(bytes).map_err(|e| format!("{file}: not UTF-8: {e}"))?;
            if !ourlib::read::is_ours(&text) {
                return Err(format!(
                    "{file}: a JSON object but not {}: expected a \"format\" key with that value",
                    ourlib::FORMAT
                ));
            }
            let loaded = ourlib::read::read(&file, &text).map_err(|e| e.to_string())?;
            for w in &loaded.warnings {
                eprintln!("warning: {w}");
            }
            if !loaded.errors.is_empty() {
                let list: Vec<String> = loaded.errors.iter().map(|e| e.to_string()).collect();
                return Err(list.join("\n"));
            }
            if loaded.library.language != *lang {
                return Err(format!(
                    "{file}: field language: the file is {:?} but was given for {lang}",
                    loaded.library.language
                ));
            }
            ours.insert(lang.clone(), (file, loaded.library));
            continue;
        }
        let loaded = if file.ends_with(".json") || file.ends_with("#prompts") {
            let text = String::from_utf8(bytes).map_err(|e| format!("{file}: not UTF-8: {e}"))?;
            library::read_json(&file, lang, &text)
        } else {
            library::read_tsv(&file, lang, &bytes)
        }
        .map_err(|e| e.to_string())?;
        for w in loaded.warnings.iter().chain(&placeholder::audit(&loaded.library, &markups)) {
            eprintln!("warning: {w}");
        }
        if !loaded.errors.is_empty() {
            let list: Vec<String> = loaded.errors.iter().map(|e| e.to_string()).collect();
            return Err(list.join("\n"));
        }
        libraries.insert(lang.clone(), loaded.library);
    }
    let seed = args.seed.or(sc.evenhand.as_ref().map(|e| e.seed)).unwrap_or(1);
    let exp = match (ours.is_empty(), libraries.is_empty()) {
        (true, _) => expand::expand(&sc, &libraries, seed, expand::Composition::Compat),
        (false, true) => ourlib::instantiate::expand(&sc, &ours, seed),
        (false, false) => {
            return Err(format!(
                "one run takes either LangBiTe libraries ({}) or our own ({}), not both",
                libraries.keys().cloned().collect::<Vec<_>>().join(", "),
                ours.keys().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    .map_err(|e| e.to_string())?;
    for w in &exp.warnings {
        eprintln!("warning: {w}");
    }
    let mut out = String::new();
    for i in &exp.instances {
        out.push_str(&serde_json::to_string(i).map_err(|e| e.to_string())?);
        out.push('\n');
    }
    match &args.out {
        Some(path) => std::fs::write(path, &out).map_err(|e| format!("{}: cannot write: {e}", path.display()))?,
        None => std::io::stdout().write_all(out.as_bytes()).map_err(|e| format!("stdout: {e}"))?,
    }
    let counts: Vec<serde_json::Value> = expand::counts(&exp.instances)
        .into_iter()
        .map(|((concern, language), n)| serde_json::json!({"concern": concern, "language": language, "instances": n}))
        .collect();
    for c in &counts {
        eprintln!("{c}");
    }
    if let Some(path) = &args.manifest {
        let manifest = serde_json::json!({
            "seed": exp.seed,
            "composition": exp.composition,
            "groups": exp.groups,
            "counts": counts,
            "instances": exp.instances.len(),
        });
        let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
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
    /// Folder for the reports (created if missing).
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
}

/// `evenhand evaluate`: oracles, statistics and every report for a LangBiTe-style run.
pub fn evaluate(args: &EvaluateArgs) -> Result<ExitCode, String> {
    use evenhand::requirements::summary::{self, Mode};
    let mode = match args.compat.as_deref() {
        None => Mode::Default,
        Some("langbite") => Mode::Langbite,
        Some(other) => return Err(format!("--compat: expected langbite, found {other:?}")),
    };
    if mode == Mode::Langbite && (args.judge_plan_out.is_some() || args.judge_records.is_some()) {
        return Err(
            "--judge-plan-out and --judge-records need the default mode (the judge reviews instance outcomes)".into()
        );
    }
    let confidence =
        args.confidence.map(|c| Confidence::new(c).map_err(|e| e.in_field("--confidence").to_string())).transpose()?;
    let timestamp = match &args.timestamp {
        Some(t) if t.len() == 14 && t.chars().all(|c| c.is_ascii_digit()) => t.clone(),
        Some(t) => return Err(format!("--timestamp: expected 14 digits (YYYYmmddHHMMSS), found {t:?}")),
        None => {
            let ms =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
            summary::langbite_timestamp(ms)
        }
    };
    let name = args.scenario.display().to_string();
    let scenario_bytes = read(&args.scenario)?;
    let text = String::from_utf8(scenario_bytes.clone()).map_err(|e| format!("{name}: not UTF-8: {e}"))?;
    let parsed = scenario::parse(&name, &text).map_err(|e| e.to_string())?;
    for w in &parsed.warnings {
        eprintln!("warning: {w}");
    }
    let records_name = args.records.display().to_string();
    let record_bytes = read(&args.records)?;
    let loaded = evenhand::formats::load(&records_name, &record_bytes, None).map_err(|e| e.to_string())?;
    for p in &loaded.errors {
        eprintln!("error: {p}");
    }
    if loaded.records.is_empty() {
        return Err(format!("{records_name}: no records could be read"));
    }
    let stats = parsed.scenario.evenhand.as_ref().map(|e| e.statistics.clone()).unwrap_or_default();
    let confidence = match confidence {
        Some(c) => c,
        None => {
            Confidence::new(stats.confidence).map_err(|e| e.in_field("evenhand.statistics.confidence").to_string())?
        }
    };
    let seed = args.seed.unwrap_or(stats.seed);
    let s = summary::evaluate(&parsed.scenario, &loaded.records, mode, seed, confidence);
    for p in &s.problems {
        eprintln!("warning: not judged: {p}");
    }
    let hash = |b: &[u8]| format!("{:016x}", evenhand::rng::stable_hash(&[b]));
    let provenance = serde_json::json!({
        "scenario": {"file": name, "fnv1a64": hash(&scenario_bytes)},
        "records": {"file": records_name, "fnv1a64": hash(&record_bytes), "unreadable_rows": loaded.errors.len()},
    });
    for (file, contents) in summary::files(&s, &loaded.records, &timestamp, &provenance) {
        let path = args.out.join(&file);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
        }
        std::fs::write(&path, contents).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    let mut judge = serde_json::Value::Null;
    if let Some(path) = &args.judge_plan_out {
        let sample =
            evenhand::requirements::judge::audit_sample(&loaded.records, &s.evaluations, args.judge_per_outcome, seed);
        let cases = evenhand::requirements::judge::cases(&loaded.records, &s.evaluations, &sample);
        let text = evenhand::formats::write(&cases, evenhand::formats::FileFormat::Jsonl);
        std::fs::write(path, text).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        judge = serde_json::json!({"cases": cases.len(), "plan": path.display().to_string()});
    }
    if let Some(path) = &args.judge_records {
        let name = path.display().to_string();
        let judged = evenhand::formats::load(&name, &read(path)?, None).map_err(|e| e.to_string())?;
        let report = evenhand::requirements::judge::compare(&s.evaluations, &judged.records);
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(args.out.join("judge.json"), text + "\n")
            .map_err(|e| format!("judge.json: cannot write: {e}"))?;
        judge = serde_json::json!({"judged": report.agreement.n, "unusable": report.unusable, "kappa": report.agreement.kappa});
    }
    let count = |v: &str| s.templates.iter().filter(|t| t.verdict.as_str() == v).count();
    let summary = serde_json::json!({
        "judge": judge,
        "mode": s.mode,
        "records": loaded.records.len(),
        "templates": {"passed": count("Passed"), "failed": count("Failed"), "error": count("Error")},
        "groups": s.groups.len(),
        "not_judged": s.problems.len(),
        "out": args.out.display().to_string(),
    });
    println!("{summary}");
    Ok(ExitCode::SUCCESS)
}
