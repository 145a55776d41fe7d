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
    /// Comparisons in the family that are paired bootstraps (the rest are McNemar's exact test).
    pub bootstrap_comparisons: usize,
    /// The replicates the paired bootstraps drew: the study's, raised by
    /// [`paired_replicates`] when the family needs more.
    pub paired_replicates: u32,
    /// The smallest p a paired bootstrap can give, 2 / (B + 1); None without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smallest_p: Option<f64>,
    /// That p after the family's correction when it is the family's smallest (m × p for Holm
    /// and Benjamini-Hochberg, capped at 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smallest_adjusted_p: Option<f64>,
    /// The two lines above in words, for the report and its methods text.
    pub replicates_note: String,
}

/// How far below alpha the smallest attainable adjusted p must fall: B >= FLOOR_FACTOR x m / alpha
/// puts a difference at the bootstrap's floor at about alpha / 10 after Holm over m comparisons.
pub const FLOOR_FACTOR: f64 = 20.0;

/// The paired bootstraps' replicates for a family of `size` comparisons at `alpha`: at least the
/// study's `asked`, and at least FLOOR_FACTOR x size / alpha (size 1 without a correction),
/// rounded up to a thousand and capped at the bootstrap's maximum. With fewer, a real
/// difference whose every replicate lies on one side of 0 (p = 2 / (B + 1), the floor) can
/// still come out "not different" after the correction, for want of replicates alone.
pub fn paired_replicates(asked: u32, size: usize, alpha: f64, correction: crate::stats::correction::Family) -> u32 {
    let m = if matches!(correction, crate::stats::correction::Family::None) { 1 } else { size.max(1) };
    let need = (FLOOR_FACTOR * m as f64 / alpha / 1000.0).ceil() * 1000.0;
    let need = if need.is_finite() { need.min(f64::from(crate::stats::paired::MAX_RESAMPLES)) as u32 } else { 0 };
    asked.max(need)
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
    /// Every refusal detector's counts and agreement per model and language, and against the
    /// study's labels when it has some ([`super::trust`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trust: Vec<super::trust::MethodTrust>,
}

/// The models in report order: the study's targets under their report names (unique, see
/// [`super::targets`]), then any other model in the records.
pub fn model_order(s: &Session) -> Vec<(String, String, bool)> {
    let names = super::targets::names(&s.study);
    let mut out: Vec<(String, String, bool)> =
        names.iter().map(|(t, n)| (t.to_string(), n.clone(), t.is_simulated())).collect();
    let mut others: Vec<(String, bool)> = s
        .records
        .iter()
        .map(|r| (super::targets::name_of(&names, &r.provider, &r.model), r.provider == crate::simulate::PROVIDER))
        .collect();
    others.sort();
    others.dedup_by(|a, b| a.0 == b.0);
    for (m, simulated) in others {
        if !out.iter().any(|(_, model, _)| model == &m) {
            out.push((m.clone(), m, simulated));
        }
    }
    out
}

fn is_bootstrap(c: &Comparison) -> bool {
    c.test.contains("bootstrap")
}

/// Whether a method's comparisons can be paired bootstraps, whose replicates the family may
/// raise (the others are McNemar's exact test, the same at any number of replicates).
fn draws_paired(method: &str) -> bool {
    matches!(method, "bbq" | "divergence")
}

