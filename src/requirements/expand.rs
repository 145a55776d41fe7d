//! Template selection, markup expansion and prompt composition.
//!
//! Selection: for each requirement, language, input type and reflection type (in that nesting
//! order) the group is the library's templates with that concern, input and reflection, in
//! file order. A group of at most `nTemplates` is taken whole; a larger one is sampled without
//! replacement by a partial Fisher-Yates shuffle drawn from
//! `rng_for(seed, ["langbite-select", requirement index, language, input, reflection])`, and
//! the sample is kept in file order. (Upstream draws from Python's unseeded global `random`,
//! so no upstream run can be reproduced draw for draw; the selected ids are recorded here.)
//!
//! Expansion, as upstream: each template is instantiated with the communities of the **last**
//! requirement with its concern. The distinct placeholders `{ROOT}` / `{ROOTn}` of the markup
//! get distinct communities: every ordered k-permutation of the community list, skipping tuples
//! that repeat a literal; every occurrence of one placeholder gets the same community. k = 0
//! gives the template itself; k > n gives nothing (reported). An empty community list leaves
//! the template unexpanded. Upstream pairs placeholders with tuple positions in Python set
//! order, which varies between processes; we pair them in sorted order (`ROOT`, then `ROOT1`,
//! `ROOT2`, ...) and enumerate tuples lexicographically, which yields the same set of instances
//! in a fixed order.

use super::library::{Library, Template};
use super::placeholder::{brace_tokens, is_placeholder};
use super::scenario::{Requirement, Scenario};
use crate::formats::Problem;
use crate::rng::rng_for;
use rand::RngExt;
use serde::Serialize;
use std::collections::BTreeMap;

/// The most instances one template may yield. Upstream has no limit; the largest in its
/// libraries is 7·6 = 42. Past this (say 8 placeholders over 20 communities, 5·10⁹ prompts)
/// the template is skipped with a warning rather than exhausting memory.
pub const MAX_INSTANCES_PER_TEMPLATE: u64 = 100_000;

/// How a prompt is composed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Composition {
    /// `prefix The sentence is delimited by """. """instance""". format`, English delimiter in
    /// every language; `instance format` without a prefix (a missing format reads `None`, as
    /// Python's f-string writes it). The OpenAI connector's carry-return sentence is the
    /// provider's business and is not added here.
    Compat,
    /// Our own library (`ourlib`): the template language's prefix, delimiter sentence and
    /// format sentence. A LangBiTe template carries none of these, so it is composed as `Compat`.
    Localised,
}

/// One (requirement, language, input, reflection) group: what was available and what was taken.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub requirement: usize,
    pub concern: String,
    pub language: String,
    pub input_type: String,
    pub reflection_type: String,
    pub available: usize,
    /// Template ids taken, in file order: the run manifest records these.
    pub selected: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Instance {
    /// `<language>/<template id>/<n>`, with `#<k>` appended when the template is selected for
    /// the k-th time again (upstream selects it once per requirement of its concern): unique.
    pub case_id: String,
    pub requirement: usize,
    pub requirement_name: String,
    pub concern: String,
    pub language: String,
    pub input_type: String,
    pub reflection_type: String,
    pub template_id: String,
    /// The template as the library writes it, placeholders and all (LangBiTe's evaluations report shows it).
    pub template: String,
    /// 0-based index of this instance among its template's instances.
    pub instance_index: usize,
    /// Placeholder (without braces) to community.
    pub communities: BTreeMap<String, String>,
    /// The template with communities filled in (what upstream's responses report shows).
    pub instance: String,
    /// The full text sent.
    pub prompt: String,
    pub oracle: String,
    pub oracle_prediction: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Expansion {
    pub seed: u64,
    pub composition: Composition,
    pub groups: Vec<Group>,
    pub instances: Vec<Instance>,
    pub warnings: Vec<Problem>,
}

#[derive(Debug, thiserror::Error)]
pub enum ExpandError {
    #[error("requirements[{requirement}]: no library for language {language} (pass --library {language}=PATH)")]
    NoLibrary { requirement: usize, language: String },
}

/// What [`select`] took: the groups, and (requirement index, library, template) in order.
pub struct Selection<'a> {
    pub groups: Vec<Group>,
    pub picked: Vec<(usize, &'a Library, &'a Template)>,
    pub warnings: Vec<Problem>,
}

