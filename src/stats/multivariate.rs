//! The data PERMANOVA, PERMDISP and PCA work on: vectors (row-major, contiguous f64) or a
//! validated distance matrix, the grouping, and the one error type for all of them.

use serde::Serialize;

/// More permutations than this are refused: the p-value's resolution past 1e-6 is never
/// needed here, and the bound keeps a mistyped count from hanging the page.
pub const MAX_PERMUTATIONS: usize = 1_000_000;

/// The matrix path keeps n(n − 1)/2 squared distances (8 bytes each): at most about 450 MB,
/// within the browser's 4 GB of wasm memory with room to spare.
pub const MAX_MATRIX_POINTS: usize = 10_000;

/// Every way a multivariate test can refuse its input. Never a panic.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MultivariateError {
    #[error("expected at least 2 points, found {found}")]
    TooFewPoints { found: usize },
    #[error("expected at least 2 groups, found only {group:?}")]
    SingleGroup { group: String },
    #[error("group {group:?} is empty")]
    EmptyGroup { group: String },
    #[error("expected one group label per point: {points} points but {labels} labels")]
    LabelCount { points: usize, labels: usize },
    #[error(
        "expected more points than groups: {points} points in {groups} groups leave no within-group degrees of freedom"
    )]
    NoResidualDf { points: usize, groups: usize },
    #[error("row {row}: expected {expected} values (the dimension of row 0), found {found}")]
    Dimension { row: usize, expected: usize, found: usize },
    #[error("vectors of dimension 0")]
    ZeroDimension,
    #[error("row {row}, column {column}: expected a finite number, found {value}")]
    NotFinite { row: usize, column: usize, value: String },
    #[error("row {row}: a zero vector has no direction, so the {distance} distance is undefined")]
    ZeroVector { row: usize, distance: &'static str },
    #[error("expected 1 to {max} permutations, found {found}", max = MAX_PERMUTATIONS)]
    Permutations { found: usize },
    #[error("distance matrix: expected a square matrix, row {row} has {found} values for {n} rows")]
    NotSquare { row: usize, found: usize, n: usize },
    #[error("distance matrix: row {row}, column {column}: the diagonal must be 0, found {value}")]
    Diagonal { row: usize, column: usize, value: f64 },
    #[error("distance matrix: row {row}, column {column}: expected a non-negative distance, found {value}")]
    Negative { row: usize, column: usize, value: f64 },
    #[error(
        "distance matrix: row {row}, column {column} is {a} but row {column}, column {row} is {b}; expected a symmetric matrix"
    )]
    Asymmetric { row: usize, column: usize, a: f64, b: f64 },
    #[error(
        "{n} points are too many for a distance matrix (at most {max}); use euclidean or chord distance on the vectors"
    )]
    MatrixTooLarge { n: usize, max: usize },
    #[error("point {index} is not in the distance matrix of {n} points")]
    OutOfRange { index: usize, n: usize },
    #[error("all distances are zero, so there is no variation to partition")]
    NoVariation,
    #[error("the sum of squared distances overflows a 64-bit float (distances near 1e154 or larger); rescale the data")]
    Overflow,
    #[error("the job has run {done} of {total} permutations; advance it to the end first")]
    Unfinished { done: usize, total: usize },
    #[error("permutations {first}..{end} are not a range within the job's 0..{total}")]
    OutsideJob { first: usize, end: usize, total: usize },
    #[error("permutations {first}..{end} overlap {counted_first}..{counted_end}, whose counts are already in")]
    Overlap { first: usize, end: usize, counted_first: usize, counted_end: usize },
    #[error("permutations {first}..{end}: {found} exceedances, more than the range has permutations")]
    TooManyExceedances { first: usize, end: usize, found: usize },
}

pub type Result<T> = std::result::Result<T, MultivariateError>;

/// Points as rows of a contiguous row-major f64 buffer, checked finite.
#[derive(Debug, Clone, PartialEq)]
pub struct Vectors {
    n: usize,
    dim: usize,
    data: Vec<f64>,
}

impl Vectors {
    /// From rows; every row must have the dimension of row 0 and finite values.
    pub fn from_rows<R: AsRef<[f64]>>(rows: &[R]) -> Result<Vectors> {
        let dim = rows.first().map_or(0, |r| r.as_ref().len());
        let mut data = Vec::with_capacity(rows.len() * dim);
        for (i, r) in rows.iter().enumerate() {
            let r = r.as_ref();
            if r.len() != dim {
                return Err(MultivariateError::Dimension { row: i, expected: dim, found: r.len() });
            }
            data.extend_from_slice(r);
        }
        Vectors::from_flat(dim, data)
    }

