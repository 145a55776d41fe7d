//! Pair building: which two people fill a row's slots, drawn so that each pair has one person of
//! the stereotyped groups, and the group code each answer is recorded with.

use std::collections::{BTreeMap, BTreeSet};

use rand::RngExt;

use super::GenerateOptions;
use super::slots::Filler;
use super::table::{category_key, same_language};
use super::templates::{F_CATEGORY, F_PROPER, F_SUBCATEGORY, TemplateRow};
use super::vocabulary::{ProperName, ProperNames, VocabEntry, Vocabulary};
use crate::bbq::bias;
use crate::formats::Problem;
use crate::rng::{Rng, rng_for};

/// Mirrors the matching in `bias` (the whole code, or any `_`-separated part of it, compared
/// in canonical form), so that pairs are chosen the way their biased answer will be decided.
fn in_groups(group: &str, stereotyped: &[String]) -> bool {
    let wanted: Vec<String> = stereotyped.iter().map(|s| bias::canonical(s)).collect();
    wanted.contains(&bias::canonical(group)) || group.split('_').map(bias::canonical).any(|p| wanted.contains(&p))
}

fn same_group(a: &str, b: &str) -> bool {
    bias::canonical(a) == bias::canonical(b)
}

/// What a slot's info cell does: nothing, restrict the slot to fillers of that group, or
/// label the slot's group (BBQ's NAME1_info "trans" on templates where the words say it).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum InfoRole {
    None,
    Restrict(String),
    Label(String),
}

/// The filled pairs of one row, and how the slot infos apply.
pub(super) struct Pairs {
    pub(super) pairs: Vec<[Filler; 2]>,
    pub(super) roles: [InfoRole; 2],
}

/// Draws at most `n` items (all when n is 0), keeping their file order.
fn sample<T: Clone>(items: &[T], n: usize, rng: &mut Rng) -> Vec<T> {
    if n == 0 || items.len() <= n {
        return items.to_vec();
    }
    let mut index: Vec<usize> = (0..items.len()).collect();
    for i in 0..n {
        let j = rng.random_range(i..index.len());
        index.swap(i, j);
    }
    let mut chosen = index[..n].to_vec();
    chosen.sort_unstable();
    chosen.into_iter().filter_map(|i| items.get(i).cloned()).collect()
}

/// Text that identifies a row whatever its position in the file: the seed for its draws.
pub(super) fn row_key(row: &TemplateRow) -> String {
    let names = row.names.as_ref().map(|[a, b]| format!("{}|{}", a.join(","), b.join(","))).unwrap_or_default();
    format!("{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}", row.language, row.category, row.q_id, row.ambiguous_context, names)
}

/// Pairs people from a pool, BBQ-style. `restrict` holds a slot's required group when its info
/// cell names one. Otherwise, when the template's stereotyped groups pick out part of the pool,
/// NAME1 comes from that part and NAME2 from the rest (BBQ's "bias target" pairing), so every
/// pair has one stereotyped person; else any two people of different groups. Also returns
/// whether the pairs may be swapped (not when a slot is restricted to a group).
fn pair_pool(
    pool: &[Filler],
    restrict: [Option<&str>; 2],
    stereotyped: &[String],
    n: usize,
    seed: u64,
    key: &str,
) -> (Vec<[Filler; 2]>, bool) {
    let matches = |f: &Filler, g: &str| same_group(&f.group, g);
    let swappable = restrict.iter().all(Option::is_none);
    let (first, second_pool): (Vec<Filler>, Vec<Filler>) = if !swappable {
        let first = pool.iter().filter(|f| restrict[0].is_none_or(|g| matches(f, g))).cloned().collect();
        let second = pool.iter().filter(|f| restrict[1].is_none_or(|g| matches(f, g))).cloned().collect();
        (first, second)
    } else {
        let (target, other): (Vec<Filler>, Vec<Filler>) =
            pool.iter().cloned().partition(|f| in_groups(&f.group, stereotyped));
        if !target.is_empty() && !other.is_empty() { (target, other) } else { (pool.to_vec(), pool.to_vec()) }
    };
    let mut rng = rng_for(seed, &[b"bbq-name1", key.as_bytes()]);
    let mut pairs = Vec::new();
    for a in sample(&first, n, &mut rng) {
        let partners: Vec<Filler> =
            second_pool.iter().filter(|b| b.text != a.text && !same_group(&a.group, &b.group)).cloned().collect();
        let mut rng = rng_for(seed, &[b"bbq-name2", key.as_bytes(), a.text.as_bytes()]);
        for b in sample(&partners, n, &mut rng) {
            pairs.push([a.clone(), b]);
        }
    }
    (pairs, swappable)
}