/// Selects, expands and composes. `libraries` maps a language code to its library.
pub fn expand(
    scenario: &Scenario,
    libraries: &BTreeMap<String, Library>,
    seed: u64,
    composition: Composition,
) -> Result<Expansion, ExpandError> {
    let Selection { groups, picked, mut warnings } = select(scenario, libraries, seed)?;
    let mut instances = vec![];
    let mut seen: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (ri, lib, t) in picked {
        // A template selected again (a second requirement of its concern, or a language listed
        // twice) gets `#<occurrence>` in its case ids, so ids stay unique.
        let occurrence = seen.entry((lib.language.as_str(), t.id.as_str())).or_insert(0);
        let again = *occurrence;
        *occurrence += 1;
        let case = |n: usize| match again {
            0 => format!("{}/{}/{}", lib.language, t.id, n),
            k => format!("{}/{}/{}#{k}", lib.language, t.id, n),
        };
        // Upstream re-instantiates every prompt of a concern once per requirement with it, so
        // the last such requirement's markup and communities are the ones that stay.
        let owner = scenario.requirements.iter().rposition(|r| r.concern == t.concern).unwrap_or(ri);
        let req: &Requirement = &scenario.requirements[owner];
        let at = || Problem::new(&lib.file, "").at_line(t.row as u64).in_field("prompt");
        let communities = req.communities.get(&lib.language).map(Vec::as_slice).unwrap_or(&[]);
        let filled = if communities.is_empty() {
            if brace_tokens(&t.prompt).iter().any(|tok| is_placeholder(tok, &req.markup)) {
                let mut p = at();
                p.message = format!(
                    "template {} keeps its {{{}}} placeholders: no communities for {}",
                    t.id, req.markup, lib.language
                );
                warnings.push(p);
            }
            vec![(BTreeMap::new(), t.prompt.clone())]
        } else {
            let k = placeholders(&t.prompt, &req.markup).len();
            let would = permutation_count(communities.len(), k);
            if would > MAX_INSTANCES_PER_TEMPLATE {
                let mut p = at();
                p.message = format!(
                    "template {} would yield {would} instances ({k} placeholders over {} communities), more than {MAX_INSTANCES_PER_TEMPLATE}; skipped",
                    t.id,
                    communities.len()
                );
                warnings.push(p);
                continue;
            }
            let (placeholders, filled) = replace_markups(&t.prompt, &req.markup, communities);
            if filled.is_empty() {
                let mut p = at();
                p.message = format!(
                    "template {} has {} distinct placeholders but {} has only {} communities: no instances (upstream's allEqualExpected then passes vacuously)",
                    t.id,
                    placeholders.len(),
                    lib.language,
                    communities.len()
                );
                warnings.push(p);
            }
            filled
        };
        for (n, (mapping, text)) in filled.into_iter().enumerate() {
            let prompt = compose(composition, t, &text);
            instances.push(Instance {
                case_id: case(n),
                requirement: ri,
                requirement_name: scenario.requirements[ri].name.clone(),
                concern: t.concern.clone(),
                language: lib.language.clone(),
                input_type: t.input_type.clone(),
                reflection_type: t.reflection_type.clone(),
                template_id: t.id.clone(),
                template: t.prompt.clone(),
                instance_index: n,
                communities: mapping,
                instance: text,
                prompt,
                oracle: t.oracle.clone(),
                oracle_prediction: t.oracle_prediction.clone(),
            });
        }
    }
    Ok(Expansion { seed, composition, groups, instances, warnings })
}

/// Template selection alone (the module doc's first paragraph), shared with our own library.
pub fn select<'a>(
    scenario: &Scenario,
    libraries: &'a BTreeMap<String, Library>,
    seed: u64,
) -> Result<Selection<'a>, ExpandError> {
    let mut groups = vec![];
    let mut warnings = vec![];
    let mut picked: Vec<(usize, &Library, &Template)> = vec![];
    for (ri, req) in scenario.requirements.iter().enumerate() {
        for lang in &req.languages {
            let lib = libraries
                .get(lang)
                .ok_or_else(|| ExpandError::NoLibrary { requirement: ri, language: lang.clone() })?;
            if !lib.templates.iter().any(|t| t.concern == req.concern) {
                let mut concerns: Vec<&str> = lib.templates.iter().map(|t| t.concern.as_str()).collect();
                concerns.sort();
                concerns.dedup();
                warnings.push(Problem::new(&lib.file, format!(
                    "requirements[{ri}]: no template has concern {:?} (the library has {}); nothing is tested for it in {lang}",
                    req.concern,
                    concerns.join(", ")
                )).in_field("concern"));
            }
            for input in &req.inputs {
                for reflection in &req.reflections {
                    let members: Vec<&Template> = lib
                        .templates
                        .iter()
                        .filter(|t| {
                            t.concern == req.concern && &t.input_type == input && &t.reflection_type == reflection
                        })
                        .collect();
                    let parts: [&[u8]; 5] = [
                        b"langbite-select",
                        &(ri as u64).to_le_bytes(),
                        lang.as_bytes(),
                        input.as_bytes(),
                        reflection.as_bytes(),
                    ];
                    let taken = sample(members.len(), scenario.n_templates, seed, &parts);
                    groups.push(Group {
                        requirement: ri,
                        concern: req.concern.clone(),
                        language: lang.clone(),
                        input_type: input.clone(),
                        reflection_type: reflection.clone(),
                        available: members.len(),
                        selected: taken.iter().map(|&i| members[i].id.clone()).collect(),
                    });
                    if members.is_empty() {
                        warnings.push(Problem::new(&lib.file, format!(
                            "requirements[{ri}]: no {} template is {input} and {reflection}; upstream leaves this group out of its global report",
                            req.concern
                        )).in_field("concern"));
                    }
                    picked.extend(taken.iter().map(|&i| (ri, lib, members[i])));
                }
            }
        }
    }
    Ok(Selection { groups, picked, warnings })
}

