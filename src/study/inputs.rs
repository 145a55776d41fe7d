//! A study's inputs made concrete: the requirement scenario, the BBQ examples, the cross-lingual
//! cases and the divergence probe set with its references, from built-in sets or from the
//! uploaded files the study names (each checked against its SHA-256).

use super::StudyError;
use super::format::{Condition, Source, Study, sha256};
use crate::bbq::Example;
use crate::crosslingual::plan::Case as XlCase;
use crate::divergence::analysis::Assigned;
use crate::divergence::probes::ProbeSet;
use crate::requirements::scenario::Scenario;
use serde::Serialize;
use std::collections::BTreeMap;

/// Uploaded files by name.
pub type Uploads = BTreeMap<String, Vec<u8>>;

/// Where one input came from, for the methods section.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Provenance {
    /// "built-in <name> (Evenhand <version>)" or the uploaded file's name.
    pub source: String,
    pub sha256: String,
    /// What it holds: "12 templates", "480 examples", ...
    pub size: String,
}

#[derive(Debug, Clone)]
pub struct RequirementsInput {
    pub text: String,
    pub scenario: Scenario,
    pub provenance: Provenance,
}

#[derive(Debug, Clone)]
pub struct BbqInput {
    pub examples: Vec<Example>,
    pub provenance: Provenance,
}

#[derive(Debug, Clone)]
pub struct CrosslingualInput {
    pub cases: Vec<XlCase>,
    pub languages: Vec<String>,
    /// The set as asked: one file's, or the merged files' names (joined by " + ") and size.
    pub provenance: Provenance,
    /// Each question file with its own sha256, in the study's order (one for a single set).
    pub files: Vec<Provenance>,
}

#[derive(Debug, Clone)]
pub struct DivergenceInput {
    pub probes: ProbeSet,
    pub references: Vec<Assigned>,
    pub provenance: Provenance,
    /// One line per reference: "aspect/culture: source (sha256)".
    pub reference_sources: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub requirements: Option<RequirementsInput>,
    pub bbq: Option<BbqInput>,
    pub crosslingual: Option<CrosslingualInput>,
    pub divergence: Option<DivergenceInput>,
}

fn builtin(name: &str, bytes: &[u8], size: String) -> Provenance {
    Provenance { source: format!("built-in {name} (Evenhand {})", crate::VERSION), sha256: sha256(bytes), size }
}

/// The bytes of an uploaded source, checked against the study's digest.
fn uploaded<'a>(field: &str, src: &Source, uploads: &'a Uploads) -> Result<(&'a str, &'a [u8]), StudyError> {
    let file = src.file.clone().unwrap_or_default();
    let expected = src.sha256.clone().unwrap_or_default();
    file_bytes(field, &file, &expected, uploads)
}

fn file_bytes<'a>(
    field: &str,
    file: &str,
    expected: &str,
    uploads: &'a Uploads,
) -> Result<(&'a str, &'a [u8]), StudyError> {
    let (name, bytes) = uploads
        .get_key_value(file)
        .ok_or_else(|| StudyError::MissingFile { field: field.into(), file: file.into() })?;
    let found = sha256(bytes);
    if found != expected {
        return Err(StudyError::Changed { field: field.into(), file: file.into(), expected: expected.into(), found });
    }
    Ok((name.as_str(), bytes.as_slice()))
}

fn input_error(field: &str, message: impl std::fmt::Display) -> StudyError {
    StudyError::Input { field: field.into(), message: message.to_string() }
}

