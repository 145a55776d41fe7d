//! Files a method's own expert tool reads, taken as a study's records: BBQ's released
//! predictions (a data file with one `<model>_pred_<format>` answer column per model, or a
//! `prediction` column), as the Benchmarks tool scores them; an MSQAD topic file (or an
//! evenhand-questions set), whose reference responses the Cross-lingual tool analyses. An upload
//! slot then reads what its tool reads, rather than only Evenhand's record table.

use super::StudyError;
use super::inputs::Inputs;
use crate::formats::Problem;
use crate::record::{Record, Status};
use std::collections::BTreeSet;

/// The provider label of answers a benchmark's data file carries (no run of ours made them).
pub const PROVIDER: &str = "uploaded";

/// Records read from a tool's file, and the problems met (rows not read, records left out).
pub type Read = (Vec<Record>, Vec<Problem>);

/// Records from a tool's own file, when `bytes` is one and the study uses its method; `None`
/// for anything else (a record table, read as such by the caller).
pub fn records(
    name: &str,
    bytes: &[u8],
    method: Option<&str>,
    used: &[&str],
    inputs: Option<&Inputs>,
) -> Result<Option<Read>, StudyError> {
    let for_method = |m: &str| used.contains(&m) && method.is_none_or(|x| x == m);
    let Ok(text) = crate::formats::decode(name, bytes) else { return Ok(None) };
    if for_method("bbq") && is_bbq_data(text) {
        return bbq_predictions(name, bytes).map(Some);
    }
    if for_method("crosslingual") && is_question_set(text) {
        return reference_responses(name, bytes, inputs).map(Some);
    }
    Ok(None)
}

fn is_bbq_data(text: &str) -> bool {
    use crate::bbq::import::{Format, detect};
    matches!(detect(text), Some(Format::Bbq | Format::Ggbbq))
}

/// MSQAD's array of `<Language>_question` objects, or an evenhand-questions object.
fn is_question_set(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    let head: String = t.chars().take(4096).collect();
    (t.starts_with('[') && head.contains("_question\""))
        || (t.starts_with('{') && head.contains("\"evenhand-questions\""))
}

/// BBQ's released predictions: every answer column of every row, one model per column.
fn bbq_predictions(name: &str, bytes: &[u8]) -> Result<Read, StudyError> {
    let ds = crate::bbq::import::read(name, bytes, None, None)
        .map_err(|p| StudyError::Records { file: name.into(), message: p.message.clone() })?;
    if ds.inline_predictions.is_empty() {
        return Err(StudyError::Records {
            file: name.into(),
            message: format!(
                "BBQ data with no answers ({} examples): expected answer columns named <model>_pred_<format> \
                 (as BBQ's released predictions have) or a prediction column",
                ds.examples.len()
            ),
        });
    }
    let language: std::collections::HashMap<&str, &str> =
        ds.examples.iter().map(|e| (e.id.as_str(), e.language.as_str())).collect();
    let fallback = crate::bbq::import::stem(name).to_string();
    let records = ds
        .inline_predictions
        .iter()
        .map(|p| {
            let model = if p.model.is_empty() { fallback.clone() } else { p.model.clone() };
            Record {
                format_version: 1,
                record_id: format!("{model}:{}", p.id),
                method: "bbq".into(),
                case_id: p.id.clone(),
                question_id: p.id.clone(),
                language: language.get(p.id.as_str()).copied().unwrap_or_default().to_string(),
                provider: PROVIDER.into(),
                model,
                response: p.answer.clone(),
                status: Status::Ok,
                ..Record::default()
            }
        })
        .collect();
    Ok((records, ds.problems))
}

/// Several question files in the cross-lingual slot (MSQAD's one file per topic): merged as the
/// Cross-lingual tool merges them, their reference responses taken as one file's records (a
/// question whose id an earlier file gave is left out and reported). `None` when a file is not
/// a question set: the caller adds the files one by one.
pub fn question_sets(files: &[(String, Vec<u8>)], inputs: Option<&Inputs>) -> Result<Option<Read>, StudyError> {
    let all_sets = files.iter().all(|(n, b)| crate::formats::decode(n, b).is_ok_and(is_question_set));
    if files.is_empty() || !all_sets {
        return Ok(None);
    }
    let name = files.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(" + ");
    let (set, duplicates) = crate::crosslingual::session::read_merged(files).map_err(question_error)?;
    let (records, mut problems) = from_set(&name, &set, inputs)?;
    for d in duplicates {
        problems.push(
            Problem::new(&d.file, format!("question id {} is already given by {}: left out", d.id, d.first_file))
                .in_field("id"),
        );
    }
    Ok(Some((records, problems)))
}

/// A question set's reference responses (MSQAD's acceptable and non-acceptable answers), those
/// of the study's own cross-lingual cases; the rest are counted as left out.
fn reference_responses(name: &str, bytes: &[u8], inputs: Option<&Inputs>) -> Result<Read, StudyError> {
    let set = crate::crosslingual::questions::read(name, bytes).map_err(question_error)?;
    from_set(name, &set, inputs)
}

/// A question file's located problem as a record file's error (its file named once).
fn question_error(e: crate::crosslingual::questions::QuestionError) -> StudyError {
    let text = e.to_string();
    let message = text.strip_prefix(&e.file).map_or(text.as_str(), |t| t.trim_start_matches([':', ' '])).to_string();
    StudyError::Records { file: e.file, message }
}

fn from_set(
    name: &str,
    set: &crate::crosslingual::questions::QuestionSet,
    inputs: Option<&Inputs>,
) -> Result<Read, StudyError> {
    let all = crate::crosslingual::plan::reference_records(set);
    let asked: Option<BTreeSet<&str>> =
        inputs.and_then(|i| i.crosslingual.as_ref()).map(|x| x.cases.iter().map(|c| c.case_id.as_str()).collect());
    let total = all.len();
    let kept: Vec<Record> = all
        .into_iter()
        .filter(|r| asked.as_ref().is_none_or(|a| a.contains(r.case_id.as_str())))
        .map(|r| Record { method: "crosslingual".into(), ..r })
        .collect();
    let mut problems = vec![];
    if kept.is_empty() {
        return Err(StudyError::Records {
            file: name.into(),
            message: format!(
                "a question set ({} questions, topics {}) whose {total} reference responses answer none of this \
                 study's cross-lingual cases (its question set, languages and modes decide them)",
                set.questions.len(),
                set.topics.join(", ")
            ),
        });
    }
    if kept.len() < total {
        problems.push(
            Problem::new(
                name,
                format!(
                    "{} of {total} reference responses left out: their language or mode is not among the study's",
                    total - kept.len()
                ),
            )
            .in_field("mode"),
        );
    }
    Ok((kept, problems))
}