/// Indices of `n` items to take, ascending: all when `n <= cap`, else `cap` drawn without replacement.
fn sample(n: usize, cap: u64, seed: u64, parts: &[&[u8]]) -> Vec<usize> {
    let cap = usize::try_from(cap).unwrap_or(usize::MAX);
    if n <= cap {
        return (0..n).collect();
    }
    let mut rng = rng_for(seed, parts);
    let mut idx: Vec<usize> = (0..n).collect();
    for i in 0..cap {
        let j = rng.random_range(i..n);
        idx.swap(i, j);
    }
    let mut taken = idx[..cap].to_vec();
    taken.sort_unstable();
    taken
}

/// One instance: placeholder to community, and the filled-in text.
pub type Filled = (BTreeMap<String, String>, String);

/// The distinct placeholders of `root` in `text` (sorted: `ROOT`, `ROOT1`, `ROOT2`, ...) and
/// every instance: one per ordered permutation of distinct communities.
pub fn replace_markups(text: &str, root: &str, communities: &[String]) -> (Vec<String>, Vec<Filled>) {
    let placeholders = placeholders(text, root);
    let k = placeholders.len();
    let mut out = vec![];
    let mut tuple = vec![];
    permutations(communities.len(), k, &mut tuple, &mut |idx| {
        let chosen: Vec<&String> = idx.iter().map(|&i| &communities[i]).collect();
        // Skip tuples that repeat a literal (only possible when the list has duplicates).
        if (1..chosen.len()).any(|i| chosen[..i].contains(&chosen[i])) {
            return;
        }
        let mut s = text.to_string();
        let mut mapping = BTreeMap::new();
        for (p, c) in placeholders.iter().zip(&chosen) {
            s = s.replace(&format!("{{{p}}}"), c);
            mapping.insert(p.clone(), (*c).clone());
        }
        out.push((mapping, s));
    });
    (placeholders, out)
}

/// The distinct placeholders of `root` in `text`, sorted `ROOT`, `ROOT1`, `ROOT2`, ..., `ROOT10`.
pub fn placeholders(text: &str, root: &str) -> Vec<String> {
    let mut out: Vec<String> =
        brace_tokens(text).into_iter().filter(|t| is_placeholder(t, root)).map(str::to_string).collect();
    out.sort_by_key(|p| (p.len(), p.clone()));
    out.dedup();
    out
}

/// n! / (n-k)!, saturating; 0 when k > n.
fn permutation_count(n: usize, k: usize) -> u64 {
    if k > n {
        return 0;
    }
    (0..k).fold(1u64, |acc, i| acc.saturating_mul((n - i) as u64))
}

/// Calls `f` with every ordered k-tuple of distinct indices below n, lexicographically.
pub fn permutations(n: usize, k: usize, tuple: &mut Vec<usize>, f: &mut dyn FnMut(&[usize])) {
    if tuple.len() == k {
        f(tuple);
        return;
    }
    for i in 0..n {
        if !tuple.contains(&i) {
            tuple.push(i);
            permutations(n, k, tuple, f);
            tuple.pop();
        }
    }
}

/// The text sent for one instance of `t`.
pub fn compose(composition: Composition, t: &Template, instance: &str) -> String {
    match composition {
        Composition::Compat | Composition::Localised => {
            let format = t.output_formatting.as_deref().unwrap_or("None");
            match &t.task_prefix {
                Some(prefix) => {
                    format!("{prefix} The sentence is delimited by \"\"\". \"\"\"{instance}\"\"\". {format}")
                }
                None => format!("{instance} {format}"),
            }
        }
    }
}

/// Instance counts per (concern, language), for summaries and tests.
pub fn counts(instances: &[Instance]) -> BTreeMap<(String, String), usize> {
    let mut out = BTreeMap::new();
    for i in instances {
        *out.entry((i.concern.clone(), i.language.clone())).or_insert(0) += 1;
    }
    out
}
