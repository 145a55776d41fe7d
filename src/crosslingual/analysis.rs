//! The cross-lingual analysis of a record table: refusal rates per language (and topic, model)
//! with Wilson intervals, a ranking of the languages, the paired McNemar tests of every
//! language pair in three families (see [`super::pairs`]), detector agreement, and the review
//! sample. Only records with `method = crosslingual` or a `question_id` take part.
//!
//! Every record keeps an optional embedding ([`Dataset::embeddings`]); [`embedding_groups`]
//! returns the two groups of vectors of a language pair (optionally one topic and one mode) for
//! [`super::permanova`], whose results the session puts in [`Report::permanova`] once run (they
//! cost permutations, so `analyze` itself never runs them).

use super::detect::{self, Agreement, Detector, Verdicts};
use super::embeddings::Embeddings;
use super::pairs::{self, Family, Paired, Unit};
use super::review::{self, ReviewItem};
use crate::formats::Problem;
use crate::record::{Record, Status};
use crate::stats::confidence::Confidence;
use crate::stats::mcnemar::{Convention, Method};
use crate::stats::proportion::{Proportion, Wilson};
use crate::text::refusal::Lexicon;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub method: Method,
    pub convention: Convention,
    /// The detector whose verdict counts as "refused".
    pub detector: Detector,
    /// The prompt modes analyzed; empty means all.
    pub modes: Vec<String>,
    pub alpha: f64,
    pub confidence: Confidence,
    /// Seed of the review sample.
    pub seed: u64,
    /// Flagged and unflagged responses shown per language in the review sample.
    pub review_per_language: usize,
    /// Share of a language's answers two detectors may judge differently before its refusal
    /// figures are said to depend on the detector ([`crate::trust::DEFAULT_THRESHOLD`]).
    pub disagreement_threshold: f64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            method: Method::Exact,
            convention: Convention::Statsmodels,
            detector: Detector::Lexicon,
            modes: vec![],
            alpha: 0.05,
            confidence: Confidence::NINETY_FIVE,
            seed: 0,
            review_per_language: 5,
            disagreement_threshold: crate::trust::DEFAULT_THRESHOLD,
        }
    }
}

impl Settings {
    pub fn validate(&self) -> Result<(), String> {
        // The confidence level was checked when the settings were read (Confidence).
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err("settings: alpha must be in (0, 1)".into());
        }
        if !(0.0..=1.0).contains(&self.disagreement_threshold) {
            return Err("settings: disagreement_threshold must be in [0, 1] (a share of the answers)".into());
        }
        if self.review_per_language > 200 {
            return Err("settings: review_per_language must be at most 200".into());
        }
        Ok(())
    }
}

/// Records with their verdicts and optional embeddings, index-aligned.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    pub file: String,
    pub records: Vec<Record>,
    pub verdicts: Vec<Verdicts>,
    pub embeddings: Vec<Option<Vec<f64>>>,
    /// Cells the detectors could not read.
    pub problems: Vec<Problem>,
    /// Refusal labels given by hand (by record id), the truth the detectors are measured against.
    pub labels: crate::trust::labels::Labels,
}

impl Dataset {
    pub fn new(file: &str, records: Vec<Record>, lexicon: &Lexicon) -> Dataset {
        let records: Vec<Record> =
            records.into_iter().filter(|r| r.method == super::METHOD || !r.question_id.is_empty()).collect();
        let (verdicts, problems) = detect::detect_all(file, &records, lexicon);
        let embeddings = vec![None; records.len()];
        Dataset { file: file.into(), records, verdicts, embeddings, problems, labels: Default::default() }
    }

    /// Attaches vectors by `embedding_ref` (or `record_id` when it is empty); returns how many
    /// records got one.
    pub fn attach(&mut self, e: &Embeddings) -> usize {
        let mut n = 0;
        for (r, slot) in self.records.iter().zip(self.embeddings.iter_mut()) {
            let key = if r.embedding_ref.is_empty() { &r.record_id } else { &r.embedding_ref };
            if let Some(v) = e.get(key) {
                *slot = Some(v.clone());
                n += 1;
            }
        }
        n
    }
}

/// The embeddings of languages `a` and `b` (the records of `topic` and `mode` when given), for
/// a PERMANOVA of the pair. Records without a vector are skipped.
pub fn embedding_groups<'a>(
    d: &'a Dataset,
    a: &str,
    b: &str,
    topic: Option<&str>,
    mode: Option<&str>,
) -> (Vec<&'a [f64]>, Vec<&'a [f64]>) {
    let (mut ga, mut gb) = (vec![], vec![]);
    for (r, e) in d.records.iter().zip(&d.embeddings) {
        let Some(v) = e else { continue };
        if topic.is_some_and(|t| t != r.concern) || mode.is_some_and(|m| m != r.template_id) {
            continue;
        }
        if r.language == a {
            ga.push(v.as_slice());
        } else if r.language == b {
            gb.push(v.as_slice());
        }
    }
    (ga, gb)
}

