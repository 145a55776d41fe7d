//! What a study will cost before it runs: per method and target, the calls, the prompt tokens
//! (estimated as the run engine estimates them) and the cost from the built-in price table.
//! Simulated targets cost nothing and make no call.

use super::cases;
use super::format::Study;
use crate::record::Record;
use crate::run::price::{ASSUMED_OUTPUT_TOKENS, PriceTable, estimate_tokens};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanRow {
    pub method: String,
    pub target: String,
    pub simulated: bool,
    pub calls: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// None when the price table has no row for the model (shown as "not priced").
    pub cost: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub rows: Vec<PlanRow>,
    /// Calls to providers (simulated targets excluded).
    pub calls: u64,
    pub cost: f64,
    pub currency: String,
    pub unpriced: Vec<String>,
    /// Cases per method (before samples).
    pub cases: Vec<(String, u64)>,
}

fn out_tokens(case: &Record) -> u64 {
    case.params.get("max_tokens").and_then(serde_json::Value::as_u64).unwrap_or(ASSUMED_OUTPUT_TOKENS)
}

/// The plan of `study` over its base cases.
pub fn plan(study: &Study, base: &[Record]) -> Plan {
    let prices = PriceTable::builtin();
    let mut rows = vec![];
    let mut cases = vec![];
    for method in study.methods.used() {
        let of_method: Vec<&Record> = base.iter().filter(|r| r.method == method).collect();
        cases.push((method.to_string(), of_method.len() as u64));
        let copies = u64::from(cases::copies(study, method));
        let tokens_in: u64 = of_method.iter().map(|r| estimate_tokens(&r.prompt)).sum::<u64>() * copies;
        let tokens_out: u64 = of_method.iter().map(|r| out_tokens(r)).sum::<u64>() * copies;
        for t in &study.targets {
            let simulated = t.is_simulated();
            rows.push(PlanRow {
                method: method.to_string(),
                target: t.to_string(),
                simulated,
                calls: if simulated { 0 } else { of_method.len() as u64 * copies },
                tokens_in: if simulated { 0 } else { tokens_in },
                tokens_out: if simulated { 0 } else { tokens_out },
                cost: if simulated { Some(0.0) } else { prices.cost(&t.model, tokens_in, tokens_out) },
            });
        }
    }
    let mut unpriced: Vec<String> = rows.iter().filter(|r| r.cost.is_none()).map(|r| r.target.clone()).collect();
    unpriced.dedup();
    Plan {
        calls: rows.iter().map(|r| r.calls).sum(),
        cost: rows.iter().filter_map(|r| r.cost).sum(),
        currency: prices.currency,
        unpriced,
        rows,
        cases,
    }
}
