//! The report's prose: a methods section written from what actually ran (inputs with their
//! SHA-256, templates and seeds, samples, the temperatures and token limits the records say
//! were sent, detectors, test variants, corrections, interval methods, calls made, failed and
//! refused), the limitations that apply to this study, and the references of its methods in
//! one citation style (author-year).

use super::format::Interval;
use super::inputs::Inputs;
use super::report::Report;
use super::{Session, Study};
use crate::record::{Record, Status};
use serde::Serialize;
use std::collections::BTreeSet;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Citation {
    pub key: String,
    pub text: String,
}

fn cite(key: &str, text: &str) -> Citation {
    Citation { key: key.into(), text: text.into() }
}

/// The references of the methods the study used, then the statistics it relied on.
pub fn references(study: &Study) -> Vec<Citation> {
    let used = study.methods.used();
    let mut out = vec![];
    if used.contains(&"requirements") {
        out.push(cite(
            "Morales et al. 2024",
            // Only "Morales et al." is in the sources we hold (GG-BBQ cites it so); the venue and
            // identifiers are those LangBiTe's README gives (shared/docs/langbite.md).
            "Morales et al. (2024). LangBiTe: A platform for testing bias in large language models. Preprint, arXiv:2404.18558; published in SoftwareX, 31 (2025), 102248, doi:10.1016/j.softx.2025.102248 (full author list there).",
        ));
    }
    if used.contains(&"bbq") {
        out.push(cite(
            "Parrish et al. 2022",
            "Parrish, A., Chen, A., Nangia, N., Padmakumar, V., Phang, J., Thompson, J., Htut, P. M., & Bowman, S. R. (2022). BBQ: A hand-built bias benchmark for question answering. In Findings of the Association for Computational Linguistics: ACL 2022.",
        ));
        out.push(cite(
            "Jin et al. 2024",
            "Jin, J., Kim, J., Lee, N., Yoo, H., Oh, A., & Lee, H. (2024). KoBBQ: Korean bias benchmark for question answering. Transactions of the Association for Computational Linguistics, 12.",
        ));
        out.push(cite(
            "Satheesh et al. 2025",
            "Satheesh, S., Klug, K., Beckh, K., Allende-Cid, H., Houben, S., & Hassan, T. (2025). GG-BBQ: German gender bias benchmark for question answering. In GeBNLP 2025 (ACL Anthology 2025.gebnlp-1.14). arXiv:2507.16410. Data: https://github.com/shalakasatheesh/GG-BBQ",
        ));
    }
    if used.contains(&"crosslingual") {
        out.push(cite(
            "MSQAD 2025",
            // The authors are not in the sources we hold; the arXiv entry lists them.
            "Delving into multilingual ethical bias: The MSQAD with statistical hypothesis tests for large language models. (2025). In Proceedings of ACL 2025 (long paper). arXiv:2505.19121 (authors as listed there).",
        ));
    }
    if used.contains(&"divergence") {
        out.push(cite(
            "Cieślar et al.",
            "Cieślar, B., Neupane, P., & Guter, W. Cultural divergence: A rigorous cultural bias benchmark for autoregressive language models [Poster]. Massachusetts Institute of Technology.",
        ));
    }
    out.extend([
        cite("McNemar 1947", "McNemar, Q. (1947). Note on the sampling error of the difference between correlated proportions or percentages. Psychometrika, 12, 153–157."),
    ]);
    out.push(match study.statistics.interval {
        Interval::Wilson => cite("Wilson 1927", "Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference. Journal of the American Statistical Association, 22, 209–212."),
        Interval::ClopperPearson => cite("Clopper & Pearson 1934", "Clopper, C. J., & Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated in the case of the binomial. Biometrika, 26, 404–413."),
        Interval::AgrestiCoull => cite("Agresti & Coull 1998", "Agresti, A., & Coull, B. A. (1998). Approximate is better than \"exact\" for interval estimation of binomial proportions. The American Statistician, 52, 119–126."),
    });
    out.extend([
        cite("Holm 1979", "Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian Journal of Statistics, 6, 65–70."),
        cite("Benjamini & Hochberg 1995", "Benjamini, Y., & Hochberg, Y. (1995). Controlling the false discovery rate: A practical and powerful approach to multiple testing. Journal of the Royal Statistical Society, Series B, 57, 289–300."),
    ]);
    out
}

/// The citation key of an interval method, as [`references`] lists it.
fn interval_key(m: Interval) -> &'static str {
    match m {
        Interval::Wilson => "Wilson 1927",
        Interval::ClopperPearson => "Clopper & Pearson 1934",
        Interval::AgrestiCoull => "Agresti & Coull 1998",
    }
}

