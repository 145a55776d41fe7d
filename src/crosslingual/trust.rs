//! The cross-lingual tool's detectors as a [`crate::trust::Panel`]: the lexicon and the opening
//! rule on every answer, the LLM judge where its verdicts exist. Labels are the truth they are
//! measured against: those given in the page (or a labels file), and where an answer has none
//! there, the upload's own `refusal_label` column.

use super::analysis::{Dataset, Settings};
use super::detect::Detector;
use crate::trust::labels::Labels;
use crate::trust::{self, Item, Panel, Trust};

/// The detector names the report uses.
pub const LEXICON: &str = "lexicon";
pub const OPENING: &str = "opening rule";
pub const JUDGE: &str = "judge";

/// The panel over the records `selected` (indices into `d`), with the review sample the
/// settings draw (the labels' design, [`crate::trust::weighted`]).
pub fn panel(d: &Dataset, selected: &[usize], s: &Settings) -> Panel {
    let decides = s.detector;
    let judge = selected.iter().any(|&i| d.verdicts[i].judge.is_some());
    let mut detectors = vec![LEXICON.to_string(), OPENING.to_string()];
    if judge {
        detectors.push(JUDGE.into());
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
            Item { record_id: r.record_id.clone(), model: r.model.clone(), language: r.language.clone(), verdicts }
        })
        .collect();
    let decides = match decides {
        Detector::Lexicon => LEXICON.to_string(),
        Detector::Judge => JUDGE.to_string(),
        Detector::Label => "uploaded labels".to_string(),
    };
    let sample = super::review::sample(d, selected, s).into_iter().map(|r| r.record_id).collect();
    Panel { detectors, decides, items, sample: Some(sample) }
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
