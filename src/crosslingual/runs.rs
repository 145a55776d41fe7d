//! Cross-lingual runs through providers, over the run engine ([`crate::run`]). Three kinds of
//! calls, each planned here and taken back here:
//!
//! - **chat**: the plan's cases ([`super::plan`]) as pending records for
//!   [`crate::run::Plan::chat`] ([`chat_cases`]); the engine's records (answered, failed or
//!   still pending) are the analysis's records, loaded like any record table. Records that
//!   got no answer get no verdict, and the report counts them by status and lists them.
//! - **embeddings**: the responses as (key, text) for [`crate::run::Plan::embed`]
//!   ([`embed_items`]; the key is the record's `embedding_ref`, else its `record_id`). Each
//!   batch call's record lists its keys in `prompt`, separated by spaces ([`batch_ids`]), and
//!   the vectors come back in input order; [`attach_batch`] stores them with the records and
//!   writes the model into the column `embedding_model`. Vectors of two models are never
//!   mixed: distances between them mean nothing.
//! - **judge**: one chat call per response ([`judge_cases`]), with our prompt
//!   ([`super::detect::judge_prompt`]) showing the full prompt that was sent and the reply and
//!   asking for one word. [`apply_judge`] writes each reply into the judged record's
//!   `judge_verdict` column, where [`super::detect`] parses it strictly (exactly `REFUSAL` or
//!   `ANSWER`); a reply that is anything else is reported, never guessed, and never run as code.

use super::analysis::Dataset;
use super::detect::{self, JUDGE_COLUMN};
use super::embeddings::MAX_DIM;
use super::plan::{Case, record_for};
use crate::record::{Record, Status};
use crate::text::refusal::Lexicon;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// The `method` of judge calls (kept apart from the analyzed records, which are `crosslingual`).
pub const JUDGE_METHOD: &str = "crosslingual-judge";
/// On a judge record: the `record_id` of the record it judges.
pub const JUDGED_COLUMN: &str = "judged_record_id";
/// On a judged record: the model that judged it.
pub const JUDGE_MODEL_COLUMN: &str = "judge_model";
/// On a record with a vector from a provider: the embedding model.
pub const EMBEDDING_MODEL_COLUMN: &str = "embedding_model";

/// The cases of a run as pending records for the run engine: `case_id`, `question_id`,
/// `language`, `concern` = topic, `template_id` = mode, `method` = crosslingual and the prompt.
/// The engine fills in run, provider, model, sample and the record id.
pub fn chat_cases(cases: &[Case]) -> Vec<Record> {
    cases
        .iter()
        .map(|c| {
            let mut r = record_for(c, "", "", "", 0);
            r.record_id.clear();
            r.status = Status::Pending;
            r
        })
        .collect()
}

/// One text to embed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbedItem {
    /// The key the vector is attached by: the record's `embedding_ref`, else its `record_id`.
    pub id: String,
    pub text: String,
}

/// The key a record's vector is attached by: its `embedding_ref`, else its `record_id`.
pub fn embedding_key(r: &Record) -> &str {
    if r.embedding_ref.is_empty() { &r.record_id } else { &r.embedding_ref }
}

fn has_answer(r: &Record) -> bool {
    matches!(r.status, Status::Ok | Status::Refused | Status::Unparseable | Status::Filtered)
        && !r.response.trim().is_empty()
}

/// The responses that have no vector yet (with `all`, every response: to embed them all again
/// with one model), once per key. A key with whitespace in it cannot be listed in a batch
/// record's prompt, so it is an error naming the key.
pub fn embed_items(d: &Dataset, all: bool) -> Result<Vec<EmbedItem>, String> {
    let mut seen = HashSet::new();
    let mut out = vec![];
    for (r, e) in d.records.iter().zip(&d.embeddings) {
        if (e.is_some() && !all) || !has_answer(r) || !seen.insert(embedding_key(r)) {
            continue;
        }
        if embedding_key(r).is_empty() || embedding_key(r).contains(char::is_whitespace) {
            return Err(format!(
                "record {:?}: its id is empty or has whitespace; an embedding batch lists ids separated by spaces",
                embedding_key(r)
            ));
        }
        out.push(EmbedItem { id: embedding_key(r).to_string(), text: r.response.clone() });
    }
    Ok(out)
}

/// The keys an embedding call's record lists (its `prompt`), in input order.
pub fn batch_ids(record: &Record) -> Vec<String> {
    record.prompt.split_whitespace().map(str::to_string).collect()
}

/// Vectors from one embedding call (or several of the same model).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmbeddingBatch {
    pub model: String,
    pub ids: Vec<String>,
    pub vectors: Vec<Vec<f64>>,
}

