//! Principal coordinates (classical scaling; Gower 1966) in 2-D, for the scatter when only a
//! distance matrix is known, such as an uploaded one.
//!
//! B = −½ J A J, with A_ij = d_ij² and J = I − 11ᵀ/n (double centring). The two leading
//! eigenpairs (λ_k, u_k) of B are found by power iteration, v ← B v with the earlier axes
//! projected out and v normalised, from fixed start vectors (ChaCha8 from
//! `rng_for(0, "pcoa", k)`), until the direction moves less than 1e-10 or after 300 steps,
//! so the result is deterministic. B is never built: B v = −½ J (A (J v)) in one pass over the
//! condensed triangle, so memory stays that of the matrix. Coordinates: u_k √λ_k.
//! The step cap keeps an upload of 2,500 responses at about 2 s natively: convergence is slow
//! only when the leading eigenvalues are close, where a scatter changes little with the
//! exact direction; the steps used are reported (`iterations`).
//! Not ndarray: there is no matrix to hold. B is never formed (an n × n square is 800 MB at
//! the 10,000-point limit, twice the condensed triangle), and the one pass over the triangle
//! is a symmetric matrix-vector product that no ndarray routine computes from half a matrix.
//!
//! For a Euclidean distance between vectors this is their PCA: the same points up to each
//! axis's sign, and the same shares (tested against `pca`). Power iteration finds the
//! eigenvalue largest in magnitude; from a non-Euclidean matrix that can be negative, and such
//! an axis is not drawn (its coordinates and share are 0; `negative_axes` counts it).
//! Share of axis k: λ_k / trace(B), where trace(B) = Σ_{i<j} d_ij² / n is the total sum of
//! squares; an axis with |λ_k| below 1e-12 · trace(B) is rounding noise and left empty. Sign convention: each axis is flipped so that its largest coordinate in absolute
//! value (first one on ties) is positive.

use super::distance::DistanceMatrix;
use super::multivariate::{MultivariateError, Result, dot};
use super::pca::{Projection, orthonormalise};

const MAX_ITER: usize = 300;
/// An eigenvalue this small against trace(B) is rounding noise: its axis is left empty.
const NEGLIGIBLE: f64 = 1e-12;

/// The 2-D principal coordinates and how many leading axes were negative (left undrawn).
pub fn pcoa_2d(dm: &DistanceMatrix) -> Result<(Projection, usize)> {
    let n = dm.len();
    if n < 2 {
        return Err(MultivariateError::TooFewPoints { found: n });
    }
    let squared: Vec<f64> = dm.condensed().iter().map(|d| d * d).collect();
    let total = squared.iter().sum::<f64>() / n as f64;
    let (mut axes, mut explained, mut iterations, mut negative) = (vec![], [0.0; 2], [0; 2], 0);
    let mut points = vec![[0.0; 2]; n];
    for k in 0..2 {
        let (u, lambda, used) = leading_axis(&squared, n, &axes, k);
        iterations[k] = used;
        if lambda < -NEGLIGIBLE * total {
            negative += 1;
        } else if lambda > NEGLIGIBLE * total {
            explained[k] = lambda / total;
            let scale = libm::sqrt(lambda);
            points.iter_mut().zip(&u).for_each(|(p, x)| p[k] = x * scale);
        }
        axes.push(u);
    }
    Ok((Projection { points, explained, iterations }, negative))
}

/// B v for the double-centred −½ A, with A given as its condensed upper triangle.
fn times_b(squared: &[f64], n: usize, v: &[f64], out: &mut [f64]) {
    let mean = v.iter().sum::<f64>() / n as f64;
    let centred: Vec<f64> = v.iter().map(|x| x - mean).collect();
    out.fill(0.0);
    let mut at = 0;
    for i in 0..n {
        let row = &squared[at..at + n - i - 1];
        let (ci, mut acc) = (centred[i], 0.0);
        for (j, &a) in (i + 1..n).zip(row) {
            acc += a * centred[j];
            out[j] += a * ci;
        }
        out[i] += acc;
        at += n - i - 1;
    }
    let mean = out.iter().sum::<f64>() / n as f64;
    out.iter_mut().for_each(|x| *x = -0.5 * (*x - mean));
}