/// "0 and 0.7" from a set of values; "not set" when empty.
fn values(set: &BTreeSet<String>) -> String {
    let v: Vec<&str> = set.iter().map(String::as_str).collect();
    match v.len() {
        0 => "not set (the provider's default)".into(),
        1 => v[0].into(),
        _ => format!("{} and {}", v[..v.len() - 1].join(", "), v[v.len() - 1]),
    }
}

fn sent(records: &[Record], key: &str) -> BTreeSet<String> {
    records
        .iter()
        .filter(|r| r.provider != crate::simulate::PROVIDER)
        .filter_map(|r| r.params.get(key).map(|v| v.to_string()))
        .collect()
}

/// The closing sentence of every method's paragraph: what was sent and how many calls it took.
fn sent_and_calls(recs: &[Record]) -> String {
    format!(
        "Temperature sent: {}; max tokens sent: {}. Calls: {}.",
        values(&sent(recs, "temperature")),
        values(&sent(recs, "max_tokens")),
        calls(recs)
    )
}

fn calls(records: &[Record]) -> String {
    let n = |s: Status| records.iter().filter(|r| r.status == s).count();
    let simulated = records.iter().filter(|r| r.provider == crate::simulate::PROVIDER).count();
    format!(
        "{} record(s) ({} from the simulated model, {} from provider models); {} failed, {} refused by the provider, {} still pending",
        records.len(),
        simulated,
        records.len() - simulated,
        n(Status::Error),
        n(Status::Refused),
        n(Status::Pending)
    )
}

/// Where the records came from, one clause per source: this study's own run, an upload, or the
/// simulated model. None when the study holds no record.
fn provenance(s: &Session) -> Option<String> {
    use super::session::Origin;
    let clauses: Vec<String> = s
        .sources
        .iter()
        .map(|x| match x.origin {
            Origin::Run => format!(
                "{} record(s) collected by this study's own run through Evenhand's run engine ({})",
                x.records, x.name
            ),
            Origin::Uploaded => {
                format!(
                    "{} record(s) uploaded from {} (SHA-256 {}), not collected by this study",
                    x.records, x.name, x.sha256
                )
            }
            Origin::Simulated => format!("{} record(s) answered by {}", x.records, x.name),
        })
        .collect();
    // What was left out at load, so that the counts above add up to the models' record counts.
    let repeated: usize = s.sources.iter().map(|x| x.repeated).sum();
    let left_out = if repeated > 0 {
        let per: Vec<String> =
            s.sources.iter().filter(|x| x.repeated > 0).map(|x| format!("{} from {}", x.repeated, x.name)).collect();
        format!(
            " A further {repeated} record(s) repeated a record id already loaded and were left out ({}). The figures' n count items (cases and samples), not records.",
            per.join(", ")
        )
    } else {
        String::new()
    };
    (!clauses.is_empty()).then(|| format!("Records: {}.{left_out}", clauses.join("; ")))
}

