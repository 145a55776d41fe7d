//! The formulas, on plain numbers (natural logarithms; [`mod@super::analysis`] converts units).
//!
//! One context c with model distribution m_c over its fillers and smoothed references L, W:
//! H(m_c, X) = -Σ_g m_c(g) ln x(g) and H(m_c) = -Σ_g m_c(g) ln m_c(g).
//! One aspect: H(M,X|a) = mean of H(m_c, X) over C_{X,a} (the contexts that count for
//! culture X), CD_a = H(M,L|a) - H(M,W|a), KL(M‖X|a) = mean of KL(m_c‖X) over C_{X,a}, and
//! CD_a = KL(M‖L|a) - KL(M‖W|a) + (mean_{C_L} H(m_c) - mean_{C_W} H(m_c)).
//!
//! The *pooled* (plain cross-entropy) form takes one distribution per aspect instead,
//! M_a(g) = Σ_c Z_c m_c(g) / Σ_c Z_c, with Z_c the context's raw mass (Σ_g exp(log-prob) in
//! scoring mode, the number of samples in sampling mode), over all contexts of the aspect:
//! CD_pooled = H(M_a, L) - H(M_a, W). Because H(·, X) is linear in its first argument, the two
//! forms agree exactly when both cultures use the same contexts and the mean over contexts
//! weighs them as the pooled form does: one context per aspect, equal Z_c for every context
//! (the same number of samples per context), or the same m_c in every context. Otherwise they
//! differ; the poster's form gives every context the same weight, the pooled form lets contexts
//! with more probability mass (or more samples) count more.

use super::smoothing::Smoothed;
use super::{LOCAL, WESTERN};
use serde::Serialize;

/// H(m, L), H(m, W) and H(m) of one context, in nats.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Terms {
    pub h_local: f64,
    pub h_western: f64,
    pub entropy: f64,
}

impl Terms {
    pub fn cd(&self) -> f64 {
        self.h_local - self.h_western
    }
}

/// `m`: (canonical filler, probability), summing to 1; every filler must be in both references' V.
pub fn context_terms(m: &[(String, f64)], l: &Smoothed, w: &Smoothed) -> Terms {
    let mut t = Terms { h_local: 0.0, h_western: 0.0, entropy: 0.0 };
    for (g, p) in m {
        if *p <= 0.0 {
            continue;
        }
        t.h_local -= p * l.ln(g);
        t.h_western -= p * w.ln(g);
        t.entropy -= p * libm::log(*p);
    }
    t
}

/// The aspect's numbers from its contexts' terms (poster's form), in nats.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AspectScore {
    pub cd: f64,
    pub h_local: f64,
    pub h_western: f64,
    pub kl_local: f64,
    pub kl_western: f64,
    /// mean_{C_L} H(m_c) - mean_{C_W} H(m_c): 0 when both cultures use the same contexts.
    pub entropy_term: f64,
}

/// `contexts`: (culture the context is restricted to, if any; its terms). None when one
/// culture has no context (CD is then undefined).
pub fn aspect_score<'a, I>(contexts: I) -> Option<AspectScore>
where
    I: IntoIterator<Item = (Option<&'a str>, Terms)>,
{
    let (mut hl, mut hw, mut el, mut ew, mut nl, mut nw) = (0.0, 0.0, 0.0, 0.0, 0usize, 0usize);
    for (culture, t) in contexts {
        if culture.is_none_or(|c| c == LOCAL) {
            hl += t.h_local;
            el += t.entropy;
            nl += 1;
        }
        if culture.is_none_or(|c| c == WESTERN) {
            hw += t.h_western;
            ew += t.entropy;
            nw += 1;
        }
    }
    if nl == 0 || nw == 0 {
        return None;
    }
    let (hl, hw, el, ew) = (hl / nl as f64, hw / nw as f64, el / nl as f64, ew / nw as f64);
    Some(AspectScore {
        cd: hl - hw,
        h_local: hl,
        h_western: hw,
        kl_local: hl - el,
        kl_western: hw - ew,
        entropy_term: el - ew,
    })
}

/// The pooled form of one aspect: `contexts` are (m_c, ln Z_c). Returns (H(M,L), H(M,W)).
pub fn pooled(contexts: &[(&[(String, f64)], f64)], l: &Smoothed, w: &Smoothed) -> Option<(f64, f64)> {
    let top = contexts.iter().map(|c| c.1).fold(f64::NEG_INFINITY, f64::max);
    if !top.is_finite() {
        return None;
    }
    // Weights Z_c / max Z, in log space so long contexts (log-probs of -500) do not underflow.
    let weights: Vec<f64> = contexts.iter().map(|c| libm::exp(c.1 - top)).collect();
    let total: f64 = weights.iter().sum();
    let (mut hl, mut hw) = (0.0, 0.0);
    for ((m, _), wt) in contexts.iter().zip(&weights) {
        let t = context_terms(m, l, w);
        hl += wt / total * t.h_local;
        hw += wt / total * t.h_western;
    }
    Some((hl, hw))
}

/// ln Σ exp(x), stable.
pub fn log_sum_exp(xs: &[f64]) -> f64 {
    let top = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !top.is_finite() {
        return top;
    }
    top + libm::log(xs.iter().map(|x| libm::exp(x - top)).sum::<f64>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_with_the_kl_form_holds() {
        let t1 = Terms { h_local: 2.0, h_western: 3.0, entropy: 0.5 };
        let t2 = Terms { h_local: 1.0, h_western: 2.5, entropy: 0.9 };
        let t3 = Terms { h_local: 4.0, h_western: 1.0, entropy: 0.2 };
        // Shared contexts: the entropy term vanishes.
        let s = aspect_score([(None, t1), (None, t2)]).unwrap();
        assert!((s.cd - (1.5 - 2.75)).abs() < 1e-15);
        assert_eq!(s.entropy_term, 0.0);
        assert!((s.cd - (s.kl_local - s.kl_western)).abs() < 1e-15);
        // Culture-specific contexts: it does not, and the identity needs it.
        let s = aspect_score([(None, t1), (Some(LOCAL), t2), (Some(WESTERN), t3)]).unwrap();
        assert!((s.h_local - 1.5).abs() < 1e-15 && (s.h_western - 2.0).abs() < 1e-15);
        assert!((s.entropy_term - (0.7 - 0.35)).abs() < 1e-15);
        assert!((s.cd - (s.kl_local - s.kl_western + s.entropy_term)).abs() < 1e-15);
        assert!(aspect_score([(Some(LOCAL), t1)]).is_none());
    }

    #[test]
    fn log_sum_exp_is_stable() {
        assert!((log_sum_exp(&[-1000.0, -1000.0]) - (-1000.0 + std::f64::consts::LN_2)).abs() < 1e-12);
        assert_eq!(log_sum_exp(&[]), f64::NEG_INFINITY);
    }
}