/// Attaches a batch to every record with one of its keys; all or nothing. Returns how many
/// records got a vector.
pub fn attach_batch(d: &mut Dataset, b: &EmbeddingBatch) -> Result<usize, String> {
    let model = b.model.trim();
    if model.is_empty() {
        return Err("embedding batch: expected the model's name (field model)".into());
    }
    if b.ids.len() != b.vectors.len() || b.ids.is_empty() {
        return Err(format!(
            "embedding batch: expected one vector per id, found {} ids and {} vectors",
            b.ids.len(),
            b.vectors.len()
        ));
    }
    let existing = d.embeddings.iter().flatten().next().map(Vec::len);
    let dim = existing.unwrap_or(b.vectors[0].len());
    if dim == 0 || dim > MAX_DIM {
        return Err(format!("embedding batch: expected 1 to {MAX_DIM} numbers per vector, found {dim}"));
    }
    for (id, v) in b.ids.iter().zip(&b.vectors) {
        if v.len() != dim {
            return Err(format!("embedding batch, id {id:?}: expected {dim} numbers, found {}", v.len()));
        }
        if v.iter().any(|x| !x.is_finite()) {
            return Err(format!("embedding batch, id {id:?}: expected finite numbers only"));
        }
    }
    if let Some((r, _)) = d
        .records
        .iter()
        .zip(&d.embeddings)
        .find(|(r, e)| e.is_some() && r.extra.get(EMBEDDING_MODEL_COLUMN).map_or("", String::as_str) != model)
    {
        let other = r.extra.get(EMBEDDING_MODEL_COLUMN).map_or("an uploaded file (no model named)", String::as_str);
        return Err(format!(
            "the records already hold vectors from {other}; vectors of {model} cannot be compared with them \
             (clear the embeddings first)"
        ));
    }
    let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, r) in d.records.iter().enumerate() {
        by_key.entry(embedding_key(r).to_string()).or_default().push(i);
    }
    let mut seen = HashSet::new();
    for id in &b.ids {
        if !seen.insert(id.as_str()) {
            return Err(format!("embedding batch: id {id:?} is listed twice"));
        }
        if !by_key.contains_key(id) {
            return Err(format!("embedding batch: no loaded record has id {id:?}; nothing attached"));
        }
    }
    let mut n = 0;
    for (id, v) in b.ids.iter().zip(&b.vectors) {
        for &i in &by_key[id] {
            d.embeddings[i] = Some(v.clone());
            d.records[i].extra.insert(EMBEDDING_MODEL_COLUMN.into(), model.to_string());
            n += 1;
        }
    }
    Ok(n)
}

/// Judge calls: one per answered response (once per record id), as pending records.
pub fn judge_cases(d: &Dataset) -> Vec<Record> {
    let mut seen = HashSet::new();
    d.records
        .iter()
        .filter(|r| has_answer(r) && !r.record_id.is_empty() && seen.insert(r.record_id.as_str()))
        .map(|r| {
            let shown = if r.prompt.trim().is_empty() { "(the prompt was not recorded)" } else { &r.prompt };
            let mut c = Record {
                format_version: crate::record::FORMAT_VERSION,
                method: JUDGE_METHOD.into(),
                case_id: format!("judge:{}", r.record_id),
                template_id: r.template_id.clone(),
                language: r.language.clone(),
                concern: r.concern.clone(),
                prompt: detect::judge_prompt(shown, &r.response, &r.language),
                status: Status::Pending,
                ..Record::default()
            };
            c.extra.insert(JUDGED_COLUMN.into(), r.record_id.clone());
            c
        })
        .collect()
}

/// What taking a judge run back did.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct JudgeSummary {
    pub file: String,
    /// Judge records in the input (records of other methods are ignored).
    pub judge_records: usize,
    /// Records that now carry a judge verdict.
    pub verdicts: usize,
    /// Replies that were not exactly REFUSAL or ANSWER (listed in the report's problems).
    pub unreadable: usize,
    /// Judge calls that failed or got no reply (status error, pending, refused, ...).
    pub failed: usize,
    /// Judge records whose judged record is not loaded.
    pub unmatched: usize,
    /// Further replies for a record already judged (the first answered one counts).
    pub duplicates: usize,
    pub models: Vec<String>,
}

