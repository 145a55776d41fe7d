//! Distances between embeddings, and uploaded distance matrices checked before use.
//!
//! - `euclidean`: ‖x − y‖.
//! - `chord`: Euclidean distance between the L2-normalised vectors, √(2(1 − cos)).
//! - `cosine`: 1 − cos(x, y), the cosine *distance*.
//! - `cosine-similarity-bug`: cos(x, y) itself used as a distance. This reproduces the
//!   published MSQAD code (conduct_permanova_test.py passes cosine similarity to
//!   scikit-bio's DistanceMatrix), so near-identical answers count as far apart. It is a
//!   bug, kept only to reproduce the paper's numbers, and every output names it as one.
//!
//! Euclidean and chord run on the vectors without a matrix (see `permanova`); cosine and the
//! bug build the matrix.

use super::multivariate::{MAX_MATRIX_POINTS, MultivariateError, Result, Vectors, dot};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Distance {
    #[default]
    Euclidean,
    Chord,
    Cosine,
    /// The MSQAD code's bug: cosine similarity used as a distance.
    CosineSimilarityBug,
}

impl Distance {
    pub fn name(self) -> &'static str {
        match self {
            Distance::Euclidean => "euclidean",
            Distance::Chord => "chord",
            Distance::Cosine => "cosine",
            Distance::CosineSimilarityBug => "cosine-similarity-bug",
        }
    }

    pub fn parse(s: &str) -> Option<Distance> {
        [Distance::Euclidean, Distance::Chord, Distance::Cosine, Distance::CosineSimilarityBug]
            .into_iter()
            .find(|d| d.name() == s.to_ascii_lowercase())
    }

    /// A warning to print with every result computed under this distance, if any.
    pub fn warning(self) -> Option<&'static str> {
        match self {
            Distance::CosineSimilarityBug => Some(
                "BUG REPRODUCED ON PURPOSE: cosine similarity used as a distance, as in the published MSQAD \
                 code; similar answers count as far apart, so F and p do not measure what the paper says",
            ),
            _ => None,
        }
    }

    /// Whether the squared distance is a squared Euclidean distance between (transformed)
    /// vectors, so that PERMANOVA can use group sums instead of a matrix.
    pub fn is_euclidean(self) -> bool {
        matches!(self, Distance::Euclidean | Distance::Chord)
    }
}

/// Every row divided by its L2 norm (chord and cosine work on directions only).
pub fn normalised(v: &Vectors, distance: Distance) -> Result<Vectors> {
    let mut out = v.clone();
    for (i, row) in out.rows_mut().enumerate() {
        let norm = libm::sqrt(dot(row, row));
        if norm == 0.0 {
            return Err(MultivariateError::ZeroVector { row: i, distance: distance.name() });
        }
        row.iter_mut().for_each(|x| *x /= norm);
    }
    Ok(out)
}

/// 1 − cos from the dot product of two unit vectors. Two vectors with the same direction give
/// a dot product a few ulps from 1, so a raw 1 − cos is ±1e-16 instead of 0: identical answers
/// would then count as (barely) different, and a set of identical vectors would pass as having
/// variation where Euclidean and chord refuse it. Within 4 ulps of 1 it is 0.
fn cosine_distance(dot: f64) -> f64 {
    let d = 1.0 - dot;
    if d.abs() <= 4.0 * f64::EPSILON { 0.0 } else { d }
}

/// A symmetric distance matrix with a zero diagonal, stored as the strict upper triangle
/// row by row (condensed), both as distances and squared distances.
#[derive(Debug, Clone, PartialEq)]
pub struct DistanceMatrix {
    n: usize,
    d: Vec<f64>,
}

/// Symmetry tolerance for uploaded matrices: |a − b| ≤ 1e-9 · max(1, |a|, |b|).
pub const SYMMETRY_TOLERANCE: f64 = 1e-9;

