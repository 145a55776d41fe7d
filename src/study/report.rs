//! The study report as data (`report.json`): the question, the models, one section per method,
//! every paired comparison corrected over one family, the methods text, limitations and
//! references. The HTML report is written from this struct alone, so every number it shows is
//! here too; the page and the CLI build it with the same function.

use super::compare::{self, Comparison};
use super::format::{Statistics, sha256};
use super::sections::{self, Section};
use super::{Session, StudyError};
use serde::Serialize;

pub const FORMAT: &str = "evenhand-study-report";
pub const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelRow {
    /// As the study names it (`provider:model`, `simulated:<profile>`), or the records' model
    /// name for uploaded models the study does not list.
    pub target: String,
    pub model: String,
    pub simulated: bool,
    pub records: u64,
    pub failed: u64,
    pub refused: u64,
}

/// A method the study uses that has no section, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Omitted {
    pub method: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FamilyNote {
    pub correction: String,
    pub controls: String,
    /// Comparisons in the family (model pairs x figures, all methods).
    pub size: usize,
    pub alpha: f64,
    pub significant: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub format: String,
    pub version: u32,
    pub tool_version: String,
    /// When the report was written; the only field that differs between two builds of it.
    pub generated_at: String,
    pub title: String,
    pub question: String,
    /// SHA-256 of the study document as read (its canonical JSON).
    pub study_sha256: String,
    pub models: Vec<ModelRow>,
    pub statistics: Statistics,
    pub family: FamilyNote,
    pub sections: Vec<Section>,
    /// Methods the study uses that yielded no section, with the reason (also in limitations).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<Omitted>,
    pub methods_text: Vec<String>,
    pub limitations: Vec<String>,
    pub references: Vec<super::methods_text::Citation>,
    /// What changed between the models, item by item (`study::items`).
    pub changes: super::items::Changes,
    /// The answer to the question, from the comparisons (`study::summary`).
    pub answer: super::summary::Summary,
    /// Figures and paired differences per category and language (`study::breakdown`); their
    /// comparisons are corrected as a family of their own.
    pub breakdowns: Vec<super::breakdown::Breakdown>,
}

/// The models in report order: the study's targets, then any other model in the records.
pub fn model_order(s: &Session) -> Vec<(String, String, bool)> {
    let mut out: Vec<(String, String, bool)> =
        s.study.targets.iter().map(|t| (t.to_string(), t.record_model(), t.is_simulated())).collect();
    let mut others: Vec<String> = s.records.iter().map(|r| r.model.clone()).collect();
    others.sort();
    others.dedup();
    for m in others {
        if !out.iter().any(|(_, model, _)| model == &m) {
            let simulated = s.records.iter().any(|r| r.model == m && r.provider == crate::simulate::PROVIDER);
            out.push((m.clone(), m, simulated));
        }
    }
    out
}

/// Builds the report of everything the session holds. `generated_at` is written as given.
pub fn build(s: &Session, generated_at: &str) -> Result<Report, StudyError> {
    let inputs = s.inputs()?;
    let st = &s.study.statistics;
    let settings = sections::Settings {
        confidence: st.confidence,
        alpha: st.alpha,
        replicates: st.replicates,
        seed: s.study.seeds.statistics,
        correction: st.correction,
        interval: st.interval,
    };
    let order = model_order(s);
    let names: Vec<String> = order.iter().map(|(_, m, _)| m.clone()).collect();
    let mut sections: Vec<Section> = vec![];
    let mut omitted: Vec<Omitted> = vec![];
    for method in s.study.methods.used() {
        let records = s.records_of(method);
        if records.is_empty() {
            omitted.push(Omitted { method: method.into(), reason: "the study holds no record of it".into() });
            continue;
        }
        let section = match method {
            "requirements" => sections::requirements(inputs, &records, &names, settings),
            "bbq" => sections::bbq(inputs, &records, &names, settings),
            "crosslingual" => sections::crosslingual(inputs, &records, &names, settings),
            _ => sections::divergence(inputs, &records, &names, settings),
        };
        match section {
            Ok(x) if x.figures.is_empty() => omitted.push(Omitted {
                method: method.into(),
                reason: format!(
                    "none of its {} record(s) gave a figure ({})",
                    records.len(),
                    x.statuses.iter().map(|(k, v)| format!("{v} {k}")).collect::<Vec<_>>().join(", ")
                ),
            }),
            Ok(x) => sections.push(x),
            Err(e) => omitted.push(Omitted { method: method.into(), reason: e.to_string() }),
        }
    }
    // One family over every section's comparisons.
    let mut all: Vec<Comparison> = sections.iter().flat_map(|x| x.comparisons.clone()).collect();
    compare::correct(&mut all, st.correction, st.alpha);
    compare::power_notes(&mut all, st.alpha, s.study.seeds.statistics);
    let mut it = all.iter();
    for section in &mut sections {
        for c in &mut section.comparisons {
            *c = it.next().cloned().unwrap_or_else(|| c.clone());
        }
    }
    let models = order
        .iter()
        .filter(|(_, m, _)| s.records.iter().any(|r| &r.model == m))
        .map(|(target, model, simulated)| {
            let of = s.records.iter().filter(|r| &r.model == model);
            let count = |st: crate::record::Status| of.clone().filter(|r| r.status == st).count() as u64;
            ModelRow {
                target: target.clone(),
                model: model.clone(),
                simulated: *simulated,
                records: of.clone().count() as u64,
                failed: count(crate::record::Status::Error),
                refused: count(crate::record::Status::Refused),
            }
        })
        .collect();
    let breakdowns = super::breakdown::of(inputs, &s.records, &names, settings);
    let answered_by: Vec<Comparison> =
        all.iter().cloned().chain(breakdowns.iter().flat_map(|b| b.comparisons.clone())).collect();
    let omitted_reasons: Vec<(String, String)> = omitted.iter().map(|o| (o.method.clone(), o.reason.clone())).collect();
    let study_json = serde_json::to_string(&s.study).unwrap_or_default();
    let mut report = Report {
        format: FORMAT.into(),
        version: VERSION,
        tool_version: crate::VERSION.into(),
        generated_at: generated_at.into(),
        title: s.study.title.clone(),
        question: s.study.question.clone(),
        study_sha256: sha256(study_json.as_bytes()),
        models,
        statistics: st.clone(),
        family: FamilyNote {
            correction: st.correction.name().into(),
            controls: st.correction.controls().into(),
            size: all.len(),
            alpha: st.alpha,
            significant: all.iter().filter(|c| c.significant).count(),
        },
        sections,
        omitted,
        methods_text: vec![],
        limitations: vec![],
        references: super::methods_text::references(&s.study),
        changes: super::items::Changes::of(&super::items::of(inputs, &s.records, &s.study.methods.used(), &names)),
        answer: super::summary::of(&answered_by, &names, &omitted_reasons),
        breakdowns,
    };
    report.methods_text = super::methods_text::methods(s, inputs, &report);
    report.limitations = super::methods_text::limitations(s, &report);
    Ok(report)
}
