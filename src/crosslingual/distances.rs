//! A precomputed distance matrix between responses (from any embedding model or text
//! distance the user trusts), uploaded instead of embeddings: PERMANOVA and PERMDISP per
//! language pair and topic then run on it exactly as on vectors ([`super::permanova`]: the same
//! family, the same per-test seeds, the same corrections).
//!
//! The file is the CLI's (`evenhand permanova --distances`), read by
//! [`crate::formats::embeddings::read_distance_matrix`]: a header of a corner cell and the ids,
//! then one row per id in the same order. The ids are the records' `record_id` (or their
//! `embedding_ref`). Every problem names the file, line and column: a cell that is not a
//! number, a row out of order, a matrix that is not square, not symmetric, has a non-zero
//! diagonal or a negative entry (line = matrix row + 2, column = matrix column + 2, the first
//! line and column holding the ids), and an id that matches no loaded record (line 1, its
//! header column). Records without a row are left out of the tests and counted.
//!
//! On reading, the matrix's 2-D principal coordinates ([`crate::stats::pcoa`]) are computed
//! once for every record with a row, so the page can draw the scatter the embeddings would
//! have given (for a Euclidean matrix, the same picture as their PCA).

use super::analysis::Dataset;
use super::permanova::{self as perm, Data, Prepared, Row, Settings, Test};
use super::runs::embedding_key;
use crate::formats::Problem;
use crate::formats::embeddings::read_distance_matrix;
use crate::stats::distance::DistanceMatrix;
use serde::Serialize;
use std::collections::HashMap;

/// Files above this size are refused before parsing (a 10,000-point matrix in text is ~1 GB;
/// the page should not try).
pub const MAX_BYTES: usize = 64 << 20;

/// An uploaded matrix with, for each loaded record, its row (None: the record is not in it).
#[derive(Debug, Clone)]
pub struct Distances {
    pub file: String,
    matrix: DistanceMatrix,
    rows: Vec<Option<usize>>,
    /// The principal coordinates and how many leading axes were negative (None: fewer than
    /// two records have a row).
    pub projection: Option<(perm::LanguageProjection, usize)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DistancesSummary {
    pub file: String,
    /// Ids (rows) in the matrix.
    pub ids: usize,
    /// Loaded records with a row, and without one (left out of the tests).
    pub records_matched: usize,
    pub records_without: usize,
}

impl Distances {
    pub fn summary(&self) -> DistancesSummary {
        let matched = self.rows.iter().filter(|r| r.is_some()).count();
        DistancesSummary {
            file: self.file.clone(),
            ids: self.matrix.len(),
            records_matched: matched,
            records_without: self.rows.len() - matched,
        }
    }

    /// Whether record `i` has a row.
    pub fn has(&self, i: usize) -> bool {
        self.rows.get(i).is_some_and(Option::is_some)
    }
}

/// Reads and checks the matrix against the loaded records.
pub fn read(file: &str, bytes: &[u8], d: &Dataset) -> Result<Distances, Problem> {
    if bytes.len() > MAX_BYTES {
        return Err(Problem::new(file, format!("larger than {} MB; the page reads smaller matrices", MAX_BYTES >> 20)));
    }
    let (ids, matrix) = read_distance_matrix(file, bytes)?;
    let by_key: HashMap<&str, usize> = ids.iter().enumerate().map(|(k, id)| (id.as_str(), k)).collect();
    let known: std::collections::HashSet<&str> =
        d.records.iter().flat_map(|r| [r.record_id.as_str(), embedding_key(r)]).collect();
    if let Some((k, id)) = ids.iter().enumerate().find(|(_, id)| !known.contains(id.as_str())) {
        return Err(Problem::new(
            file,
            format!(
                "id {id:?} matches no loaded record (record_id or embedding_ref); load the records it measures first"
            ),
        )
        .at_line(1)
        .at_column(k as u64 + 2));
    }
    let rows: Vec<Option<usize>> = d
        .records
        .iter()
        .map(|r| by_key.get(embedding_key(r)).or_else(|| by_key.get(r.record_id.as_str())).copied())
        .collect();
    let projection = principal_coordinates(d, &matrix, &rows);
    Ok(Distances { file: file.into(), matrix, rows, projection })
}

fn principal_coordinates(
    d: &Dataset,
    matrix: &DistanceMatrix,
    rows: &[Option<usize>],
) -> Option<(perm::LanguageProjection, usize)> {
    let (idx, languages): (Vec<usize>, Vec<String>) =
        d.records.iter().zip(rows).filter_map(|(r, row)| row.map(|k| (k, r.language.clone()))).unzip();
    let (projection, negative) = crate::stats::pcoa::pcoa_2d(&matrix.subset(&idx).ok()?).ok()?;
    Some((perm::LanguageProjection { languages, projection }, negative))
}

/// The family: every language pair with rows, overall and per topic.
pub fn plan(d: &Dataset, m: &Distances, s: &Settings) -> Vec<Test> {
    perm::plan_over(d, s, |i| m.has(i))
}

/// The matrix rows of language `lang`'s records in the test's scope, in the order
/// [`perm::run`] takes vectors (mode by mode when modes are set).
fn group(d: &Dataset, m: &Distances, lang: &str, t: &Test, s: &Settings) -> Vec<usize> {
    let in_scope = |i: usize, mode: Option<&str>| {
        let r = &d.records[i];
        r.language == lang
            && t.topic.as_ref().is_none_or(|tp| *tp == r.concern)
            && mode.is_none_or(|md| md == r.template_id)
    };
    let pick = |mode: Option<&str>| -> Vec<usize> {
        (0..d.records.len()).filter(|&i| in_scope(i, mode)).filter_map(|i| m.rows[i]).collect()
    };
    if s.modes.is_empty() { pick(None) } else { s.modes.iter().flat_map(|md| pick(Some(md))).collect() }
}

/// Builds one test's job on the matrix; a test that cannot run is skipped, saying why.
pub fn prepare(d: &Dataset, m: &Distances, t: &Test, s: &Settings) -> Prepared {
    let (ga, gb) = (group(d, m, &t.language_a, t, s), group(d, m, &t.language_b, t, s));
    let row =
        Row { test: t.clone(), n_a: ga.len(), n_b: gb.len(), result: None, skipped: None, p_holm: None, p_bh: None };
    if ga.len() < 2 || gb.len() < 2 {
        let why = format!("needs at least 2 responses per language, found {} and {}", ga.len(), gb.len());
        return Prepared::skipped(row, why);
    }
    let idx: Vec<usize> = ga.iter().chain(&gb).copied().collect();
    let data = m.matrix.subset(&idx).map(Data::Matrix);
    Prepared::new(row, data, perm::labels(t, ga.len(), gb.len()), perm::options(t, s))
}

/// Runs one test on the matrix ([`prepare`], then every permutation).
pub fn run(d: &Dataset, m: &Distances, t: &Test, s: &Settings) -> Row {
    prepare(d, m, t, s).run()
}