/// The role of each slot's info cell, given the groups present in the pool.
fn info_roles(row: &TemplateRow, pool: &[Filler]) -> [InfoRole; 2] {
    row.name_info.clone().map(|info| {
        if info.is_empty() {
            InfoRole::None
        } else if pool.iter().any(|f| same_group(&f.group, &info)) {
            InfoRole::Restrict(info)
        } else {
            InfoRole::Label(info)
        }
    })
}

fn restrictions(roles: &[InfoRole; 2]) -> [Option<&str>; 2] {
    [0, 1].map(|i| match &roles[i] {
        InfoRole::Restrict(g) => Some(g.as_str()),
        _ => None,
    })
}

/// The vocabulary entries a row draws from.
fn vocabulary_pool<'v>(row: &TemplateRow, vocab: &'v Vocabulary) -> Vec<&'v VocabEntry> {
    let category = category_key(&row.category);
    vocab
        .entries
        .iter()
        .filter(|e| category_key(&e.category) == category)
        .filter(|e| e.language.is_empty() || same_language(&e.language, &row.language))
        .filter(|e| row.subcategory.is_empty() || e.subcategory.trim().eq_ignore_ascii_case(row.subcategory.trim()))
        .collect()
}

pub(super) fn build_pairs(
    row: &TemplateRow,
    vocab: &Vocabulary,
    names: Option<&ProperNames>,
    opts: &GenerateOptions,
) -> Result<Pairs, Problem> {
    let key = row_key(row);
    let n = opts.names_per_template;
    if let Some([list1, list2]) = &row.names {
        // The row names its own fillers; a word that is also a vocabulary entry brings its
        // forms and group code along.
        let pool = vocabulary_pool(row, vocab);
        let filler = |word: &str| match pool.iter().find(|e| e.name.eq_ignore_ascii_case(word)) {
            Some(e) => Filler { text: word.to_string(), ..Filler::from_entry(e) },
            None => Filler {
                text: word.to_string(),
                forms: BTreeMap::new(),
                group: word.to_string(),
                gram: None,
                proper: false,
            },
        };
        let roles = row.name_info.clone().map(|i| if i.is_empty() { InfoRole::None } else { InfoRole::Label(i) });
        let mut pairs = Vec::new();
        for a in list1 {
            for b in list2 {
                if !a.eq_ignore_ascii_case(b) {
                    pairs.push([filler(a), filler(b)]);
                }
            }
        }
        return Ok(Pairs { pairs, roles });
    }
    if row.proper_names_only {
        let Some(names) = names else {
            return Err(row.problem(F_PROPER, "this template needs proper names, but no proper-names list was given"));
        };
        let usable: Vec<&ProperName> = names
            .names
            .iter()
            .filter(|p| p.language.is_empty() || same_language(&p.language, &row.language))
            .filter(|p| !p.first_last.eq_ignore_ascii_case("last"))
            .collect();
        // BBQ fills gender templates from first names that carry no ethnicity ("first_only");
        // other first names are used only when a list has none of those.
        let first_only: Vec<&ProperName> =
            usable.iter().copied().filter(|p| p.first_last.eq_ignore_ascii_case("first_only")).collect();
        let chosen = if first_only.is_empty() { usable } else { first_only };
        let pool: Vec<Filler> = chosen.into_iter().map(Filler::from_name).collect();
        if pool.is_empty() {
            return Err(
                row.problem(F_PROPER, format!("no proper names for language {:?} in {}", row.language, names.file))
            );
        }
        let roles = info_roles(row, &pool);
        let (pairs, swappable) = pair_pool(&pool, restrictions(&roles), &row.stereotyped_groups, n, opts.seed, &key);
        return Ok(Pairs { pairs: with_swaps(pairs, swappable && opts.both_orders), roles });
    }
    let entries = vocabulary_pool(row, vocab);
    if entries.is_empty() {
        let what = if row.subcategory.is_empty() {
            format!("category {:?}", row.category)
        } else {
            format!("category {:?} with SubCat {:?}", row.category, row.subcategory)
        };
        let field = if row.subcategory.is_empty() { F_CATEGORY } else { F_SUBCATEGORY };
        return Err(row.problem(
            field,
            format!("the vocabulary {} has no terms for {what} in language {:?}", vocab.file, row.language),
        ));
    }
    let pool: Vec<Filler> = entries.into_iter().map(Filler::from_entry).collect();
    let roles = info_roles(row, &pool);
    let (pairs, swappable) = pair_pool(&pool, restrictions(&roles), &row.stereotyped_groups, n, opts.seed, &key);
    Ok(Pairs { pairs: with_swaps(pairs, swappable && opts.both_orders), roles })
}