/// The leading unit eigenvector of B orthogonal to `previous`, its eigenvalue (Rayleigh
/// quotient) and the iterations used. A zero vector and 0 when nothing is left.
fn leading_axis(squared: &[f64], n: usize, previous: &[Vec<f64>], k: usize) -> (Vec<f64>, f64, usize) {
    let mut rng = crate::rng::rng_for(0, &[b"pcoa", &(k as u64).to_le_bytes()]);
    let mut v: Vec<f64> = (0..n).map(|_| crate::rng::standard_normal(&mut rng)).collect();
    let mut next = vec![0.0; n];
    if !orthonormalise(&mut v, previous) {
        return (vec![0.0; n], 0.0, 0);
    }
    let mut used = 0;
    for it in 1..=MAX_ITER {
        used = it;
        times_b(squared, n, &v, &mut next);
        if !orthonormalise(&mut next, previous) {
            return (vec![0.0; n], 0.0, it);
        }
        // A negative eigenvalue flips the sign at every step: compare directions, not signs.
        let moved = |s: f64| next.iter().zip(&v).map(|(a, b)| (a - s * b) * (a - s * b)).sum::<f64>();
        let settled = moved(1.0).min(moved(-1.0)) < 1e-20;
        std::mem::swap(&mut v, &mut next);
        if settled {
            break;
        }
    }
    let big = v.iter().enumerate().fold(0, |big, (i, a)| if a.abs() > v[big].abs() { i } else { big });
    if v[big] < 0.0 {
        v.iter_mut().for_each(|a| *a = -*a);
    }
    times_b(squared, n, &v, &mut next);
    (v.clone(), dot(&v, &next), used)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::distance::Distance;
    use crate::stats::multivariate::Vectors;
    use crate::stats::pca::pca_2d;

    #[test]
    fn euclidean_distances_give_the_pca_of_the_vectors() {
        let mut rng = crate::rng::rng_for(7, &[b"pcoa-test"]);
        let rows: Vec<Vec<f64>> = (0..40)
            .map(|i| (0..6).map(|d| crate::rng::standard_normal(&mut rng) * (d + 1) as f64 + (i % 3) as f64).collect())
            .collect();
        let v = Vectors::from_rows(&rows).unwrap();
        let pca = pca_2d(&v).unwrap();
        let (pcoa, negative) = pcoa_2d(&DistanceMatrix::from_vectors(&v, Distance::Euclidean).unwrap()).unwrap();
        assert_eq!(negative, 0);
        for k in 0..2 {
            assert!((pca.explained[k] - pcoa.explained[k]).abs() < 1e-9, "{:?} vs {:?}", pca.explained, pcoa.explained);
            // Same axis up to its sign.
            let same = pca.points.iter().zip(&pcoa.points).all(|(a, b)| (a[k] - b[k]).abs() < 1e-6);
            let flipped = pca.points.iter().zip(&pcoa.points).all(|(a, b)| (a[k] + b[k]).abs() < 1e-6);
            assert!(same || flipped, "axis {k} differs");
        }
    }

    #[test]
    fn two_tight_pairs_lie_on_one_axis() {
        // Two pairs of coincident points, the pairs 1 apart: B has eigenvalues 1, 0, 0.
        let square = [[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]];
        let (p, negative) = pcoa_2d(&DistanceMatrix::from_square(&square).unwrap()).unwrap();
        assert_eq!(negative, 0);
        assert!((p.explained[0] - 1.0).abs() < 1e-12 && p.explained[1].abs() < 1e-12, "{:?}", p.explained);
        assert!((p.points[0][0] - 0.5).abs() < 1e-12 && (p.points[1][0] - 0.5).abs() < 1e-12);
        assert!((p.points[2][0] + 0.5).abs() < 1e-12 && (p.points[3][0] + 0.5).abs() < 1e-12);
    }

    #[test]
    fn one_dimensional_distances_leave_the_second_axis_empty() {
        // Two languages 10 apart, spread along one line: B has rank 1. With one Gram–Schmidt
        // pass the second axis regrew the first (here a fake axis with 57% of the variance).
        let x: Vec<f64> = (0..24).map(|i| if i % 4 >= 2 { 10.0 } else { 0.0 } + (i % 5) as f64 * 0.1).collect();
        let square: Vec<Vec<f64>> = x.iter().map(|a| x.iter().map(|b| (a - b).abs()).collect()).collect();
        let (p, negative) = pcoa_2d(&DistanceMatrix::from_square(&square).unwrap()).unwrap();
        assert_eq!((negative, p.explained[1]), (0, 0.0), "{:?}", p.explained);
        assert!((p.explained[0] - 1.0).abs() < 1e-12);
        assert!(p.points.iter().all(|q| q[1] == 0.0));
        let mean = x.iter().sum::<f64>() / 24.0;
        assert!(p.points.iter().zip(&x).all(|(q, xi)| (q[0].abs() - (xi - mean).abs()).abs() < 1e-9));
    }

    #[test]
    fn a_dominant_negative_axis_is_left_out_and_counted() {
        // B = ½ J − 2 u uᵀ for 30 points, u evenly spread and orthogonal to 1: every squared
        // distance 1 − 2 (u_i − u_j)² is still positive, yet B's eigenvalue along u is −1.5,
        // larger in magnitude than the 0.5 of the other 28 axes. trace(B) = 28 · 0.5 − 1.5.
        let n = 30;
        let norm = libm::sqrt((0..n).map(|i| (i as f64 - 14.5).powi(2)).sum::<f64>());
        let u: Vec<f64> = (0..n).map(|i| (i as f64 - 14.5) / norm).collect();
        let square: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| if i == j { 0.0 } else { libm::sqrt(1.0 - 2.0 * (u[i] - u[j]).powi(2)) }).collect())
            .collect();
        let dm = DistanceMatrix::from_square(&square).unwrap();
        let (p, negative) = pcoa_2d(&dm).unwrap();
        assert_eq!(negative, 1);
        assert_eq!(p.explained[0], 0.0);
        assert!((p.explained[1] - 0.5 / 12.5).abs() < 1e-9, "{:?}", p.explained);
        assert!(p.points.iter().all(|q| q[0] == 0.0));
        assert_eq!((p, negative), pcoa_2d(&dm).unwrap());
    }
}
