//! A study's calls as records: the cases handed to the run engine (every method's, tagged with
//! its method), the records the simulated targets give, and the way answered records come back.
//!
//! The engine runs every case once per model; a study's samples (and divergence's completions
//! per context) are therefore written into the cases themselves: case `X` becomes `X#0`,
//! `X#1`, ... with the sample number in the extra column `study_sample`, and [`normalise`]
//! turns answered records back into `X` with that sample index. So one run spec serves all
//! four methods, and a method's own reader sees the case ids it planned.

use super::StudyError;
use super::format::Study;
use super::inputs::Inputs;
use super::profiles::Profile;
use crate::record::{Record, Status};
use crate::simulate::{Ask, Outcome, Question};
use std::collections::BTreeMap;

/// The extra column carrying a case's sample number between the study and the engine.
pub const SAMPLE_COLUMN: &str = "study_sample";
const SAMPLE_SEPARATOR: char = '#';

/// The run id of a study's records: stable for the same study.
pub fn run_id(study: &Study) -> String {
    let json = serde_json::to_string(study).unwrap_or_default();
    format!("study-{:08x}", crate::rng::stable_hash(&[json.as_bytes()]) as u32)
}

/// Answers per case for `method` (divergence: completions per context).
pub fn copies(study: &Study, method: &str) -> u32 {
    match (method, &study.methods.divergence) {
        ("divergence", Some(d)) => d.completions,
        _ => study.samples,
    }
}

/// The requirement records planned for one target (`provider:model`), pending.
fn requirement_records(study: &Study, inputs: &Inputs, target: &str) -> Result<Vec<Record>, StudyError> {
    let Some(req) = &inputs.requirements else { return Ok(vec![]) };
    let mut s = crate::requirements::session::Session::default();
    let v = s.set_scenario(&req.text);
    if !v.ok {
        let first = v.errors.first().map(|p| p.to_string()).unwrap_or_default();
        return Err(StudyError::Input { field: "methods.requirements.scenario".into(), message: first });
    }
    let q = crate::requirements::session::PlanQuery {
        seed: study.seeds.plan,
        models: vec![target.to_string()],
        samples: study.samples,
        first: 0,
        run_id: run_id(study),
    };
    s.plan(&q).map_err(|e| StudyError::Input { field: "methods.requirements".into(), message: e.to_string() })?;
    Ok(s.records)
}

fn bbq_case(ex: &crate::bbq::Example, variant: Option<&str>, run_id: &str) -> Option<Record> {
    let v = match variant {
        Some(id) => crate::bbq::prompt::variant(id).ok()?,
        None => *crate::bbq::prompt::variants_for(&ex.language).first()?,
    };
    Some(Record {
        format_version: crate::record::FORMAT_VERSION,
        run_id: run_id.into(),
        method: "bbq".into(),
        case_id: ex.id.clone(),
        question_id: ex.id.clone(),
        template_id: ex.template_id.clone(),
        language: ex.language.clone(),
        concern: ex.category.clone(),
        prompt: crate::bbq::prompt::render(ex, v),
        choices: ex.choices.clone(),
        gold: u32::try_from(ex.label).ok(),
        params: BTreeMap::from([("variant".to_string(), serde_json::json!(v.id))]),
        status: Status::Pending,
        ..Record::default()
    })
}

/// Every method's cases, without target or sample: one per prompt.
pub fn base_cases(study: &Study, inputs: &Inputs) -> Result<Vec<Record>, StudyError> {
    let run_id = run_id(study);
    let mut out = vec![];
    if inputs.requirements.is_some() {
        let planned = requirement_records(study, inputs, "study:case")?;
        out.extend(planned.into_iter().filter(|r| r.sample_index == 0).map(|r| Record {
            provider: String::new(),
            model: String::new(),
            record_id: String::new(),
            ..r
        }));
    }
    if let Some(b) = &inputs.bbq {
        let variant = study.methods.bbq.as_ref().and_then(|b| b.variant.as_deref());
        out.extend(b.examples.iter().filter_map(|ex| bbq_case(ex, variant, &run_id)));
    }
    if let Some(x) = &inputs.crosslingual {
        out.extend(
            crate::crosslingual::runs::chat_cases(&x.cases).into_iter().map(|r| Record { run_id: run_id.clone(), ..r }),
        );
    }
    if let Some(d) = &inputs.divergence {
        // Only the aspects the analysis can use: a context of an aspect without both references
        // would be paid for and then left out of every figure.
        let analysable = |aspect: &str| {
            [crate::divergence::LOCAL, crate::divergence::WESTERN]
                .iter()
                .all(|c| d.references.iter().any(|r| r.aspect == aspect && r.culture == *c))
        };
        let cases = crate::divergence::runs::cases(&d.probes, crate::divergence::runs::Mode::Sample);
        out.extend(
            cases.into_iter().filter(|r| analysable(&r.concern)).map(|r| Record { run_id: run_id.clone(), ..r }),
        );
    }
    let params = &study.params;
    for r in &mut out {
        if let Some(t) = params.temperature {
            r.params.entry("temperature".into()).or_insert(serde_json::json!(t));
        }
        if let Some(m) = params.max_tokens {
            r.params.entry("max_tokens".into()).or_insert(serde_json::json!(m));
        }
    }
    Ok(out)
}

