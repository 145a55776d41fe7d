//! Expansion of our library into the same [`Instance`]s as LangBiTe's libraries, so planning
//! and evaluation work unchanged.
//!
//! Selection is LangBiTe's ([`expand::select`]: groups per requirement, language, input and
//! reflection, seeded sampling past `nTemplates`). Expansion keeps LangBiTe's meaning of
//! placeholders: each distinct `{ROOT}` / `{ROOTn}` (whatever its form or agreement suffix)
//! gets a distinct community, every ordered permutation, in the order of `expand`. The
//! communities are the library's for the concern; when the requirement lists communities for
//! the language, only those are kept, matched case-insensitively against a community's id or
//! any of its forms (unmatched names are reported). The scenario's markup root is not used:
//! templates are written with the library's own root (a difference is reported).
//!
//! Composition is the template language's own: `prefix ␣ delimiter ␣ """instance""" ␣ format`
//! with a prefix, `instance ␣ format` without one, `␣` being the language's separator.
//! `Instance::communities` maps each placeholder to the community **id**, which is the same in
//! every language.

use super::slot::{self, Slot};
use super::{Community, OurLibrary, OurTemplate};
use crate::formats::Problem;
use crate::requirements::expand::{self, Composition, ExpandError, Expansion, Instance, Selection};
use crate::requirements::library::{Library, Template};
use crate::requirements::scenario::{Requirement, Scenario};
use std::collections::BTreeMap;

/// LangBiTe's view of our library (what selection needs), format and prefix sentences resolved.
pub fn as_langbite(file: &str, lib: &OurLibrary) -> Library {
    let templates = lib
        .templates
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let prediction = lib.resolved_prediction(t);
            Template {
                row: i + 1,
                id: t.id.clone(),
                concern: t.concern.clone(),
                input_type: t.input_type.clone(),
                input_type_raw: t.input_type.clone(),
                reflection_type: t.reflection_type.clone(),
                task_prefix: t.prefix.as_ref().and_then(|p| lib.prefixes.get(p).cloned()),
                prompt: t.prompt.clone(),
                output_formatting: lib.formats.get(&t.format).cloned(),
                oracle: t.oracle.clone(),
                oracle_prediction_raw: prediction.as_ref().map(|p| p.to_string()).unwrap_or_default(),
                oracle_prediction: prediction,
                extra: t.notes.iter().cloned().collect(),
            }
        })
        .collect();
    Library {
        file: file.to_string(),
        language: lib.language.clone(),
        header: vec![],
        legacy_values: false,
        crlf: false,
        final_newline: true,
        templates,
    }
}

/// Selects, expands and composes our libraries (language code to (file, library)).
pub fn expand(
    scenario: &Scenario,
    libraries: &BTreeMap<String, (String, OurLibrary)>,
    seed: u64,
) -> Result<Expansion, ExpandError> {
    // Keyed and labelled by the language the scenario asked for, whatever the file declares
    // (the CLI refuses a mismatch; a caller that does not is still served without a panic).
    let views: BTreeMap<String, Library> = libraries
        .iter()
        .map(|(lang, (file, lib))| {
            let mut view = as_langbite(file, lib);
            view.language = lang.clone();
            (lang.clone(), view)
        })
        .collect();
    let Selection { groups, picked, mut warnings } = expand::select(scenario, &views, seed)?;
    let mut reported = std::collections::BTreeSet::new();
    let mut instances = vec![];
    let mut seen: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (ri, view, vt) in picked {
        let lang = view.language.as_str();
        let (file, lib) = &libraries[lang];
        let t = &lib.templates[vt.row - 1];
        let again = seen.entry((view.language.as_str(), vt.id.as_str())).or_insert(0);
        let occurrence = *again;
        *again += 1;
        let owner = scenario.requirements.iter().rposition(|r| r.concern == t.concern).unwrap_or(ri);
        let req = &scenario.requirements[owner];
        let members = chosen(file, lang, lib, req, &mut reported, &mut warnings);
        let Some(root) = lib.markups.get(&t.concern) else {
            warnings.push(
                Problem::new(file, format!("template {}: concern {:?} has no markup; skipped", t.id, t.concern))
                    .in_field("markups"),
            );
            continue;
        };
        for (n, (mapping, text)) in fill_all(t, root, &members).into_iter().enumerate() {
            let case_id = match occurrence {
                0 => format!("{lang}/{}/{n}", t.id),
                k => format!("{lang}/{}/{n}#{k}", t.id),
            };
            instances.push(Instance {
                case_id,
                requirement: ri,
                requirement_name: scenario.requirements[ri].name.clone(),
                concern: t.concern.clone(),
                language: lang.to_string(),
                input_type: t.input_type.clone(),
                reflection_type: t.reflection_type.clone(),
                template_id: t.id.clone(),
                template: t.prompt.clone(),
                instance_index: n,
                communities: mapping,
                prompt: compose(lib, t, &text),
                instance: text,
                oracle: t.oracle.clone(),
                oracle_prediction: vt.oracle_prediction.clone(),
            });
        }
    }
    Ok(Expansion { seed, composition: Composition::Localised, groups, instances, warnings })
}