impl DistanceMatrix {
    /// Validates an uploaded square matrix: square, finite, zero diagonal, non-negative and
    /// symmetric within [`SYMMETRY_TOLERANCE`]. The upper triangle is kept.
    pub fn from_square<R: AsRef<[f64]>>(rows: &[R]) -> Result<DistanceMatrix> {
        let n = rows.len();
        check_size(n)?;
        for (i, r) in rows.iter().enumerate() {
            let r = r.as_ref();
            if r.len() != n {
                return Err(MultivariateError::NotSquare { row: i, found: r.len(), n });
            }
            for (j, &x) in r.iter().enumerate() {
                if !x.is_finite() {
                    return Err(MultivariateError::NotFinite { row: i, column: j, value: x.to_string() });
                }
                if x < 0.0 {
                    return Err(MultivariateError::Negative { row: i, column: j, value: x });
                }
            }
            if r[i] != 0.0 {
                return Err(MultivariateError::Diagonal { row: i, column: i, value: r[i] });
            }
        }
        let mut d = Vec::with_capacity(n * (n - 1) / 2);
        for i in 0..n {
            for j in i + 1..n {
                let (a, b) = (rows[i].as_ref()[j], rows[j].as_ref()[i]);
                if (a - b).abs() > SYMMETRY_TOLERANCE * 1f64.max(a.abs()).max(b.abs()) {
                    return Err(MultivariateError::Asymmetric { row: i, column: j, a, b });
                }
                d.push(a);
            }
        }
        Ok(DistanceMatrix { n, d })
    }

    /// The matrix of a distance between vectors (any of the four, including the bug, which
    /// is why negative entries are not refused here: they can only come from the bug).
    pub fn from_vectors(v: &Vectors, distance: Distance) -> Result<DistanceMatrix> {
        let n = v.len();
        check_size(n)?;
        let unit = match distance {
            Distance::Euclidean => None,
            _ => Some(normalised(v, distance)?),
        };
        let mut d = Vec::with_capacity(n * (n - 1) / 2);
        for i in 0..n {
            for j in i + 1..n {
                let x = match (&unit, distance) {
                    (None, _) => {
                        let (a, b) = (v.row(i), v.row(j));
                        libm::sqrt(sq_dist(a, b))
                    }
                    (Some(u), Distance::Chord) => libm::sqrt(sq_dist(u.row(i), u.row(j))),
                    (Some(u), Distance::Cosine) => cosine_distance(dot(u.row(i), u.row(j))),
                    (Some(u), _) => dot(u.row(i), u.row(j)),
                };
                d.push(x);
            }
        }
        Ok(DistanceMatrix { n, d })
    }

    pub fn len(&self) -> usize {
        self.n
    }
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    /// The condensed upper triangle: (0,1), (0,2), …, (0,n−1), (1,2), …
    pub fn condensed(&self) -> &[f64] {
        &self.d
    }
    /// The matrix between the points `idx` (in that order), without a full square copy.
    pub fn subset(&self, idx: &[usize]) -> Result<DistanceMatrix> {
        check_size(idx.len())?;
        if let Some(&i) = idx.iter().find(|&&i| i >= self.n) {
            return Err(MultivariateError::OutOfRange { index: i, n: self.n });
        }
        let mut d = Vec::with_capacity(idx.len() * (idx.len() - 1) / 2);
        for (k, &i) in idx.iter().enumerate() {
            d.extend(idx[k + 1..].iter().map(|&j| self.get(i, j)));
        }
        Ok(DistanceMatrix { n: idx.len(), d })
    }

    /// d(i, j) for any i, j.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        match i.cmp(&j) {
            std::cmp::Ordering::Equal => 0.0,
            std::cmp::Ordering::Less => self.d[offset(self.n, i) + (j - i - 1)],
            std::cmp::Ordering::Greater => self.d[offset(self.n, j) + (i - j - 1)],
        }
    }
}

fn check_size(n: usize) -> Result<()> {
    if n < 2 {
        return Err(MultivariateError::TooFewPoints { found: n });
    }
    if n > MAX_MATRIX_POINTS {
        return Err(MultivariateError::MatrixTooLarge { n, max: MAX_MATRIX_POINTS });
    }
    Ok(())
}

