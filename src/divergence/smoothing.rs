//! Smoothing a reference over the union vocabulary V (both references' fillers and every
//! filler any model produced in that aspect), so that no filler has probability 0 and CD
//! stays finite.
//!
//! - add-α: x(g) = (w(g) + α) / (Σ_V w + α·|V|), with w the reference's raw weights (counts
//!   or populations; for the Census percentages α is in percentage points).
//! - floor ε: x(g) = max(w(g)/Σ w, ε) / Σ_V max(w/Σ w, ε).
//!
//! - none: the raw proportions; only for references that cover every filler.
//!
//! The report states the method and its parameter, and how much probability needed it: the
//! reference mass put on fillers the reference lacks, and the model's mass on such fillers.

use super::DivergenceError;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "kebab-case")]
pub enum Smoothing {
    AddAlpha {
        alpha: f64,
    },
    Floor {
        epsilon: f64,
    },
    /// No smoothing: x(g) = w(g)/Σw. An analysis refuses to run when the model puts
    /// probability on a filler a reference lacks (CD would be infinite).
    None,
}

impl Default for Smoothing {
    fn default() -> Smoothing {
        Smoothing::AddAlpha { alpha: 0.5 }
    }
}

impl Smoothing {
    /// "add-alpha:0.5" or "floor:1e-6".
    pub fn parse(text: &str) -> Result<Smoothing, DivergenceError> {
        let bad = || {
            DivergenceError::Setting(format!(
                "smoothing: expected add-alpha:A (A > 0), floor:E (0 < E < 1) or none, found {text:?}"
            ))
        };
        // `none` was offered by the CLI's --help and then refused as malformed.
        if text.trim().eq_ignore_ascii_case("none") {
            return Ok(Smoothing::None);
        }
        let (method, value) = text.trim().split_once(':').ok_or_else(bad)?;
        let v: f64 = value.trim().parse().map_err(|_| bad())?;
        let s = match method.trim().to_ascii_lowercase().as_str() {
            "add-alpha" | "alpha" | "add" => Smoothing::AddAlpha { alpha: v },
            "floor" | "epsilon" => Smoothing::Floor { epsilon: v },
            _ => return Err(bad()),
        };
        s.check().map(|_| s).map_err(|_| bad())
    }

    pub fn check(&self) -> Result<(), DivergenceError> {
        let ok = match *self {
            Smoothing::AddAlpha { alpha } => alpha.is_finite() && alpha > 0.0,
            Smoothing::Floor { epsilon } => epsilon.is_finite() && epsilon > 0.0 && epsilon < 1.0,
            Smoothing::None => true,
        };
        if ok {
            Ok(())
        } else {
            Err(DivergenceError::Setting(format!("smoothing: parameter out of range in {self:?}")))
        }
    }

    pub fn describe(&self) -> String {
        match *self {
            Smoothing::AddAlpha { alpha } => format!(
                "add-α with α = {alpha} on the raw reference weights over the union vocabulary: x(g) = (w(g) + α) / (Σw + α|V|)"
            ),
            Smoothing::Floor { epsilon } => format!(
                "probability floor ε = {epsilon}, then renormalised over the union vocabulary: x(g) ∝ max(w(g)/Σw, ε)"
            ),
            Smoothing::None => "none: x(g) = w(g)/Σw (every filler the model names must be in both references)".into(),
        }
    }
}

/// A reference made into a probability over V.
#[derive(Debug, Clone)]
pub struct Smoothed {
    pub prob: HashMap<String, f64>,
    /// Keys with a raw weight > 0.
    pub known: BTreeSet<String>,
    /// Probability that smoothing placed on fillers the reference lacks.
    pub added_mass: f64,
    pub vocabulary: usize,
}

impl Smoothed {
    /// ln x(g); `g` outside V is a caller error and gives -inf, which the caller never sees
    /// because V contains every filler scored.
    pub fn ln(&self, g: &str) -> f64 {
        self.prob.get(g).map(|&p| libm::log(p)).unwrap_or(f64::NEG_INFINITY)
    }

    pub fn knows(&self, g: &str) -> bool {
        self.known.contains(g)
    }
}

/// Smooths raw weights (by canonical key) over the vocabulary `vocab` (a superset of the keys).
pub fn smooth(weights: &BTreeMap<String, f64>, vocab: &BTreeSet<String>, s: Smoothing) -> Smoothed {
    let total: f64 = vocab.iter().map(|g| weights.get(g).copied().unwrap_or(0.0)).sum();
    let n = vocab.len() as f64;
    let mut prob = HashMap::with_capacity(vocab.len());
    match s {
        Smoothing::AddAlpha { alpha } => {
            let denom = total + alpha * n;
            for g in vocab {
                prob.insert(g.clone(), (weights.get(g).copied().unwrap_or(0.0) + alpha) / denom);
            }
        }
        Smoothing::None => {
            for g in vocab {
                prob.insert(g.clone(), weights.get(g).copied().unwrap_or(0.0) / total);
            }
        }
        Smoothing::Floor { epsilon } => {
            let raw: Vec<f64> = vocab
                .iter()
                .map(|g| {
                    let p = if total > 0.0 { weights.get(g).copied().unwrap_or(0.0) / total } else { 0.0 };
                    p.max(epsilon)
                })
                .collect();
            let z: f64 = raw.iter().sum();
            for (g, p) in vocab.iter().zip(raw) {
                prob.insert(g.clone(), p / z);
            }
        }
    }
    let known: BTreeSet<String> = vocab.iter().filter(|g| weights.get(*g).is_some_and(|&w| w > 0.0)).cloned().collect();
    let added_mass = vocab.iter().filter(|g| !known.contains(*g)).map(|g| prob[g]).sum();
    Smoothed { prob, known, added_mass, vocabulary: vocab.len() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn add_alpha_and_floor_by_hand() {
        let weights = w(&[("a", 6.0), ("b", 2.0)]);
        let vocab: BTreeSet<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
        let s = smooth(&weights, &vocab, Smoothing::AddAlpha { alpha: 0.5 });
        // (6+.5)/(8+2) = .65, (2+.5)/10 = .25, c and d .05 each: .10 of mass added.
        assert!((s.prob["a"] - 0.65).abs() < 1e-15 && (s.prob["c"] - 0.05).abs() < 1e-15);
        assert!((s.added_mass - 0.10).abs() < 1e-15);
        assert!((s.prob.values().sum::<f64>() - 1.0).abs() < 1e-12);
        let f = smooth(&weights, &vocab, Smoothing::Floor { epsilon: 0.01 });
        // .75, .25, .01, .01 over 1.02.
        assert!((f.prob["a"] - 0.75 / 1.02).abs() < 1e-15);
        assert!((f.added_mass - 0.02 / 1.02).abs() < 1e-15);
        assert!(f.knows("a") && !f.knows("c"));
    }

    #[test]
    fn settings_parse_or_say_what_is_expected() {
        assert_eq!(Smoothing::parse("add-alpha:0.5").unwrap(), Smoothing::AddAlpha { alpha: 0.5 });
        assert_eq!(Smoothing::parse("floor:1e-6").unwrap(), Smoothing::Floor { epsilon: 1e-6 });
        for bad in ["floor:2", "add-alpha:-1", "add-alpha:NaN", "laplace:1", "floor"] {
            assert!(Smoothing::parse(bad).unwrap_err().to_string().contains("expected add-alpha"), "{bad}");
        }
    }

    #[test]
    fn none_parses_as_offered() {
        assert_eq!(Smoothing::parse(" None ").unwrap(), Smoothing::None);
        assert!(Smoothing::parse("nothing").is_err());
    }
}
