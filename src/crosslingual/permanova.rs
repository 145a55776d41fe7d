//! Does the language alone change what the model says? One-way PERMANOVA on the response
//! embeddings of every language pair, overall and per topic, with PERMDISP beside each test
//! (a significant PERMANOVA can come from different spreads alone) and R² as the effect size.
//!
//! The statistics are `stats::permanova` (formula, permutation scheme and p-value rule are
//! documented there). What this module adds is the family of tests:
//!
//! * **Tests.** For each pair of languages (in name order) that both have embeddings: one test
//!   over all topics, then one per topic. Records of the analyzed prompt modes only.
//! * **Seeds.** Each test draws its permutations from its own seed, the top 53 bits of the
//!   stable hash of (run seed, language a, language b, topic), written in its result, so p-values of different tests are not coupled and
//!   do not depend on the order in which the page runs them.
//! * **Distance.** Chord by default (Euclidean on L2-normalised vectors): it orders pairs of
//!   responses as cosine distance does, and it has the fast path (no n×n matrix).
//! * **Corrections.** Holm and Benjamini-Hochberg over every test that ran (pairs × (overall +
//!   topics)); the family is stated in the output. Tests with fewer than two vectors in a
//!   group are listed as skipped, with why, and are not in the family.
//!
//! The CLI runs the tests through [`run_all`]. The page takes them one at a time from its
//! session: [`prepare`] builds a test's job (or says why it is skipped, as [`run`] does), and
//! [`Ready::request`] is the flat request from which the page's workers build the same job and
//! count its permutations between them (www/permanova-pool.js). All give the same bits.

use super::analysis::{Dataset, embedding_groups};
use crate::rng::stable_hash;
use crate::stats::correction::{benjamini_hochberg, holm};
use crate::stats::distance::{Distance, DistanceMatrix};
use crate::stats::multivariate::{MultivariateError, Vectors};
use crate::stats::pca::{Projection, pca_2d};
use crate::stats::permanova::{Input, Options, Permanova, PermanovaJob};
use crate::stats::permanova_query::PermanovaQuery;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub permutations: usize,
    pub distance: Distance,
    pub seed: u64,
    /// Prompt modes whose responses are compared; empty means all.
    pub modes: Vec<String>,
    /// Use the uploaded distance matrix ([`super::distances`]) instead of the embeddings
    /// (`distance` is then not used).
    pub matrix: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings { permutations: 999, distance: Distance::Chord, seed: 0, modes: vec![], matrix: false }
    }
}

/// One test of the family: a language pair, over all topics (`topic` None) or one topic.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Test {
    pub language_a: String,
    pub language_b: String,
    pub topic: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    #[serde(flatten)]
    pub test: Test,
    pub n_a: usize,
    pub n_b: usize,
    /// The PERMANOVA with its PERMDISP; None when the test was skipped.
    pub result: Option<Permanova>,
    pub skipped: Option<String>,
    pub p_holm: Option<f64>,
    pub p_bh: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Section {
    pub settings: Settings,
    /// Where the distances came from: the embeddings and the distance, or the uploaded file.
    pub source: String,
    pub family: String,
    pub rows: Vec<Row>,
    /// Tests not significant at `alpha` after Holm, over the tests that ran: the paper's
    /// "null hypothesis acceptance ratio", raw and corrected.
    pub acceptance_raw: Option<f64>,
    pub acceptance_holm: Option<f64>,
    pub alpha: f64,
    /// Set when the permutations are too few for any test to survive Holm: the smallest
    /// attainable p is 1/(P + 1), and Holm multiplies it by up to the family size.
    pub note: Option<String>,
}

/// The family of tests for these records: every language pair with embeddings, overall and per
/// topic.
pub fn plan(d: &Dataset, s: &Settings) -> Vec<Test> {
    plan_over(d, s, |i| d.embeddings[i].is_some())
}

/// The family over the records `has` admits (those with a vector, or with a row in an uploaded
/// distance matrix).
pub fn plan_over(d: &Dataset, s: &Settings, has: impl Fn(usize) -> bool) -> Vec<Test> {
    let mut languages = BTreeSet::new();
    let mut topics = BTreeSet::new();
    for (i, r) in d.records.iter().enumerate() {
        if has(i) && (s.modes.is_empty() || s.modes.contains(&r.template_id)) {
            languages.insert(r.language.clone());
            topics.insert(r.concern.clone());
        }
    }
    let languages: Vec<String> = languages.into_iter().collect();
    let scopes: Vec<Option<String>> = std::iter::once(None).chain(topics.into_iter().map(Some)).collect();
    let mut tests = vec![];
    for (i, a) in languages.iter().enumerate() {
        for b in &languages[i + 1..] {
            for topic in &scopes {
                tests.push(Test { language_a: a.clone(), language_b: b.clone(), topic: topic.clone() });
            }
        }
    }
    tests
}

