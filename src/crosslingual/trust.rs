//! The cross-lingual tool's detectors as a [`crate::trust::Panel`]: the lexicon and the opening
//! rule on every answer, the LLM judge and the NLI model where their verdicts exist. Labels are the truth they are
//! measured against: those given in the page (or a labels file), and where an answer has none
//! there, the upload's own `refusal_label` column.

use super::analysis::{Dataset, Settings};
use super::detect::{Detector, NLI_MODEL_COLUMN, NLI_RULE_COLUMN};
use crate::trust::labels::Labels;
use crate::trust::{self, Item, Panel, Trust};

/// The detector names the report uses.
pub const LEXICON: &str = "lexicon";
pub const OPENING: &str = "opening rule";
pub const JUDGE: &str = "judge";
pub const NLI: &str = "NLI model";

/// The panel over the records `selected` (indices into `d`), with the review sample the
/// settings draw (the labels' design, [`crate::trust::weighted`]).
pub fn panel(d: &Dataset, selected: &[usize], s: &Settings) -> Panel {
    let decides = s.detector;
    let judge = selected.iter().any(|&i| d.verdicts[i].judge.is_some());
    let nli = selected.iter().any(|&i| d.verdicts[i].nli.is_some());
    let mut detectors = vec![LEXICON.to_string(), OPENING.to_string()];
    if judge {
        detectors.push(JUDGE.into());
    }
    if nli {
        detectors.push(NLI.into());
    }
    let items = selected
        .iter()
        .filter(|&&i| d.verdicts[i].lexicon.is_some())
        .map(|&i| {
            let (r, v) = (&d.records[i], &d.verdicts[i]);
            let mut verdicts = vec![v.lexicon, v.opening];
            if judge {
                verdicts.push(v.judge);
            }
            if nli {
                verdicts.push(v.nli);
            }
            Item { record_id: r.record_id.clone(), model: r.model.clone(), language: r.language.clone(), verdicts }
        })
        .collect();
    let decides = match decides {
        Detector::Lexicon => LEXICON.to_string(),
        Detector::Judge => JUDGE.to_string(),
        Detector::Label => "uploaded labels".to_string(),
        Detector::Nli => NLI.to_string(),
    };
    let about = if nli { vec![nli_sentence(d, selected)] } else { vec![] };
    let sample = super::review::sample(d, selected, s).into_iter().map(|r| r.record_id).collect();
    Panel { detectors, decides, items, about, sample: Some(sample) }
}

/// The NLI detector's models (as the records name them: repository or folder, commit,
/// weights' sha256) and rules, in one sentence.
pub fn nli_sentence(d: &Dataset, selected: &[usize]) -> String {
    nli_sentence_of(selected.iter().filter(|&&i| d.verdicts[i].nli.is_some()).map(|&i| &d.records[i]))
}

/// [`nli_sentence`] over the records the NLI detector judged.
pub fn nli_sentence_of<'a>(judged: impl IntoIterator<Item = &'a crate::record::Record>) -> String {
    let mut models = std::collections::BTreeSet::new();
    let mut rules = std::collections::BTreeSet::new();
    for r in judged {
        models.insert(r.extra.get(NLI_MODEL_COLUMN).map_or("an unnamed model", String::as_str).to_string());
        rules.insert(r.extra.get(NLI_RULE_COLUMN).map(|r| r.trim().to_string()).unwrap_or_default());
    }
    let model_rule = |r: &str| match r {
        "argmax" => "argmax (MSQAD's code: refusal when P(refuse) > 0.5)".to_string(),
        other => format!("{other} (refusal when P(refuse) is at least the threshold; the paper text's is 0.8)"),
    };
    let rules: Vec<String> = rules
        .into_iter()
        .map(|r| match super::detect::cascade_inner(&r) {
            Some(inner) => format!(
                "{r}, the lexicon-first cascade (the lexicon decides its hits and the provider's refusals without the model; the model decides the rest by {})",
                model_rule(inner.trim())
            ),
            None => model_rule(&r),
        })
        .collect();
    format!(
        "The NLI detector is zero-shot classification (MSQAD's two labels per language in the template \"This example is {{}}.\", softmax over the two entailment logits) by {}, rule {}.",
        models.into_iter().collect::<Vec<_>>().join("; "),
        rules.join("; ")
    )
}

/// The labels measured against: the dataset's own (given in the page) over the upload's column.
pub fn labels(d: &Dataset, selected: &[usize]) -> Labels {
    let mut out = Labels::default();
    for &i in selected {
        if let Some(l) = d.verdicts[i].label {
            out.set(&d.records[i].record_id, Some(l));
        }
    }
    for (id, &l) in &d.labels.0 {
        out.set(id, Some(l));
    }
    out
}

pub fn assess(d: &Dataset, selected: &[usize], s: &Settings) -> Trust {
    trust::assess(
        &panel(d, selected, s),
        &labels(d, selected),
        trust::Settings { threshold: s.disagreement_threshold, confidence: s.confidence.get() },
    )
}
