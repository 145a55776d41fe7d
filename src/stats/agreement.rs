//! Agreement between two binary raters (a detector and a judge, an oracle and a judge):
//! percent agreement and Cohen's kappa, κ = (p_o − p_e) / (1 − p_e), with p_o the observed
//! agreement and p_e the agreement expected from the two raters' marginal rates.

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
