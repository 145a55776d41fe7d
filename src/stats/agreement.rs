//! Agreement between two binary raters (a detector and a judge, an oracle and a judge):
//! percent agreement and Cohen's kappa, κ = (p_o − p_e) / (1 − p_e), with p_o the observed
//! agreement and p_e the agreement expected from the two raters' marginal rates.
//!
//! Kappa's interval is the large-sample one of Fleiss, Cohen and Everitt (1969, "Large sample
//! standard errors of kappa and weighted kappa", Psychological Bulletin 72(5)), κ ± z·SE, with
//! the variance that does not assume κ = 0:
//!
//!   Var(κ) = [Σᵢ pᵢᵢ (1 − (pᵢ· + p·ᵢ)(1 − κ))² + (1 − κ)² Σᵢ≠ⱼ pᵢⱼ (p·ᵢ + pⱼ·)² − (κ − p_e (1 − κ))²]
//!            / ((1 − p_e)² n)
//!
//! (pᵢⱼ the cell shares, pᵢ· and p·ⱼ the first and second rater's margins), as statsmodels'
//! `cohens_kappa` computes it (`var_kappa`); tests/fixtures/kappa.json holds its values. The
//! interval is clipped to [−1, 1].

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Agreement2x2 {
    /// Both say yes / only the first / only the second / neither.
    pub both: u64,
    pub only_a: u64,
    pub only_b: u64,
    pub neither: u64,
    pub n: u64,
    pub percent_agreement: Option<f64>,
    /// None when there is nothing to judge or p_e = 1 (both raters constant and equal).
    pub kappa: Option<f64>,
}

pub fn agreement(both: u64, only_a: u64, only_b: u64, neither: u64) -> Agreement2x2 {
    let n = both + only_a + only_b + neither;
    let (percent_agreement, kappa) = if n == 0 {
        (None, None)
    } else {
        let nf = n as f64;
        let po = (both + neither) as f64 / nf;
        let (pa, pb) = ((both + only_a) as f64 / nf, (both + only_b) as f64 / nf);
        let pe = pa * pb + (1.0 - pa) * (1.0 - pb);
        (Some(100.0 * po), if (1.0 - pe).abs() < 1e-15 { None } else { Some((po - pe) / (1.0 - pe)) })
    };
    Agreement2x2 { both, only_a, only_b, neither, n, percent_agreement, kappa }
}

/// Kappa's standard error and interval at a confidence level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KappaInterval {
    pub kappa: f64,
    pub se: f64,
    pub low: f64,
    pub high: f64,
    pub confidence: f64,
}

impl Agreement2x2 {
    /// Fleiss, Cohen and Everitt's interval (see the module's note); None when kappa is
    /// undefined. The 2x2 table has the first rater in rows (yes, no) and the second in columns.
    pub fn kappa_interval(&self, confidence: f64) -> Option<KappaInterval> {
        let kappa = self.kappa?;
        let nf = self.n as f64;
        let cells = [[self.both, self.only_a], [self.only_b, self.neither]].map(|row| row.map(|c| c as f64 / nf));
        let rows = [cells[0][0] + cells[0][1], cells[1][0] + cells[1][1]];
        let cols = [cells[0][0] + cells[1][0], cells[0][1] + cells[1][1]];
        let pe = rows[0] * cols[0] + rows[1] * cols[1];
        let mut diagonal = 0.0;
        let mut off = 0.0;
        for i in 0..2 {
            for j in 0..2 {
                if i == j {
                    let t = 1.0 - (rows[i] + cols[i]) * (1.0 - kappa);
                    diagonal += cells[i][i] * t * t;
                } else {
                    let t = cols[i] + rows[j];
                    off += cells[i][j] * t * t;
                }
            }
        }
        let last = kappa - pe * (1.0 - kappa);
        let var = (diagonal + (1.0 - kappa) * (1.0 - kappa) * off - last * last) / ((1.0 - pe) * (1.0 - pe) * nf);
        // Rounding can leave a variance of -1e-17 where the table is perfect.
        let se = libm::sqrt(var.max(0.0));
        let z = super::normal::quantile(0.5 + confidence / 2.0);
        Some(KappaInterval { kappa, se, low: (kappa - z * se).max(-1.0), high: (kappa + z * se).min(1.0), confidence })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn kappa_of_a_textbook_table() {
        // 20 yes-yes, 5 yes-no, 10 no-yes, 15 no-no: p_o = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5.
        let a = super::agreement(20, 5, 10, 15);
        assert!((a.kappa.unwrap() - 0.4).abs() < 1e-12);
        assert_eq!(a.percent_agreement, Some(70.0));
        assert_eq!(super::agreement(3, 0, 0, 0).kappa, None);
        assert_eq!(super::agreement(0, 0, 0, 0).n, 0);
    }
}