#[derive(Debug, Clone, Serialize)]
pub struct Rate {
    pub language: String,
    pub topic: Option<String>,
    pub model: Option<String>,
    pub refused: u64,
    pub n: u64,
    pub interval: Option<Proportion>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Ranked {
    pub rank: usize,
    pub language: String,
    pub rate: Option<f64>,
    /// Languages whose refusal rate differs from this one's, by the Holm-corrected pairwise
    /// McNemar tests of the family "pairs" (all topics and models pooled).
    pub differs_from: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct EmbeddingInfo {
    pub with_embedding: usize,
    pub dimension: Option<usize>,
    /// The embedding models named on the records with a vector (column `embedding_model`).
    pub models: Vec<String>,
}

/// A record that got no answer (failed or not yet run): counted and listed, never analyzed.
#[derive(Debug, Clone, Serialize)]
pub struct Unanswered {
    pub record_id: String,
    pub language: String,
    pub model: String,
    pub status: String,
    pub error: String,
}

/// How many unanswered records the report lists (`statuses` counts them all).
pub const UNANSWERED_SHOWN: usize = 100;

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub settings: Settings,
    /// "McNemar exact (statsmodels convention)": the variant, named in every output.
    pub variant: String,
    pub detector: Detector,
    pub records: usize,
    /// Records per status (ok, refused, error, pending, ...): failed calls are counted here.
    pub statuses: BTreeMap<String, u64>,
    /// The first records without an answer, with their errors.
    pub unanswered: Vec<Unanswered>,
    /// Records the chosen detector judged.
    pub judged: usize,
    pub languages: Vec<String>,
    pub topics: Vec<String>,
    pub models: Vec<String>,
    pub modes: Vec<String>,
    pub simulated: bool,
    pub rates_by_language: Vec<Rate>,
    pub rates_by_language_topic: Vec<Rate>,
    pub rates_by_language_model: Vec<Rate>,
    pub ranking: Vec<Ranked>,
    /// "pairs x topics x models" (the main family), "pairs x models" (topics pooled) and
    /// "pairs" (everything pooled; drives the ranking).
    pub families: Vec<Family>,
    pub duplicates: u64,
    pub agreement: Vec<Agreement>,
    /// Every detector's refusals and agreement per model and language, and against the labels.
    pub trust: crate::trust::Trust,
    pub review: Vec<ReviewItem>,
    pub embeddings: EmbeddingInfo,
    /// PERMANOVA per language pair and topic on the response embeddings, once run.
    pub permanova: Option<super::permanova::Section>,
    pub problems: Vec<Problem>,
}

/// (language, topic, model) of a rate; None where pooled.
type RateKey = (String, Option<String>, Option<String>);

fn in_order(values: impl Iterator<Item = String>) -> Vec<String> {
    values.collect::<BTreeSet<_>>().into_iter().collect()
}

pub fn analyze(d: &Dataset, s: &Settings) -> Report {
    let wilson = Wilson::new(s.confidence.get());
    let mode_ok = |r: &Record| s.modes.is_empty() || s.modes.contains(&r.template_id);
    let units: Vec<(usize, Unit)> = d
        .records
        .iter()
        .enumerate()
        .filter(|(_, r)| mode_ok(r))
        .filter_map(|(i, r)| {
            let refused = d.verdicts[i].get(s.detector)?;
            Some((
                i,
                Unit {
                    // Without a question_id, the case id "<question>:<language>:<mode>" still names it.
                    question_id: if r.question_id.is_empty() {
                        r.case_id.split(':').next().unwrap_or("").to_string()
                    } else {
                        r.question_id.clone()
                    },
                    mode: r.template_id.clone(),
                    model: r.model.clone(),
                    sample: r.sample_index,
                    language: r.language.clone(),
                    topic: r.concern.clone(),
                    refused,
                },
            ))
        })
        .collect();
    let languages = in_order(units.iter().map(|(_, u)| u.language.clone()));
    let topics = in_order(units.iter().map(|(_, u)| u.topic.clone()));
    let models = in_order(units.iter().map(|(_, u)| u.model.clone()));
    let modes = in_order(units.iter().map(|(_, u)| u.mode.clone()));

    let rates = |key: &dyn Fn(&Unit) -> RateKey| {
        let mut counts: BTreeMap<RateKey, (u64, u64)> = BTreeMap::new();
        for (_, u) in &units {
            let c = counts.entry(key(u)).or_default();
            c.0 += u64::from(u.refused);
            c.1 += 1;
        }
        counts
            .into_iter()
            .map(|((language, topic, model), (refused, n))| Rate {
                language,
                topic,
                model,
                refused,
                n,
                interval: wilson.interval(refused, n),
            })
            .collect::<Vec<_>>()
    };
    let rates_by_language = rates(&|u| (u.language.clone(), None, None));
    let rates_by_language_topic = rates(&|u| (u.language.clone(), Some(u.topic.clone()), None));
    let rates_by_language_model = rates(&|u| (u.language.clone(), None, Some(u.model.clone())));

    let plain: Vec<Unit> = units.iter().map(|(_, u)| u.clone()).collect();
    let paired = Paired::new(&plain);
    let scopes_full: Vec<(Option<String>, Option<String>)> =
        topics.iter().flat_map(|t| models.iter().map(move |m| (Some(t.clone()), Some(m.clone())))).collect();
    let scopes_models: Vec<(Option<String>, Option<String>)> = models.iter().map(|m| (None, Some(m.clone()))).collect();
    let fam = |scopes: &[(Option<String>, Option<String>)], name: &str, desc: String| {
        pairs::family(&paired, &languages, scopes, s.method, s.convention, s.alpha, name, &desc)
    };
    let np = languages.len() * languages.len().saturating_sub(1) / 2;
    let families = vec![
        fam(
            &scopes_full,
            "pairs x topics x models",
            format!(
                "{np} language pairs x {} topics x {} models; each topic and model on its own",
                topics.len(),
                models.len()
            ),
        ),
        fam(&scopes_models, "pairs x models", format!("{np} language pairs x {} models; topics pooled", models.len())),
        fam(&[(None, None)], "pairs", format!("{np} language pairs; topics and models pooled")),
    ];

    let pooled = &families[2];
    let mut ranking: Vec<Ranked> = rates_by_language
        .iter()
        .map(|r| Ranked {
            rank: 0,
            language: r.language.clone(),
            rate: r.interval.map(|p| p.rate),
            differs_from: pooled
                .tests
                .iter()
                .filter(|t| t.significant_holm && (t.a == r.language || t.b == r.language))
                .map(|t| if t.a == r.language { t.b.clone() } else { t.a.clone() })
                .collect(),
        })
        .collect();
    ranking.sort_by(|x, y| y.rate.unwrap_or(-1.0).total_cmp(&x.rate.unwrap_or(-1.0)).then(x.language.cmp(&y.language)));
    for (i, r) in ranking.iter_mut().enumerate() {
        r.rank = i + 1;
    }

    let selected: Vec<usize> = units.iter().map(|(i, _)| *i).collect();
    let review = review::sample(d, &selected, s);
    let with: Vec<&Vec<f64>> = d.embeddings.iter().flatten().collect();
    let embedding_models = in_order(
        d.records
            .iter()
            .zip(&d.embeddings)
            .filter(|(_, e)| e.is_some())
            .filter_map(|(r, _)| r.extra.get(super::runs::EMBEDDING_MODEL_COLUMN).cloned()),
    );
    let mut statuses: BTreeMap<String, u64> = BTreeMap::new();
    for r in &d.records {
        *statuses.entry(r.status.as_str().to_string()).or_default() += 1;
    }
    let unanswered = d
        .records
        .iter()
        .filter(|r| matches!(r.status, Status::Error | Status::Pending | Status::Skipped))
        .take(UNANSWERED_SHOWN)
        .map(|r| Unanswered {
            record_id: r.record_id.clone(),
            language: r.language.clone(),
            model: r.model.clone(),
            status: r.status.as_str().to_string(),
            error: r.error.clone(),
        })
        .collect();
    let variant = format!(
        "McNemar {} ({} convention)",
        serde_json::to_value(s.method).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
        serde_json::to_value(s.convention).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
    );
    Report {
        settings: s.clone(),
        variant,
        detector: s.detector,
        records: d.records.len(),
        statuses,
        unanswered,
        judged: units.len(),
        simulated: d.records.iter().any(|r| r.provider == crate::simulate::PROVIDER),
        languages,
        topics,
        models,
        modes,
        rates_by_language,
        rates_by_language_topic,
        rates_by_language_model,
        ranking,
        families,
        duplicates: paired.duplicates,
        agreement: detect::agreements(&d.verdicts),
        trust: super::trust::assess(d, &selected, s),
        review,
        embeddings: EmbeddingInfo {
            with_embedding: with.len(),
            dimension: with.first().map(|v| v.len()),
            models: embedding_models,
        },
        permanova: None,
        problems: d.problems.clone(),
    }
}
