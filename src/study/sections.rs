//! One report section per method: the headline figures per model, the main chart (each
//! method's own chart writer), the paired comparisons between models, and notes such as the
//! language pairs that differ. Each builder reads the study's records of its method only.

use super::compare::{self, Comparison, Figure};
use super::inputs::Inputs;
use crate::record::{Record, Status};
use crate::stats::cluster::ClusterCount;
use crate::stats::confidence::Confidence;
use crate::stats::paired;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Section {
    pub method: String,
    pub title: String,
    /// One sentence: what was measured on what.
    pub summary: String,
    pub figures: Vec<Figure>,
    pub comparisons: Vec<Comparison>,
    /// Further findings in words (the language pairs that differ, ...).
    pub notes: Vec<String>,
    /// Methods that detect refusals: every detector's refusals and their agreement per model
    /// and language ([`super::detectors`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detectors: Option<super::detectors::DetectorTable>,
    pub chart_svg: String,
    /// Records per status (ok, refused, error, pending).
    pub statuses: BTreeMap<String, u64>,
    /// Per model and language: answered, out of choice, refused, failed, of the planned calls
    /// (`study::calls`); left out (divergence) where an aspect could not be analysed.
    pub calls: super::calls::Calls,
}

/// Why a method's section could not be built (the report lists the method as omitted, with
/// this as the reason).
#[derive(Debug, thiserror::Error)]
pub enum SectionError {
    #[error("the study's input for this method was not read")]
    NoInput,
    #[error("the divergence analysis could not use the records: {0}")]
    Divergence(#[from] crate::divergence::DivergenceError),
}

/// What every section is computed with.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub confidence: Confidence,
    pub alpha: f64,
    /// The per-model bootstrap intervals' replicates (the study's setting).
    pub replicates: u32,
    /// The paired bootstraps' replicates: the study's, raised by the report so that the
    /// smallest attainable p survives the family's correction (`report::paired_replicates`).
    pub paired_replicates: u32,
    pub seed: u64,
    pub correction: crate::stats::correction::Family,
    /// The rates' interval method (both the plain and the cluster-robust interval).
    pub interval: crate::stats::proportion::Method,
}

/// The models in study order that have records here.
fn models_of(order: &[String], records: &[Record]) -> Vec<String> {
    order.iter().filter(|m| records.iter().any(|r| &r.model == *m)).cloned().collect()
}

fn statuses(records: &[Record]) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for r in records {
        *out.entry(r.status.as_str().to_string()).or_default() += 1;
    }
    out
}

fn pairs(models: &[String]) -> Vec<(&String, &String)> {
    let mut out = vec![];
    for (i, a) in models.iter().enumerate() {
        for b in &models[i + 1..] {
            out.push((a, b));
        }
    }
    out
}

fn item(r: &Record) -> String {
    format!("{}#{}", r.case_id, r.sample_index)
}

type Cells = BTreeMap<String, ClusterCount>;
/// Per model: the cluster counts of a rate and each item's outcome (for the paired test).
type PerModel = BTreeMap<String, (Cells, BTreeMap<String, bool>)>;
/// One BBQ item under both models: (example, A's choice, B's choice).
type Pair = (usize, Option<usize>, Option<usize>);

/// One BBQ template group's counts under models A and B.
#[derive(Default)]
struct Group {
    a: crate::bbq::metrics::Counts,
    b: crate::bbq::metrics::Counts,
    right_a: u64,
    right_b: u64,
    /// Answers within the choices under A and B: accuracy's denominators, as in the figures.
    read_a: u64,
    read_b: u64,
    n: u64,
}

fn tally(cells: &mut Cells, cluster: &str, success: bool) {
    let c = cells.entry(cluster.to_string()).or_insert(ClusterCount { successes: 0, n: 0 });
    c.n += 1;
    c.successes += u64::from(success);
}

