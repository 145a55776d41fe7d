//! Live runs for the divergence method: a probe set as cases for the run engine
//! ([`crate::run`]), and the engine's stored records back as the analysis's input.
//!
//! **Scoring** ([`Mode::Score`]): one case per (context, filler) whose prompt is the context
//! filled with the form its slot needs ("Mieszkam w Krakowie."); the run sends each to every
//! model as a scoring call ([`crate::run::plan::Job::Score`]), one per model, and stores the
//! summed log-probability in the record's `logprob_sum` column (the token block in `logprobs`,
//! the echoed text in `response`). Case columns: `case_id` = `CONTEXT|FILLER`, `template_id` =
//! the context id, `concern` = the aspect, `language` = the probe set's, and the extras
//! `job` = score, `context_id`, `aspect`, `culture`, `filler` (the form placed) and
//! `filler_base`.
//!
//! **Sampling** ([`Mode::Sample`]): one case per context, `case_id` = the context id, whose
//! prompt asks, in the probe set's language, for the missing word(s) of the sentence with the
//! slot shown as a gap. The run spec says how many samples and at what temperature (`samples`,
//! `params.temperature`); the records keep both. Extras: `job` = sample, `context_id`,
//! `aspect`, `culture`.
//!
//! Reading records back ([`inputs`]): records with `job` = score (or a `logprob_sum`) become
//! the log-probability table; others are sampled completions, read as before. Calls that
//! failed, are still pending, or were refused are counted and listed, never dropped silently.
//! In scoring mode a context is used for a model only when every filler of it was scored: one
//! missing filler would change the normalisation over the rest, so such a context is left out
//! and named.

use super::DivergenceError;
use super::analysis::ModelData;
use super::logprobs::LogprobRow;
use super::probes::ProbeSet;
use crate::formats::Problem;
use crate::record::{Record, Status};
use crate::run::engine::LOGPROB_SUM;
use crate::run::plan::{JOB_COLUMN, SCORE_JOB};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The job value of a sampling case.
pub const SAMPLE_JOB: &str = "sample";
/// Between context id and filler in a scoring case's id.
pub const CASE_SEPARATOR: char = '|';
/// How many failed or incomplete items are listed by name.
const LISTED: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Score,
    Sample,
}

impl Mode {
    pub fn parse(text: &str) -> Result<Mode, DivergenceError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "score" | "scoring" => Ok(Mode::Score),
            "sample" | "sampling" => Ok(Mode::Sample),
            other => Err(DivergenceError::Setting(format!("mode: expected score or sample, found {other:?}"))),
        }
    }
}

/// The instruction of a sampling prompt, by language (ours; English for languages we have none for).
fn instruction(language: &str) -> &'static str {
    let lang = crate::text::primary_language(language);
    match lang.as_str() {
        "pl" => {
            "Uzupełnij lukę (___) w poniższym zdaniu. Odpowiedz tylko brakującym słowem lub słowami, \
             w formie pasującej do zdania, bez wyjaśnień."
        }
        "de" => {
            "Ergänze die Lücke (___) im folgenden Satz. Antworte nur mit dem fehlenden Wort oder den \
             fehlenden Wörtern, in der passenden Form, ohne Erklärung."
        }
        "es" => {
            "Completa el hueco (___) de la frase siguiente. Responde solo con la palabra o las palabras \
             que faltan, en la forma adecuada, sin explicaciones."
        }
        "fr" => {
            "Complète le blanc (___) dans la phrase suivante. Réponds uniquement par le ou les mots \
             manquants, sous la forme qui convient, sans explication."
        }
        _ => {
            "Fill in the gap (___) in the sentence below. Reply with the missing word or words only, \
             in the form the sentence needs, without explanation."
        }
    }
}

/// The sampling prompt of one context.
pub fn sampling_prompt(probes: &ProbeSet, text: &str) -> String {
    format!("{}\n\n{}", instruction(&probes.language), text.replacen(&probes.slot, "___", 1))
}

