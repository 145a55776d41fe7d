//! Two-phase (double) sampling with strata: estimates about all answers from hand labels on a
//! sample that was drawn per stratum of a cheap first-phase classification.
//!
//! **The design.** Phase 1 classifies every answer (the deciding detector's verdict: stratum
//! h = flagged or not flagged, N_h answers of N). Phase 2 labels n_h answers drawn at random
//! without replacement within each stratum (the review sample: up to k per stratum, in a
//! seeded hash order that knows nothing of the labels). Because phase 1 is a census here, the
//! stratum weights W_h = N_h / N are known, not estimated, and the double-sampling estimator
//! (Cochran 1977, *Sampling Techniques*, 3rd ed., §12.2) reduces to the stratified one (§5.3,
//! §6.11): each labelled answer stands for N_h / n_h answers of its stratum.
//!
//! **Every figure is a ratio** R = Y / X of weighted totals, Ŷ = Σ_h (N_h/n_h) Σ_i y_i and X̂ the
//! same over x: the true refusal rate (y = label, x = 1, so R̂ = Σ_h W_h p̂_h), the detector's
//! PPV within the flagged stratum, its NPV within the other, and any detector's sensitivity
//! (y = detector and label, x = label) or specificity. For the deciding detector the weighted
//! sensitivity equals Bayes' N_f·PPV / (N_f·PPV + N_u·(1 − NPV)), its specificity
//! N_u·NPV / (N_u·NPV + N_f·(1 − PPV)).
//!
//! **Variance** by linearisation (Taylor; Cochran §6.11, Särndal, Swensson and Wretman 1992
//! §5.6), with the finite-population correction:
//!
//!   V̂(R̂) = (1 / X̂²) Σ_h N_h² (1 − n_h/N_h) s²_eh / n_h,   e = y − R̂·x,
//!
//! s²_eh the within-stratum sample variance of e (divisor n_h − 1). For the rate this is
//! Cochran's 5.48, Σ W_h² (1 − f_h) p̂_h(1 − p̂_h) / (n_h − 1); for the deciding detector's
//! sensitivity it equals the delta method on Bayes' formula with PPV and NPV independent.
//!
//! **The interval** is Wilson's score interval on the Kish effective sample size
//! n* = R̂(1 − R̂) / V̂(R̂) (Kish 1965, *Survey Sampling*, design effect; Korn and Graubard 1998,
//! "Confidence intervals for proportions with small expected number of positive counts
//! estimated from survey data", *Survey Methodology* 24(2); Franco, Little, Louis and Slud
//! 2019, "Comparative study of confidence intervals for proportions in complex sample
//! surveys", *Journal of Survey Statistics and Methodology* 7(3), who find the
//! effective-size Wilson interval keeps its coverage at small samples where the Wald one does
//! not). It stays inside [0, 1] and is not degenerate at 0 or n_h refusals. A stratum whose
//! labels are all alike (no refusal among ten unflagged answers, say) adds nothing to V̂
//! although its rate is uncertain, and the interval would be too narrow; so n* is capped by
//! Kish's effective size of the weights, n_w = (Σ w_i)² / Σ w_i² over the labelled answers in
//! the denominator (w_i = N_h/n_h): the size a sample with these weights would have if the
//! strata shared one rate. Rules:
//!   - every stratum labelled in full (n_h = N_h): the figure is known exactly, [R̂, R̂];
//!   - V̂ > 0 and 0 < R̂ < 1: n* = min(R̂(1 − R̂) / V̂, n_w);
//!   - otherwise (V̂ = 0: every stratum all refusals or all answers, or R̂ at 0 or 1; or a
//!     stratum of one label, whose variance cannot be estimated): n* = n_w, the design effect
//!     of the weights alone (Korn and Graubard's rule: no further design effect assumed).
//!
//! A stratum with answers but no label leaves every figure that needs it undefined, and says
//! so: an unlabelled stratum is not a stratum without refusals.

use super::proportion::Wilson;
use serde::Serialize;

/// One stratum of phase 1: its name (for messages) and how many answers it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stratum<'a> {
    pub name: &'a str,
    pub population: u64,
}

/// One labelled answer: its stratum (index into the strata), and whether it counts in the
/// numerator (y) and in the denominator (x) of the ratio.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    pub stratum: usize,
    pub y: bool,
    pub x: bool,
}

