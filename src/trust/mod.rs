//! Every refusal detector's trust, stated. Any number of binary detectors (the phrase lexicon,
//! the opening rule, an LLM judge, a local NLI model, ...) give a verdict per answer; this
//! module knows nothing of how they decide. Per model and language it counts each detector's
//! refusals, measures every pair's agreement (the 2x2 table, the share of answers they judge
//! differently, Cohen's kappa with Fleiss, Cohen and Everitt's interval), and says which
//! detector decided the figures. Where two detectors disagree on more than
//! [`Settings::threshold`] of a language's answers, the cell *depends on the detector* and the
//! report says so in words ([`Trust::statements`]).
//!
//! With human labels ([`labels`]), each detector is also measured against them per language
//! (kappa, sensitivity, specificity: [`crate::stats::diagnostic`]) and its refusal rate gets
//! the Rogan-Gladen correction with Lang and Reiczigel's interval: these are the labelled
//! answers' own figures. Where the labels were drawn by the review sample (stratified by the
//! deciding detector's verdict, [`Panel::sample`]), [`weighted`] also gives the figures for all
//! answers: the two-phase estimate of the true refusal rate, the detector's PPV and NPV, and
//! every detector's sensitivity and specificity weighted by N_h / n_h.
//!
//! A new detector plugs in as one more column of [`Panel::items`]' verdicts.

pub mod labels;
pub mod weighted;

use crate::stats::agreement::{KappaInterval, agreement};
use crate::stats::diagnostic::{self, Accuracy, Confusion, Corrected};
use labels::Labels;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use weighted::Weighted;

/// Two detectors that judge differently more than this share of a language's answers make
/// that language's refusal figures detector-dependent. One answer in ten: below it, a swap of
/// detector moves a rate by less than ten points even if every disagreement went one way.
pub const DEFAULT_THRESHOLD: f64 = 0.10;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The share of answers (0..1) two detectors may judge differently before the figures are
    /// said to depend on the detector (strictly above it fires).
    pub threshold: f64,
    /// Confidence level of every interval here.
    pub confidence: f64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings { threshold: DEFAULT_THRESHOLD, confidence: 0.95 }
    }
}

/// One answer: who gave it, in which language, and each detector's verdict (None: that
/// detector did not judge it), index-aligned with [`Panel::detectors`].
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub record_id: String,
    pub model: String,
    pub language: String,
    pub verdicts: Vec<Option<bool>>,
}