/// Requirements: pass rate per concern and language (clusters: templates), McNemar per figure.
pub fn requirements(
    inputs: &Inputs,
    records: &[Record],
    order: &[String],
    s: Settings,
) -> Result<Section, SectionError> {
    use crate::requirements::outcome::Outcome;
    let input = inputs.requirements.as_ref().ok_or(SectionError::NoInput)?;
    let sc = &input.scenario;
    let summary = crate::requirements::summary::evaluate(
        sc,
        records,
        crate::requirements::summary::Mode::Default,
        s.seed,
        s.confidence,
    );
    let by_id: BTreeMap<&str, &Record> = records.iter().map(|r| (r.record_id.as_str(), r)).collect();
    // (concern, language) -> model -> (clusters, items)
    let mut cells: BTreeMap<(String, String), PerModel> = BTreeMap::new();
    for e in &summary.evaluations {
        let passed = match e.outcome {
            Outcome::Passed => true,
            Outcome::Failed => false,
            _ => continue,
        };
        let Some(r) = by_id.get(e.record_id.as_str()) else { continue };
        let slot =
            cells.entry((r.concern.clone(), r.language.clone())).or_default().entry(r.model.clone()).or_default();
        tally(&mut slot.0, &format!("{}/{}", r.language, r.template_id), passed);
        slot.1.insert(item(r), passed);
    }
    let models = models_of(order, records);
    let mut figures = vec![];
    let mut comparisons = vec![];
    for ((concern, language), per_model) in &cells {
        let name = format!("pass rate · {concern} · {language}");
        let tolerance = sc.requirements.iter().find(|q| &q.concern == concern).map(|q| q.tolerance);
        for m in &models {
            if let Some((c, _)) = per_model.get(m) {
                figures.push(compare::rate("requirements", &name, m, c, (s.confidence, s.interval), tolerance));
            }
        }
        for (a, b) in pairs(&models) {
            if let (Some((_, ia)), Some((_, ib))) = (per_model.get(a), per_model.get(b))
                && let Some(c) = compare::mcnemar("requirements", &name, (a, ia), (b, ib))
            {
                comparisons.push(c);
            }
        }
    }
    let templates: usize = summary.templates.len();
    let detectors = super::detectors::table(records, s.confidence.get());
    Ok(Section {
        method: "requirements".into(),
        title: "Ethical requirements (LangBiTe method)".into(),
        summary: format!(
            "{} requirement(s) of the scenario, {templates} template evaluation(s), {} record(s) judged by the scenario's oracles; a pass rate per concern and language, against each requirement's tolerance.",
            sc.requirements.len(),
            summary.evaluations.len()
        ),
        figures,
        comparisons,
        notes: detectors.as_ref().map(super::detectors::notes).unwrap_or_default(),
        detectors,
        chart_svg: crate::requirements::chart::pass_rates(&summary.groups),
        statuses: statuses(records),
        calls: super::calls::requirements(records, &summary.evaluations).finish(
            order,
            "The pass rates count the answered column (passed or failed by the oracle); refused, out-of-choice and failed calls are left out of them.",
        ),
    })
}

