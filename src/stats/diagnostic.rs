//! How far a binary detector (a refusal detector, say) can be trusted, measured against
//! labels a person gave to a sample of its items, and a rate it measured corrected for its
//! errors.
//!
//! **Accuracy against the labels.** With the labels as the truth: sensitivity
//! Se = TP / (TP + FN) and specificity Sp = TN / (TN + FP), each with a Wilson interval
//! ([`super::proportion`]), and Cohen's kappa between detector and labels with Fleiss, Cohen
//! and Everitt's interval ([`super::agreement`]).
//!
//! **The corrected rate.** A detector that misses refusals and invents others reports an
//! apparent rate AP, whose expectation is θ·Se + (1 − θ)(1 − Sp) for a true rate θ. Solving
//! gives the Rogan-Gladen estimator (Rogan and Gladen 1978, "Estimating prevalence from the
//! results of a screening test", American Journal of Epidemiology 107(1)):
//!
//!   θ̂ = (AP + Sp − 1) / (Se + Sp − 1),  clipped to [0, 1].
//!
//! It exists only when Se + Sp > 1 (Youden's J > 0: the detector does better than chance).
//! Its interval is Lang and Reiczigel's (2014, "Confidence limits for prevalence of disease
//! adjusted for estimated sensitivity and specificity", Preventive Veterinary Medicine 113),
//! which counts the uncertainty of Se and Sp estimated from labelled samples and keeps close
//! to its nominal coverage where the plain Wald interval does not: the counts are first
//! adjusted (AP: z²/2 added to the positives and z² to the items; Se and Sp: one added to each
//! side), then, on the adjusted values,
//!
//!   SE(θ̃) = sqrt(AP(1 − AP)/n + θ̃² Se(1 − Se)/n_Se + (1 − θ̃)² Sp(1 − Sp)/n_Sp) / |J|
//!   shift  = 2z² (θ̃ Se(1 − Se)/n_Se − (1 − θ̃) Sp(1 − Sp)/n_Sp)
//!   limits = θ̃ + shift ± z·SE(θ̃), clipped to [0, 1].
//!
//! The three samples are taken as independent binomial samples (the labelled items are a
//! sample of the answers, drawn before their labels were known).

use super::agreement::{Agreement2x2, KappaInterval, agreement};
use super::interval::Interval;
use super::proportion::{Proportion, Wilson};
use serde::Serialize;

/// A detector's verdicts against labels on the same items (labels taken as the truth).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Confusion {
    /// Detector yes, label yes.
    pub true_positive: u64,
    /// Detector no, label yes.
    pub false_negative: u64,
    /// Detector yes, label no.
    pub false_positive: u64,
    /// Detector no, label no.
    pub true_negative: u64,
}

impl Confusion {
    /// Adds one labelled item.
    pub fn add(&mut self, detector: bool, label: bool) {
        match (detector, label) {
            (true, true) => self.true_positive += 1,
            (false, true) => self.false_negative += 1,
            (true, false) => self.false_positive += 1,
            (false, false) => self.true_negative += 1,
        }
    }

    pub fn labelled_positive(&self) -> u64 {
        self.true_positive + self.false_negative
    }

    pub fn labelled_negative(&self) -> u64 {
        self.false_positive + self.true_negative
    }

    pub fn n(&self) -> u64 {
        self.labelled_positive() + self.labelled_negative()
    }
}

/// The detector's accuracy against the labels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Accuracy {
    pub confusion: Confusion,
    /// None when no item is labelled positive.
    pub sensitivity: Option<Proportion>,
    /// None when no item is labelled negative.
    pub specificity: Option<Proportion>,
    /// Detector (first rater) against the labels (second).
    pub agreement: Agreement2x2,
    pub kappa: Option<KappaInterval>,
}

pub fn accuracy(c: Confusion, confidence: f64) -> Accuracy {
    let wilson = Wilson::new(confidence);
    let agreement = agreement(c.true_positive, c.false_positive, c.false_negative, c.true_negative);
    Accuracy {
        confusion: c,
        sensitivity: wilson.interval(c.true_positive, c.labelled_positive()),
        specificity: wilson.interval(c.true_negative, c.labelled_negative()),
        kappa: agreement.kappa_interval(confidence),
        agreement,
    }
}

/// Why a rate cannot be corrected.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CorrectionError {
    #[error("no item to correct: the rate has n = 0")]
    Empty,
    #[error("{positives} positives among {n} items")]
    Counts { positives: u64, n: u64 },
    #[error("sensitivity needs at least one item labelled positive, and specificity one labelled negative")]
    Unlabelled,
    #[error(
        "the detector does no better than chance on the labels (sensitivity + specificity = {sum:.3}, at most 1): its rate cannot be corrected"
    )]
    NoBetterThanChance { sum: f64 },
}

/// A rate corrected for the detector's errors (see the module's note).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Corrected {
    /// The rate as the detector measured it.
    pub apparent: f64,
    pub sensitivity: f64,
    pub specificity: f64,
    /// Rogan-Gladen, clipped to [0, 1].
    pub estimate: f64,
    /// The unclipped estimate fell outside [0, 1] (the labels and the rate disagree).
    pub clipped: bool,
    /// Lang and Reiczigel's interval.
    pub interval: Interval,
    pub confidence: f64,
}

