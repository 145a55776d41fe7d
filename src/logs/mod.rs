//! Logs written by other evaluation harnesses, read as they are: EleutherAI's
//! lm-evaluation-harness (`--log_samples` files and the results JSON beside them), UK AISI's
//! Inspect (`.eval` zip archives and `.json` logs) and promptfoo (`promptfoo eval -o
//! results.json`). A base layer: it knows no method. Each reader turns its file into one
//! [`Log`] of neutral [`Sample`]s (input, choices, target, output, per-choice log-likelihoods,
//! scores, the dataset's own fields); the BBQ method rebuilds its examples from those fields
//! (`bbq::harness`), and [`graded`] turns graded samples into pass/fail records.
//!
//! Rules every reader keeps: the format is recognised by content ([`detect`]), not only by the
//! file name; an unknown log version is refused with the version named; every problem names
//! the file, the line or zip member, and the field; and a log with any problem is refused whole
//! (nothing is loaded half).

pub mod graded;
pub mod inspect;
pub mod lm_eval;
pub mod promptfoo;

use crate::formats::Problem;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The harness that wrote a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Harness {
    LmEval,
    Inspect,
    Promptfoo,
}

impl Harness {
    pub const ALL: [Harness; 3] = [Harness::LmEval, Harness::Inspect, Harness::Promptfoo];

    /// The name used on the command line and in records' `provider`.
    pub fn as_str(self) -> &'static str {
        match self {
            Harness::LmEval => "lm-eval",
            Harness::Inspect => "inspect",
            Harness::Promptfoo => "promptfoo",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Harness::LmEval => "lm-evaluation-harness",
            Harness::Inspect => "Inspect",
            Harness::Promptfoo => "promptfoo",
        }
    }

    pub fn parse(text: &str) -> Option<Harness> {
        Harness::ALL.into_iter().find(|h| h.as_str() == text.trim())
    }
}

/// A figure the harness itself reported for the whole run (lm-eval's `results`, Inspect's
/// `results.scores`, promptfoo's `stats`), kept to be shown beside Evenhand's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reported {
    pub task: String,
    /// As the harness names it: `acc`, `amb_bias_score`, `choice/accuracy`, `successes`, ...
    pub metric: String,
    pub value: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<f64>,
}

/// One answered item of a log, in the terms every harness shares.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Sample {
    /// Where it is in the file: `line 12`, `samples/3_epoch_1.json`, `results.results[4]`.
    pub at: String,
    /// The harness's id of the item (lm-eval's `doc_id`, Inspect's sample id, promptfoo's
    /// test index), unique in the log with `epoch`.
    pub id: String,
    /// 1-based repeat of the item (Inspect's epochs; 1 elsewhere).
    pub epoch: u32,
    /// The model (promptfoo: the provider) that answered.
    pub model: String,
    /// The task this item belongs to (an lm-eval group's subtask, promptfoo's description).
    pub task: String,
    /// The text the model was given.
    pub input: String,
    /// Answer options of a multiple-choice item, in the order shown.
    pub choices: Vec<String>,
    /// The target as logged (a letter, an index, a text).
    pub target: String,
    /// Index of the correct choice, where the log says.
    pub gold: Option<usize>,
    /// The model's output text (lm-eval: the chosen continuation).
    pub output: String,
    /// The chosen option: the argmax of the log-likelihoods, or the option the scorer read.
    pub prediction: Option<usize>,
    /// lm-eval: the log-likelihood of each choice, as logged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loglikelihoods: Vec<f64>,
    /// lm-eval: the argmax of the log-likelihoods divided by each choice's length in
    /// characters (its `acc_norm`), when the task reports `acc_norm`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prediction_norm: Option<usize>,
    /// Per-item metric values the log carries (lm-eval's `acc`, Inspect's scorer values with
    /// C = 1 and I = 0, promptfoo's `score`).
    pub scores: BTreeMap<String, f64>,
    /// Pass or fail, where the log grades the item (a scorer's C/I, an assertion's pass).
    pub passed: Option<bool>,
    /// The grader's words (promptfoo's reason, Inspect's explanation).
    pub reason: String,
    /// The cluster the item belongs to for cluster-robust intervals: a template or variable
    /// set where the log has one.
    pub cluster: String,
    /// The dataset's own fields: lm-eval's `doc`, Inspect's `metadata`, promptfoo's `vars`.
    pub fields: Map<String, Value>,
    /// Why the call failed, when the log says it did.
    pub error: String,
}

