//! PERMDISP (Anderson 2006): do the groups differ in spread? Run beside every PERMANOVA,
//! because a significant PERMANOVA can come from different dispersions alone.
//!
//! - z_i is the distance from point i to its group's centroid **in the full space**.
//!   Vectors under a Euclidean-type distance (euclidean, chord): the centroid is the mean of
//!   the group's (normalised, for chord) vectors and z_i = ‖x_i − c_g‖. A distance matrix
//!   (uploaded, cosine, or the MSQAD bug): the principal-coordinate centroid, through
//!   z_i² = (1/n_g) Σ_{j∈g} d_ij² − (1/n_g²) Σ_{j<k∈g} d_jk², which keeps every axis, positive
//!   and negative. When that is negative (possible only for non-Euclidean distances, from
//!   the negative axes), z_i = √|z_i²| as vegan's betadisper does, and the count is reported.
//! - F is the one-way ANOVA F of z on the groups: (SS_B/(g − 1)) / (SS_W/(N − g)).
//! - p = (k + 1)/(P + 1), k = #{F_perm ≥ F} under the tie rule of `permanova`; permutation
//!   number k relabels z with `permutation::relabel(seed, b"permdisp", k)`; the z values
//!   stay fixed (centroids are not recomputed per permutation). The parametric p from the
//!   F(g − 1, N − g) distribution is reported too.
//!
//! Comparing with scikit-bio (0.7.4): `skbio.stats.distance.permdisp` defaults to
//! test='median' (spatial medians, not centroids) and dimensions=10: its PCoA, eigh or fsvd,
//! keeps only the first 10 axes, so its default F is a different statistic (on the benchmark
//! data, two groups of 1,000 in R^768, our full-space F is 11.46 and skbio's default-axes
//! centroid F 0.05). Only test='centroid', method='eigh', dimensions=n on a Euclidean distance
//! gives our F; the benchmark compares against exactly that. skbio also recomputes the
//! centroids in every permutation, so its p-values follow a slightly different scheme.

use super::distance::DistanceMatrix;
use super::multivariate::{Grouping, Vectors};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Permdisp {
    pub test: &'static str,
    /// "centroid, full space (vectors)" or "centroid, full space (principal coordinates)".
    pub mode: &'static str,
    /// One-way ANOVA F on the distances to centroids; null when undefined (no spread at all).
    pub f: f64,
    /// Permutation p-value (k + 1)/(P + 1).
    pub p: f64,
    pub exceedances: usize,
    /// From the F(g − 1, N − g) distribution.
    pub p_parametric: f64,
    /// Mean distance to centroid, per group (in the order of `groups`).
    pub mean_distance: Vec<f64>,
    /// Points whose squared distance to centroid came out negative (non-Euclidean distances only).
    pub negative_squared: usize,
}

/// z for vectors: distances to group means.
pub fn distances_to_centroids(x: &Vectors, grouping: &Grouping) -> Vec<f64> {
    let (dim, g) = (x.dim(), grouping.count());
    let mut c = vec![0.0; g * dim];
    for (row, &l) in x.rows().zip(&grouping.of) {
        for (a, v) in c[l as usize * dim..][..dim].iter_mut().zip(row) {
            *a += v;
        }
    }
    for (k, &m) in grouping.sizes.iter().enumerate() {
        c[k * dim..][..dim].iter_mut().for_each(|a| *a /= m as f64);
    }
    x.rows()
        .zip(&grouping.of)
        .map(|(row, &l)| libm::sqrt(super::distance::sq_dist(row, &c[l as usize * dim..][..dim])))
        .collect()
}

