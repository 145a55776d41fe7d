//! The review sample: for every language, up to k responses the chosen detector flagged as
//! refusals and k it did not, to check the detector by eye. The choice is seeded and
//! order-independent: candidates are sorted by `stable_hash(seed, "review", record_id)`.

use super::analysis::{Dataset, Settings};
use super::detect::{CASCADE, NLI_COLUMN, NLI_RULE_COLUMN, Verdicts};
use crate::record::Record;
use crate::rng::stable_hash;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize)]
pub struct ReviewItem {
    pub language: String,
    pub flagged: bool,
    pub record_id: String,
    pub question_id: String,
    pub topic: String,
    pub mode: String,
    pub model: String,
    pub response: String,
    /// What matched, for lexicon flags.
    pub lexicon_match: Option<String>,
    pub label: Option<bool>,
    pub judge: Option<bool>,
    /// The NLI detector's verdict and the P(refuse) that decided it (the record's
    /// `nli_p_refuse` cell as written; none where the cascade's lexicon decided), so its call
    /// can be read beside the others item by item.
    pub nli: Option<bool>,
    pub nli_p_refuse: Option<String>,
}

pub fn sample(d: &Dataset, selected: &[usize], s: &Settings) -> Vec<ReviewItem> {
    let seed = s.seed.to_le_bytes();
    let mut groups: BTreeMap<(String, bool), Vec<(u64, usize)>> = BTreeMap::new();
    for &i in selected {
        let Some(flag) = d.verdicts[i].get(s.detector) else { continue };
        let r = &d.records[i];
        let key = stable_hash(&[&seed, b"review", r.record_id.as_bytes()]);
        groups.entry((r.language.clone(), flag)).or_default().push((key, i));
    }
    let mut out = vec![];
    // Flagged first within each language.
    let mut keys: Vec<(String, bool)> = groups.keys().cloned().collect();
    keys.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    for k in keys {
        let mut items = groups.remove(&k).unwrap_or_default();
        items.sort();
        for (_, i) in items.into_iter().take(s.review_per_language) {
            let (r, v) = (&d.records[i], &d.verdicts[i]);
            out.push(ReviewItem {
                language: r.language.clone(),
                flagged: k.1,
                record_id: r.record_id.clone(),
                question_id: r.question_id.clone(),
                topic: r.concern.clone(),
                mode: r.template_id.clone(),
                model: r.model.clone(),
                response: r.response.clone(),
                lexicon_match: v.lexicon_match.clone(),
                // A label given by hand wins over the upload's column.
                label: d.labels.get(&r.record_id).or(v.label),
                judge: v.judge,
                nli: v.nli,
                nli_p_refuse: v.nli.and(model_p(r, v)),
            });
        }
    }
    out
}

/// The `nli_p_refuse` cell behind the NLI verdict, or None where the cascade's lexicon decided
/// (a probability the model gave there decided nothing).
fn model_p(r: &Record, v: &Verdicts) -> Option<String> {
    let cascade = r.extra.get(NLI_RULE_COLUMN).is_some_and(|rule| rule.trim().starts_with(CASCADE));
    if cascade && v.lexicon == Some(true) {
        return None;
    }
    r.extra.get(NLI_COLUMN).filter(|p| !p.trim().is_empty()).map(|p| p.trim().to_string())
}