/// One log file read whole.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Log {
    pub file: String,
    pub harness: Option<Harness>,
    /// The log format's version as the file states it (Inspect's `version`, promptfoo's
    /// `results.version`; lm-eval's samples carry none).
    pub format_version: String,
    /// The harness's own version, where the log records it.
    pub tool_version: String,
    pub task: String,
    /// The model as the log names it (promptfoo: several, one per sample).
    pub model: String,
    /// Settings worth repeating beside the numbers: seed, model arguments, epochs, ...
    pub settings: BTreeMap<String, String>,
    pub samples: Vec<Sample>,
    pub reported: Vec<Reported>,
    /// Facts about the log a reader should know (a cancelled run, a results file not given).
    pub notes: Vec<String>,
}

impl Log {
    pub fn harness(&self) -> Harness {
        self.harness.unwrap_or(Harness::LmEval)
    }

    /// The models that answered, in first-seen order.
    pub fn models(&self) -> Vec<String> {
        let mut out: Vec<String> = vec![];
        for s in &self.samples {
            if !out.contains(&s.model) {
                out.push(s.model.clone());
            }
        }
        out
    }
}

/// Why a log was refused. Nothing of a refused log is kept.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LogError {
    #[error("{file}: not a log of lm-evaluation-harness, Inspect or promptfoo ({why})")]
    NotALog { file: String, why: String },
    #[error("{file}: {harness} log format version {version} is not one Evenhand reads (it reads {known})")]
    Version { file: String, harness: String, version: String, known: String },
    #[error("{}{}", first(.problems), more(.problems))]
    Invalid { file: String, problems: Vec<Problem> },
}

fn first(problems: &[Problem]) -> String {
    problems.first().map(ToString::to_string).unwrap_or_default()
}

fn more(problems: &[Problem]) -> String {
    match problems.len() {
        0 | 1 => String::new(),
        n => format!(" (and {} more problem(s); nothing of the log was loaded)", n - 1),
    }
}

impl LogError {
    pub fn file(&self) -> &str {
        match self {
            LogError::NotALog { file, .. } | LogError::Version { file, .. } | LogError::Invalid { file, .. } => file,
        }
    }

    /// Every located problem (one for the first two kinds).
    pub fn problems(&self) -> Vec<Problem> {
        match self {
            LogError::Invalid { problems, .. } => problems.clone(),
            other => vec![Problem::new(other.file(), other.to_string())],
        }
    }
}

/// What a file is, judged by its bytes (and its name only where the bytes agree).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// lm-eval's `samples_<task>_<time>.jsonl`.
    LmEvalSamples,
    /// lm-eval's `results_<time>.json`: the run's model, configuration and figures.
    LmEvalResults,
    /// An Inspect `.eval` archive.
    InspectEval,
    /// An Inspect `.json` log.
    InspectJson,
    /// promptfoo's `results.json`.
    Promptfoo,
}

impl Kind {
    pub fn harness(self) -> Harness {
        match self {
            Kind::LmEvalSamples | Kind::LmEvalResults => Harness::LmEval,
            Kind::InspectEval | Kind::InspectJson => Harness::Inspect,
            Kind::Promptfoo => Harness::Promptfoo,
        }
    }
}

/// Recognises a harness log by its content; None for anything else (a record table, a BBQ
/// file). Cheap: only the start of a JSON file is looked at, and a zip's central directory.
pub fn detect(bytes: &[u8]) -> Option<Kind> {
    if bytes.starts_with(b"PK\x03\x04") {
        return inspect::is_eval_zip(bytes).then_some(Kind::InspectEval);
    }
    let text = std::str::from_utf8(&bytes[..bytes.len().min(64 * 1024)])
        .or_else(|e| std::str::from_utf8(&bytes[..e.valid_up_to()]))
        .ok()?
        .trim_start_matches('\u{feff}')
        .trim_start();
    if !text.starts_with('{') {
        return None;
    }
    let first_line = text.lines().next().unwrap_or("");
    // lm-eval writes one compact object per line, starting with doc_id and doc.
    if first_line.contains("\"doc_id\"") && first_line.contains("\"doc\"") && first_line.contains("resps\"") {
        return Some(Kind::LmEvalSamples);
    }
    // A JSON document: its top-level keys, read without keeping any value.
    let keys = top_level_keys(bytes);
    // A document that does not parse (a cut file) is judged by the keys its start names, so
    // that its reader can say where it breaks.
    let head = &text[..text.floor_char_boundary(text.len().min(8 * 1024))];
    let has = |key: &str| {
        if keys.is_empty() { head.contains(&format!("\"{key}\"")) } else { keys.iter().any(|k| k == key) }
    };
    if has("eval") && has("version") && (has("status") || has("samples")) {
        return Some(Kind::InspectJson);
    }
    if has("evalId") || (has("results") && has("config") && has("shareableUrl")) {
        return Some(Kind::Promptfoo);
    }
    if has("results") && (has("configs") || has("versions") || has("n-shot") || has("lm_eval_version")) {
        return Some(Kind::LmEvalResults);
    }
    None
}