/// The cases for the run engine: each base case once per sample (see the module's note).
pub fn run_cases(study: &Study, inputs: &Inputs) -> Result<Vec<Record>, StudyError> {
    let mut out = vec![];
    let mut seen = std::collections::HashSet::new();
    for case in base_cases(study, inputs)? {
        if !seen.insert(case.case_id.clone()) {
            return Err(StudyError::Input {
                field: format!("methods.{}", case.method),
                message: format!("case id {:?} is used twice (two methods or two items share it)", case.case_id),
            });
        }
        for k in 0..copies(study, &case.method) {
            let mut c = case.clone();
            c.case_id = format!("{}{SAMPLE_SEPARATOR}{k}", case.case_id);
            c.extra.insert(SAMPLE_COLUMN.into(), k.to_string());
            out.push(c);
        }
    }
    Ok(out)
}

/// An answered record of a study run as its method expects it: the case id it planned and the
/// sample index from [`SAMPLE_COLUMN`]. Records without the column are left as they are.
pub fn normalise(mut r: Record) -> Record {
    if let Some(k) = r.extra.remove(SAMPLE_COLUMN).and_then(|k| k.trim().parse::<u32>().ok()) {
        let suffix = format!("{SAMPLE_SEPARATOR}{k}");
        if let Some(base) = r.case_id.strip_suffix(&suffix) {
            r.case_id = base.to_string();
        }
        r.sample_index = k;
    }
    r
}

/// The records a simulated target gives in every method of the study.
pub fn simulate(study: &Study, inputs: &Inputs, profile: &Profile) -> Result<Vec<Record>, StudyError> {
    let seed = study.seeds.simulation;
    let run_id = run_id(study);
    let model = format!("sim:{}", profile.name);
    let mut out = vec![];
    if inputs.requirements.is_some() {
        let mut s = crate::requirements::session::Session::default();
        s.set_scenario(&inputs.requirements.as_ref().map(|r| r.text.clone()).unwrap_or_default());
        s.records = requirement_records(study, inputs, &format!("{}:{model}", crate::simulate::PROVIDER))?;
        let sim = crate::requirements::simulate::SimBias { seed, ..profile.requirements.clone() };
        s.simulate(&sim).map_err(|e| StudyError::Input { field: "targets".into(), message: e.to_string() })?;
        out.extend(s.records);
    }
    if let Some(b) = &inputs.bbq {
        let variant = study.methods.bbq.as_ref().and_then(|b| b.variant.as_deref());
        for ex in &b.examples {
            let Some(case) = bbq_case(ex, variant, &run_id) else { continue };
            let question =
                Question::Choice { options: ex.choices.clone(), stereotyped: ex.biased, gold: Some(ex.label) };
            let communities = [ex.category.clone()];
            for sample in 0..study.samples {
                let ask = Ask {
                    language: &ex.language,
                    communities: &communities,
                    prompt: &case.prompt,
                    question: &question,
                    sample,
                };
                let reply = crate::simulate::answer(&profile.bbq, seed, &ask);
                let (status, response, error) = match reply.outcome {
                    Outcome::Answer(t) => (Status::Ok, t, String::new()),
                    Outcome::Refusal(t) => (Status::Refused, t, String::new()),
                    Outcome::Failure(e) => (Status::Error, String::new(), e),
                };
                let mut r = Record {
                    provider: crate::simulate::PROVIDER.into(),
                    model: model.clone(),
                    sample_index: sample,
                    status,
                    response,
                    error,
                    ..case.clone()
                };
                r.record_id = r.derived_id();
                out.push(r);
            }
        }
    }
    if let Some(x) = &inputs.crosslingual {
        let runs = crate::crosslingual::simulate::run(&profile.crosslingual, seed, &run_id, &x.cases, study.samples);
        out.extend(runs.into_iter().map(|(r, _)| r));
    }
    if let Some(d) = &inputs.divergence {
        let lean =
            crate::divergence::simulate::Lean { samples: copies(study, "divergence"), ..profile.divergence.clone() };
        let recs = crate::divergence::simulate::records(&d.probes, &d.references, &lean, seed)
            .map_err(|e| StudyError::Input { field: "methods.divergence".into(), message: e.to_string() })?;
        out.extend(recs.into_iter().map(|r| Record { run_id: run_id.clone(), ..r }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_suffix_goes_out_and_comes_back() {
        let mut r = Record { case_id: "q1:en:answer#3".into(), ..Record::default() };
        r.extra.insert(SAMPLE_COLUMN.into(), "3".into());
        let back = normalise(r);
        assert_eq!((back.case_id.as_str(), back.sample_index), ("q1:en:answer", 3));
        assert!(!back.extra.contains_key(SAMPLE_COLUMN));
        let plain = Record { case_id: "x#1".into(), ..Record::default() };
        assert_eq!(normalise(plain).case_id, "x#1");
    }
}