fn groups<'a>(d: &'a Dataset, t: &Test, s: &Settings) -> (Vec<&'a [f64]>, Vec<&'a [f64]>) {
    let topic = t.topic.as_deref();
    if s.modes.is_empty() {
        return embedding_groups(d, &t.language_a, &t.language_b, topic, None);
    }
    let (mut ga, mut gb) = (vec![], vec![]);
    for m in &s.modes {
        let (a, b) = embedding_groups(d, &t.language_a, &t.language_b, topic, Some(m));
        ga.extend(a);
        gb.extend(b);
    }
    (ga, gb)
}

/// One test made ready: its row (group sizes filled in; `skipped` set when it cannot run) and
/// otherwise its job with the data it was built from, so the same job can be rebuilt elsewhere
/// ([`Prepared::request`]).
pub struct Prepared {
    pub row: Row,
    work: Option<Box<Work>>,
}

struct Work {
    job: PermanovaJob,
    data: Data,
    labels: Vec<String>,
    options: Options,
}

pub(super) enum Data {
    Vectors(Vectors, Distance),
    Matrix(DistanceMatrix),
}

impl Prepared {
    /// A test that cannot run, and why.
    pub(super) fn skipped(row: Row, why: String) -> Prepared {
        Prepared { row: Row { skipped: Some(why), ..row }, work: None }
    }

    /// Builds the job on `data`; a problem with the data skips the test, saying why.
    pub(super) fn new(
        row: Row,
        data: Result<Data, MultivariateError>,
        labels: Vec<String>,
        options: Options,
    ) -> Prepared {
        let built = data.and_then(|data| {
            let input = match &data {
                Data::Vectors(v, d) => Input::Vectors(v, *d),
                Data::Matrix(m) => Input::Matrix(m),
            };
            Ok((PermanovaJob::new(input, &labels, options)?, data))
        });
        match built {
            Ok((job, data)) => Prepared { row, work: Some(Box::new(Work { job, data, labels, options })) },
            Err(e) => Prepared::skipped(row, e.to_string()),
        }
    }

    /// The job, unless the test is skipped.
    pub fn job(&mut self) -> Option<&mut PermanovaJob> {
        self.work.as_mut().map(|w| &mut w.job)
    }

    /// The flat request ([`PermanovaQuery`] and its numbers: vectors row-major, or the square
    /// distance matrix) from which `query.job(values)` builds this job again, bit for bit;
    /// None when the test is skipped.
    pub fn request(&self) -> Option<(PermanovaQuery, Vec<f64>)> {
        let w = self.work.as_ref()?;
        let (permutations, seed) = (Some(w.options.permutations), Some(w.options.seed));
        let mut query = PermanovaQuery {
            groups: w.labels.clone(),
            dim: None,
            matrix: false,
            distance: Distance::default(),
            permutations,
            seed,
            permdisp: w.options.permdisp,
        };
        let values = match &w.data {
            Data::Vectors(v, d) => {
                (query.dim, query.distance) = (Some(v.dim()), *d);
                v.rows().flatten().copied().collect()
            }
            Data::Matrix(m) => {
                query.matrix = true;
                let n = m.len();
                (0..n).flat_map(|i| (0..n).map(move |j| m.get(i, j))).collect()
            }
        };
        Some((query, values))
    }

    /// Runs every permutation here and fills the row.
    pub fn run(mut self) -> Row {
        if let Some(job) = self.job() {
            job.advance(usize::MAX);
        }
        self.finish()
    }

    /// The row, with the job's report once every permutation is counted (or why not).
    pub fn finish(self) -> Row {
        let mut row = self.row;
        if let Some(w) = self.work {
            match w.job.result() {
                Ok(p) => row.result = Some(p),
                Err(e) => row.skipped = Some(e.to_string()),
            }
        }
        row
    }
}

