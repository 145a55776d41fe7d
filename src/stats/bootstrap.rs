//! Percentile bootstrap intervals: the quantile of sorted replicate values that every method's
//! interval is read from.
//!
//! Two rules are in use, each the one its method has published numbers with:
//! - [`Percentile::Linear`] interpolates between the two order statistics around the
//!   position q·(n−1) (Hyndman and Fan's type 7, the default of R's `quantile` and of
//!   `numpy.percentile`). The BBQ metrics and the divergence CD intervals use it.
//! - [`Percentile::Nearest`] takes the order statistic at q·(n−1) rounded half away from zero
//!   (`numpy.percentile(..., method="nearest")` but for ties at .5, which numpy sends to the
//!   even neighbour). The requirements method's community spread interval uses it; switching
//!   it to interpolation would move its published bounds.
//!
//! How replicates are drawn stays with each method: the draw order fixes the numbers, and the
//! methods resample different units (template groups, blocks, contexts and their samples).

/// How a quantile is read from sorted values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Percentile {
    /// Interpolated linearly between neighbouring order statistics (type 7).
    Linear,
    /// The order statistic nearest to q·(n−1), half rounded up.
    Nearest,
}

impl Percentile {
    /// The q-quantile (q in [0, 1]) of `sorted`, which must be in ascending order; `None` when
    /// there are no values.
    pub fn of(self, sorted: &[f64], q: f64) -> Option<f64> {
        let last = sorted.len().checked_sub(1)?;
        let pos = q * last as f64;
        Some(match self {
            Percentile::Linear => {
                let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
                sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
            }
            Percentile::Nearest => sorted[(pos.round() as usize).min(last)],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Percentile::{Linear, Nearest};

    #[test]
    fn linear_interpolates_as_type_7() {
        // numpy.percentile([1, 2], [25, 75]) = [1.25, 1.75]
        assert_eq!((Linear.of(&[1.0, 2.0], 0.25), Linear.of(&[1.0, 2.0], 0.75)), (Some(1.25), Some(1.75)));
        let v: Vec<f64> = (0..=100).map(f64::from).collect();
        assert!((Linear.of(&v, 0.05).unwrap() - 5.0).abs() < 1e-12);
        // numpy.percentile([1, 3, 7, 15], 40) = 3 + 0.2 * (7 - 3) = 3.8
        assert!((Linear.of(&[1.0, 3.0, 7.0, 15.0], 0.4).unwrap() - 3.8).abs() < 1e-12);
        assert_eq!(Linear.of(&[4.0], 0.975), Some(4.0));
    }

    #[test]
    fn nearest_picks_an_order_statistic() {
        let v = [1.0, 3.0, 7.0, 15.0];
        // Position 0.4 · 3 = 1.2 rounds to 1; 0.5 · 3 = 1.5 rounds up to 2.
        assert_eq!(Nearest.of(&v, 0.4), Some(3.0));
        assert_eq!(Nearest.of(&v, 0.5), Some(7.0));
        assert_eq!((Nearest.of(&v, 0.0), Nearest.of(&v, 1.0)), (Some(1.0), Some(15.0)));
        // 999 replicates at 95 %: positions 24.95 and 973.05 give the 26th and 974th values.
        let r: Vec<f64> = (0..999).map(f64::from).collect();
        assert_eq!((Nearest.of(&r, 0.025), Nearest.of(&r, 0.975)), (Some(25.0), Some(973.0)));
        assert_ne!(Nearest.of(&r, 0.025), Linear.of(&r, 0.025), "the rules differ off the grid");
    }

    #[test]
    fn no_values_no_quantile() {
        assert_eq!(Linear.of(&[], 0.5), None);
        assert_eq!(Nearest.of(&[], 0.5), None);
    }
}