/// Corrects `positives` of `n` (the detector's verdicts) with the detector's accuracy on
/// labelled items `labels`.
pub fn rogan_gladen(positives: u64, n: u64, labels: Confusion, confidence: f64) -> Result<Corrected, CorrectionError> {
    if n == 0 {
        return Err(CorrectionError::Empty);
    }
    if positives > n {
        return Err(CorrectionError::Counts { positives, n });
    }
    let (n_se, n_sp) = (labels.labelled_positive() as f64, labels.labelled_negative() as f64);
    if n_se == 0.0 || n_sp == 0.0 {
        return Err(CorrectionError::Unlabelled);
    }
    let apparent = positives as f64 / n as f64;
    let se = labels.true_positive as f64 / n_se;
    let sp = labels.true_negative as f64 / n_sp;
    if se + sp <= 1.0 {
        return Err(CorrectionError::NoBetterThanChance { sum: se + sp });
    }
    let raw = (apparent + sp - 1.0) / (se + sp - 1.0);
    let estimate = raw.clamp(0.0, 1.0);

    let z = super::normal::quantile(0.5 + confidence / 2.0);
    let z2 = z * z;
    let (n_ap, ap) = (n as f64 + z2, (positives as f64 + z2 / 2.0) / (n as f64 + z2));
    let (n_se, se_adj) = (n_se + 2.0, (labels.true_positive as f64 + 1.0) / (n_se + 2.0));
    let (n_sp, sp_adj) = (n_sp + 2.0, (labels.true_negative as f64 + 1.0) / (n_sp + 2.0));
    let youden = se_adj + sp_adj - 1.0;
    let theta = (ap + sp_adj - 1.0) / youden;
    let (var_se, var_sp) = (se_adj * (1.0 - se_adj) / n_se, sp_adj * (1.0 - sp_adj) / n_sp);
    let se_theta = libm::sqrt(ap * (1.0 - ap) / n_ap + theta * theta * var_se + (1.0 - theta) * (1.0 - theta) * var_sp)
        / youden.abs();
    let shift = 2.0 * z2 * (theta * var_se - (1.0 - theta) * var_sp);
    let centre = theta + shift;
    Ok(Corrected {
        apparent,
        sensitivity: se,
        specificity: sp,
        estimate,
        clipped: raw != estimate,
        interval: Interval {
            low: (centre - z * se_theta).clamp(0.0, 1.0),
            high: (centre + z * se_theta).clamp(0.0, 1.0),
        },
        confidence,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(tp: u64, fn_: u64, fp: u64, tn: u64) -> Confusion {
        Confusion { true_positive: tp, false_negative: fn_, false_positive: fp, true_negative: tn }
    }

    #[test]
    fn a_perfect_detector_changes_nothing() {
        let c = rogan_gladen(30, 100, labels(20, 0, 0, 30), 0.95).unwrap();
        assert_eq!((c.apparent, c.clipped), (0.3, false));
        assert!((c.estimate - 0.3).abs() < 1e-15, "{c:?}");
        assert!(c.interval.low < 0.3 && c.interval.high > 0.3, "{c:?}");
    }

    #[test]
    fn the_estimate_is_rogan_gladens() {
        // AP 0.2, Se 0.9, Sp 0.95: (0.2 + 0.95 - 1) / 0.85.
        let c = rogan_gladen(200, 1000, labels(90, 10, 5, 95), 0.95).unwrap();
        assert!((c.estimate - 0.15 / 0.85).abs() < 1e-12, "{c:?}");
        // Below the false-positive rate the estimate is clipped to 0, and said to be.
        let c = rogan_gladen(2, 1000, labels(90, 10, 5, 95), 0.95).unwrap();
        assert_eq!((c.estimate, c.clipped), (0.0, true));
    }

    #[test]
    fn what_cannot_be_corrected_says_why() {
        assert_eq!(rogan_gladen(0, 0, labels(1, 0, 0, 1), 0.95), Err(CorrectionError::Empty));
        assert_eq!(rogan_gladen(3, 10, labels(0, 0, 1, 1), 0.95), Err(CorrectionError::Unlabelled));
        let e = rogan_gladen(3, 10, labels(1, 1, 1, 1), 0.95).unwrap_err();
        assert_eq!(e, CorrectionError::NoBetterThanChance { sum: 1.0 });
        assert!(e.to_string().contains("no better than chance"));
    }

    #[test]
    fn accuracy_takes_the_labels_as_truth() {
        let a = accuracy(labels(18, 2, 3, 27), 0.95);
        assert_eq!(a.sensitivity.unwrap().rate, 0.9);
        assert_eq!(a.specificity.unwrap().rate, 0.9);
        // Detector in rows: both yes 18, detector only 3, labels only 2, neither 27.
        assert_eq!((a.agreement.both, a.agreement.only_a, a.agreement.only_b), (18, 3, 2));
        assert!(a.kappa.is_some());
        assert!(accuracy(labels(0, 0, 3, 27), 0.95).sensitivity.is_none());
    }
}
