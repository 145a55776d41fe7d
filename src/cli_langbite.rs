//! `evenhand expand`: a LangBiTe scenario and its libraries to prompt instances (JSONL).

use clap::Args;
use evenhand::langbite::{self, expand, library, placeholder, scenario};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct ExpandArgs {
    /// The scenario JSON (LangBiTe's input format, current or legacy).
    #[arg(long)]
    scenario: PathBuf,
    /// A template library for one language, LANG=PATH (tab-separated .csv, or .json prompt form); repeatable.
    #[arg(long = "library")]
    libraries: Vec<String>,
    /// Where LangBiTe's prompts_<lang>.csv live (the folder itself, prompts/ or langbite/resources/ under it);
    /// used for languages without --library.
    #[arg(long)]
    langbite_dir: Option<PathBuf>,
    /// The seed of template sampling (only groups larger than nTemplates are sampled).
    #[arg(long, default_value_t = 1)]
    seed: u64,
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
        langbite::DEFAULT_MARKUPS.iter().map(|(c, m)| (c.to_string(), m.to_string())).collect();
    markups.extend(sc.requirements.iter().map(|r| (r.concern.clone(), r.markup.clone())));
    let mut libraries = BTreeMap::new();
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
    let exp = expand::expand(&sc, &libraries, args.seed, expand::Composition::Compat).map_err(|e| e.to_string())?;
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