/// The keys of a JSON object, or none when the bytes are not one (values are skipped, not built).
fn top_level_keys(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let (text, _) = crate::formats::nonfinite::to_null(&text);
    serde_json::from_str::<BTreeMap<String, serde::de::IgnoredAny>>(&text)
        .map(|m| m.into_keys().collect())
        .unwrap_or_default()
}

/// Reads one log. `companion` is an lm-eval results JSON for a samples file (its model and
/// configuration); other kinds ignore it.
pub fn read(file: &str, bytes: &[u8], companion: Option<(&str, &[u8])>) -> Result<Log, LogError> {
    let kind = detect(bytes).ok_or_else(|| LogError::NotALog { file: file.into(), why: why_not(bytes) })?;
    match kind {
        Kind::LmEvalSamples => lm_eval::read_samples(file, bytes, companion),
        Kind::LmEvalResults => Err(LogError::NotALog {
            file: file.into(),
            why: "this is lm-evaluation-harness's results file; give the samples_<task>_<time>.jsonl that --log_samples wrote beside it (the results file then adds the model and the reported figures)".into(),
        }),
        Kind::InspectEval => inspect::read_eval(file, bytes),
        Kind::InspectJson => inspect::read_json(file, bytes),
        Kind::Promptfoo => promptfoo::read(file, bytes),
    }
}

fn why_not(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        "the file is empty".into()
    } else if bytes.starts_with(b"PK") {
        "a zip archive without Inspect's header.json or _journal/start.json".into()
    } else {
        "expected lm-eval's samples JSONL (doc_id, doc, resps), an Inspect log (version, eval, samples) or promptfoo's results.json (evalId, results)".into()
    }
}

/// Reads several files given together: lm-eval samples files are paired with the results
/// JSON of the same run (the same `<time>` suffix, or the only results file given). Results
/// files are consumed that way; every other file is read on its own. Any refused file stops
/// the whole set (nothing is loaded half).
pub fn read_all(files: &[(String, Vec<u8>)]) -> Result<Vec<Log>, LogError> {
    let kinds: Vec<Option<Kind>> = files.iter().map(|(_, b)| detect(b)).collect();
    let results: Vec<usize> = (0..files.len()).filter(|&i| kinds[i] == Some(Kind::LmEvalResults)).collect();
    let mut logs = vec![];
    for (i, (name, bytes)) in files.iter().enumerate() {
        if kinds[i] == Some(Kind::LmEvalResults) {
            continue;
        }
        let companion = (kinds[i] == Some(Kind::LmEvalSamples))
            .then(|| lm_eval::companion_for(name, &results.iter().map(|&j| files[j].0.as_str()).collect::<Vec<_>>()))
            .flatten()
            .map(|k| (files[results[k]].0.as_str(), files[results[k]].1.as_slice()));
        logs.push(read(name, bytes, companion)?);
    }
    if logs.is_empty() && !results.is_empty() {
        return Err(read(&files[results[0]].0, &files[results[0]].1, None).unwrap_err());
    }
    distinguish_models(&mut logs);
    Ok(logs)
}