/// One method's section, or the reason it has none.
fn build_section(
    method: &str,
    inputs: &super::inputs::Inputs,
    records: &[crate::record::Record],
    names: &[String],
    settings: sections::Settings,
    analysis: &mut Option<crate::divergence::result::Analysis>,
) -> Result<Section, Omitted> {
    if records.is_empty() {
        return Err(Omitted { method: method.into(), reason: "the study holds no record of it".into() });
    }
    let section = match method {
        "requirements" => sections::requirements(inputs, records, names, settings),
        "bbq" => sections::bbq(inputs, records, names, settings),
        "crosslingual" => sections::crosslingual(inputs, records, names, settings),
        // The divergence analysis does not depend on the paired replicates: done once.
        _ => match analysis {
            Some(a) => sections::divergence_of(inputs, a, records, names, settings),
            None => sections::divergence_analysis(inputs, records, settings).and_then(|a| {
                let a = analysis.insert(a);
                sections::divergence_of(inputs, a, records, names, settings)
            }),
        },
    };
    match section {
        Ok(x) if x.figures.is_empty() => Err(Omitted {
            method: method.into(),
            reason: format!(
                "none of its {} record(s) gave a figure ({})",
                records.len(),
                x.statuses.iter().map(|(k, v)| format!("{v} {k}")).collect::<Vec<_>>().join(", ")
            ),
        }),
        Ok(x) => Ok(x),
        Err(e) => Err(Omitted { method: method.into(), reason: e.to_string() }),
    }
}

/// Every method's section, or the reason it has none: the records of each method (renamed as
/// the report names targets), and the sections of the previous pass, of which those that draw
/// no paired bootstrap are taken as they are.
fn build_sections(
    by_method: &[(&str, Vec<crate::record::Record>)],
    inputs: &super::inputs::Inputs,
    names: &[String],
    settings: sections::Settings,
    previous: &mut Vec<Result<Section, Omitted>>,
    analysis: &mut Option<crate::divergence::result::Analysis>,
) {
    let mut built = Vec::with_capacity(by_method.len());
    let mut before = std::mem::take(previous).into_iter();
    for (method, records) in by_method {
        let kept = before.next().filter(|_| !draws_paired(method));
        built.push(kept.unwrap_or_else(|| build_section(method, inputs, records, names, settings, analysis)));
    }
    *previous = built;
}