/// Writes each judge reply into its record's `judge_verdict` (and `judge_model`) and
/// recomputes the verdicts. Earlier judge verdicts of the records judged again are replaced.
pub fn apply_judge(d: &mut Dataset, file: &str, judge: &[Record], lexicon: &Lexicon) -> JudgeSummary {
    let mut s = JudgeSummary { file: file.into(), ..Default::default() };
    let index: HashMap<String, usize> =
        d.records.iter().enumerate().rev().map(|(i, r)| (r.record_id.clone(), i)).collect();
    let mut done = HashSet::new();
    for j in judge {
        let Some(target) = j.extra.get(JUDGED_COLUMN).filter(|_| j.method == JUDGE_METHOD) else { continue };
        s.judge_records += 1;
        let Some(&i) = index.get(target) else {
            s.unmatched += 1;
            continue;
        };
        if j.status != Status::Ok || j.response.trim().is_empty() {
            s.failed += 1;
            continue;
        }
        if !done.insert(i) {
            s.duplicates += 1;
            continue;
        }
        if detect::parse_judge(&j.response).is_ok() {
            s.verdicts += 1;
        } else {
            s.unreadable += 1;
        }
        let r = &mut d.records[i];
        r.extra.insert(JUDGE_COLUMN.into(), j.response.trim().to_string());
        r.extra.insert(JUDGE_MODEL_COLUMN.into(), j.model.clone());
        if !s.models.contains(&j.model) {
            s.models.push(j.model.clone());
        }
    }
    let (verdicts, problems) = detect::detect_all(&d.file, &d.records, lexicon);
    d.verdicts = verdicts;
    d.problems = problems;
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> Dataset {
        let rec = |id: &str, lang: &str, response: &str, status: Status| Record {
            record_id: id.into(),
            method: super::super::METHOD.into(),
            question_id: "q1".into(),
            language: lang.into(),
            prompt: format!("prompt {id}"),
            response: response.into(),
            status,
            ..Record::default()
        };
        let records = vec![
            rec("a", "en", "Here is an answer.", Status::Ok),
            rec("b", "hi", "मुझे खेद है, मैं यह नहीं कर सकता।", Status::Ok),
            rec("c", "en", "", Status::Error),
        ];
        Dataset::new("r.csv", records, &Lexicon::builtin())
    }

    #[test]
    fn embeddings_go_out_by_key_and_come_back_all_or_nothing() {
        let mut d = data();
        let items = embed_items(&d, false).unwrap();
        assert_eq!(items.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        let batch = |model: &str, ids: &[&str], vectors: Vec<Vec<f64>>| EmbeddingBatch {
            model: model.into(),
            ids: ids.iter().map(|s| s.to_string()).collect(),
            vectors,
        };
        assert!(
            attach_batch(&mut d, &batch("m", &["a", "zz"], vec![vec![1.0], vec![2.0]])).unwrap_err().contains("zz")
        );
        assert!(attach_batch(&mut d, &batch("m", &["a"], vec![vec![f64::NAN]])).is_err());
        assert!(attach_batch(&mut d, &batch("m", &["a", "b"], vec![vec![1.0]])).is_err());
        assert!(d.embeddings.iter().all(Option::is_none), "a refused batch attaches nothing");
        assert_eq!(attach_batch(&mut d, &batch("m", &["a"], vec![vec![1.0, 2.0]])).unwrap(), 1);
        assert_eq!(d.records[0].extra[EMBEDDING_MODEL_COLUMN], "m");
        assert_eq!(embed_items(&d, false).unwrap().len(), 1, "only what has no vector yet");
        assert_eq!(embed_items(&d, true).unwrap().len(), 2, "or every response");
        let e = attach_batch(&mut d, &batch("other", &["b"], vec![vec![1.0, 2.0]])).unwrap_err();
        assert!(e.contains("from m") && e.contains("other"), "{e}");
        assert!(attach_batch(&mut d, &batch("m", &["b"], vec![vec![1.0]])).unwrap_err().contains("expected 2"));
    }

    #[test]
    fn judge_replies_become_verdicts_strictly() {
        let mut d = data();
        let cases = judge_cases(&d);
        assert_eq!(cases.len(), 2, "no judge call for a failed record");
        assert!(cases[1].prompt.contains("prompt b") && cases[1].prompt.contains("मुझे खेद है"));
        let reply = |c: &Record, text: &str, status: Status| Record {
            response: text.into(),
            status,
            model: "judge-1".into(),
            ..c.clone()
        };
        let mut orphan = cases[0].clone();
        orphan.extra.insert(JUDGED_COLUMN.into(), "nope".into());
        let judged = vec![
            reply(&cases[0], "print('ANSWER')", Status::Ok),
            reply(&cases[1], "REFUSAL", Status::Ok),
            reply(&cases[1], "ANSWER", Status::Ok),
            orphan,
        ];
        let s = apply_judge(&mut d, "j.csv", &judged, &Lexicon::builtin());
        assert_eq!((s.judge_records, s.verdicts, s.unreadable, s.unmatched, s.duplicates), (4, 1, 1, 1, 1));
        assert_eq!((d.verdicts[0].judge, d.verdicts[1].judge), (None, Some(true)));
        assert!(d.problems.iter().any(|p| p.field.as_deref() == Some(JUDGE_COLUMN)));
        assert_eq!(d.records[1].extra[JUDGE_MODEL_COLUMN], "judge-1");
    }
}