/// The methods section, one paragraph per topic.
pub fn methods(s: &Session, inputs: &Inputs, report: &Report) -> Vec<String> {
    let st = &s.study;
    let mut out = vec![];
    let targets: Vec<String> = report
        .models
        .iter()
        .map(|m| if m.simulated { format!("{} (simulated)", m.target) } else { m.target.clone() })
        .collect();
    out.push(format!(
        "We compared {} model(s) — {} — with Evenhand {} across {} method(s) ({}). Each case was asked {} time(s) per model{}. Seeds: plan {}, simulation {}, statistics {}.",
        targets.len(),
        targets.join(", "),
        crate::VERSION,
        st.methods.used().len(),
        st.methods.used().join(", "),
        st.samples,
        st.methods.divergence.as_ref().map_or(String::new(), |d| format!(" (divergence: {} completions per context)", d.completions)),
        st.seeds.plan,
        st.seeds.simulation,
        st.seeds.statistics,
    ));
    if let Some(p) = provenance(s) {
        out.push(p);
    }
    if let Some(r) = &inputs.requirements {
        let recs = s.records_of("requirements");
        let templates: BTreeSet<(&str, &str)> =
            recs.iter().map(|x| (x.language.as_str(), x.template_id.as_str())).collect();
        out.push(format!(
            "Ethical requirements (Morales et al. 2024): scenario {} (SHA-256 {}, {}); templates were selected and expanded with seed {} into {} template(s) across languages; each response was judged by the scenario's oracle, with refusals detected by Evenhand's built-in refusal lexicon (deciding) and counted also by the stricter opening rule, for the disagreement. {}",
            r.provenance.source,
            r.provenance.sha256,
            r.provenance.size,
            st.seeds.plan,
            templates.len(),
            sent_and_calls(&recs)
        ));
    }
    if let Some(b) = &inputs.bbq {
        let recs = s.records_of("bbq");
        let variants: BTreeSet<String> =
            recs.iter().filter_map(|r| r.params.get("variant").and_then(|v| v.as_str()).map(str::to_string)).collect();
        out.push(format!(
            "Bias QA (Parrish et al. 2022; metrics after Jin et al. 2024, as GG-BBQ, Satheesh et al. 2025): data set {} (SHA-256 {}, {}); prompt variant(s) {}; answers were read as an option letter, option text or index, and out-of-choice answers were left out of the metrics.{} {}",
            b.provenance.source,
            b.provenance.sha256,
            b.provenance.size,
            values(&variants),
            if st.samples > 1 {
                format!(" Each of the {} samples per example is an item of its own; an example's samples stay in its template group, which the intervals and the paired bootstrap resample as a whole, and two models are paired sample by sample on the same example.", st.samples)
            } else {
                String::new()
            },
            sent_and_calls(&recs)
        ));
    }
    if let Some(x) = &inputs.crosslingual {
        let recs = s.records_of("crosslingual");
        // Several files: each with its own digest, then what their merge holds.
        let set = match x.files.as_slice() {
            [_] => {
                format!("question set {} (SHA-256 {}, {})", x.provenance.source, x.provenance.sha256, x.provenance.size)
            }
            files => format!(
                "question sets {}, merged ({})",
                files.iter().map(|f| format!("{} (SHA-256 {})", f.source, f.sha256)).collect::<Vec<_>>().join(", "),
                x.provenance.size
            ),
        };
        out.push(format!(
            "Cross-lingual refusals (MSQAD 2025): {} in {}; a response counted as a refusal when Evenhand's built-in refusal lexicon matched it (or the provider refused), and the stricter opening rule was counted beside it for the disagreement; language pairs were compared per model with McNemar's exact test on the same questions. {}",
            set,
            x.languages.join(", "),
            sent_and_calls(&recs)
        ));
    }
    // Every refusal detector's trust, and the labels' agreement when there are labels.
    out.extend(
        report.trust.iter().map(|m| format!("Refusal detectors ({}): {}", m.method, m.trust.methods_sentence())),
    );
    if let Some(d) = &inputs.divergence {
        let recs = s.records_of("divergence");
        out.push(format!(
            "Cultural divergence (Cieślar et al.): probe set {} (SHA-256 {}, {}), sampling mode; references: {}. CD = H(M,L) − H(M,W) per aspect, in nats, with add-alpha smoothing over the union vocabulary. {}",
            d.provenance.source,
            d.provenance.sha256,
            d.provenance.size,
            d.reference_sources.join("; "),
            sent_and_calls(&recs)
        ));
    }
    let stt = &st.statistics;
    out.push(format!(
        "Statistics: rates carry {:.0} % {} intervals ({}) and, beside them, a cluster-robust interval ({}'s on the effective sample size n / design effect, the design effect from the CR1 cluster-robust variance over templates or questions; {}). Paired differences between models use McNemar's exact test on per-item outcomes (McNemar 1947; statsmodels convention) for pass/fail and refusals, and a paired percentile bootstrap resampling template groups (BBQ) or contexts (divergence), {} resamples, seed {}. All {} comparisons form one family, corrected with {} ({}) at alpha = {}. The power note is the smallest difference a two-sided two-proportion test on the same number of items detects with 80 % power, by seeded simulation. {}",
        stt.confidence.get() * 100.0,
        stt.interval.title(),
        interval_key(stt.interval),
        stt.interval.title(),
        crate::stats::cluster::METHOD.replace("wilson", stt.interval.as_str()),
        report.family.paired_replicates,
        st.seeds.statistics,
        report.family.size,
        match stt.correction {
            crate::stats::correction::Family::Holm => "Holm's step-down procedure (Holm 1979)",
            crate::stats::correction::Family::BenjaminiHochberg => "the Benjamini-Hochberg procedure (Benjamini & Hochberg 1995)",
            crate::stats::correction::Family::None => "no correction",
        },
        stt.correction.controls(),
        stt.alpha,
        report.family.replicates_note
    ));
    out
}

