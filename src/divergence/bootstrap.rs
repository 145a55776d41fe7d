//! Percentile bootstrap intervals for CD.
//!
//! Scheme: for each aspect, draw its contexts with replacement (as many as it has); in
//! sampling mode, for every drawn context also draw its matched samples with replacement and
//! recompute m_c from them. The replicate's CD_a is computed from the drawn contexts exactly
//! as the estimate is; a replicate in which one culture has no context is left out (and
//! counted). The overall CD of replicate r is Σ_a CD_a of replicate r. Per-context intervals
//! (sampling mode only; in scoring mode a context's value is fixed) resample its samples.
//! The interval is the (1-c)/2 and (1+c)/2 percentiles of the replicates, interpolated
//! linearly between order statistics ([`Percentile::Linear`], type 7). Random draws: ChaCha8 from
//! `rng_for(seed, ["divergence", model, aspect or context])`, one stream per item, so the
//! result does not depend on the order the items are processed in.

use super::formulas::{self, Terms};
use crate::rng::{self, Rng};
use crate::stats::bootstrap::Percentile;
use crate::stats::confidence::Confidence;
use rand::RngExt;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Bootstrap {
    pub replicates: u32,
    pub confidence: Confidence,
    pub seed: u64,
}

impl Default for Bootstrap {
    fn default() -> Bootstrap {
        Bootstrap { replicates: 1000, confidence: Confidence::NINETY_FIVE, seed: 1 }
    }
}

/// The samples of one context in sampling mode.
#[derive(Debug, Clone)]
pub struct Samples {
    /// Per matched sample: index into the context's fillers.
    pub draws: Vec<usize>,
    /// Per filler: -ln L(g) and -ln W(g).
    pub nll_local: Vec<f64>,
    pub nll_western: Vec<f64>,
}

impl Samples {
    /// The terms of an empirical distribution given by counts per filler.
    pub fn terms(&self, counts: &[u32], n: u32) -> Terms {
        let mut t = Terms { h_local: 0.0, h_western: 0.0, entropy: 0.0 };
        let n = f64::from(n);
        for (i, &c) in counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let p = f64::from(c) / n;
            t.h_local += p * self.nll_local[i];
            t.h_western += p * self.nll_western[i];
            t.entropy -= p * libm::log(p);
        }
        t
    }

    fn redraw(&self, rng: &mut Rng, counts: &mut Vec<u32>) -> Terms {
        counts.clear();
        counts.resize(self.nll_local.len(), 0);
        let n = self.draws.len();
        for _ in 0..n {
            counts[self.draws[rng.random_range(0..n)]] += 1;
        }
        self.terms(counts, n as u32)
    }
}

/// One context as the bootstrap sees it.
#[derive(Debug, Clone)]
pub struct Unit<'a> {
    pub culture: Option<&'a str>,
    pub terms: Terms,
    pub samples: Option<Samples>,
}

/// CD_a per replicate (None where a culture drew no context).
pub fn aspect_replicates(units: &[Unit], b: &Bootstrap, stream: &[&[u8]]) -> Vec<Option<f64>> {
    let mut rng = rng::rng_for(b.seed, stream);
    let mut counts = vec![];
    let mut drawn: Vec<(Option<&str>, Terms)> = Vec::with_capacity(units.len());
    (0..b.replicates)
        .map(|_| {
            drawn.clear();
            for _ in 0..units.len() {
                let u = &units[rng.random_range(0..units.len())];
                let t = match &u.samples {
                    Some(s) if !s.draws.is_empty() => s.redraw(&mut rng, &mut counts),
                    _ => u.terms,
                };
                drawn.push((u.culture, t));
            }
            formulas::aspect_score(drawn.iter().copied()).map(|s| s.cd)
        })
        .collect()
}

/// Per-context CD replicates from its samples.
pub fn context_replicates(samples: &Samples, b: &Bootstrap, stream: &[&[u8]]) -> Vec<f64> {
    if samples.draws.is_empty() {
        return vec![];
    }
    let mut rng = rng::rng_for(b.seed, stream);
    let mut counts = vec![];
    (0..b.replicates).map(|_| samples.redraw(&mut rng, &mut counts).cd()).collect()
}

/// The percentile interval of finite replicate values.
pub fn interval(values: &[f64], confidence: f64) -> Option<(f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let q = |p: f64| Percentile::Linear.of(&v, p);
    q((1.0 - confidence) / 2.0).zip(q((1.0 + confidence) / 2.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate() {
        let v: Vec<f64> = (0..=100).map(f64::from).collect();
        let (lo, hi) = interval(&v, 0.9).unwrap();
        assert!((lo - 5.0).abs() < 1e-12 && (hi - 95.0).abs() < 1e-12);
        assert_eq!(interval(&[1.0, 2.0], 0.5), Some((1.25, 1.75)));
        assert_eq!(interval(&[f64::NAN], 0.95), None);
    }

    #[test]
    fn same_seed_same_replicates_other_seed_other() {
        let t = |a: f64, b: f64| Terms { h_local: a, h_western: b, entropy: 0.0 };
        let samples =
            Samples { draws: vec![0, 0, 1, 2, 1, 0], nll_local: vec![1.0, 2.0, 5.0], nll_western: vec![3.0, 1.0, 0.5] };
        let units = vec![
            Unit { culture: None, terms: t(1.0, 2.0), samples: None },
            Unit { culture: None, terms: t(3.0, 1.0), samples: None },
            Unit { culture: None, terms: samples.terms(&[3, 2, 1], 6), samples: Some(samples.clone()) },
        ];
        let b = Bootstrap { replicates: 200, confidence: Confidence::NINETY_FIVE, seed: 9 };
        let a1 = aspect_replicates(&units, &b, &[b"divergence", b"m", b"a"]);
        let a2 = aspect_replicates(&units, &b, &[b"divergence", b"m", b"a"]);
        assert_eq!(a1, a2);
        let other = aspect_replicates(&units, &Bootstrap { seed: 10, ..b }, &[b"divergence", b"m", b"a"]);
        assert_ne!(a1, other);
        let c1 = context_replicates(&samples, &b, &[b"c"]);
        assert_eq!(c1, context_replicates(&samples, &b, &[b"c"]));
        // Every replicate of a context lies between its most local and most western filler.
        assert!(c1.iter().all(|&x| (-2.0..=4.5).contains(&x)));
        let vals: Vec<f64> = a1.iter().flatten().copied().collect();
        let (lo, hi) = interval(&vals, 0.95).unwrap();
        assert!(lo < hi);
    }
}