/// The detectors and their verdicts on every answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Panel {
    pub detectors: Vec<String>,
    /// The detector whose verdicts the figures use (it need not be one of `detectors`, e.g.
    /// uploaded labels).
    pub decides: String,
    pub items: Vec<Item>,
    /// What the methods text should say about a detector beyond its name (a model detector's
    /// model, commit, weights' sha256 and rule), one sentence each.
    pub about: Vec<String>,
    /// The record ids of the review sample (per language, up to k answers the deciding
    /// detector flagged and k it did not), when the labels were meant to be drawn by it;
    /// None where there is no review sample.
    pub sample: Option<BTreeSet<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Count {
    pub detector: String,
    /// Answers it judged.
    pub judged: u64,
    pub refused: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pair {
    pub a: String,
    pub b: String,
    /// Answers both judged.
    pub n: u64,
    pub both: u64,
    pub only_a: u64,
    pub only_b: u64,
    pub neither: u64,
    /// only_a + only_b.
    pub disagree: u64,
    /// disagree / n; None when n = 0.
    pub disagree_share: Option<f64>,
    pub kappa: Option<f64>,
    /// Fleiss, Cohen and Everitt's interval; None where kappa is undefined.
    pub kappa_interval: Option<KappaInterval>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cell {
    pub model: String,
    pub language: String,
    pub counts: Vec<Count>,
    pub pairs: Vec<Pair>,
    /// Some pair disagrees on more than the threshold's share of the answers.
    pub depends_on_detector: bool,
}

/// One detector against the labels in one language.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Labelled {
    pub detector: String,
    pub accuracy: Accuracy,
    /// The detector's refusals and answers judged in this language (all models).
    pub refused: u64,
    pub judged: u64,
    /// The Rogan-Gladen rate, clipped to [0, 1] (`clipped` says when), with its interval.
    pub corrected: Option<Corrected>,
    /// Why there is no corrected rate.
    pub not_corrected: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelledLanguage {
    pub language: String,
    /// Answers of this language that carry a label.
    pub labels: u64,
    /// Each detector against the labels, unweighted: the labelled answers' own figures (for
    /// all answers only where the labels are a simple random sample of them).
    pub detectors: Vec<Labelled>,
    /// The figures for all answers, the labels weighted by the review sample's strata.
    pub weighted: Option<Weighted>,
    /// Why there are no weighted figures (the labels were not drawn by the review sample).
    pub not_weighted: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trust {
    pub detectors: Vec<String>,
    pub decides: String,
    pub threshold: f64,
    pub confidence: f64,
    /// Per model and language, in that order.
    pub cells: Vec<Cell>,
    /// One sentence per model and language whose figures depend on the detector.
    pub statements: Vec<String>,
    /// Labels given (to answers present here).
    pub labels: u64,
    /// Per language, each detector against the labels; empty without labels.
    pub labelled: Vec<LabelledLanguage>,
    /// The panel's sentences about its detectors ([`Panel::about`]); left out when empty, so
    /// reports without a model detector read as before.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub about: Vec<String>,
}

fn pair(items: &[&Item], i: usize, j: usize, names: &[String], confidence: f64) -> Pair {
    let (mut both, mut only_a, mut only_b, mut neither) = (0, 0, 0, 0);
    for it in items {
        match (it.verdicts[i], it.verdicts[j]) {
            (Some(true), Some(true)) => both += 1,
            (Some(true), Some(false)) => only_a += 1,
            (Some(false), Some(true)) => only_b += 1,
            (Some(false), Some(false)) => neither += 1,
            _ => {}
        }
    }
    let table = agreement(both, only_a, only_b, neither);
    let disagree = only_a + only_b;
    Pair {
        a: names[i].clone(),
        b: names[j].clone(),
        n: table.n,
        both,
        only_a,
        only_b,
        neither,
        disagree,
        disagree_share: (table.n > 0).then(|| disagree as f64 / table.n as f64),
        kappa: table.kappa,
        kappa_interval: table.kappa_interval(confidence),
    }
}

fn percent(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// The statement for a cell whose figures depend on the detector, naming its worst pair.
fn statement(c: &Cell, threshold: f64) -> Option<String> {
    if !c.depends_on_detector {
        return None;
    }
    let worst =
        c.pairs.iter().max_by(|x, y| x.disagree_share.unwrap_or(0.0).total_cmp(&y.disagree_share.unwrap_or(0.0)))?;
    Some(format!(
        "{} in {}: the refusal figures depend on the detector: the {} and the {} judge {} of {} answers differently ({}, above the {} threshold).",
        c.model,
        c.language,
        worst.a,
        worst.b,
        worst.disagree,
        worst.n,
        percent(worst.disagree_share.unwrap_or(0.0)),
        percent(threshold)
    ))
}

/// The trust of every detector in `panel`, and against `labels` (by record id) when given.
pub fn assess(panel: &Panel, labels: &Labels, s: Settings) -> Trust {
    let mut cells_of: BTreeMap<(&str, &str), Vec<&Item>> = BTreeMap::new();
    for it in &panel.items {
        cells_of.entry((&it.model, &it.language)).or_default().push(it);
    }
    let k = panel.detectors.len();
    let cells: Vec<Cell> = cells_of
        .into_iter()
        .map(|((model, language), items)| {
            let counts = (0..k)
                .map(|i| Count {
                    detector: panel.detectors[i].clone(),
                    judged: items.iter().filter(|it| it.verdicts[i].is_some()).count() as u64,
                    refused: items.iter().filter(|it| it.verdicts[i] == Some(true)).count() as u64,
                })
                .collect();
            let pairs: Vec<Pair> = (0..k)
                .flat_map(|i| (i + 1..k).map(move |j| (i, j)))
                .map(|(i, j)| pair(&items, i, j, &panel.detectors, s.confidence))
                .filter(|p| p.n > 0)
                .collect();
            let depends_on_detector = pairs.iter().any(|p| p.disagree_share.is_some_and(|x| x > s.threshold));
            Cell { model: model.into(), language: language.into(), counts, pairs, depends_on_detector }
        })
        .collect();
    let statements = cells.iter().filter_map(|c| statement(c, s.threshold)).collect();

    let mut by_language: BTreeMap<&str, Vec<&Item>> = BTreeMap::new();
    for it in &panel.items {
        by_language.entry(&it.language).or_default().push(it);
    }
    let mut given = 0;
    let labelled = by_language
        .into_iter()
        .filter_map(|(language, items)| {
            let with: Vec<(&Item, bool)> =
                items.iter().filter_map(|it| labels.get(&it.record_id).map(|l| (*it, l))).collect();
            given += with.len() as u64;
            if with.is_empty() {
                return None;
            }
            let detectors = (0..k)
                .map(|i| {
                    let mut c = Confusion::default();
                    for (it, l) in &with {
                        if let Some(v) = it.verdicts[i] {
                            c.add(v, *l);
                        }
                    }
                    let judged = items.iter().filter(|it| it.verdicts[i].is_some()).count() as u64;
                    let refused = items.iter().filter(|it| it.verdicts[i] == Some(true)).count() as u64;
                    let (corrected, not_corrected) = match diagnostic::rogan_gladen(refused, judged, c, s.confidence) {
                        Ok(x) => (Some(x), None),
                        Err(e) => (None, Some(e.to_string())),
                    };
                    Labelled {
                        detector: panel.detectors[i].clone(),
                        accuracy: diagnostic::accuracy(c, s.confidence),
                        refused,
                        judged,
                        corrected,
                        not_corrected,
                    }
                })
                .collect();
            let (weighted, not_weighted) = match weighted::of(panel, &items, &with, s.confidence) {
                Ok(w) => (Some(w), None),
                Err(why) => (None, Some(why)),
            };
            Some(LabelledLanguage {
                language: language.into(),
                labels: with.len() as u64,
                detectors,
                weighted,
                not_weighted,
            })
        })
        .collect();
    Trust {
        detectors: panel.detectors.clone(),
        decides: panel.decides.clone(),
        threshold: s.threshold,
        confidence: s.confidence,
        cells,
        statements,
        labels: given,
        labelled,
        about: panel.about.clone(),
    }
}

impl Trust {
    /// The trust in one or two sentences, for a methods text.
    pub fn methods_sentence(&self) -> String {
        let mut out = format!(
            "Refusals were decided by the {} detector; {} detector(s) ({}) judged the same answers, and their agreement per model and language is reported (Cohen's kappa with Fleiss, Cohen and Everitt's {} interval).",
            self.decides,
            self.detectors.len(),
            self.detectors.join(", "),
            percent(self.confidence)
        );
        for sentence in &self.about {
            out.push(' ');
            out.push_str(sentence);
        }
        if self.statements.is_empty() {
            out.push_str(&format!(
                " No two detectors judged more than {} of a language's answers differently.",
                percent(self.threshold)
            ));
        } else {
            out.push_str(&format!(
                " In {} model-language cell(s) two detectors judged more than {} of the answers differently: those refusal figures depend on the detector.",
                self.statements.len(),
                percent(self.threshold)
            ));
        }
        let decider: Vec<String> = self
            .labelled
            .iter()
            .filter_map(|l| {
                let d = l.detectors.iter().find(|d| d.detector == self.decides)?;
                Some(format!(
                    "{} kappa {} on {} labels",
                    l.language,
                    d.accuracy.kappa.map_or("undefined".to_string(), |k| format!("{:.2}", k.kappa)),
                    d.accuracy.confusion.n()
                ))
            })
            .collect();
        if self.labels > 0 {
            out.push_str(&format!(
                " {} answer(s) were labelled by hand; on the labelled answers themselves the {} detector had {}, and the refusal rates were corrected for its errors (Rogan and Gladen 1978; Lang and Reiczigel 2014 interval).",
                self.labels,
                self.decides,
                if decider.is_empty() { "no verdicts to compare".to_string() } else { decider.join(", ") }
            ));
            out.push_str(&self.weighted_sentence());
        }
        out
    }

    /// The weighted (two-phase) figures for a methods text, or why the labels' figures describe
    /// only the labelled answers.
    fn weighted_sentence(&self) -> String {
        let figure = |f: &weighted::Figure| {
            f.value.as_ref().map_or("undefined".to_string(), |e| {
                format!("{} [{}, {}]", percent(e.estimate), percent(e.low), percent(e.high))
            })
        };
        let weighted: Vec<String> = self
            .labelled
            .iter()
            .filter_map(|l| {
                let w = l.weighted.as_ref()?;
                let d = w.detectors.iter().find(|d| d.detector == self.decides)?;
                Some(format!(
                    "{}: true refusal rate {}, sensitivity {}, specificity {}",
                    l.language,
                    figure(&w.rate),
                    figure(&d.sensitivity),
                    figure(&d.specificity)
                ))
            })
            .collect();
        let mut out = String::new();
        if !weighted.is_empty() {
            out.push_str(&format!(
                " The labels were drawn by the review sample, stratified by the {} detector's verdict (flagged or not), so the figures for all answers weight each label by its stratum's answers over its labels (two-phase sampling, Cochran 1977; linearised variance with the finite-population correction; Wilson intervals on the Kish effective sample size, Korn and Graubard 1998): {}.",
                self.decides,
                weighted.join("; ")
            ));
        }
        let unweighted: Vec<&str> =
            self.labelled.iter().filter(|l| l.weighted.is_none()).map(|l| l.language.as_str()).collect();
        if !unweighted.is_empty() {
            out.push_str(&format!(
                " In {} the labels were not drawn by the review sample, so their figures describe the labelled answers only.",
                unweighted.join(", ")
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: usize, language: &str, v: &[Option<bool>]) -> Item {
        Item { record_id: format!("r{id}"), model: "m".into(), language: language.into(), verdicts: v.to_vec() }
    }

    #[test]
    fn counts_and_pairs_per_cell() {
        let items = vec![
            item(0, "en", &[Some(true), Some(true)]),
            item(1, "en", &[Some(true), Some(false)]),
            item(2, "en", &[Some(false), Some(false)]),
            item(3, "en", &[Some(false), None]),
            item(4, "hi", &[Some(false), Some(false)]),
        ];
        let panel = Panel {
            detectors: vec!["lexicon".into(), "judge".into()],
            decides: "lexicon".into(),
            items,
            about: vec![],
            sample: None,
        };
        let t = assess(&panel, &Labels::default(), Settings::default());
        assert_eq!(t.cells.len(), 2);
        let en = &t.cells[0];
        assert_eq!(
            (en.counts[0].judged, en.counts[0].refused, en.counts[1].judged, en.counts[1].refused),
            (4, 2, 3, 1)
        );
        let p = &en.pairs[0];
        assert_eq!((p.n, p.both, p.only_a, p.only_b, p.neither, p.disagree), (3, 1, 1, 0, 1, 1));
        assert!(en.depends_on_detector);
        assert!(!t.cells[1].depends_on_detector);
        assert_eq!(t.statements.len(), 1);
        assert!(t.statements[0].contains("m in en") && t.statements[0].contains("1 of 3"), "{}", t.statements[0]);
    }
}