    /// From a row-major buffer of `n * dim` values.
    pub fn from_flat(dim: usize, data: Vec<f64>) -> Result<Vectors> {
        if dim == 0 {
            return Err(if data.is_empty() {
                MultivariateError::TooFewPoints { found: 0 }
            } else {
                MultivariateError::ZeroDimension
            });
        }
        if !data.len().is_multiple_of(dim) {
            let n = data.len() / dim;
            return Err(MultivariateError::Dimension { row: n, expected: dim, found: data.len() % dim });
        }
        if let Some(k) = data.iter().position(|x| !x.is_finite()) {
            return Err(MultivariateError::NotFinite { row: k / dim, column: k % dim, value: data[k].to_string() });
        }
        Ok(Vectors { n: data.len() / dim, dim, data })
    }

    pub fn len(&self) -> usize {
        self.n
    }
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    pub fn dim(&self) -> usize {
        self.dim
    }
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }
    pub(crate) fn rows(&self) -> std::slice::ChunksExact<'_, f64> {
        self.data.chunks_exact(self.dim)
    }
    pub(crate) fn rows_mut(&mut self) -> std::slice::ChunksExactMut<'_, f64> {
        self.data.chunks_exact_mut(self.dim)
    }
}

/// Group labels turned into dense indices, in order of first appearance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grouping {
    pub names: Vec<String>,
    pub sizes: Vec<usize>,
    #[serde(skip)]
    pub of: Vec<u32>,
}

impl Grouping {
    pub fn new<S: AsRef<str>>(labels: &[S], points: usize) -> Result<Grouping> {
        if labels.len() != points {
            return Err(MultivariateError::LabelCount { points, labels: labels.len() });
        }
        if points < 2 {
            return Err(MultivariateError::TooFewPoints { found: points });
        }
        let mut names: Vec<String> = vec![];
        let mut sizes = vec![];
        let mut of = Vec::with_capacity(points);
        for l in labels {
            let l = l.as_ref();
            let g = match names.iter().position(|n| n == l) {
                Some(g) => g,
                None => {
                    names.push(l.to_string());
                    sizes.push(0);
                    names.len() - 1
                }
            };
            sizes[g] += 1;
            of.push(g as u32);
        }
        if names.len() < 2 {
            return Err(MultivariateError::SingleGroup { group: names.pop().unwrap_or_default() });
        }
        if points <= names.len() {
            return Err(MultivariateError::NoResidualDf { points, groups: names.len() });
        }
        Ok(Grouping { names, sizes, of })
    }

    /// With explicit group names, so that a group with no points is an error rather than invisible.
    pub fn with_names<S: AsRef<str>>(labels: &[S], names: &[String], points: usize) -> Result<Grouping> {
        let mut g = Grouping::new(labels, points)?;
        for n in names {
            if !g.names.contains(n) {
                return Err(MultivariateError::EmptyGroup { group: n.clone() });
            }
        }
        // Keep the caller's order of groups.
        let order: Vec<usize> = names.iter().filter_map(|n| g.names.iter().position(|m| m == n)).collect();
        if order.len() == g.names.len() {
            let mut back = vec![0u32; order.len()];
            for (new, &old) in order.iter().enumerate() {
                back[old] = new as u32;
            }
            g.of.iter_mut().for_each(|x| *x = back[*x as usize]);
            g.sizes = order.iter().map(|&o| g.sizes[o]).collect();
            g.names = names.to_vec();
        }
        Ok(g)
    }

    pub fn count(&self) -> usize {
        self.names.len()
    }
}

pub(crate) fn check_permutations(p: usize) -> Result<()> {
    if p == 0 || p > MAX_PERMUTATIONS { Err(MultivariateError::Permutations { found: p }) } else { Ok(()) }
}

/// A dot product with eight independent accumulators, in a fixed order: the compiler may
/// vectorise it (no reassociation is needed) and every target gets the same bits.
#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    let mut tail = 0.0;
    for (x, y) in ra.iter().zip(rb) {
        tail += x * y;
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouping_keeps_given_names_and_refuses_an_empty_group() {
        let g = Grouping::with_names(&["ko", "en", "ko"], &["en".into(), "ko".into()], 3).unwrap();
        assert_eq!(
            (g.names.clone(), g.sizes.clone(), g.of.clone()),
            (vec!["en".into(), "ko".into()], vec![1, 2], vec![1, 0, 1])
        );
        assert_eq!(
            Grouping::with_names(&["ko", "en", "ko"], &["en".into(), "ko".into(), "hi".into()], 3),
            Err(MultivariateError::EmptyGroup { group: "hi".into() })
        );
        assert_eq!(dot(&[1.0; 11], &[2.0; 11]), 22.0);
    }
}