/// Builds the report of everything the session holds. `generated_at` is written as given.
pub fn build(s: &Session, generated_at: &str) -> Result<Report, StudyError> {
    let inputs = s.inputs()?;
    let st = &s.study.statistics;
    let settings = sections::Settings {
        confidence: st.confidence,
        alpha: st.alpha,
        replicates: st.replicates,
        paired_replicates: st.replicates,
        seed: s.study.seeds.statistics,
        correction: st.correction,
        interval: st.interval,
    };
    let order = model_order(s);
    let names: Vec<String> = order.iter().map(|(_, m, _)| m.clone()).collect();
    // Every record under its target's report name, named once (the sections, the item table
    // and the breakdowns group by target, never by model name alone).
    let targets = super::targets::names(&s.study);
    let report_names: Vec<String> =
        s.records.iter().map(|r| super::targets::name_of(&targets, &r.provider, &r.model)).collect();
    let by_method: Vec<(&str, Vec<crate::record::Record>)> = s
        .study
        .methods
        .used()
        .into_iter()
        .map(|m| {
            let of = s.records.iter().zip(&report_names).filter(|(r, _)| r.method == m);
            (m, of.map(|(r, n)| crate::record::Record { model: n.clone(), ..r.clone() }).collect())
        })
        .collect();
    // The family's size is known only once the sections are built; when it needs more paired
    // replicates than the study asked for, the sections with paired bootstraps are built again
    // with them (the size can only grow if a comparison undefined on few replicates becomes
    // defined: hence a loop). The others are the same at any number: kept from the first pass.
    let mut b = st.replicates;
    let mut built: Vec<Result<Section, Omitted>> = vec![];
    let mut analysis = None;
    let (sections, omitted) = loop {
        let paired = sections::Settings { paired_replicates: b, ..settings };
        build_sections(&by_method, inputs, &names, paired, &mut built, &mut analysis);
        let all = built.iter().filter_map(|x| x.as_ref().ok()).flat_map(|x| &x.comparisons);
        let size = all.clone().count();
        let want = if all.clone().any(is_bootstrap) {
            paired_replicates(st.replicates, size, st.alpha, st.correction)
        } else {
            b
        };
        if want <= b {
            let (mut sections, mut omitted) = (vec![], vec![]);
            for x in built {
                match x {
                    Ok(x) => sections.push(x),
                    Err(o) => omitted.push(o),
                }
            }
            break (sections, omitted);
        }
        b = want;
    };
    let mut sections = sections;
    // Every planned call in its section's table: those of the study's targets with no record
    // are failed (not run), so each table's total is at least what the study planned.
    let planned = s.run_cases().map(|c| super::calls::planned(&c)).unwrap_or_default();
    let target_names: Vec<String> = targets.iter().map(|(_, n)| n.clone()).collect();
    for x in sections.iter_mut().filter(|x| !x.calls.rows.is_empty()) {
        let refusals = x.calls.rows.iter().any(|r| r.refused.is_some());
        if let Some(p) = planned.get(&x.method) {
            super::calls::plan(&mut x.calls, &target_names, p, refusals);
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
    let named: Vec<(&String, &crate::record::Record)> = report_names.iter().zip(&s.records).collect();
    let models = order
        .iter()
        .filter(|(_, m, _)| named.iter().any(|(n, _)| *n == m))
        .map(|(target, model, simulated)| {
            let of = named.iter().filter(|(n, _)| *n == model).map(|(_, r)| *r);
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
    let floor = all.iter().any(is_bootstrap).then(|| 2.0 / (f64::from(b) + 1.0));
    let floor_adjusted = floor.map(|p| match st.correction {
        crate::stats::correction::Family::None => p,
        _ => (p * all.len() as f64).min(1.0),
    });
    let breakdowns = super::breakdown::of(inputs, &by_method, &names, settings);
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
            bootstrap_comparisons: all.iter().filter(|c| is_bootstrap(c)).count(),
            paired_replicates: b,
            smallest_p: floor,
            smallest_adjusted_p: floor_adjusted,
            replicates_note: replicates_note(st, all.len(), b, floor, floor_adjusted),
        },
        sections,
        omitted,
        methods_text: vec![],
        limitations: vec![],
        references: super::methods_text::references(&s.study),
        changes: super::items::Changes::of(&super::items::of_methods(inputs, &by_method, &names)),
        answer: super::summary::of(&answered_by, &names, &omitted_reasons),
        breakdowns,
        trust: super::trust::of(&by_method, &s.labels, st.confidence.get()),
    };
    report.methods_text = super::methods_text::methods(s, inputs, &report);
    report.limitations = super::methods_text::limitations(s, &report);
    Ok(report)
}

/// The replicates and the smallest attainable p in words.
fn replicates_note(st: &Statistics, size: usize, b: u32, floor: Option<f64>, adjusted: Option<f64>) -> String {
    let (Some(floor), Some(adjusted)) = (floor, adjusted) else {
        return "No paired bootstrap: every comparison is McNemar's exact test, whose smallest p is 2 × 0.5^d for d discordant items.".into();
    };
    let raised = if b > st.replicates {
        format!(
            " (the study asked for {}; raised to at least {} × {size} comparisons / α = {} so that a difference at the bootstrap's floor still differs after the correction)",
            st.replicates, FLOOR_FACTOR, st.alpha
        )
    } else {
        String::new()
    };
    let after = match st.correction {
        crate::stats::correction::Family::None => String::new(),
        c => format!(
            ", and {} over {size} comparisons makes that at least {} when it is the family's smallest",
            if matches!(c, crate::stats::correction::Family::Holm) {
                "Holm's correction"
            } else {
                "the Benjamini-Hochberg correction"
            },
            sig(adjusted)
        ),
    };
    format!(
        "Paired bootstraps drew {b} replicates{raised}. The smallest p a paired bootstrap can give is 2 / ({b} + 1) = {}{after}; McNemar's exact test has no fixed floor (2 × 0.5^d for d discordant items).",
        sig(floor)
    )
}

/// Two significant digits, for small p-values.
fn sig(x: f64) -> String {
    if x >= 0.01 { format!("{x:.3}") } else { format!("{x:.2e}") }
}
