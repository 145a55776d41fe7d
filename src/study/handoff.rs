//! A study's records as its methods' expert tools read them, so that the report's link to a
//! tool opens it with this study's answers rather than whatever the tool last held. Most tools
//! read the study's records as they are; the Benchmarks tool reads a record table whose rows
//! carry their example (choices, gold and the BBQ columns), so each BBQ record is joined with the
//! study's example it answers.

use super::StudyError;
use super::session::Session;
use crate::bbq::{Condition, Polarity, Subset};
use crate::record::Record;
use std::collections::HashMap;

/// The scenario text the study judged its requirements records against, so the Requirements tool
/// judges them by the same requirements (None when the study has no requirements method).
pub fn scenario(s: &Session) -> Result<Option<String>, StudyError> {
    Ok(s.inputs()?.requirements.as_ref().map(|r| r.text.clone()))
}

/// The records of `method` for its expert tool, each named by its target as the report names it.
pub fn records(s: &Session, method: &str) -> Result<Vec<Record>, StudyError> {
    let records = s.records_of(method);
    if method != "bbq" {
        return Ok(records);
    }
    let Some(input) = &s.inputs()?.bbq else { return Ok(vec![]) };
    let by_id: HashMap<&str, &crate::bbq::Example> = input.examples.iter().map(|e| (e.id.as_str(), e)).collect();
    let mut out = vec![];
    for r in records {
        let id = if r.question_id.is_empty() { r.case_id.as_str() } else { r.question_id.as_str() };
        // An example whose biased answer the data cannot decide has no place in the tool's table.
        let Some((ex, biased)) = by_id.get(id).and_then(|e| e.biased.map(|b| (*e, b))) else { continue };
        let mut t = Record {
            format_version: 1,
            question_id: ex.id.clone(),
            concern: ex.category.clone(),
            language: ex.language.clone(),
            template_id: ex.template_id.clone(),
            prompt: ex.question.clone(),
            choices: ex.choices.clone(),
            gold: u32::try_from(ex.label).ok(),
            ..r
        };
        let condition = if ex.condition == Condition::Ambiguous { "ambiguous" } else { "disambiguated" };
        let polarity = if ex.polarity == Polarity::Negative { "negative" } else { "non_negative" };
        let subset = if ex.subset == Subset::ProperNames { "proper_names" } else { "group_terms" };
        for (k, v) in [("condition", condition), ("polarity", polarity), ("subset", subset)] {
            t.extra.insert(k.into(), v.into());
        }
        t.extra.insert("biased".into(), biased.to_string());
        if let Some(u) = ex.unknown {
            t.extra.insert("unknown".into(), u.to_string());
        }
        t.extra.insert("context".into(), ex.context.clone());
        out.push(t);
    }
    Ok(out)
}
