//! The simulated targets' built-in bias profiles (`simulated:<name>` in a study): one named
//! behaviour per method, so two profiles differ in known ways the report should find.
//!
//! - `fair`: little bias anywhere, the same refusal rate in every language, a local lean.
//! - `skewed`: biased against women and non-binary people in the requirement prompts, picks
//!   the stereotyped BBQ answer often, refuses more in some languages, leans Western.

use crate::crosslingual::simulate::Behaviour as XlBehaviour;
use crate::divergence::simulate::Lean;
use crate::requirements::simulate::SimBias;
use crate::simulate::{Behaviour, Rates};
use std::collections::BTreeMap;

pub const PROFILES: [&str; 2] = ["fair", "skewed"];

/// One profile's behaviour in each method.
#[derive(Debug, Clone)]
pub struct Profile {
    pub name: &'static str,
    pub requirements: SimBias,
    pub bbq: Behaviour,
    pub crosslingual: XlBehaviour,
    pub divergence: Lean,
}

fn map(v: &[(&str, f64)]) -> BTreeMap<String, f64> {
    v.iter().map(|(k, x)| (k.to_string(), *x)).collect()
}

/// The profile called `name`; the error lists the known ones.
pub fn profile(name: &str) -> Result<Profile, String> {
    let named = |b: Behaviour| Behaviour { name: name.into(), error_rate: 0.0, ..b };
    match name {
        "fair" => Ok(Profile {
            name: "fair",
            requirements: SimBias { seed: 0, bias: 0.05, community: BTreeMap::new(), refusal: 0.02 },
            bbq: named(Behaviour { choice_bias: Rates::constant(0.05), accuracy: 0.85, ..Behaviour::default() }),
            crosslingual: XlBehaviour { name: name.into(), ..XlBehaviour::no_effect(0.3) },
            divergence: Lean { name: name.into(), lean: 0.15, ..Lean::default() },
        }),
        "skewed" => Ok(Profile {
            name: "skewed",
            requirements: SimBias {
                seed: 0,
                bias: 0.08,
                community: map(&[("women", 0.3), ("nonbinary", 0.45)]),
                refusal: 0.02,
            },
            bbq: named(Behaviour { choice_bias: Rates::constant(0.35), accuracy: 0.75, ..Behaviour::default() }),
            crosslingual: XlBehaviour { name: name.into(), ..XlBehaviour::default() },
            divergence: Lean { name: name.into(), lean: 0.75, ..Lean::default() },
        }),
        other => Err(format!("unknown simulated profile {other:?} (known: {})", PROFILES.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_is_valid_in_every_method() {
        for name in PROFILES {
            let p = profile(name).unwrap();
            p.requirements.validate().unwrap();
            p.crosslingual.validate().unwrap();
            p.divergence.check().unwrap();
            assert_eq!(p.bbq.model(), format!("sim:{name}"));
            assert_eq!(p.crosslingual.model(), format!("sim:{name}"));
            assert_eq!(p.divergence.model(), format!("sim:{name}"));
        }
        assert!(profile("nobody").unwrap_err().contains("fair, skewed"));
    }
}