/// BBQ: accuracy and diff-bias in ambiguous and disambiguated contexts per model (bootstrap
/// over template groups), accuracy as a clustered rate; paired bootstraps between models.
pub fn bbq(inputs: &Inputs, records: &[Record], order: &[String], s: Settings) -> Result<Section, SectionError> {
    use crate::bbq::metrics::{self, BootstrapSettings};
    let input = inputs.bbq.as_ref().ok_or(SectionError::NoInput)?;
    let examples = &input.examples;
    // Samples: each sample is an item of its own (the judge takes one answer per model and
    // example, so each sample is judged apart). An example's samples share its template group,
    // the unit every interval and paired bootstrap resamples, so repeated answers are never
    // taken as independent; models are paired sample by sample on the same example.
    let placed = super::breakdown::judged_at(inputs, records);
    let calls = super::calls::bbq(examples, records, &placed).finish(
        order,
        "Accuracy and diff-bias count the answered column (answers within the choices): accuracy · all over all of them, the ambiguous and disambiguated figures over theirs; out-of-choice and failed calls are left out.",
    );
    let (sample_of, judged): (Vec<u32>, Vec<metrics::Judged>) = placed.into_iter().map(|(_, k, j)| (k, j)).unzip();
    let samples = sample_of.iter().collect::<std::collections::BTreeSet<_>>().len();
    let settings = BootstrapSettings { replicates: s.replicates, confidence: s.confidence, seed: s.seed };
    let by_model = metrics::breakdown(examples, &judged, &["model".into()], &settings);
    let models = models_of(order, records);
    let mut figures = vec![];
    let judged_of = |m: &str| -> Vec<(u32, metrics::Judged)> {
        judged.iter().zip(&sample_of).filter(|(j, _)| j.model == m).map(|(j, k)| (*k, j.clone())).collect()
    };
    for m in &models {
        let Some(b) = by_model.iter().find(|b| &b.label == m) else { continue };
        let mut acc = Cells::new();
        // Over the answers within the choices, as the conditions' accuracies are (the BBQ counts
        // leave out-of-choice answers out), so "all" lies between the two conditions.
        for j in judged.iter().filter(|j| &j.model == m && j.prediction.is_some()) {
            let ex = &examples[j.example];
            tally(&mut acc, &ex.template_id, j.prediction == Some(ex.label));
        }
        figures.push(compare::rate("bbq", "accuracy · all", m, &acc, (s.confidence, s.interval), None));
        let c = &b.counts;
        for (name, e, n) in [
            ("accuracy · ambiguous", &b.acc_amb, c.n_a),
            ("accuracy · disambiguated", &b.acc_dis, c.n_b + c.n_c),
            ("diff-bias · ambiguous", &b.diff_bias_amb, c.n_a),
            ("diff-bias · disambiguated", &b.diff_bias_dis, c.n_b + c.n_c),
        ] {
            figures.push(super::breakdown::bootstrap_figure(name.into(), m, e, n, b.units));
        }
    }
    let mut comparisons = vec![];
    for (a, b) in pairs(&models) {
        let (ja, jb) = (judged_of(a), judged_of(b));
        // The same examples under both models, resampled by template group (one draw for both).
        let by_item = |js: &[(u32, metrics::Judged)]| -> BTreeMap<(usize, String, u32), Option<usize>> {
            js.iter().map(|(k, j)| ((j.example, j.variant.clone(), *k), j.prediction)).collect()
        };
        let (pa, pb) = (by_item(&ja), by_item(&jb));
        let shared: Vec<Pair> = pa.iter().filter_map(|(k, x)| pb.get(k).map(|y| (k.0, *x, *y))).collect();
        // Each template group's counts under both models, summed once: a resample then adds
        // up the drawn groups (the same draws and sums as over the groups' items, far fewer steps).
        let mut groups: BTreeMap<&str, Group> = BTreeMap::new();
        for &(ex, x, y) in &shared {
            let e = &examples[ex];
            let unit = if e.template_id.is_empty() { e.id.as_str() } else { e.template_id.as_str() };
            let g = groups.entry(unit).or_default();
            g.a.add(e, x);
            g.b.add(e, y);
            g.right_a += u64::from(x == Some(e.label));
            g.right_b += u64::from(y == Some(e.label));
            g.read_a += u64::from(x.is_some());
            g.read_b += u64::from(y.is_some());
            g.n += 1;
        }
        let groups: Vec<Group> = groups.into_values().collect();
        // One cluster per template group; the statistics work from the drawn groups' sums.
        let sizes: Vec<usize> = groups.iter().map(|g| g.n as usize).collect();
        let counts = |idx: &[usize]| {
            let (mut ca, mut cb) = (metrics::Counts::default(), metrics::Counts::default());
            for &g in idx {
                ca.plus(&groups[g].a);
                cb.plus(&groups[g].b);
            }
            (metrics::scores(&ca), metrics::scores(&cb))
        };
        let nan = |v: Option<f64>| v.unwrap_or(f64::NAN);
        type Metric = fn(&metrics::Scores) -> Option<f64>;
        let metrics_of: [(&str, Metric); 2] =
            [("diff-bias · ambiguous", |s| s.diff_bias_amb), ("diff-bias · disambiguated", |s| s.diff_bias_dis)];
        for (name, metric) in metrics_of {
            let stat = |idx: &[usize]| {
                let (x, y) = counts(idx);
                (nan(metric(&x)), nan(metric(&y)))
            };
            if let Ok(bs) = paired::paired_bootstrap_by_cluster(&sizes, s.paired_replicates, s.confidence, s.seed, stat)
            {
                comparisons.push(Comparison {
                    items: Some(shared.len() as u64),
                    ..compare::bootstrap("bbq", name, a, b, &bs)
                });
            }
        }
        let stat = |idx: &[usize]| {
            let (mut ra, mut rb, mut na, mut nb) = (0u64, 0u64, 0u64, 0u64);
            for &g in idx {
                ra += groups[g].right_a;
                rb += groups[g].right_b;
                na += groups[g].read_a;
                nb += groups[g].read_b;
            }
            (ra as f64 / na as f64, rb as f64 / nb as f64)
        };
        if let Ok(bs) = paired::paired_bootstrap_by_cluster(&sizes, s.paired_replicates, s.confidence, s.seed, stat) {
            comparisons.push(Comparison {
                items: Some(shared.len() as u64),
                ..compare::bootstrap("bbq", "accuracy · all", a, b, &bs)
            });
        }
    }
    Ok(Section {
        method: "bbq".into(),
        title: "Bias in question answering (BBQ method)".into(),
        summary: format!(
            "{} examples ({}), {} answers judged; accuracy and diff-bias in ambiguous and disambiguated contexts, over the answers within the choices ({} outside them, left out of every accuracy and diff-bias).",
            examples.len(),
            input.provenance.source,
            judged.len(),
            judged.iter().filter(|j| j.prediction.is_none()).count()
        ) + &if samples > 1 {
            format!(
                " {} samples per example, each an item, resampled with its template group and paired sample by sample.",
                samples
            )
        } else {
            String::new()
        },
        figures,
        comparisons,
        notes: vec![],
        detectors: None,
        chart_svg: crate::bbq::chart::accuracy_vs_bias(&by_model, "Accuracy and diff-bias per model"),
        statuses: statuses(records),
        calls,
    })
}