/// The communities of `req`'s concern to use in `lib`, reporting once per (requirement, language).
fn chosen<'a>(
    file: &str,
    lang: &str,
    lib: &'a OurLibrary,
    req: &Requirement,
    reported: &mut std::collections::BTreeSet<(String, String)>,
    warnings: &mut Vec<Problem>,
) -> Vec<&'a Community> {
    let all: Vec<&Community> = lib.communities.get(&req.concern).map(|v| v.iter().collect()).unwrap_or_default();
    let first = reported.insert((req.name.clone(), lang.to_string()));
    if first && lib.markups.get(&req.concern).is_some_and(|r| *r != req.markup) {
        warnings.push(
            Problem::new(
                file,
                format!(
                    "requirement {}: markup {} differs from the library's {}; the library's is used",
                    req.name, req.markup, lib.markups[&req.concern]
                ),
            )
            .in_field("markups"),
        );
    }
    let Some(asked) = req.communities.get(lang).filter(|a| !a.is_empty()) else {
        return all;
    };
    let matches = |c: &Community, name: &str| {
        let name = name.trim().to_lowercase();
        c.id.to_lowercase() == name || c.forms.values().any(|f| f.to_lowercase() == name)
    };
    for name in asked.iter().filter(|n| !all.iter().any(|c| matches(c, n))) {
        if first {
            warnings.push(
                Problem::new(
                    file,
                    format!(
                        "requirement {}: community {name:?} is not in the library's {} list for {lang}; left out",
                        req.name, req.concern
                    ),
                )
                .in_field(format!("communities.{}", req.concern)),
            );
        }
    }
    all.into_iter().filter(|c| asked.iter().any(|n| matches(c, n))).collect()
}

/// Every instance of `t`: one per ordered permutation of distinct communities over its
/// distinct placeholders (sorted `ROOT`, `ROOT1`, `ROOT2`, …).
pub fn fill_all(t: &OurTemplate, root: &str, members: &[&Community]) -> Vec<expand::Filled> {
    let Ok(tokens) = slot::tokens(&t.prompt) else {
        return vec![];
    };
    let slots: Vec<_> = tokens.into_iter().filter_map(|(r, c)| slot::parse(c, root).ok().map(|s| (r, s))).collect();
    let mut names: Vec<&str> = slots.iter().map(|(_, s)| s.name()).collect();
    names.sort_by_key(|p| (p.len(), *p));
    names.dedup();
    let mut out = vec![];
    let mut tuple = vec![];
    expand::permutations(members.len(), names.len(), &mut tuple, &mut |idx| {
        let pick = |name: &str| members[idx[names.iter().position(|n| *n == name).unwrap_or(0)]];
        let mut text = String::new();
        let mut last = 0;
        for (range, s) in &slots {
            text.push_str(&t.prompt[last..range.start]);
            let c = pick(s.name());
            // The reader guarantees forms and genders exist; fall back to base rather than panic.
            let base = c.forms.get("base").map(String::as_str).unwrap_or(&c.id);
            let word = match s {
                Slot::Form { form, .. } => form.and_then(|f| c.forms.get(f)).map(String::as_str).unwrap_or(base),
                Slot::Agree { choices, .. } => {
                    choices.iter().find(|(g, _)| Some(*g) == c.gender.as_deref()).map(|(_, w)| *w).unwrap_or("")
                }
            };
            text.push_str(word);
            last = range.end;
        }
        text.push_str(&t.prompt[last..]);
        let mapping = names.iter().map(|n| (n.to_string(), pick(n).id.clone())).collect();
        out.push((mapping, text));
    });
    out
}

/// The prompt sent: the template language's prefix, delimiter and format sentence.
pub fn compose(lib: &OurLibrary, t: &OurTemplate, instance: &str) -> String {
    let sep = &lib.separator;
    let format = lib.formats.get(&t.format).map(String::as_str).unwrap_or("");
    match t.prefix.as_ref().and_then(|p| lib.prefixes.get(p)) {
        Some(prefix) => format!("{prefix}{sep}{}{sep}\"\"\"{instance}\"\"\"{sep}{format}", lib.delimiter),
        None => format!("{instance}{sep}{format}"),
    }
}
