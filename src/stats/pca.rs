//! A 2-D principal-component projection, for the scatter of embeddings coloured by language.
//!
//! The rows are centred on their mean; the two leading right singular vectors are found by
//! power iteration (v ← Xᵀ(X v), normalised), the second kept orthogonal to the first by
//! Gram–Schmidt in every step. Start vectors are fixed (ChaCha8 from `rng_for(0, "pca", k)`),
//! iterations stop when the direction moves less than 1e-12 or after 1000 steps, so the
//! result is deterministic. Sign convention: each axis is flipped so that its largest
//! loading (first one on ties) is positive. Explained variance ratio of axis k:
//! ‖X v_k‖² / Σ_i ‖x_i‖² (centred).
//!
//! Why not ndarray here (issue 17): each step is two matrix-vector products over rows that
//! [`Vectors`] already holds contiguous, written with [`dot`]; ndarray's `dot` would run the
//! same loop (no BLAS in this build) but sum in another order, moving the published points in
//! their last bits for no speed. What would be faster is another method: XᵀX once by a matrix
//! product and the iterations on the p × p matrix (for N much larger than p), which also
//! changes the bits; the scatter takes milliseconds at the page's sizes, so it was not done.

use super::multivariate::{MultivariateError, Result, Vectors, dot};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Projection {
    /// (x, y) per point, in input order.
    pub points: Vec<[f64; 2]>,
    /// Share of the total variance along each axis (0 for an axis with none).
    pub explained: [f64; 2],
    /// Power iterations used for each axis.
    pub iterations: [usize; 2],
}

const MAX_ITER: usize = 1000;

pub fn pca_2d(v: &Vectors) -> Result<Projection> {
    let (n, dim) = (v.len(), v.dim());
    if n < 2 {
        return Err(MultivariateError::TooFewPoints { found: n });
    }
    let mut x = v.clone();
    let mut mean = vec![0.0; dim];
    for row in x.rows() {
        mean.iter_mut().zip(row).for_each(|(m, a)| *m += a);
    }
    mean.iter_mut().for_each(|m| *m /= n as f64);
    for row in x.rows_mut() {
        row.iter_mut().zip(&mean).for_each(|(a, m)| *a -= m);
    }
    let total: f64 = x.rows().map(|r| dot(r, r)).sum();
    let mut axes: Vec<Vec<f64>> = vec![];
    let mut explained = [0.0; 2];
    let mut iterations = [0; 2];
    for k in 0..2 {
        let (axis, var, it) = leading_axis(&x, &axes, k);
        explained[k] = if total > 0.0 { var / total } else { 0.0 };
        iterations[k] = it;
        axes.push(axis);
    }
    let points = x.rows().map(|r| [dot(r, &axes[0]), dot(r, &axes[1])]).collect();
    Ok(Projection { points, explained, iterations })
}

/// The leading unit direction of `x` orthogonal to `previous`, its variance ‖X v‖², and the
/// iterations used. A zero vector when nothing is left.
fn leading_axis(x: &Vectors, previous: &[Vec<f64>], k: usize) -> (Vec<f64>, f64, usize) {
    let dim = x.dim();
    let mut rng = crate::rng::rng_for(0, &[b"pca", &(k as u64).to_le_bytes()]);
    let mut v: Vec<f64> = (0..dim).map(|_| crate::rng::standard_normal(&mut rng)).collect();
    let mut xv = vec![0.0; x.len()];
    let mut next = vec![0.0; dim];
    if !orthonormalise(&mut v, previous) {
        return (vec![0.0; dim], 0.0, 0);
    }
    let mut used = 0;
    for it in 1..=MAX_ITER {
        used = it;
        for (o, r) in xv.iter_mut().zip(x.rows()) {
            *o = dot(r, &v);
        }
        next.fill(0.0);
        for (&s, r) in xv.iter().zip(x.rows()) {
            next.iter_mut().zip(r).for_each(|(a, b)| *a += s * b);
        }
        if !orthonormalise(&mut next, previous) {
            return (vec![0.0; dim], 0.0, it);
        }
        let moved = next.iter().zip(&v).map(|(a, b)| (a - b) * (a - b)).sum::<f64>();
        std::mem::swap(&mut v, &mut next);
        if moved < 1e-24 {
            break;
        }
    }
    // Sign: the largest loading positive.
    let mut big = 0;
    for (i, a) in v.iter().enumerate() {
        if a.abs() > v[big].abs() {
            big = i;
        }
    }
    if v[big] < 0.0 {
        v.iter_mut().for_each(|a| *a = -*a);
    }
    let var: f64 = x.rows().map(|r| dot(r, &v)).map(|s| s * s).sum();
    (v, var, used)
}

/// Removes the components along `previous` and normalises; false if nothing is left.
/// Two passes of Gram–Schmidt: when `v` is mostly along an earlier axis (power iteration on
/// what is left of a nearly rank-deficient matrix), one pass leaves enough of that axis for
/// the iteration to grow it back.
pub(crate) fn orthonormalise(v: &mut [f64], previous: &[Vec<f64>]) -> bool {
    for _ in 0..2 {
        for p in previous {
            let c = dot(v, p);
            v.iter_mut().zip(p).for_each(|(a, b)| *a -= c * b);
        }
    }
    let norm = libm::sqrt(dot(v, v));
    if norm.is_nan() || norm <= 1e-300 {
        return false;
    }
    v.iter_mut().for_each(|a| *a /= norm);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_known_axes_and_variance_shares() {
        // Points on a 3×1 rectangle, tilted into 3-D along fixed orthonormal directions.
        let (e1, e2) = ([0.6, 0.8, 0.0], [0.0, 0.0, 1.0]);
        let coords = [(3.0, 1.0), (-3.0, 1.0), (3.0, -1.0), (-3.0, -1.0)];
        let rows: Vec<Vec<f64>> =
            coords.iter().map(|&(a, b)| (0..3).map(|i| a * e1[i] + b * e2[i] + 5.0).collect()).collect();
        let p = pca_2d(&Vectors::from_rows(&rows).unwrap()).unwrap();
        assert!((p.explained[0] - 0.9).abs() < 1e-12 && (p.explained[1] - 0.1).abs() < 1e-12, "{:?}", p.explained);
        for (pt, &(a, b)) in p.points.iter().zip(&coords) {
            // Largest loading positive: e1's 0.8 and e2's 1 are positive, so signs are kept.
            assert!((pt[0] - a).abs() < 1e-9 && (pt[1] - b).abs() < 1e-9, "{pt:?} vs {a},{b}");
        }
        assert_eq!(p, pca_2d(&Vectors::from_rows(&rows).unwrap()).unwrap());
    }

    #[test]
    fn one_dimensional_data_has_an_empty_second_axis() {
        let p = pca_2d(&Vectors::from_rows(&[[1.0], [2.0], [4.0]]).unwrap()).unwrap();
        assert!((p.explained[0] - 1.0).abs() < 1e-12 && p.explained[1] == 0.0);
        assert!(p.points.iter().all(|pt| pt[1] == 0.0));
        assert!(pca_2d(&Vectors::from_rows(&[[1.0, 2.0]]).unwrap()).is_err());
    }
}