/// Cross-lingual: refusal rate per language and model (clusters: questions), the language
/// pairs that differ per model, McNemar between models per language.
pub fn crosslingual(
    inputs: &Inputs,
    records: &[Record],
    order: &[String],
    s: Settings,
) -> Result<Section, SectionError> {
    use crate::crosslingual::analysis::{self, Dataset};
    let input = inputs.crosslingual.as_ref().ok_or(SectionError::NoInput)?;
    let lexicon = crate::text::refusal::Lexicon::builtin();
    let d = Dataset::new("crosslingual records", records.to_vec(), &lexicon);
    let settings = analysis::Settings { confidence: s.confidence, alpha: s.alpha, seed: s.seed, ..Default::default() };
    let report = analysis::analyze(&d, &settings);
    let mut cells: BTreeMap<String, PerModel> = BTreeMap::new();
    for (r, v) in d.records.iter().zip(&d.verdicts) {
        let Some(refused) = v.get(settings.detector) else { continue };
        let slot = cells.entry(r.language.clone()).or_default().entry(r.model.clone()).or_default();
        tally(&mut slot.0, &r.question_id, refused);
        slot.1.insert(format!("{}#{}#{}", r.question_id, r.template_id, r.sample_index), refused);
    }
    let models = models_of(order, &d.records);
    let mut figures = vec![];
    let mut comparisons = vec![];
    for language in &input.languages {
        let Some(per_model) = cells.get(language) else { continue };
        let name = format!("refusal rate · {language}");
        for m in &models {
            if let Some((c, _)) = per_model.get(m) {
                figures.push(compare::rate("crosslingual", &name, m, c, (s.confidence, s.interval), None));
            }
        }
        for (a, b) in pairs(&models) {
            if let (Some((_, ia)), Some((_, ib))) = (per_model.get(a), per_model.get(b))
                && let Some(c) = compare::mcnemar("crosslingual", &name, (a, ia), (b, ib))
            {
                comparisons.push(c);
            }
        }
    }
    let mut notes = vec![];
    let holm = matches!(s.correction, crate::stats::correction::Family::Holm);
    if let Some(f) = report.families.iter().find(|f| f.name == "pairs x models") {
        for m in &models {
            let differ: Vec<String> = f
                .tests
                .iter()
                .filter(|t| t.model.as_deref() == Some(m.as_str()))
                .filter(|t| if holm { t.significant_holm } else { t.significant_bh })
                .map(|t| format!("{}–{}", t.a, t.b))
                .collect();
            notes.push(if differ.is_empty() {
                format!(
                    "{m}: no language pair differs in refusals (McNemar exact, {} over {} tests).",
                    s.correction.name(),
                    f.size
                )
            } else {
                format!(
                    "{m}: refusals differ between {} (McNemar exact, {} over {} tests).",
                    differ.join(", "),
                    s.correction.name(),
                    f.size
                )
            });
        }
    }
    let detectors = super::detectors::table(&d.records, s.confidence.get());
    notes.extend(detectors.as_ref().map(super::detectors::notes).unwrap_or_default());
    Ok(Section {
        method: "crosslingual".into(),
        title: "Cross-lingual refusals (MSQAD method)".into(),
        summary: format!(
            "{} ({}) asked in {}; {} answer(s) judged refused or not by the {:?} detector.",
            input.provenance.source,
            input.provenance.size,
            input.languages.join(", "),
            report.judged,
            settings.detector
        ),
        figures,
        comparisons,
        notes,
        detectors,
        chart_svg: crate::crosslingual::chart::refusal_rates(
            &report.rates_by_language_model,
            "Refusal rate per language and model",
        ),
        statuses: statuses(records),
        calls: super::calls::crosslingual(d.records.iter().zip(d.verdicts.iter().map(|v| v.get(settings.detector))))
            .finish(
                &models,
                "The refusal rates count answered + refused (refused is the numerator), in the study's languages; out-of-choice (unreadable) and failed calls are left out.",
            ),
    })
}