/// Two logs of one model name (lm-eval's dummy model run with two seeds, two mock runs) would
/// pool into one model: each such model is named with what tells the runs apart (the seed,
/// else the file).
pub fn distinguish_models(logs: &mut [Log]) {
    let mut owners: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, log) in logs.iter().enumerate() {
        for m in log.models() {
            owners.entry(m).or_default().push(i);
        }
    }
    for (model, at) in owners.into_iter().filter(|(_, at)| at.len() > 1) {
        let seeds: Vec<Option<&String>> = at.iter().map(|&i| logs[i].settings.get("seed")).collect();
        let distinct_seeds = seeds.iter().all(Option::is_some) && {
            let mut s: Vec<_> = seeds.iter().flatten().collect();
            s.sort();
            s.dedup();
            s.len() == at.len()
        };
        for &i in &at {
            let tag = if distinct_seeds {
                format!("seed {}", logs[i].settings["seed"])
            } else {
                stem(&logs[i].file).to_string()
            };
            let renamed = format!("{model} ({tag})");
            for s in logs[i].samples.iter_mut().filter(|s| s.model == model) {
                s.model = renamed.clone();
            }
            if logs[i].model == model {
                logs[i].model = renamed.clone();
            }
            logs[i].notes.push(format!(
                "model {model:?} is named {renamed:?} here: another log given with it has the same model name"
            ));
        }
    }
}

/// The file name without folders and extensions.
pub fn stem(file: &str) -> &str {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    base.split_once('.').map_or(base, |(s, _)| s)
}

/// Located problems gathered while reading one log; [`Problems::finish`] refuses the log when
/// there is any.
pub(crate) struct Problems {
    file: String,
    list: Vec<Problem>,
}

/// Past this many problems a log is surely not what its reader expects; the rest are counted.
const MAX_PROBLEMS: usize = 50;

impl Problems {
    pub(crate) fn new(file: &str) -> Problems {
        Problems { file: file.into(), list: vec![] }
    }

    /// A problem in `at` (a zip member, or empty) on `line` (0: none), in `field`.
    pub(crate) fn push(&mut self, at: &str, line: u64, field: &str, message: impl Into<String>) {
        if self.list.len() >= MAX_PROBLEMS {
            return;
        }
        let file = if at.is_empty() { self.file.clone() } else { format!("{} ({at})", self.file) };
        let mut p = Problem::new(&file, message);
        if line > 0 {
            p = p.at_line(line);
        }
        if !field.is_empty() {
            p = p.in_field(field);
        }
        self.list.push(p);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub(crate) fn finish<T>(self, value: T) -> Result<T, LogError> {
        if self.list.is_empty() { Ok(value) } else { Err(LogError::Invalid { file: self.file, problems: self.list }) }
    }
}

/// A JSON value as text: strings as they are, numbers and booleans as written, null as empty.
pub(crate) fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A JSON document, or its syntax error located. Python writes missing floats as bare `NaN`
/// (lm-eval's per-category bias scores, for one): those tokens read as null.
pub(crate) fn parse_json(p: &mut Problems, at: &str, bytes: &[u8]) -> Option<Value> {
    let text = match crate::formats::decode(at, bytes) {
        Ok(t) => t,
        Err(e) => {
            p.push(at, 0, "", e.to_string());
            return None;
        }
    };
    parse_text(p, at, 0, text)
}

/// One JSON text (a document, or a line of a JSONL file at `line`), as [`parse_json`].
pub(crate) fn parse_text(p: &mut Problems, at: &str, line: u64, text: &str) -> Option<Value> {
    let (text, _) = crate::formats::nonfinite::to_null(text);
    match serde_json::from_str::<Value>(&text) {
        Ok(v) => Some(v),
        Err(e) => {
            let what = if e.is_eof() { "the JSON ends early (a cut file?)" } else { "invalid JSON" };
            p.push(at, if line > 0 { line } else { e.line() as u64 }, "", format!("{what}: {e}"));
            None
        }
    }
}

/// The index of the largest finite value (the first of ties, as numpy's argmax).
pub fn argmax(values: &[f64]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, v) in values.iter().enumerate() {
        if v.is_finite() && best.is_none_or(|b| *v > values[b]) {
            best = Some(i);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argmax_takes_the_first_of_ties_and_skips_non_finite() {
        assert_eq!(argmax(&[-1.0, -0.5, -0.5]), Some(1));
        assert_eq!(argmax(&[f64::NAN, -3.0]), Some(1));
        assert_eq!(argmax(&[]), None);
    }

    #[test]
    fn other_files_are_not_logs() {
        assert_eq!(detect(b"record_id,response\n1,a\n"), None);
        assert_eq!(detect(br#"{"example_id": 1, "answer_info": {}}"#), None);
        assert_eq!(detect(b"PK\x03\x04garbage"), None);
        let e = read("x.csv", b"a,b\n", None).unwrap_err();
        assert!(e.to_string().starts_with("x.csv: not a log"), "{e}");
    }
}
