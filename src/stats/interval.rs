//! A two-sided interval and where it stands against a tolerance threshold, for results that
//! carry more than one interval of the same quantity (a Wilson and a cluster-robust one, a
//! bootstrap one) and need to say whether they tell the same story.

use serde::{Deserialize, Serialize};

/// The bounds of an interval; the level is stored beside it by whoever computed it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

/// Where an interval stands against a threshold, with the rule the page's verdicts use: the
/// whole interval at or above it meets it, the whole interval below fails it, otherwise no
/// decision can be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Meets,
    Fails,
    Inconclusive,
}

impl Interval {
    pub fn verdict(&self, threshold: f64) -> Verdict {
        if self.low >= threshold {
            Verdict::Meets
        } else if self.high < threshold {
            Verdict::Fails
        } else {
            Verdict::Inconclusive
        }
    }

    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }
}

/// The verdicts of two intervals of one quantity against one threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictCheck {
    pub first: Verdict,
    pub second: Verdict,
    /// The two verdicts differ (typically: Wilson decides, the cluster-robust interval cannot).
    pub disagree: bool,
}

/// Whether `first` and `second` reach a different verdict against `threshold`.
pub fn verdict_disagrees(first: &Interval, second: &Interval, threshold: f64) -> VerdictCheck {
    let (a, b) = (first.verdict(threshold), second.verdict(threshold));
    VerdictCheck { first: a, second: b, disagree: a != b }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_the_whole_interval() {
        let i = Interval { low: 0.8, high: 0.95 };
        assert_eq!(i.verdict(0.8), Verdict::Meets, "a bound on the threshold meets it");
        assert_eq!(i.verdict(0.9), Verdict::Inconclusive);
        assert_eq!(i.verdict(0.96), Verdict::Fails);
        let wide = Interval { low: 0.7, high: 0.99 };
        let c = verdict_disagrees(&i, &wide, 0.75);
        assert_eq!((c.first, c.second, c.disagree), (Verdict::Meets, Verdict::Inconclusive, true));
        assert!(!verdict_disagrees(&i, &wide, 0.5).disagree);
        assert!(i.contains(0.8) && !i.contains(0.96));
    }
}