/// Resolves every method the study uses; the first missing, changed or unreadable input stops it.
pub fn resolve(study: &Study, uploads: &Uploads) -> Result<Inputs, StudyError> {
    let m = &study.methods;
    let mut inputs = Inputs::default();
    if let Some(r) = &m.requirements {
        let field = "methods.requirements.scenario";
        let (text, prov_source, bytes) = match &r.scenario.builtin {
            Some(name) => {
                let t = crate::requirements::session::DEFAULT_SCENARIO;
                (t.to_string(), Some(name.clone()), t.as_bytes().to_vec())
            }
            None => {
                let (name, bytes) = uploaded(field, &r.scenario, uploads)?;
                let text =
                    std::str::from_utf8(bytes).map_err(|e| input_error(field, format!("{name}: not UTF-8: {e}")))?;
                (text.to_string(), None, bytes.to_vec())
            }
        };
        let parsed = crate::requirements::scenario::parse(field, &text).map_err(|e| input_error(field, e))?;
        let size = format!("{} requirement(s)", parsed.scenario.requirements.len());
        let provenance = match prov_source {
            Some(name) => builtin(&format!("scenario {name}"), &bytes, size),
            None => Provenance { source: r.scenario.file.clone().unwrap_or_default(), sha256: sha256(&bytes), size },
        };
        inputs.requirements = Some(RequirementsInput { text, scenario: parsed.scenario, provenance });
    }
    if let Some(b) = &m.bbq {
        let field = "methods.bbq.dataset";
        let (mut examples, mut provenance) = match &b.dataset.builtin {
            Some(name) => {
                let langs: Vec<&str> = b.languages.iter().map(String::as_str).collect();
                let ex = crate::bbq::generate::builtin_examples(study.seeds.plan, &langs)
                    .map_err(|e| input_error(field, e))?;
                let json = serde_json::to_vec(&ex).unwrap_or_default();
                (
                    ex,
                    builtin(
                        &format!("BBQ-style set {name}, generation seed {}", study.seeds.plan),
                        &json,
                        String::new(),
                    ),
                )
            }
            None => {
                let (name, bytes) = uploaded(field, &b.dataset, uploads)?;
                let ds = crate::bbq::import::read(name, bytes, None, None).map_err(|e| input_error(field, e))?;
                (ds.examples, Provenance { source: name.into(), sha256: sha256(bytes), size: String::new() })
            }
        };
        examples.retain(|e| {
            (b.categories.is_empty() || b.categories.contains(&e.category))
                && (b.languages.is_empty() || b.languages.contains(&e.language))
                && (b.conditions.is_empty()
                    || b.conditions.contains(&match e.condition {
                        crate::bbq::Condition::Ambiguous => Condition::Ambiguous,
                        crate::bbq::Condition::Disambiguated => Condition::Disambiguated,
                    }))
        });
        if examples.is_empty() {
            return Err(input_error(
                "methods.bbq",
                "no example is left after the category, language and condition filters",
            ));
        }
        if let Some(v) = &b.variant {
            crate::bbq::prompt::variant(v).map_err(|e| input_error("methods.bbq.variant", e))?;
        }
        provenance.size = format!("{} examples", examples.len());
        inputs.bbq = Some(BbqInput { examples, provenance });
    }
    if let Some(x) = &m.crosslingual {
        inputs.crosslingual = Some(crosslingual(x, uploads)?);
    }
    if let Some(d) = &m.divergence {
        let field = "methods.divergence.probes";
        let (probes, mut references, provenance) = match &d.probes.builtin {
            Some(id) => {
                let set = crate::divergence::builtin::probe_set(id).map_err(|e| input_error(field, e))?;
                let refs = crate::divergence::builtin::references_for(&set).map_err(|e| input_error(field, e))?;
                let text = crate::divergence::builtin::probe_set_text(id).map_err(|e| input_error(field, e))?;
                (set, refs, builtin(&format!("probe set {id}"), text.as_bytes(), String::new()))
            }
            None => {
                let (name, bytes) = uploaded(field, &d.probes, uploads)?;
                let text =
                    std::str::from_utf8(bytes).map_err(|e| input_error(field, format!("{name}: not UTF-8: {e}")))?;
                let (set, _) = ProbeSet::parse(name, text).map_err(|e| input_error(field, e))?;
                (set, vec![], Provenance { source: name.into(), sha256: sha256(bytes), size: String::new() })
            }
        };
        let mut reference_sources: Vec<String> =
            references.iter().map(|r| format!("{}/{}: built-in {}", r.aspect, r.culture, r.reference.file)).collect();
        for (i, r) in d.references.iter().enumerate() {
            let f = format!("methods.divergence.references[{i}]");
            let (name, bytes) = file_bytes(&f, &r.file, &r.sha256, uploads)?;
            let reference = crate::divergence::reference::Reference::load(name, bytes, None, None)
                .map_err(|e| input_error(&f, e))?;
            // An uploaded reference replaces the built-in one of its aspect and culture.
            references.retain(|a| !(a.aspect == r.aspect && a.culture == r.culture));
            references.push(Assigned { aspect: r.aspect.clone(), culture: r.culture.clone(), reference });
            reference_sources.push(format!("{}/{}: {} (sha256 {})", r.aspect, r.culture, r.file, r.sha256));
        }
        let contexts: usize = probes.aspects.iter().map(|a| a.contexts.len()).sum();
        let size = format!("{} aspects, {contexts} contexts", probes.aspects.len());
        inputs.divergence = Some(DivergenceInput {
            probes,
            references,
            provenance: Provenance { size, ..provenance },
            reference_sources,
        });
    }
    Ok(inputs)
}

