//! The planned calls of a LangBiTe run: every instance for every model and sample, as
//! `pending` records of the record table, so a provider (or the simulated one) fills in the
//! responses and the analyses read them like any other records.
//!
//! Mapping: `method` = `requirements`; `question_id` = the template id, which aligns one
//! template across languages in LangBiTe's libraries; `expected` = the oracle's
//! `expected_value` alternatives joined by `|`; the oracle type, its prediction JSON and the
//! requirement name, the raw template and the filled template without prefix or format go to
//! `extra` (`oracle`, `oracle_prediction`, `requirement`, `template`, `instance`).

use super::expand::Instance;
use crate::record::{FORMAT_VERSION, Record, Status};
use std::collections::BTreeMap;

/// One provider/model pair to plan calls for.
#[derive(Debug, Clone)]
pub struct Target {
    pub provider: String,
    pub model: String,
}

/// What the scenario says each call is sent with (`temperature`, `tokens` as `max_tokens`):
/// put in every planned record's `params`, which the run engine applies to its request.
pub fn sent_params(scenario: &super::scenario::Scenario) -> BTreeMap<String, serde_json::Value> {
    let mut p = BTreeMap::new();
    if let Some(t) = scenario.temperature {
        p.insert("temperature".to_string(), serde_json::json!(t));
    }
    if let Some(m) = scenario.tokens {
        p.insert("max_tokens".to_string(), serde_json::json!(m));
    }
    p
}

/// Pending records, ordered model, instance, sample (instances stay in expansion order).
pub fn plan(run_id: &str, instances: &[Instance], targets: &[Target], samples: u32) -> Vec<Record> {
    let mut out = Vec::with_capacity(instances.len() * targets.len() * samples as usize);
    for target in targets {
        for inst in instances {
            for sample_index in 0..samples {
                let mut r = record(run_id, inst, target, sample_index);
                r.record_id = r.derived_id();
                out.push(r);
            }
        }
    }
    out
}

fn record(run_id: &str, inst: &Instance, target: &Target, sample_index: u32) -> Record {
    let expected = inst
        .oracle_prediction
        .as_ref()
        .and_then(|p| p.get("expected_value"))
        .and_then(|v| v.as_array())
        .map(|vs| vs.iter().filter_map(|v| v.as_str()).collect::<Vec<_>>().join("|"))
        .unwrap_or_default();
    let mut extra = BTreeMap::from([
        ("oracle".to_string(), inst.oracle.clone()),
        ("requirement".to_string(), inst.requirement_name.clone()),
        ("template".to_string(), inst.template.clone()),
        ("instance".to_string(), inst.instance.clone()),
    ]);
    if let Some(p) = &inst.oracle_prediction {
        extra.insert("oracle_prediction".to_string(), p.to_string());
    }
    Record {
        format_version: FORMAT_VERSION,
        run_id: run_id.to_string(),
        method: "requirements".to_string(),
        case_id: inst.case_id.clone(),
        template_id: inst.template_id.clone(),
        language: inst.language.clone(),
        concern: inst.concern.clone(),
        communities: inst.communities.clone(),
        input_type: inst.input_type.clone(),
        reflection_type: inst.reflection_type.clone(),
        prompt: inst.prompt.clone(),
        provider: target.provider.clone(),
        model: target.model.clone(),
        sample_index,
        status: Status::Pending,
        expected,
        question_id: inst.template_id.clone(),
        extra,
        ..Record::default()
    }
}
