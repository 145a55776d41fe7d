//! BBQ examples rebuilt from other harnesses' logs ([`crate::logs`]), so that a run of
//! lm-evaluation-harness's bbq task, of inspect_evals' bbq or of a promptfoo suite with BBQ's
//! fields as vars is scored exactly as Evenhand scores BBQ itself.
//!
//! Where the fields come from: lm-eval logs the dataset row as `doc` (every BBQ field, plus the
//! `biased_answers` its `process_docs` adds); inspect_evals keeps BBQ's fields in the sample's
//! `metadata` (`source_id` is the example id) with the context and question in the input
//! (`Context: ...\n\nQuestion: ...`) and the options as `choices`; promptfoo's `vars` carry
//! whatever the suite put there. The row is read by the BBQ importer (`import::bbq_row`), so the
//! biased answer is decided by BBQ's rule, as for BBQ's own files.
//!
//! The model's choice: lm-eval offers BBQ's two named answers and ten phrasings of "unknown"
//! (twelve options, its `doc_to_choice`); its argmax is mapped back to BBQ's three options by
//! text, every phrasing of unknown to the example's unknown option. Inspect's `choice()` scorer
//! gives a letter of the three options. promptfoo's output is free text, read by BBQ's answer
//! parser as any model's answer is.

use super::Example;
use super::import::bbq_row;
use crate::formats::Problem;
use crate::logs::{Harness, Log, Sample, graded};
use crate::record::Record;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The fields BBQ's scoring needs, and what is lost without each.
const NEEDED: [(&str, &str); 6] = [
    ("answer_info", "the groups of the options: the biased answer, diff-bias and the bias scores"),
    ("additional_metadata", "the stereotyped groups: the biased answer, diff-bias and the bias scores"),
    ("question_polarity", "the question's polarity: which answer is the biased one"),
    ("context_condition", "the context condition: every figure, which is per condition"),
    ("category", "the category: the per-category figures"),
    ("question_index", "the template: the template groups the intervals resample (each example is then its own group)"),
];

/// Whether a sample carries BBQ's fields (the test for "a task in the BBQ family").
pub fn is_bbq(s: &Sample) -> bool {
    s.fields.contains_key("context_condition")
        && (s.fields.contains_key("answer_info") || s.fields.contains_key("ans0"))
}

/// A sample's BBQ row, as BBQ's jsonl has it, from whatever the harness logged.
fn row(s: &Sample, harness: Harness) -> Map<String, Value> {
    let mut row = s.fields.clone();
    if harness == Harness::Inspect {
        if let Some(id) = row.get("source_id").cloned() {
            row.entry("example_id").or_insert(id);
        }
        // inspect_evals writes "Context: {context}\n\nQuestion: {question}".
        if let Some((context, question)) = s.input.split_once("\n\nQuestion: ") {
            row.entry("context").or_insert_with(|| context.trim_start_matches("Context: ").into());
            row.entry("question").or_insert_with(|| question.into());
        }
        for (i, c) in s.choices.iter().enumerate().take(3) {
            row.entry(format!("ans{i}")).or_insert_with(|| c.clone().into());
        }
        if let Some(g) = s.gold {
            row.entry("label").or_insert(g.into());
        }
    }
    row
}

/// The example option a harness choice names: the option of the same text; else, where the
/// harness offered more options than the example has (lm-eval's phrasings of unknown), the
/// example's unknown option for any option that is not one of its named ones.
fn to_example_option(ex: &Example, s: &Sample, choice: Option<usize>) -> Option<usize> {
    let i = choice?;
    if s.choices.len() == ex.choices.len() && s.choices.iter().zip(&ex.choices).all(|(a, b)| a.trim() == b.trim()) {
        return Some(i);
    }
    let text = s.choices.get(i)?.trim();
    ex.choices.iter().position(|c| c.trim() == text).or(if s.choices.len() > ex.choices.len() {
        ex.unknown
    } else {
        None
    })
}

/// One way the harness's own scoring and BBQ's differ on this log, counted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    pub what: String,
    pub count: u64,
    pub of: u64,
    /// Up to five example ids where it happens.
    pub examples: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Rebuilt {
    /// One per example id, in first-seen order.
    pub examples: Vec<Example>,
    /// One per sample, with method bbq and the BBQ columns the BBQ readers take back.
    pub records: Vec<Record>,
    /// Samples whose BBQ fields could not be read, located by file, place and field.
    pub problems: Vec<Problem>,
    /// The fields some samples lack, and what cannot be computed without them.
    pub missing: Vec<String>,
    /// Where the harness scored differently from BBQ's definitions.
    pub differences: Vec<Difference>,
}

fn count(diffs: &mut BTreeMap<String, Difference>, what: &str, hit: bool, id: &str) {
    let d = diffs.entry(what.to_string()).or_insert_with(|| Difference {
        what: what.to_string(),
        count: 0,
        of: 0,
        examples: vec![],
    });
    d.of += 1;
    if hit {
        d.count += 1;
        if d.examples.len() < 5 {
            d.examples.push(id.to_string());
        }
    }
}