/// How the interval's effective sample size was found (see the module's note).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IntervalRule {
    /// Every stratum labelled in full: the figure is exact.
    Census,
    /// n* = R(1 − R) / V, at most the weights' Kish size.
    Design,
    /// The design effect could not be estimated: n* = the weights' Kish size.
    Weights,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub estimate: f64,
    /// The linearised variance; None where a stratum of one label leaves it unestimable.
    pub variance: Option<f64>,
    /// The Kish effective sample size the interval used (infinite for a census).
    pub effective_n: f64,
    pub rule: IntervalRule,
    pub low: f64,
    pub high: f64,
    pub confidence: f64,
    /// Labelled answers that count in the denominator.
    pub labelled: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Undefined {
    #[error("none of the {population} answers {stratum} is labelled: the estimate is undefined (not 0)")]
    Unlabelled { stratum: String, population: u64 },
    #[error("{labelled} labels for the {population} answers {stratum}: more labels than answers")]
    TooMany { stratum: String, labelled: u64, population: u64 },
    #[error("no labelled answer counts in the denominator")]
    NoDenominator,
    #[error("a labelled answer names stratum {0}, which does not exist")]
    NoStratum(usize),
}

#[derive(Default, Clone, Copy)]
struct Sums {
    n: u64,
    y: u64,
    x: u64,
    /// Units with y and x, y only, x only.
    both: u64,
    y_only: u64,
    x_only: u64,
}

/// The weighted ratio Ŷ / X̂ with its variance and interval (see the module's note).
pub fn ratio(strata: &[Stratum], units: &[Unit], confidence: f64) -> Result<Estimate, Undefined> {
    let mut sums = vec![Sums::default(); strata.len()];
    for u in units {
        let s = sums.get_mut(u.stratum).ok_or(Undefined::NoStratum(u.stratum))?;
        s.n += 1;
        s.y += u.y as u64;
        s.x += u.x as u64;
        match (u.y, u.x) {
            (true, true) => s.both += 1,
            (true, false) => s.y_only += 1,
            (false, true) => s.x_only += 1,
            _ => {}
        }
    }
    for (st, s) in strata.iter().zip(&sums) {
        if s.n > st.population {
            return Err(Undefined::TooMany { stratum: st.name.into(), labelled: s.n, population: st.population });
        }
        if st.population > 0 && s.n == 0 {
            return Err(Undefined::Unlabelled { stratum: st.name.into(), population: st.population });
        }
    }
    let live = || strata.iter().zip(&sums).filter(|(st, _)| st.population > 0);
    let weight = |st: &Stratum, s: &Sums| st.population as f64 / s.n as f64;
    let y_hat: f64 = live().map(|(st, s)| weight(st, s) * s.y as f64).sum();
    let x_hat: f64 = live().map(|(st, s)| weight(st, s) * s.x as f64).sum();
    let labelled: u64 = live().map(|(_, s)| s.x).sum();
    // Kish's effective size of the weights over the units in the denominator.
    let w2: f64 = live().map(|(st, s)| weight(st, s) * weight(st, s) * s.x as f64).sum();
    let kish = x_hat * x_hat / w2;
    if x_hat <= 0.0 {
        return Err(Undefined::NoDenominator);
    }
    let r = y_hat / x_hat;
    // Σ_h N_h² (1 − f_h) s²_eh / n_h over X̂²; None when a sampled-not-censused stratum has one unit.
    let mut variance = Some(0.0);
    for (st, s) in live() {
        if s.n == st.population {
            continue;
        }
        if s.n < 2 {
            variance = None;
            break;
        }
        let n = s.n as f64;
        // e over the stratum's units: 1 − r (both), 1 (y only), −r (x only), 0 (neither).
        let neither = s.n - s.both - s.y_only - s.x_only;
        let mean = (s.y as f64 - r * s.x as f64) / n;
        let dev = |e: f64| (e - mean) * (e - mean);
        let ss = s.both as f64 * dev(1.0 - r)
            + s.y_only as f64 * dev(1.0)
            + s.x_only as f64 * dev(-r)
            + neither as f64 * dev(0.0);
        let big = st.population as f64;
        variance = variance.map(|v| v + big * big * (1.0 - n / big) * (ss / (n - 1.0)) / n);
    }
    let variance = variance.map(|v| v / (x_hat * x_hat));
    let census = live().all(|(st, s)| s.n == st.population);
    let (rule, effective_n) = match variance {
        _ if census => (IntervalRule::Census, f64::INFINITY),
        Some(v) if v > 0.0 && r > 0.0 && r < 1.0 => (IntervalRule::Design, (r * (1.0 - r) / v).min(kish)),
        _ => (IntervalRule::Weights, kish),
    };
    let (low, high) = if rule == IntervalRule::Census {
        (r, r)
    } else {
        Wilson::new(confidence).bounds(r.clamp(0.0, 1.0), effective_n)
    };
    Ok(Estimate { estimate: r, variance, effective_n, rule, low, high, confidence, labelled })
}