/// z from a distance matrix (principal-coordinate centroids, all axes), and how many points
/// had a negative squared distance.
pub fn distances_to_centroids_matrix(dm: &DistanceMatrix, grouping: &Grouping) -> (Vec<f64>, usize) {
    let (n, g) = (dm.len(), grouping.count());
    // Σ_{j∈g} d_ij² for each point i and group g, and Σ_{j<k∈g} d_jk² per group.
    let mut to_group = vec![0.0; n * g];
    let mut within = vec![0.0; g];
    let d = dm.condensed();
    let mut at = 0;
    for i in 0..n {
        let gi = grouping.of[i] as usize;
        for j in i + 1..n {
            let d2 = d[at] * d[at];
            at += 1;
            let gj = grouping.of[j] as usize;
            to_group[i * g + gj] += d2;
            to_group[j * g + gi] += d2;
            if gi == gj {
                within[gi] += d2;
            }
        }
    }
    let mut negative = 0;
    let z = (0..n)
        .map(|i| {
            let k = grouping.of[i] as usize;
            let m = grouping.sizes[k] as f64;
            let z2 = to_group[i * g + k] / m - within[k] / (m * m);
            if z2 < 0.0 {
                negative += 1;
            }
            libm::sqrt(z2.abs())
        })
        .collect();
    (z, negative)
}

/// The one-way ANOVA F of `z` under `labels`: (SS_B/(g−1)) / (SS_W/(N−g)).
pub fn anova_f(z: &[f64], labels: &[u32], sizes: &[usize], sums: &mut [f64]) -> f64 {
    sums.fill(0.0);
    for (&v, &l) in z.iter().zip(labels) {
        sums[l as usize] += v;
    }
    let n = z.len() as f64;
    let g = sizes.len() as f64;
    let total: f64 = sums.iter().sum();
    let sq: f64 = z.iter().map(|v| v * v).sum();
    let between_raw: f64 = sums.iter().zip(sizes).map(|(s, &m)| s * s / m as f64).sum();
    let ss_b = between_raw - total * total / n;
    let ss_w = sq - between_raw;
    (ss_b / (g - 1.0)) / (ss_w / (n - g))
}

/// The mean of z per group.
pub fn group_means(z: &[f64], grouping: &Grouping) -> Vec<f64> {
    let mut sums = vec![0.0; grouping.count()];
    for (&v, &l) in z.iter().zip(&grouping.of) {
        sums[l as usize] += v;
    }
    sums.iter().zip(&grouping.sizes).map(|(s, &m)| s / m as f64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_checked_dispersions() {
        // Group a: (±1, 0) around the origin, distance 1 each; group b: (10 ± 3, 0), distance 3.
        let x = Vectors::from_rows(&[[1.0, 0.0], [-1.0, 0.0], [13.0, 0.0], [7.0, 0.0]]).unwrap();
        let g = Grouping::new(&["a", "a", "b", "b"], 4).unwrap();
        let z = distances_to_centroids(&x, &g);
        assert_eq!(z, vec![1.0, 1.0, 3.0, 3.0]);
        assert_eq!(group_means(&z, &g), vec![1.0, 3.0]);
        // No spread within groups: SS_W = 0, so F is infinite.
        let mut sums = [0.0; 2];
        assert_eq!(anova_f(&z, &g.of, &g.sizes, &mut sums), f64::INFINITY);
        // Through the matrix formula the same distances come out.
        let dm = DistanceMatrix::from_vectors(&x, super::super::distance::Distance::Euclidean).unwrap();
        let (zm, neg) = distances_to_centroids_matrix(&dm, &g);
        assert_eq!(neg, 0);
        for (a, b) in zm.iter().zip(&z) {
            assert!((a - b).abs() < 1e-12);
        }
        // z = [1, 2, 3, 6] in groups {1,2}, {3,6}: means 1.5 and 4.5, grand 3;
        // SS_B = 2·1.5² + 2·1.5² = 9, SS_W = 0.5 + 4.5 = 5; F = 9 / (5/2) = 3.6.
        let f = anova_f(&[1.0, 2.0, 3.0, 6.0], &[0, 0, 1, 1], &[2, 2], &mut sums);
        assert!((f - 3.6).abs() < 1e-12, "{f}");
    }
}
