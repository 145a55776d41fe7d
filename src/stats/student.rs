//! The Student-t interval of a mean: mean ± t_{n−1, (1+c)/2} · s / √n, with s the sample
//! standard deviation (n − 1 in the denominator). It assumes roughly normal values or enough
//! of them; it is the textbook interval of R's `t.test` and `scipy.stats.t.interval`.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// A mean with its interval; the bounds are NaN below two values (no spread to estimate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanInterval {
    pub n: usize,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

/// The mean of `xs` (0 when there are none) with its two-sided Student-t interval at
/// `confidence`.
pub fn mean_interval(xs: &[f64], confidence: f64) -> MeanInterval {
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n.max(1) as f64;
    let (low, high) = if n >= 2 {
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let t =
            StudentsT::new(0.0, 1.0, (n - 1) as f64).map(|d| d.inverse_cdf(0.5 + confidence / 2.0)).unwrap_or(f64::NAN);
        let half = t * (var / n as f64).sqrt();
        (mean - half, mean + half)
    } else {
        (f64::NAN, f64::NAN)
    };
    MeanInterval { n, mean, low, high }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_textbook_interval() {
        // scipy.stats.t.interval(0.95, 4, loc=3, scale=sqrt(2.5)/sqrt(5)) = (1.0367, 4.9633)
        let m = mean_interval(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95);
        assert_eq!((m.n, m.mean), (5, 3.0));
        assert!((m.low - 1.036_756_838_522_439).abs() < 1e-9, "{m:?}");
        assert!((m.high - 4.963_243_161_477_561).abs() < 1e-9, "{m:?}");
        let narrow = mean_interval(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.5);
        assert!(narrow.low > m.low && narrow.high < m.high);
    }

    #[test]
    fn one_value_has_no_interval() {
        let m = mean_interval(&[7.0], 0.95);
        assert_eq!((m.n, m.mean), (1, 7.0));
        assert!(m.low.is_nan() && m.high.is_nan());
        assert_eq!(mean_interval(&[], 0.95).mean, 0.0);
    }
}