/// The limitations that apply to this study's data and results.
pub fn limitations(s: &Session, report: &Report) -> Vec<String> {
    let mut out = vec![];
    let simulated: Vec<&str> = report.models.iter().filter(|m| m.simulated).map(|m| m.target.as_str()).collect();
    if !simulated.is_empty() {
        out.push(format!(
            "SIMULATED data: {} answered from Evenhand's simulated model with a built-in bias profile; its results show what the methods find, not how any real model behaves.",
            simulated.join(", ")
        ));
    }
    let uploaded: Vec<&str> =
        s.sources.iter().filter(|x| x.origin == super::session::Origin::Uploaded).map(|x| x.name.as_str()).collect();
    if !uploaded.is_empty() {
        out.push(format!(
            "Uploaded responses ({}) are taken as given: Evenhand cannot check how, when or with which settings they were produced.",
            uploaded.join(", ")
        ));
    }
    for o in &report.omitted {
        out.push(format!("No {} section: {}.", o.method, o.reason));
    }
    let failed: u64 = report.models.iter().map(|m| m.failed).sum();
    if failed > 0 {
        out.push(format!("{failed} call(s) failed and are left out of every figure; if failures depend on the prompt, the figures may be biased."));
    }
    let pending = s.records.iter().filter(|r| r.status == Status::Pending).count();
    if pending > 0 {
        out.push(format!("{pending} call(s) were never answered (an unfinished run)."));
    }
    let small: Vec<String> = report
        .sections
        .iter()
        .flat_map(|x| &x.figures)
        .filter(|f| f.successes.is_some() && f.n < 30)
        .map(|f| format!("{} ({}, n = {})", f.figure, f.model, f.n))
        .collect();
    if !small.is_empty() {
        out.push(format!(
            "Small cells (fewer than 30 items): {}; their intervals are wide and their verdicts fragile.",
            small.join("; ")
        ));
    }
    let disagree: Vec<String> = report
        .sections
        .iter()
        .flat_map(|x| &x.figures)
        .filter(|f| f.clustered.as_ref().is_some_and(|c| c.verdict_disagrees))
        .map(|f| format!("{} ({})", f.figure, f.model))
        .collect();
    if !disagree.is_empty() {
        out.push(format!(
            "The {} and the cluster-robust intervals reach different verdicts for {}: items from one template are not independent, so the cluster-robust verdict is the safer one.",
            s.study.statistics.interval.title(),
            disagree.join("; ")
        ));
    }
    if s.study.methods.crosslingual.is_some() || s.study.methods.requirements.is_some() {
        let tables: Vec<(&str, &super::detectors::DetectorTable)> =
            report.sections.iter().filter_map(|x| Some((x.method.as_str(), x.detectors.as_ref()?))).collect();
        // Each cell's most discordant pair.
        let rows: Vec<String> = tables
            .iter()
            .flat_map(|(m, t)| t.cells.iter().map(move |c| (m, c)))
            .filter_map(|(m, c)| {
                let p = c.pairs.iter().max_by_key(|p| (p.disagree, std::cmp::Reverse(p.n)))?;
                Some(format!("{m}, {} in {}: {} of {} ({} and {})", c.model, c.language, p.disagree, p.n, p.a, p.b))
            })
            .collect();
        let others: std::collections::BTreeSet<&str> = tables
            .iter()
            .flat_map(|(_, t)| t.detectors.iter().map(String::as_str))
            .filter(|d| *d != crate::crosslingual::trust::LEXICON && *d != crate::crosslingual::trust::OPENING)
            .collect();
        let more = if others.is_empty() {
            String::new()
        } else {
            format!(
                " Where the records carry their verdicts, the {} are compared too.",
                others.into_iter().collect::<Vec<_>>().join(", ")
            )
        };
        let disagreement = if rows.is_empty() {
            String::new()
        } else {
            format!(
                " The detectors judge answers differently (the most discordant pair per model and language) in {}.",
                rows.join("; ")
            )
        };
        let depends: usize = tables.iter().map(|(_, t)| t.statements.len()).sum();
        let depends = if depends == 0 {
            String::new()
        } else {
            format!(
                " In {depends} model-language cell(s) two detectors judge more than {:.0} % of the answers differently: those refusal figures depend on the detector.",
                100.0 * super::detectors::DEPENDS_SHARE
            )
        };
        out.push(format!(
            "Refusals are detected by a phrase lexicon, which decides every figure; a refusal worded in a way it does not know counts as an answer, and a refusal phrase anywhere in a reply (quoted, or after a full answer) as a refusal. A stricter second detector, the opening rule (a reply of at most {} words, or {} characters in Chinese and Japanese, with a lexicon phrase in its first sentence), is run beside it.{more}{disagreement}{depends} Check a sample by eye in the Cross-lingual tab's review.",
            crate::text::refusal_opening::MAX_WORDS,
            crate::text::refusal_opening::MAX_UNSPACED_CHARS
        ));
    }
    out.push("The power notes treat the two models' outcomes as independent; the paired tests used have at least that power when the outcomes are positively correlated.".into());
    out
}
