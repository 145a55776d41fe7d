//! A PERMANOVA request over flat numbers, as a browser sends them (a Float64Array beside a
//! small settings object): vectors row-major with `dim` values each, or (with `matrix: true`)
//! a square distance matrix row-major. Checked here, so the wasm facade only converts.

use super::distance::{Distance, DistanceMatrix};
use super::multivariate::{MultivariateError, Vectors};
use super::permanova::{Input, Options, PermanovaJob};
use super::permdisp::Center;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PermanovaQuery {
    pub groups: Vec<String>,
    #[serde(default)]
    pub dim: Option<usize>,
    #[serde(default)]
    pub matrix: bool,
    #[serde(default)]
    pub distance: Distance,
    #[serde(default)]
    pub permutations: Option<usize>,
    #[serde(default)]
    pub seed: Option<u64>,
    /// PERMDISP's centre, "centroid" (default) or "median".
    #[serde(default)]
    pub permdisp: Center,
}

#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum QueryError {
    #[error("permanova query: expected dim (values per vector)")]
    MissingDim,
    #[error(transparent)]
    Test(#[from] MultivariateError),
}

impl PermanovaQuery {
    /// The job over `values`, not yet advanced.
    pub fn job(&self, values: Vec<f64>) -> Result<PermanovaJob, QueryError> {
        let defaults = Options::default();
        let options = Options {
            permutations: self.permutations.unwrap_or(defaults.permutations),
            seed: self.seed.unwrap_or(defaults.seed),
            permdisp: self.permdisp,
        };
        if self.matrix {
            let n = self.groups.len();
            if n.checked_mul(n) != Some(values.len()) {
                return Err(MultivariateError::NotSquare { row: 0, found: values.len(), n }.into());
            }
            let rows: Vec<&[f64]> = if n == 0 { vec![] } else { values.chunks(n).collect() };
            let dm = DistanceMatrix::from_square(&rows)?;
            Ok(PermanovaJob::new(Input::Matrix(&dm), &self.groups, options)?)
        } else {
            let dim = self.dim.ok_or(QueryError::MissingDim)?;
            let v = Vectors::from_flat(dim, values)?;
            Ok(PermanovaJob::new(Input::Vectors(&v, self.distance), &self.groups, options)?)
        }
    }
}
