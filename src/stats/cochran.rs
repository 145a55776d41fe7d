//! Cochran's Q test: k related binary treatments over the same blocks (each block gives every
//! treatment a 0 or 1), testing whether the treatments' success rates differ.
//!
//! Q = (k−1)(k Σ_j C_j² − N²) / (k N − Σ_i R_i²), with C_j the successes of treatment j, R_i
//! the successes in block i and N all successes; p = P(χ²_{k−1} ≥ Q) (Cochran 1950; as
//! `statsmodels.stats.contingency_tables.cochrans_q`). Blocks in which every treatment got the
//! same outcome add as much to the numerator as to the denominator's share and carry no
//! information; when every block is like that, Q is 0/0 and there is no test.

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CochranQ {
    pub statistic: f64,
    pub p_value: f64,
    /// Degrees of freedom, k − 1.
    pub df: f64,
}

/// Cochran's Q over a row-major blocks × treatments matrix of 0/1 values with `k` columns.
/// `None` when no block has differing outcomes (Q undefined).
pub fn cochran_q(matrix: &[f64], k: usize) -> Option<CochranQ> {
    if k == 0 {
        return None;
    }
    let rows: Vec<f64> = matrix.chunks(k).map(|r| r.iter().sum()).collect();
    let col: Vec<f64> = (0..k).map(|j| matrix.chunks(k).map(|r| r[j]).sum()).collect();
    let kf = k as f64;
    let n: f64 = rows.iter().sum();
    let denominator = kf * n - rows.iter().map(|r| r * r).sum::<f64>();
    if denominator <= 0.0 {
        return None;
    }
    let statistic = (kf - 1.0) * (kf * col.iter().map(|c| c * c).sum::<f64>() - n * n) / denominator;
    let df = kf - 1.0;
    let p_value = super::chisq::sf(statistic, df);
    Some(CochranQ { statistic, p_value, df })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_treatments_give_mcnemars_chi_square() {
        // 6 blocks succeed only on the first, 2 only on the second, 5 on both:
        // Q = (6 − 2)² / (6 + 2) = 2, p = P(χ²₁ ≥ 2).
        let mut m = vec![];
        (0..6).for_each(|_| m.extend([1.0, 0.0]));
        (0..2).for_each(|_| m.extend([0.0, 1.0]));
        (0..5).for_each(|_| m.extend([1.0, 1.0]));
        let q = cochran_q(&m, 2).unwrap();
        assert!((q.statistic - 2.0).abs() < 1e-12);
        assert!((q.p_value - 0.157_299_207_050_285_1).abs() < 1e-12, "{}", q.p_value);
        assert_eq!(q.df, 1.0);
    }

    #[test]
    fn three_treatments_match_the_formula_by_hand() {
        let m = [1., 1., 0., 1., 0., 0., 1., 1., 1., 1., 0., 0., 1., 0., 1., 1., 1., 0., 1., 0., 0., 0., 0., 0.];
        // C = (7, 3, 2), N = 12, Σ R² = 24: Q = 2 (3 · 62 − 144) / (36 − 24) = 7.
        let q = cochran_q(&m, 3).unwrap();
        assert!((q.statistic - 7.0).abs() < 1e-12);
        assert!((q.p_value - libm::exp(-3.5)).abs() < 1e-12, "χ² with 2 df has sf exp(−x/2)");
    }

    #[test]
    fn no_differing_block_no_test() {
        assert_eq!(cochran_q(&[1.0, 1.0, 0.0, 0.0], 2), None);
        assert_eq!(cochran_q(&[], 2), None);
        assert_eq!(cochran_q(&[1.0], 0), None);
    }
}