/// The cases of a run over `probes` in `mode`, in probe-set order.
pub fn cases(probes: &ProbeSet, mode: Mode) -> Vec<Record> {
    let mut out = vec![];
    for a in &probes.aspects {
        for c in &a.contexts {
            let culture = c.culture.clone().unwrap_or_else(|| "both".into());
            let base = Record {
                format_version: crate::record::FORMAT_VERSION,
                method: "divergence".into(),
                template_id: c.id.clone(),
                language: probes.language.clone(),
                concern: a.id.clone(),
                status: Status::Pending,
                ..Record::default()
            };
            let mut extra = BTreeMap::from([
                ("context_id".to_string(), c.id.clone()),
                ("aspect".to_string(), a.id.clone()),
                ("culture".to_string(), culture),
            ]);
            match mode {
                Mode::Sample => {
                    extra.insert(JOB_COLUMN.into(), SAMPLE_JOB.into());
                    out.push(Record { case_id: c.id.clone(), prompt: sampling_prompt(probes, &c.text), extra, ..base });
                }
                Mode::Score => {
                    for f in &a.fillers {
                        let form = f.form(&c.form);
                        let mut extra = extra.clone();
                        extra.insert(JOB_COLUMN.into(), SCORE_JOB.into());
                        extra.insert("filler".into(), form.to_string());
                        extra.insert("filler_base".into(), f.base.clone());
                        out.push(Record {
                            case_id: format!("{}{CASE_SEPARATOR}{}", c.id, f.base),
                            prompt: c.filled(&probes.slot, form),
                            extra,
                            ..base.clone()
                        });
                    }
                }
            }
        }
    }
    out
}

/// What became of a run's calls, shown beside the analysis.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunCounts {
    pub mode: String,
    pub records: usize,
    /// Answered calls whose data reached the analysis (before sampling's filler matching).
    pub used: usize,
    /// Calls that ended in an error.
    pub failed: usize,
    /// Calls not sent yet (an interrupted run).
    pub pending: usize,
    /// Answers that were refused, filtered or otherwise not ok.
    pub not_ok: usize,
    /// Scoring: answered records without a readable log-probability or filler.
    pub unreadable: usize,
    /// Scoring: (model, context) pairs left out because a filler's score is missing.
    pub incomplete_contexts: usize,
}

/// Records turned into the analysis's input.
#[derive(Debug, Clone)]
pub struct RunInput {
    pub data: ModelData,
    pub counts: RunCounts,
    pub problems: Vec<Problem>,
}

fn is_score_record(r: &Record) -> bool {
    r.extra.get(JOB_COLUMN).is_some_and(|j| j.trim() == SCORE_JOB) || r.extra.contains_key(LOGPROB_SUM)
}

/// The analysis input from a run's records (or any record table). `file` names them in problems.
pub fn inputs(file: &str, records: Vec<Record>) -> Result<RunInput, DivergenceError> {
    let scored = records.iter().filter(|r| is_score_record(r)).count();
    if scored > 0 && scored < records.len() {
        return Err(DivergenceError::input(
            file,
            format!(
                "{scored} of {} records are scoring calls (job score or a logprob_sum) and the rest are not; load the scoring and the sampling records separately",
                records.len()
            ),
        ));
    }
    let mut counts = RunCounts { records: records.len(), ..Default::default() };
    let mut problems = vec![];
    let mut failed: Vec<String> = vec![];
    for r in &records {
        match r.status {
            Status::Ok => {}
            Status::Error => {
                counts.failed += 1;
                failed.push(format!("{} ({})", r.record_id, first_line(&r.error)));
            }
            Status::Pending | Status::Skipped => counts.pending += 1,
            _ => counts.not_ok += 1,
        }
    }
    if !failed.is_empty() {
        problems.push(listed(file, "status", failed, "call(s) failed and gave no data"));
    }
    if counts.pending > 0 {
        problems.push(
            Problem::new(file, format!("{} call(s) are still pending: the run is not finished", counts.pending))
                .in_field("status"),
        );
    }
    if scored == 0 {
        counts.mode = "sampling".into();
        counts.used = records.iter().filter(|r| r.status == Status::Ok).count();
        return Ok(RunInput { data: ModelData::Records(records), counts, problems });
    }
    counts.mode = "scoring".into();
    let (rows, unreadable) = score_rows(&records);
    counts.unreadable = unreadable.len();
    if !unreadable.is_empty() {
        problems.push(listed(file, LOGPROB_SUM, unreadable, "answered record(s) have no readable log-probability"));
    }
    // A (model, context) is complete when every record naming it gave a row.
    let mut expected: BTreeMap<(String, String), usize> = BTreeMap::new();
    for r in &records {
        *expected.entry((r.model.clone(), context_of(r))).or_default() += 1;
    }
    let mut got: BTreeMap<(String, String), usize> = BTreeMap::new();
    for row in &rows {
        *got.entry((row.model.clone(), row.context.clone())).or_default() += 1;
    }
    let incomplete: BTreeSet<(String, String)> =
        expected.iter().filter(|(k, n)| got.get(*k).copied().unwrap_or(0) < **n).map(|(k, _)| k.clone()).collect();
    counts.incomplete_contexts = incomplete.len();
    if !incomplete.is_empty() {
        let names = incomplete
            .iter()
            .map(|(m, c)| {
                let k = (m.clone(), c.clone());
                format!("{m}/{c} ({} of {})", got.get(&k).copied().unwrap_or(0), expected[&k])
            })
            .collect();
        problems.push(listed(
            file,
            "context_id",
            names,
            "context(s) left out for a model because not every filler was scored",
        ));
    }
    let rows: Vec<LogprobRow> =
        rows.into_iter().filter(|r| !incomplete.contains(&(r.model.clone(), r.context.clone()))).collect();
    counts.used = rows.len();
    if rows.is_empty() {
        return Err(DivergenceError::input(
            file,
            format!(
                "no scoring record could be used ({} failed, {} pending, {} unreadable, {} incomplete contexts){}",
                counts.failed,
                counts.pending,
                counts.unreadable,
                counts.incomplete_contexts,
                problems.first().map(|p| format!(". First problem: {p}")).unwrap_or_default()
            ),
        ));
    }
    Ok(RunInput { data: ModelData::Logprobs(rows), counts, problems })
}