/// The question set (one source, or several merged as the Cross-lingual tool merges MSQAD's
/// topic files) and the cases the study asks of it.
fn crosslingual(x: &super::format::Crosslingual, uploads: &Uploads) -> Result<CrosslingualInput, StudyError> {
    let mut files: Vec<(String, Vec<u8>)> = vec![];
    let mut provenance: Vec<Provenance> = vec![];
    for (field, src) in x.question_fields() {
        match &src.builtin {
            Some(n) => {
                let bytes =
                    crate::crosslingual::session::builtin_questions().map_err(|e| input_error(&field, e))?.as_bytes();
                files.push((crate::crosslingual::session::BUILTIN_NAME.into(), bytes.to_vec()));
                provenance.push(builtin(&format!("question set {n}"), bytes, String::new()));
            }
            None => {
                let (name, bytes) = uploaded(&field, src, uploads)?;
                files.push((name.into(), bytes.to_vec()));
                provenance.push(Provenance { source: name.into(), sha256: sha256(bytes), size: String::new() });
            }
        }
    }
    let field = "methods.crosslingual.questions";
    let (set, left_out) = match files.as_slice() {
        [(name, bytes)] => (crate::crosslingual::questions::read(name, bytes).map_err(|e| input_error(field, e))?, 0),
        _ => {
            let (set, duplicates) =
                crate::crosslingual::session::read_merged(&files).map_err(|e| input_error(field, e))?;
            (set, duplicates.len())
        }
    };
    let cases = crate::crosslingual::plan::plan(&set, &x.languages, &x.modes)
        .map_err(|e| input_error("methods.crosslingual", e))?;
    let languages = if x.languages.is_empty() { set.languages.clone() } else { x.languages.clone() };
    let mut size = format!("{} questions, {} cases", set.questions.len(), cases.len());
    if left_out > 0 {
        size.push_str(&format!(", {left_out} question(s) left out as an earlier file gave their id"));
    }
    let merged = match provenance.as_slice() {
        [one] => Provenance { size, ..one.clone() },
        many => Provenance {
            source: many.iter().map(|p| p.source.as_str()).collect::<Vec<_>>().join(" + "),
            // The merged set's own digest: the files' bytes in the study's order.
            sha256: sha256(&files.iter().flat_map(|(_, b)| b.iter().copied()).collect::<Vec<u8>>()),
            size,
        },
    };
    Ok(CrosslingualInput { cases, languages, provenance: merged, files: provenance })
}