/// Divergence: CD per aspect and in total per model (bootstrap intervals), and a paired
/// bootstrap over contexts between models per aspect.
pub fn divergence(inputs: &Inputs, records: &[Record], order: &[String], s: Settings) -> Result<Section, SectionError> {
    divergence_of(inputs, &divergence_analysis(inputs, records, s)?, records, order, s)
}

/// The divergence analysis of the section (per-model bootstrap intervals at the study's
/// replicates): apart, so that a report drawing more paired replicates runs it once.
pub fn divergence_analysis(
    inputs: &Inputs,
    records: &[Record],
    s: Settings,
) -> Result<crate::divergence::result::Analysis, SectionError> {
    use crate::divergence::analysis::{Input, ModelData, Settings as DSettings, analyze};
    let input = inputs.divergence.as_ref().ok_or(SectionError::NoInput)?;
    let data = ModelData::Records(
        records.iter().filter(|r| r.status == Status::Ok || r.status == Status::Refused).cloned().collect(),
    );
    let settings = DSettings {
        bootstrap: crate::divergence::bootstrap::Bootstrap {
            replicates: s.replicates,
            confidence: s.confidence,
            seed: s.seed,
        },
        ..Default::default()
    };
    Ok(analyze(&Input { probes: &input.probes, references: &input.references, data: &data }, &settings)?)
}

