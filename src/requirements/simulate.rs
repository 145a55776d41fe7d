//! A seeded simulated responder for planned requirement records, so the page can show a
//! whole run (and its statistics) without a provider.
//!
//! Each pending record gets one reply drawn from `rng_for(seed, [b"langbite-sim", model,
//! record_id])`, so a reply never depends on processing order:
//! - with probability `refusal` it refuses ("I'm sorry, I cannot answer that.");
//! - `allSameValue` templates (a JSON key in `oracle_prediction`): `{"<key>": v}` with
//!   v = round(50 + 40·b + u), b the bias of the record's community and u uniform on [-2, 2],
//!   so communities with different biases get different values;
//! - expected-value templates: with probability b the opposite answer of the language's yes/no
//!   pair (the biased reply), otherwise the first expected alternative.
//!
//! b is the highest `community` rate among the communities filling the prompt, else `bias`.

use crate::record::{Record, Status};
use crate::rng::rng_for;
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How biased the simulated model is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimBias {
    pub seed: u64,
    /// Probability of a biased answer for communities without their own rate.
    pub bias: f64,
    /// Per community id: its own probability of a biased answer.
    pub community: BTreeMap<String, f64>,
    pub refusal: f64,
}

impl Default for SimBias {
    fn default() -> Self {
        SimBias { seed: 1, bias: 0.1, community: BTreeMap::new(), refusal: 0.02 }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("simulation field {field}: expected a probability between 0 and 1, found {value}")]
    Rate { field: String, value: f64 },
}

impl SimBias {
    pub fn validate(&self) -> Result<(), SimError> {
        let check = |field: &str, v: f64| {
            if (0.0..=1.0).contains(&v) { Ok(()) } else { Err(SimError::Rate { field: field.to_string(), value: v }) }
        };
        check("bias", self.bias)?;
        check("refusal", self.refusal)?;
        for (c, v) in &self.community {
            check(&format!("community.{c}"), *v)?;
        }
        Ok(())
    }

    fn rate(&self, r: &Record) -> f64 {
        r.communities
            .values()
            .filter_map(|c| self.community.get(c))
            .copied()
            .fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a.max(v))))
            .unwrap_or(self.bias)
    }
}

/// A language's (yes, no) words; English when the caller knows none.
pub type YesNo = (String, String);

/// Fills every pending record in place; returns how many were answered.
pub fn respond(records: &mut [Record], sim: &SimBias, yes_no: &dyn Fn(&str) -> Option<YesNo>) -> usize {
    let mut n = 0;
    for r in records.iter_mut().filter(|r| r.status == Status::Pending) {
        let mut rng = rng_for(sim.seed, &[b"langbite-sim", r.model.as_bytes(), r.record_id.as_bytes()]);
        let b = sim.rate(r);
        let refuse: f64 = rng.random();
        let biased: f64 = rng.random();
        let noise: f64 = rng.random();
        r.response = if refuse < sim.refusal {
            "I'm sorry, I cannot answer that.".to_string()
        } else if let Some(key) = json_key(r) {
            let v = (50.0 + 40.0 * b + (noise * 4.0 - 2.0)).round().clamp(0.0, 100.0);
            format!("{{\"{key}\": {v}}}")
        } else {
            let first = r.expected.split('|').next().unwrap_or_default().to_string();
            let (yes, no) = yes_no(&r.language).unwrap_or_else(|| ("Yes".to_string(), "No".to_string()));
            if biased < b {
                if first.eq_ignore_ascii_case(&yes) { no } else { yes }
            } else if first.is_empty() {
                no
            } else {
                first
            }
        };
        r.status = Status::Ok;
        r.latency_ms = Some(0.0);
        n += 1;
    }
    n
}

fn json_key(r: &Record) -> Option<String> {
    let p: serde_json::Value = serde_json::from_str(r.extra.get("oracle_prediction")?).ok()?;
    (p.get("operation")?.as_str()? == "allSameValue").then(|| p.get("key")?.as_str().map(str::to_string))?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(id: &str, community: &str, expected: &str) -> Record {
        Record {
            record_id: id.into(),
            status: Status::Pending,
            language: "en_us".into(),
            expected: expected.into(),
            model: "m".into(),
            communities: BTreeMap::from([("X".to_string(), community.to_string())]),
            ..Record::default()
        }
    }

    #[test]
    fn a_fully_biased_community_gets_the_opposite_answer() {
        let sim = SimBias { seed: 3, bias: 0.0, refusal: 0.0, community: BTreeMap::from([("b".into(), 1.0)]) };
        let mut rs = vec![pending("1", "a", "No|I don't think"), pending("2", "b", "No|I don't think")];
        assert_eq!(respond(&mut rs, &sim, &|_| None), 2);
        assert_eq!(rs[0].response, "No");
        assert_eq!(rs[1].response, "Yes");
        assert_eq!(rs[1].status, Status::Ok);
    }

    #[test]
    fn json_templates_get_values_that_follow_the_bias() {
        let sim = SimBias { seed: 3, bias: 0.0, refusal: 0.0, community: BTreeMap::from([("b".into(), 1.0)]) };
        let mut rs = vec![pending("1", "a", ""), pending("2", "b", "")];
        for r in &mut rs {
            r.extra.insert("oracle_prediction".into(), r#"{"operation":"allSameValue","key":"p"}"#.into());
        }
        respond(&mut rs, &sim, &|_| None);
        let v = |r: &Record| -> f64 {
            serde_json::from_str::<serde_json::Value>(&r.response).unwrap()["p"].as_f64().unwrap()
        };
        assert!((48.0..=52.0).contains(&v(&rs[0])), "{}", rs[0].response);
        assert!((88.0..=92.0).contains(&v(&rs[1])), "{}", rs[1].response);
        assert!(SimBias { bias: 1.5, ..SimBias::default() }.validate().is_err());
    }
}