/// Where row i's strict upper part starts in the condensed layout.
pub(crate) fn offset(n: usize, i: usize) -> usize {
    i * n - i * (i + 1) / 2
}

/// ‖a − b‖² with eight fixed accumulators (same bits on every target).
pub(crate) fn sq_dist(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            let t = x[k] - y[k];
            acc[k] += t * t;
        }
    }
    let mut tail = 0.0;
    for (x, y) in ra.iter().zip(rb) {
        tail += (x - y) * (x - y);
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subset_keeps_the_distances_of_its_points_in_its_order() {
        let rows = [[0.0, 1.0, 2.0, 3.0], [1.0, 0.0, 4.0, 5.0], [2.0, 4.0, 0.0, 6.0], [3.0, 5.0, 6.0, 0.0]];
        let m = DistanceMatrix::from_square(&rows).unwrap();
        let s = m.subset(&[3, 1, 2]).unwrap();
        assert_eq!(s.condensed(), &[5.0, 6.0, 4.0]);
        assert_eq!((s.len(), s.get(2, 0)), (3, 6.0));
        assert!(m.subset(&[0]).is_err() && m.subset(&[0, 4]).is_err());
    }

    #[test]
    fn matrix_validation_names_row_and_column() {
        let ok = [[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]];
        let m = DistanceMatrix::from_square(&ok).unwrap();
        assert_eq!(m.condensed(), &[1.0, 2.0, 3.0]);
        assert_eq!(m.get(2, 1), 3.0);
        let asym = [[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.1, 0.0]];
        assert_eq!(
            DistanceMatrix::from_square(&asym),
            Err(MultivariateError::Asymmetric { row: 1, column: 2, a: 3.0, b: 3.1 })
        );
        let diag = [[0.0, 1.0], [1.0, 0.5]];
        assert!(matches!(DistanceMatrix::from_square(&diag), Err(MultivariateError::Diagonal { row: 1, .. })));
        let neg = [[0.0, -1.0], [-1.0, 0.0]];
        assert!(matches!(
            DistanceMatrix::from_square(&neg),
            Err(MultivariateError::Negative { row: 0, column: 1, .. })
        ));
        let nan = [vec![0.0, f64::NAN], vec![1.0, 0.0]];
        assert!(matches!(
            DistanceMatrix::from_square(&nan),
            Err(MultivariateError::NotFinite { row: 0, column: 1, .. })
        ));
        let ragged = [vec![0.0, 1.0], vec![1.0]];
        assert!(matches!(DistanceMatrix::from_square(&ragged), Err(MultivariateError::NotSquare { row: 1, .. })));
    }

    #[test]
    fn vector_distances() {
        let v = Vectors::from_rows(&[[3.0, 0.0], [0.0, 4.0], [6.0, 0.0]]).unwrap();
        let e = DistanceMatrix::from_vectors(&v, Distance::Euclidean).unwrap();
        assert_eq!(e.condensed(), &[5.0, 3.0, libm::sqrt(52.0)]);
        let c = DistanceMatrix::from_vectors(&v, Distance::Cosine).unwrap();
        assert_eq!(c.condensed(), &[1.0, 0.0, 1.0]);
        let bug = DistanceMatrix::from_vectors(&v, Distance::CosineSimilarityBug).unwrap();
        assert_eq!(bug.condensed(), &[0.0, 1.0, 0.0]);
        let chord = DistanceMatrix::from_vectors(&v, Distance::Chord).unwrap();
        assert!((chord.get(0, 1) - libm::sqrt(2.0)).abs() < 1e-15 && chord.get(0, 2) == 0.0);
        let zero = Vectors::from_rows(&[[0.0, 0.0], [1.0, 0.0]]).unwrap();
        assert!(matches!(
            DistanceMatrix::from_vectors(&zero, Distance::Cosine),
            Err(MultivariateError::ZeroVector { row: 0, .. })
        ));
        assert_eq!(Distance::parse("Cosine-Similarity-Bug"), Some(Distance::CosineSimilarityBug));
    }
}