/// BBQ examples and records from every BBQ-shaped sample of the logs. Samples of other tasks
/// are left for [`graded`].
pub fn rebuild(logs: &[Log]) -> Rebuilt {
    let mut out = Rebuilt::default();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut lacking: BTreeMap<&str, u64> = BTreeMap::new();
    let mut diffs: BTreeMap<String, Difference> = BTreeMap::new();
    for log in logs {
        let harness = log.harness();
        for s in log.samples.iter().filter(|s| is_bbq(s)) {
            let row = row(s, harness);
            for (field, _) in NEEDED.iter().filter(|(f, _)| !row.contains_key(*f)) {
                *lacking.entry(field).or_default() += 1;
            }
            let file = format!("{} ({})", log.file, s.at);
            let mut ex = match bbq_row(&file, 0, &row, "en") {
                Ok(ex) => ex,
                Err(p) => {
                    out.problems.push(p);
                    continue;
                }
            };
            let at = match index.get(&ex.id) {
                Some(&i) => {
                    let known = &out.examples[i];
                    if known.context != ex.context || known.question != ex.question || known.choices != ex.choices {
                        out.problems.push(Problem::new(&file, format!("example {} differs from the one of the same id read before (another dataset version?); the first is kept", ex.id)).in_field("example_id"));
                    }
                    i
                }
                None => {
                    ex.metadata = ex
                        .metadata
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .chain([("harness".to_string(), harness.as_str().to_string())])
                        .collect();
                    index.insert(ex.id.clone(), out.examples.len());
                    out.examples.push(ex);
                    out.examples.len() - 1
                }
            };
            let ex = &out.examples[at];
            let chosen = to_example_option(ex, s, s.prediction);
            let mut r = graded::record(log, s, "bbq");
            r.question_id = ex.id.clone();
            r.case_id = ex.id.clone();
            r.concern = ex.category.clone();
            r.language = ex.language.clone();
            r.template_id = ex.template_id.clone();
            r.choices = ex.choices.clone();
            r.gold = Some(ex.label as u32);
            r.expected = ex.choices[ex.label].clone();
            r.prompt = if s.input.is_empty() { format!("{}\n{}", ex.context, ex.question) } else { s.input.clone() };
            if let Some(c) = chosen {
                r.response = ex.choices[c].clone();
            }
            // The harness's own options and log-likelihoods, kept as an object so that no BBQ
            // reader takes an index into twelve options for one into three.
            if !s.loglikelihoods.is_empty() {
                r.logprobs = Some(serde_json::json!({"choices": s.choices, "loglikelihoods": s.loglikelihoods}));
            }
            if let Some(n) = to_example_option(ex, s, s.prediction_norm) {
                r.extra.insert("response_norm".into(), ex.choices[n].clone());
            }
            let cond = match ex.condition {
                super::Condition::Ambiguous => "ambiguous",
                super::Condition::Disambiguated => "disambiguated",
            };
            let pol = match ex.polarity {
                super::Polarity::Negative => "negative",
                super::Polarity::NonNegative => "non_negative",
            };
            r.extra.insert("condition".into(), cond.into());
            r.extra.insert("polarity".into(), pol.into());
            r.extra.insert("context".into(), ex.context.clone());
            if let Some(b) = ex.biased {
                r.extra.insert("biased".into(), b.to_string());
            }
            if let Some(u) = ex.unknown {
                r.extra.insert("unknown".into(), u.to_string());
            }
            if ex.subset == super::Subset::ProperNames {
                r.extra.insert("subset".into(), "proper_names".into());
            }
            // lm-eval's own judgements beside BBQ's, where its log carries them.
            if harness == Harness::LmEval {
                if let Some(acc) = s.scores.get("acc") {
                    let ours = chosen == Some(ex.label);
                    count(
                        &mut diffs,
                        "lm-eval's per-sample acc differs from BBQ's correctness of the same choice",
                        (*acc >= 1.0) != ours,
                        &ex.id,
                    );
                }
                if let Some(Value::Array(theirs)) = s.fields.get("biased_answers") {
                    let theirs: Vec<&str> = theirs.iter().filter_map(Value::as_str).collect();
                    let ours: Vec<&str> = ex.biased.map(|b| ex.choices[b].as_str()).into_iter().collect();
                    count(
                        &mut diffs,
                        "lm-eval's biased_answers differ from the biased answer BBQ's rule gives",
                        theirs != ours,
                        &ex.id,
                    );
                }
                if s.choices.len() > ex.choices.len() {
                    let unknown_phrasing = chosen == ex.unknown
                        && s.prediction.is_some_and(|p| {
                            s.choices.get(p).map(|c| c.trim()) != ex.unknown.map(|u| ex.choices[u].trim())
                        });
                    count(
                        &mut diffs,
                        "the chosen option is one of the ten phrasings of unknown lm-eval adds to BBQ's two named answers (so a model choosing at random says unknown 10 times in 12, where BBQ's three options give 1 in 3); Evenhand counts it as the example's unknown option",
                        unknown_phrasing,
                        &ex.id,
                    );
                }
            }
            out.records.push(r);
        }
    }
    for (field, n) in lacking {
        let what = NEEDED.iter().find(|(f, _)| *f == field).map_or("", |(_, w)| w);
        out.missing.push(format!("{n} sample(s) lack {field}: without it Evenhand cannot compute {what}"));
    }
    out.differences = diffs.into_values().collect();
    out
}