fn first_line(text: &str) -> &str {
    let t = text.lines().next().unwrap_or("").trim();
    if t.is_empty() { "no reason given" } else { t }
}

fn listed(file: &str, field: &str, items: Vec<String>, what: &str) -> Problem {
    let n = items.len();
    let shown: Vec<&str> = items.iter().take(LISTED).map(String::as_str).collect();
    let more = if n > LISTED { format!(", and {} more", n - LISTED) } else { String::new() };
    Problem::new(file, format!("{n} {what}: {}{more}", shown.join("; "))).in_field(field)
}

/// The context a scoring record belongs to: its `context_id`, else its case id up to `|`.
fn context_of(r: &Record) -> String {
    match r.extra.get("context_id").map(|s| s.trim()).filter(|s| !s.is_empty()) {
        Some(c) => c.to_string(),
        None => r.case_id.split(CASE_SEPARATOR).next().unwrap_or("").to_string(),
    }
}

/// Rows of the answered scoring records, and the ids of those that could not be read.
fn score_rows(records: &[Record]) -> (Vec<LogprobRow>, Vec<String>) {
    let mut rows = vec![];
    let mut bad = vec![];
    for r in records.iter().filter(|r| r.status == Status::Ok) {
        let filler = ["filler_base", "filler"]
            .iter()
            .find_map(|k| r.extra.get(*k).map(|s| s.trim()).filter(|s| !s.is_empty()))
            .map(str::to_string)
            .or_else(|| r.case_id.split_once(CASE_SEPARATOR).map(|(_, f)| f.to_string()));
        let logprob = match r.extra.get(LOGPROB_SUM) {
            Some(text) => text.trim().parse::<f64>().ok(),
            // Uploaded records may carry only the token block; the sum is read from it.
            None => r.logprobs.as_ref().and_then(|block| {
                let generated = r.tokens_out.unwrap_or(0) as usize;
                crate::providers::score::sum_echo(block, generated).ok().map(|(s, _)| s)
            }),
        };
        match (filler, logprob.filter(|x| x.is_finite() && *x <= 1e-9)) {
            (Some(filler), Some(lp)) => {
                rows.push(LogprobRow { context: context_of(r), filler, logprob: lp.min(0.0), model: r.model.clone() })
            }
            (None, _) => bad.push(format!("{} (no filler or filler_base)", r.record_id)),
            (_, None) => bad.push(format!("{} (no finite logprob_sum <= 0)", r.record_id)),
        }
    }
    (rows, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> ProbeSet {
        super::super::builtin::probe_set("pl-western").unwrap()
    }

    #[test]
    fn scoring_cases_fill_every_context_with_every_filler_in_the_form_it_needs() {
        let p = set();
        let cs = cases(&p, Mode::Score);
        let expected: usize = p.aspects.iter().map(|a| a.contexts.len() * a.fillers.len()).sum();
        assert_eq!(cs.len(), expected);
        let c = cs.iter().find(|c| c.case_id == "pl-city-01|Kraków").unwrap();
        assert_eq!(c.prompt, "Mieszkam w Krakowie.");
        assert_eq!((c.extra["filler"].as_str(), c.extra["job"].as_str()), ("Krakowie", "score"));
        assert_eq!((c.concern.as_str(), c.language.as_str(), c.template_id.as_str()), ("cities", "pl", "pl-city-01"));
        let ids: BTreeSet<&str> = cs.iter().map(|c| c.case_id.as_str()).collect();
        assert_eq!(ids.len(), cs.len(), "case ids are unique");
    }

    #[test]
    fn sampling_cases_ask_in_the_probe_language_with_a_gap() {
        let p = set();
        let cs = cases(&p, Mode::Sample);
        assert_eq!(cs.len(), p.aspects.iter().map(|a| a.contexts.len()).sum::<usize>());
        let c = cs.iter().find(|c| c.case_id == "pl-city-01").unwrap();
        assert!(c.prompt.starts_with("Uzupełnij lukę") && c.prompt.ends_with("Mieszkam w ___."), "{}", c.prompt);
        assert_eq!((c.extra["aspect"].as_str(), c.extra["culture"].as_str()), ("cities", "both"));
        assert!(instruction("de_DE").starts_with("Ergänze") && instruction("xx").starts_with("Fill in"));
        assert!(Mode::parse("sampling").is_ok() && Mode::parse("guess").unwrap_err().to_string().contains("score"));
    }

    fn answered(case: &Record, model: &str, lp: Option<f64>) -> Record {
        let mut r = Record { model: model.into(), record_id: format!("{}:{model}", case.case_id), ..case.clone() };
        r.status = Status::Ok;
        if let Some(lp) = lp {
            r.extra.insert(LOGPROB_SUM.into(), format!("{lp:?}"));
        }
        r
    }

    #[test]
    fn scoring_records_become_rows_and_incomplete_contexts_are_left_out_and_named() {
        let p = set();
        let cs: Vec<Record> = cases(&p, Mode::Score)
            .into_iter()
            .filter(|c| c.template_id == "pl-city-01" || c.template_id == "pl-city-02")
            .collect();
        let n = cs.len() / 2;
        let mut recs: Vec<Record> = cs.iter().enumerate().map(|(i, c)| answered(c, "m", Some(-(i as f64)))).collect();
        recs[n].status = Status::Error;
        recs[n].error = "HTTP 500: boom\nmore".into();
        recs[n + 1].extra.remove(LOGPROB_SUM);
        let got = inputs("run.csv", recs).unwrap();
        let ModelData::Logprobs(rows) = &got.data else { panic!("scoring records give a log-probability table") };
        assert_eq!(rows.len(), n, "only the complete context is used");
        assert!(rows.iter().all(|r| r.context == "pl-city-01"));
        assert_eq!(rows.iter().find(|r| r.filler == "Kraków").map(|r| r.model.as_str()), Some("m"));
        let c = &got.counts;
        assert_eq!((c.failed, c.unreadable, c.incomplete_contexts, c.used), (1, 1, 1, n));
        let text: Vec<String> = got.problems.iter().map(|p| p.to_string()).collect();
        assert!(text.iter().any(|t| t.contains("1 call(s) failed") && t.contains("HTTP 500: boom")), "{text:?}");
        assert!(
            text.iter().any(|t| t.contains("m/pl-city-02") && t.contains(&format!("({} of {n})", n - 2))),
            "{text:?}"
        );
    }

    #[test]
    fn a_token_block_alone_is_summed_and_mixed_files_are_refused() {
        let p = set();
        let case = cases(&p, Mode::Score).remove(0);
        let mut r = answered(&case, "m", None);
        r.logprobs = Some(serde_json::json!({"token_logprobs": [null, -1.5, -0.25]}));
        let got = inputs("r.jsonl", vec![r.clone()]).unwrap();
        let ModelData::Logprobs(rows) = got.data else { panic!() };
        assert_eq!((rows[0].logprob, rows[0].filler.as_str()), (-1.75, case.extra["filler_base"].as_str()));
        let sample = Record { case_id: "pl-city-01".into(), response: "Krakowie".into(), ..Record::default() };
        let e = inputs("r.jsonl", vec![r, sample.clone()]).unwrap_err().to_string();
        assert!(e.contains("r.jsonl") && e.contains("separately"), "{e}");
        let got = inputs("s.csv", vec![sample]).unwrap();
        assert!(matches!(got.data, ModelData::Records(_)) && got.counts.mode == "sampling");
    }
}