/// Cohen's kappa of a weighted 2x2 table (detector against labels): a point estimate only.
/// `table` is [detector yes & label yes, detector no & label yes, detector yes & label no,
/// detector no & label no]; None when chance agreement is 1 or the table is empty.
pub fn weighted_kappa(table: [f64; 4]) -> Option<f64> {
    let [tp, fn_, fp, tn] = table;
    let t = tp + fn_ + fp + tn;
    if t <= 0.0 {
        return None;
    }
    let po = (tp + tn) / t;
    let pe = ((tp + fp) * (tp + fn_) + (fn_ + tn) * (fp + tn)) / (t * t);
    (pe < 1.0).then(|| (po - pe) / (1.0 - pe))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(stratum: usize, yes: u64, no: u64) -> Vec<Unit> {
        let mut out = vec![Unit { stratum, y: true, x: true }; yes as usize];
        out.extend(vec![Unit { stratum, y: false, x: true }; no as usize]);
        out
    }

    const TWO: [Stratum; 2] = [Stratum { name: "f", population: 40 }, Stratum { name: "u", population: 960 }];

    #[test]
    fn the_rate_weights_each_stratum_by_its_share() {
        let mut u = units(0, 8, 2);
        u.extend(units(1, 1, 9));
        let e = ratio(&TWO, &u, 0.95).unwrap();
        // 0.04 · 0.8 + 0.96 · 0.1
        assert!((e.estimate - 0.128).abs() < 1e-12, "{e:?}");
        // Cochran 5.48: W² (1 − f) p q / (n − 1) per stratum.
        let v =
            0.04f64.powi(2) * (1.0 - 10.0 / 40.0) * 0.16 / 9.0 + 0.96f64.powi(2) * (1.0 - 10.0 / 960.0) * 0.09 / 9.0;
        assert!((e.variance.unwrap() - v).abs() < 1e-15);
        assert_eq!(e.rule, IntervalRule::Design);
        assert!(e.low < e.estimate && e.estimate < e.high);
    }

    #[test]
    fn an_unlabelled_stratum_leaves_the_rate_undefined_not_zero() {
        let e = ratio(&TWO, &units(0, 8, 2), 0.95).unwrap_err();
        assert_eq!(e, Undefined::Unlabelled { stratum: "u".into(), population: 960 });
        assert!(e.to_string().contains("undefined (not 0)"));
        // A stratum with no answers needs no label.
        let one = [Stratum { name: "f", population: 0 }, Stratum { name: "u", population: 10 }];
        assert_eq!(ratio(&one, &units(1, 2, 3), 0.95).unwrap().estimate, 0.4);
    }

    #[test]
    fn a_census_is_exact_and_zero_refusals_still_get_an_interval() {
        let s = [Stratum { name: "f", population: 5 }, Stratum { name: "u", population: 10 }];
        let mut u = units(0, 4, 1);
        u.extend(units(1, 1, 9));
        let e = ratio(&s, &u, 0.95).unwrap();
        assert_eq!((e.rule, e.variance, e.low, e.high), (IntervalRule::Census, Some(0.0), e.estimate, e.estimate));
        assert!((e.estimate - 5.0 / 15.0).abs() < 1e-15);
        let mut u = units(0, 0, 10);
        u.extend(units(1, 0, 10));
        let e = ratio(&TWO, &u, 0.95).unwrap();
        // Kish: (1000)² / (10·4² + 10·96²).
        assert_eq!((e.estimate, e.rule, e.low), (0.0, IntervalRule::Weights, 0.0));
        assert!((e.effective_n - 1e6 / (160.0 + 92160.0)).abs() < 1e-9);
        assert!(e.high > 0.1, "Wilson on 10.8 labels, not a zero-width interval: {e:?}");
        assert!(ratio(&TWO, &units(0, 1, 0), 0.95).is_err());
        let too_many = [Stratum { name: "f", population: 1 }];
        assert!(matches!(ratio(&too_many, &units(0, 1, 1), 0.95), Err(Undefined::TooMany { .. })));
    }

    #[test]
    fn kappa_of_a_weighted_table() {
        assert_eq!(weighted_kappa([0.0; 4]), None);
        assert!((weighted_kappa([45.0, 5.0, 5.0, 45.0]).unwrap() - 0.8).abs() < 1e-12);
    }
}