/// Builds one test's job on the embeddings. Problems with the data (too few vectors, vectors
/// of different lengths) skip the test with a row that says why, never a panic.
pub fn prepare(d: &Dataset, t: &Test, s: &Settings) -> Prepared {
    let (ga, gb) = groups(d, t, s);
    let row =
        Row { test: t.clone(), n_a: ga.len(), n_b: gb.len(), result: None, skipped: None, p_holm: None, p_bh: None };
    if ga.len() < 2 || gb.len() < 2 {
        let why = format!("needs at least 2 embeddings per language, found {} and {}", ga.len(), gb.len());
        return Prepared::skipped(row, why);
    }
    let rows: Vec<&[f64]> = ga.iter().chain(&gb).copied().collect();
    let data = Vectors::from_rows(&rows).map(|v| Data::Vectors(v, s.distance));
    Prepared::new(row, data, labels(t, ga.len(), gb.len()), options(t, s))
}

/// Runs one test ([`prepare`], then every permutation).
pub fn run(d: &Dataset, t: &Test, s: &Settings) -> Row {
    prepare(d, t, s).run()
}

/// Language a's label `a` times, then language b's.
pub(super) fn labels(t: &Test, a: usize, b: usize) -> Vec<String> {
    std::iter::repeat_n(t.language_a.clone(), a).chain(std::iter::repeat_n(t.language_b.clone(), b)).collect()
}

/// A test's permutations and seed (PERMDISP around the centroid).
pub(super) fn options(t: &Test, s: &Settings) -> Options {
    Options { permutations: s.permutations, seed: test_seed(t, s), ..Options::default() }
}

/// The seed of one test's permutations (see the module docs).
pub fn test_seed(t: &Test, s: &Settings) -> u64 {
    let topic = t.topic.as_deref().unwrap_or("");
    // 53 bits, so the seed written in each result survives JSON readers that hold numbers as
    // doubles (JavaScript), and one test can be rerun from its printed seed.
    let parts: [&[u8]; 4] = [&s.seed.to_le_bytes(), t.language_a.as_bytes(), t.language_b.as_bytes(), topic.as_bytes()];
    stable_hash(&parts) >> 11
}

/// Holm and BH over the tests that ran, and the acceptance ratios.
pub fn finish(mut rows: Vec<Row>, s: &Settings, alpha: f64) -> Section {
    let ran: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].result.is_some()).collect();
    let p: Vec<f64> = ran.iter().filter_map(|&i| rows[i].result.as_ref().map(|r| r.p)).collect();
    let (ph, pb) = (holm(&p), benjamini_hochberg(&p));
    for (k, &i) in ran.iter().enumerate() {
        rows[i].p_holm = Some(ph[k]);
        rows[i].p_bh = Some(pb[k]);
    }
    let share =
        |ps: &[f64]| (!ps.is_empty()).then(|| ps.iter().filter(|&&x| x >= alpha).count() as f64 / ps.len() as f64);
    let pairs = rows.iter().filter(|r| r.test.topic.is_none()).count();
    let m = ran.len() as f64;
    let needed = (m / alpha).ceil() - 1.0;
    let note = (m > 0.0 && (s.permutations as f64) < needed).then(|| {
        format!(
            "with {} permutations the smallest p is {:.2e}; Holm over {} tests reaches {alpha} only with at least {needed:.0} permutations",
            s.permutations,
            1.0 / (s.permutations as f64 + 1.0),
            ran.len()
        )
    });
    Section {
        note,
        source: format!("response embeddings, {} distance", s.distance.name()),
        settings: s.clone(),
        family: format!(
            "{} tests that ran ({} language pairs x (overall + each topic), {} skipped); Holm and BH over all of them",
            ran.len(),
            pairs,
            rows.len() - ran.len()
        ),
        acceptance_raw: share(&p),
        acceptance_holm: share(&ph),
        alpha,
        rows,
    }
}

pub fn run_all(d: &Dataset, s: &Settings, alpha: f64) -> Section {
    let rows = plan(d, s).iter().map(|t| run(d, t, s)).collect();
    finish(rows, s, alpha)
}

/// The 2-D PCA of every embedding of the analyzed modes, with each point's language.
#[derive(Debug, Clone, Serialize)]
pub struct LanguageProjection {
    pub languages: Vec<String>,
    pub projection: Projection,
}

pub fn projection(d: &Dataset, modes: &[String]) -> Result<LanguageProjection, MultivariateError> {
    let (mut rows, mut languages) = (vec![], vec![]);
    for (r, e) in d.records.iter().zip(&d.embeddings) {
        if let Some(v) = e
            && (modes.is_empty() || modes.contains(&r.template_id))
        {
            rows.push(v.as_slice());
            languages.push(r.language.clone());
        }
    }
    let projection = pca_2d(&Vectors::from_rows(&rows)?)?;
    Ok(LanguageProjection { languages, projection })
}