/// Adds each pair with its people swapped, after the pair itself, skipping duplicates.
fn with_swaps(pairs: Vec<[Filler; 2]>, swap: bool) -> Vec<[Filler; 2]> {
    if !swap {
        return pairs;
    }
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for [a, b] in pairs {
        for pair in [[a.clone(), b.clone()], [b, a]] {
            if seen.insert((pair[0].text.clone(), pair[1].text.clone())) {
                out.push(pair);
            }
        }
    }
    out
}

/// The group code of a filler in a slot: a slot label wins over the filler's own code, except
/// for proper names, whose gender is kept after the label ("trans_F"), as BBQ records it.
pub(super) fn slot_group(filler: &Filler, role: &InfoRole) -> String {
    match role {
        InfoRole::Label(label) if filler.proper => format!("{label}_{}", filler.group),
        InfoRole::Label(label) => label.clone(),
        _ => filler.group.clone(),
    }
}

/// For a pre-filled row (no slots): the group of a literal answer. A vocabulary term found in
/// it gives its code; otherwise the answer's words joined by '_', so that the bias rule can
/// match any one of them ("Die_Frau" matches "F" through "Frau").
pub(super) fn literal_group(answer: &str, row: &TemplateRow, vocab: &Vocabulary) -> String {
    let text = answer.to_lowercase();
    let mut best: Option<(usize, String)> = None;
    for e in vocabulary_pool(&TemplateRow { subcategory: String::new(), ..row.clone() }, vocab) {
        let candidates =
            std::iter::once(&e.name).chain(e.forms.iter().filter(|(k, _)| k.as_str() != "g").map(|(_, v)| v));
        for c in candidates {
            let c = c.to_lowercase();
            if !c.is_empty() && contains_words(&text, &c) && best.as_ref().is_none_or(|(len, _)| c.len() > *len) {
                best = Some((c.len(), Filler::from_entry(e).group));
            }
        }
    }
    match best {
        Some((_, group)) => group,
        None => answer.split_whitespace().collect::<Vec<_>>().join("_"),
    }
}

fn contains_words(haystack: &str, needle: &str) -> bool {
    haystack.match_indices(needle).any(|(i, _)| {
        let before = haystack[..i].chars().next_back();
        let after = haystack[i + needle.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}