/// The divergence section from its analysis ([`divergence_analysis`]).
pub fn divergence_of(
    inputs: &Inputs,
    analysis: &crate::divergence::result::Analysis,
    records: &[Record],
    order: &[String],
    s: Settings,
) -> Result<Section, SectionError> {
    let input = inputs.divergence.as_ref().ok_or(SectionError::NoInput)?;
    let models = models_of(order, records);
    let mut figures = vec![];
    let est = |e: &crate::divergence::result::Estimate| {
        e.low.zip(e.high).map(|(low, high)| crate::stats::interval::Interval { low, high })
    };
    let unit = format!("{:?}", analysis.unit).to_lowercase();
    for m in &models {
        let Some(res) = analysis.models.iter().find(|r| &r.model == m) else { continue };
        for a in &res.aspects {
            figures.push(Figure {
                method: "divergence".into(),
                figure: format!("CD · {}", a.aspect),
                model: m.clone(),
                value: Some(a.cd.value),
                n: a.contexts.len() as u64,
                successes: None,
                interval: est(&a.cd),
                interval_method: "bootstrap (divergence::bootstrap)".into(),
                clustered: None,
                threshold: None,
            });
        }
        figures.push(Figure {
            method: "divergence".into(),
            figure: "CD · total".into(),
            model: m.clone(),
            value: Some(res.cd.value),
            n: res.aspects.iter().map(|a| a.contexts.len() as u64).sum(),
            successes: None,
            interval: est(&res.cd),
            interval_method: "bootstrap (divergence::bootstrap)".into(),
            clustered: None,
            threshold: None,
        });
    }
    let mut comparisons = vec![];
    for (a, b) in pairs(&models) {
        let (Some(ra), Some(rb)) =
            (analysis.models.iter().find(|r| &r.model == a), analysis.models.iter().find(|r| &r.model == b))
        else {
            continue;
        };
        for aa in &ra.aspects {
            let Some(ab) = rb.aspects.iter().find(|x| x.aspect == aa.aspect) else { continue };
            // Contexts both models have, each its own cluster.
            let shared: Vec<(&crate::divergence::result::ContextResult, &crate::divergence::result::ContextResult)> =
                aa.contexts
                    .iter()
                    .filter_map(|c| ab.contexts.iter().find(|x| x.context == c.context).map(|x| (c, x)))
                    .collect();
            let clusters: Vec<Vec<usize>> = (0..shared.len()).map(|i| vec![i]).collect();
            let cd = |idx: &[usize], side: usize| -> f64 {
                let (mut hl, mut nl, mut hw, mut nw) = (0.0, 0.0, 0.0, 0.0);
                for &i in idx {
                    let c = if side == 0 { shared[i].0 } else { shared[i].1 };
                    let culture = c.culture.as_deref();
                    if culture != Some(crate::divergence::WESTERN) {
                        hl += c.h_local;
                        nl += 1.0;
                    }
                    if culture != Some(crate::divergence::LOCAL) {
                        hw += c.h_western;
                        nw += 1.0;
                    }
                }
                if nl == 0.0 || nw == 0.0 { f64::NAN } else { hl / nl - hw / nw }
            };
            let stat = |idx: &[usize]| (cd(idx, 0), cd(idx, 1));
            if let Ok(bs) = paired::paired_bootstrap(&clusters, s.paired_replicates, s.confidence, s.seed, stat) {
                let name = format!("CD · {}", aa.aspect);
                comparisons.push(Comparison {
                    test: format!("{} over contexts", bs.method),
                    ..compare::bootstrap("divergence", &name, a, b, &bs)
                });
            }
        }
    }
    Ok(Section {
        method: "divergence".into(),
        title: "Cultural divergence (CD)".into(),
        summary: format!(
            "{} ({}), language {}; CD = H(M,L) − H(M,W) in {unit}: negative leans local, positive leans Western.",
            input.provenance.source, input.provenance.size, analysis.language
        ),
        figures: figures.clone(),
        comparisons,
        notes: analysis
            .skipped_aspects
            .iter()
            .map(|k| format!("Aspect {} left out: {}.", k.aspect, k.reason))
            .collect(),
        detectors: None,
        chart_svg: super::chart::forest(
            &figures,
            "CD per aspect and model (negative: local; positive: Western)",
            &format!("CD in {unit} (negative: closer to the local reference; positive: closer to the Western)"),
        ),
        statuses: statuses(records),
        calls: super::calls::divergence(records, analysis).finish(
            order,
            "CD counts the answered column (completions that start with one of the aspect's fillers, in aspects with both references); out-of-choice completions (no known filler) are listed per context and left out of the model's distribution; refused and failed calls give no sample; left out: calls of an aspect without both references, or of a context the probe set does not name.",
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_method_whose_input_was_not_read_is_a_typed_error_with_the_reason_in_words() {
        let s = Settings {
            confidence: Confidence::default(),
            alpha: 0.05,
            replicates: 100,
            paired_replicates: 100,
            seed: 1,
            correction: Default::default(),
            interval: Default::default(),
        };
        let inputs = Inputs::default();
        for built in [
            requirements(&inputs, &[], &[], s),
            bbq(&inputs, &[], &[], s),
            crosslingual(&inputs, &[], &[], s),
            divergence(&inputs, &[], &[], s),
        ] {
            let e = built.expect_err("no input, no section");
            assert!(matches!(e, SectionError::NoInput), "{e:?}");
            assert_eq!(e.to_string(), "the study's input for this method was not read");
        }
    }
}
