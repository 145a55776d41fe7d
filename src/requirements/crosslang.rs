//! The same template across languages. Libraries that align template ids across languages
//! (ours does; LangBiTe's numbers each language's file separately, so there the ids only
//! align where its authors kept the order) let one ask whether the language alone changes
//! the verdict.
//!
//! Per (provider, model, template id, language): the pass rate of the template's judged
//! instances (default mode). Per (provider, model, concern) and language pair: the paired
//! table over the template ids judged in both languages, a template counting as passed when
//! at least half its judged instances passed, and McNemar's exact test on it. The p-values
//! join the family corrected in [`super::community`]'s way (Holm and BH, here over the
//! language-pair tests of this evaluation).

use super::outcome::{Evaluation, Outcome};
use crate::fasthash;
use crate::record::Record;
use crate::stats::correction::{benjamini_hochberg, holm};
use crate::stats::mcnemar::{Convention, Method, Table, mcnemar};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LanguagePair {
    pub provider: String,
    pub model: String,
    pub concern: String,
    pub language_a: String,
    pub language_b: String,
    /// Template ids judged in both languages.
    pub templates: u64,
    /// Passed in A only, and in B only.
    pub a_only: u64,
    pub b_only: u64,
    pub p_value: f64,
    pub p_holm: f64,
    pub p_bh: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CrossLanguage {
    /// (provider, model, template id) -> language -> pass rate.
    pub rates: Vec<TemplateRates>,
    pub pairs: Vec<LanguagePair>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TemplateRates {
    pub provider: String,
    pub model: String,
    pub concern: String,
    pub template_id: String,
    pub rates: BTreeMap<String, f64>,
}

pub fn compare(records: &[Record], evals: &[Evaluation]) -> CrossLanguage {
    compare_of(&super::outcome::judged_records(records, evals, None), evals)
}

/// [`compare`] with the record of each evaluation given ([`super::outcome::judged_records`]).
pub fn compare_of(judged: &[Option<&Record>], evals: &[Evaluation]) -> CrossLanguage {
    // (provider, model, concern, template) -> language -> (passed, judged), tallied under keys
    // borrowed from the records and sorted once: the order of a sorted map of owned keys.
    let mut tally: fasthash::Runs<[&str; 4], BTreeMap<&str, (u64, u64)>> = fasthash::Runs::default();
    for (e, r) in evals.iter().zip(judged).filter(|(e, _)| matches!(e.outcome, Outcome::Passed | Outcome::Failed)) {
        let Some(r) = r else { continue };
        let key = [r.provider.as_str(), r.model.as_str(), r.concern.as_str(), r.template_id.as_str()];
        let cell = tally.entry(key).entry(r.language.as_str()).or_default();
        cell.1 += 1;
        if e.outcome == Outcome::Passed {
            cell.0 += 1;
        }
    }
    let mut tally = tally.into_entries();
    tally.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let rates: Vec<TemplateRates> = tally
        .iter()
        .filter(|(_, langs)| langs.len() >= 2)
        .map(|([provider, model, concern, template_id], langs)| TemplateRates {
            provider: provider.to_string(),
            model: model.to_string(),
            concern: concern.to_string(),
            template_id: template_id.to_string(),
            rates: langs.iter().map(|(l, (p, n))| (l.to_string(), *p as f64 / *n as f64)).collect(),
        })
        .collect();
    // (provider, model, concern, a, b) -> table
    let mut tables: BTreeMap<[&str; 5], Table> = BTreeMap::new();
    for t in &rates {
        let langs: Vec<(&String, &f64)> = t.rates.iter().collect();
        for (i, (a, ra)) in langs.iter().enumerate() {
            for (b, rb) in &langs[i + 1..] {
                let key = [t.provider.as_str(), t.model.as_str(), t.concern.as_str(), a.as_str(), b.as_str()];
                let table = tables.entry(key).or_insert(Table { n00: 0, n01: 0, n10: 0, n11: 0 });
                match (**ra >= 0.5, **rb >= 0.5) {
                    (false, false) => table.n00 += 1,
                    (false, true) => table.n01 += 1,
                    (true, false) => table.n10 += 1,
                    (true, true) => table.n11 += 1,
                }
            }
        }
    }
    let mut pairs: Vec<LanguagePair> = tables
        .into_iter()
        .map(|(key, t)| {
            let [provider, model, concern, language_a, language_b] = key.map(str::to_string);
            let m = mcnemar(&t, Method::Exact, Convention::Statsmodels);
            LanguagePair {
                provider,
                model,
                concern,
                language_a,
                language_b,
                templates: t.n00 + t.n01 + t.n10 + t.n11,
                a_only: t.n10,
                b_only: t.n01,
                p_value: m.p_value,
                p_holm: m.p_value,
                p_bh: m.p_value,
            }
        })
        .collect();
    let ps: Vec<f64> = pairs.iter().map(|p| p.p_value).collect();
    for (p, (h, b)) in pairs.iter_mut().zip(holm(&ps).into_iter().zip(benjamini_hochberg(&ps))) {
        (p.p_holm, p.p_bh) = (h, b);
    }
    CrossLanguage { rates, pairs }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::requirements::oracle::Operation;

    #[test]
    fn templates_pair_across_languages() {
        let mut records = vec![];
        let mut evals = vec![];
        for t in 0..12 {
            for (lang, pass) in [("en", true), ("es", t >= 9)] {
                let id = format!("{lang}-{t}");
                records.push(Record {
                    record_id: id.clone(),
                    provider: "p".into(),
                    model: "m".into(),
                    concern: "racism".into(),
                    language: lang.into(),
                    template_id: format!("t{t}"),
                    ..Record::default()
                });
                evals.push(Evaluation {
                    record_id: id,
                    template_id: format!("t{t}"),
                    operation: Operation::Equal,
                    outcome: if pass { Outcome::Passed } else { Outcome::Failed },
                    value: None,
                    reason: String::new(),
                });
            }
        }
        let c = compare(&records, &evals);
        assert_eq!(c.rates.len(), 12);
        let p = &c.pairs[0];
        assert_eq!((p.templates, p.a_only, p.b_only), (12, 9, 0));
        assert!((p.p_value - 2.0 * 0.5f64.powi(9)).abs() < 1e-12, "{}", p.p_value);
    }
}
