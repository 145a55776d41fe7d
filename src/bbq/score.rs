//! From predictions to results: read a predictions file, match each prediction to its
//! example, read the chosen option from the raw answer, and compute every metric.

use super::example::{Condition, Example};
use super::metrics::{self, BootstrapSettings, Breakdown, Judged};
use super::parse::{self, Parsed};
use crate::formats::{self, Problem};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One prediction as a file gave it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub id: String,
    /// The raw answer: an option index, a letter, option text, or free text.
    pub answer: String,
    pub model: String,
    pub variant: String,
    pub line: u64,
    /// The answer is the option with the highest log-likelihood, not generated text.
    #[serde(default)]
    pub by_likelihood: bool,
    /// The file it came from, so a problem names that file and not a made-up one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub file: String,
    /// The category of the row the prediction was made on, where the file carries one: it
    /// must agree with the example the prediction joins.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub category: String,
}

/// The index of the largest of a JSON array of numbers (per-option log-likelihoods).
fn argmax(v: &serde_json::Value) -> Option<usize> {
    let lls: Vec<f64> = v.as_array()?.iter().map(serde_json::Value::as_f64).collect::<Option<_>>()?;
    lls.iter().enumerate().filter(|(_, x)| x.is_finite()).max_by(|a, b| a.1.total_cmp(b.1)).map(|(i, _)| i)
}

const ID_KEYS: &[&str] = &["id", "example_id", "question_id", "sample_id", "case_id", "index"];
const ANSWER_KEYS: &[&str] = &["prediction", "pred", "pred_label", "answer", "response", "output"];

/// Reads predictions: a CSV/TSV/JSONL table with an id column and an answer column (and
/// optional model and variant), or an Evenhand record table (id = question_id, else
/// case_id; answer = response; variant = params.variant). Where a row gives per-option
/// log-likelihoods (`option_logprobs` in a table, `logprobs` in a record, a JSON array in
/// option order), the option with the highest one is the answer.
pub fn read_predictions(
    file: &str,
    bytes: &[u8],
    default_model: &str,
) -> Result<(Vec<Prediction>, Vec<Problem>), Problem> {
    let mut preds = vec![];
    let problems = scan_predictions(file, bytes, default_model, &mut |p| preds.push(p))?;
    Ok((preds, problems))
}

/// [`read_predictions`] one prediction at a time: `each` gets them in file order and none is
/// kept here, so a million rows are judged without a million predictions in memory (an
/// Evenhand record table is still loaded whole). The problems are those [`read_predictions`]
/// lists, in its order.
pub fn scan_predictions(
    file: &str,
    bytes: &[u8],
    default_model: &str,
    each: &mut dyn FnMut(Prediction),
) -> Result<Vec<Problem>, Problem> {
    let text = formats::decode(file, bytes).map_err(|e| Problem::new(file, e.to_string()))?;
    let header = text.lines().next().unwrap_or("");
    if header.contains("format_version") {
        let loaded = formats::load(file, bytes, None).map_err(|e| Problem::new(file, e.to_string()))?;
        for (i, r) in loaded.records.iter().enumerate() {
            let best = r.logprobs.as_ref().and_then(argmax);
            each(Prediction {
                id: if r.question_id.is_empty() { r.case_id.clone() } else { r.question_id.clone() },
                answer: best.map_or_else(|| r.response.clone(), |b| b.to_string()),
                by_likelihood: best.is_some(),
                category: String::new(),
                model: if r.model.is_empty() { default_model.to_string() } else { r.model.clone() },
                variant: r.params.get("variant").and_then(|v| v.as_str()).unwrap_or("").to_string(),
                line: i as u64 + 2,
                file: file.to_string(),
            });
        }
        return Ok(loaded.errors);
    }
    // Any table: each row goes through the JSON form so that CSV and JSONL share one path.
    // Bad rows are listed and skipped; the good ones are used. Problems of the file's syntax
    // come before those of its rows, as when the rows were all read first.
    let (mut early, mut late) = (vec![], vec![]);
    let find = |row: &serde_json::Map<String, serde_json::Value>, keys: &[&str]| {
        keys.iter().find_map(|k| row.get(*k)).map(|v| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    };
    let mut take = |line: u64, row: serde_json::Map<String, serde_json::Value>| {
        let best = row.get("option_logprobs").and_then(|v| match v {
            serde_json::Value::String(s) => serde_json::from_str(s).ok().as_ref().and_then(argmax),
            other => argmax(other),
        });
        // BBQ's released results: no answer column, but one `<model>_pred_<format>` column per model.
        if let (Some(id), None) = (find(&row, ID_KEYS), find(&row, ANSWER_KEYS)) {
            let columns: Vec<(&String, &str)> = row
                .iter()
                .filter(|(k, _)| super::import::is_prediction_column(k))
                .filter_map(|(k, v)| v.as_str().map(|a| (k, a)))
                .collect();
            if !columns.is_empty() {
                for (column, answer) in columns {
                    each(Prediction {
                        id: id.clone(),
                        answer: answer.to_string(),
                        by_likelihood: false,
                        category: String::new(),
                        model: column.clone(),
                        variant: String::new(),
                        line,
                        file: file.to_string(),
                    });
                }
                return;
            }
        }
        match (find(&row, ID_KEYS), best.map(|b| b.to_string()).or_else(|| find(&row, ANSWER_KEYS))) {
            (Some(id), Some(answer)) => each(Prediction {
                id,
                answer,
                by_likelihood: best.is_some(),
                category: String::new(),
                model: find(&row, &["model"]).unwrap_or_else(|| default_model.to_string()),
                variant: find(&row, &["variant", "prompt_variant"]).unwrap_or_default(),
                line,
                file: file.to_string(),
            }),
            (None, _) => {
                late.push(Problem::new(file, format!("expected an id column ({})", ID_KEYS.join(", "))).at_line(line))
            }
            (_, None) => late.push(
                Problem::new(file, format!("expected an answer column ({})", ANSWER_KEYS.join(", "))).at_line(line),
            ),
        }
    };
    if header.trim_start().starts_with('{') {
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            match serde_json::from_str(line) {
                Ok(serde_json::Value::Object(o)) => take(i as u64 + 1, o),
                _ => early.push(Problem::new(file, "expected a JSON object").at_line(i as u64 + 1)),
            }
        }
    } else {
        let delimiter = formats::csv_table::sniff_delimiter(text);
        let mut rdr = formats::csv_table::reader(file, text, delimiter, formats::csv_table::RowLength::Ragged)?;
        let headers: Vec<String> = rdr
            .headers()
            .map_err(|e| Problem::new(file, format!("CSV: {e}")))?
            .iter()
            .map(|h| h.trim().to_lowercase())
            .collect();
        let mut r = csv::StringRecord::new();
        loop {
            match rdr.read_record(&mut r) {
                Ok(true) => {
                    let line = r.position().map_or(0, |p| p.line());
                    let cells = r.iter().map(|c| serde_json::Value::String(c.to_string()));
                    take(line, headers.iter().cloned().zip(cells).collect());
                }
                Ok(false) => break,
                Err(e) => {
                    early.push(Problem::new(file, format!("CSV: {e}")).at_line(e.position().map_or(0, |p| p.line())))
                }
            }
        }
    }
    early.append(&mut late);
    Ok(early)
}

/// Predictions carried inside benchmark rows (BBQ result files, GG-BBQ or KoBBQ rows with a
/// `prediction` field), matched to the loaded examples by content, whatever the file names.
pub fn inline_predictions(examples: &[Example], rows: &super::import::Dataset, model: &str) -> Vec<Prediction> {
    let content = |e: &Example| format!("{}\u{1f}{}\u{1f}{}", e.context, e.question, e.choices.join("\u{1f}"));
    let by_content: HashMap<String, &str> = examples.iter().map(|e| (content(e), e.id.as_str())).collect();
    let row_content: HashMap<&str, String> = rows.examples.iter().map(|e| (e.id.as_str(), content(e))).collect();
    let row_category: HashMap<&str, &str> =
        rows.examples.iter().map(|e| (e.id.as_str(), e.category.as_str())).collect();
    rows.inline_predictions
        .iter()
        .map(|p| Prediction {
            id: row_content
                .get(p.id.as_str())
                .and_then(|c| by_content.get(c))
                .map_or_else(|| p.id.clone(), |found| found.to_string()),
            answer: p.answer.clone(),
            model: if p.model.is_empty() { model.to_string() } else { p.model.clone() },
            variant: String::new(),
            line: p.line,
            by_likelihood: false,
            category: row_category.get(p.id.as_str()).map(|c| c.to_string()).unwrap_or_default(),
            file: rows.file.clone(),
        })
        .collect()
}

/// What became of one example's answer, for the table of examples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub id: String,
    pub category: String,
    pub language: String,
    pub condition: Condition,
    pub model: String,
    pub variant: String,
    pub raw: String,
    pub parsed: Parsed,
    /// How the answer was read: index, letter, option text, unknown phrase, none.
    pub read_as: String,
    /// correct, biased, counter-biased, unknown or out of choice.
    pub outcome: String,
}

/// Reads the option an answer names: a bare index first, then the answer parser.
pub fn read_answer(ex: &Example, p: &Prediction) -> (Parsed, &'static str) {
    let answer = p.answer.as_str();
    match answer.trim().parse::<usize>() {
        Ok(i) if i < ex.choices.len() && p.by_likelihood => (Parsed::Choice(i), "likelihood"),
        Ok(i) if i < ex.choices.len() => (Parsed::Choice(i), "index"),
        _ => parse::parse_answer(answer, &ex.choices, ex.unknown, &ex.language),
    }
}

/// What a reading of an answer means for the example: correct, biased, counter-biased, unknown or out of choice.
pub fn outcome(ex: &Example, p: Parsed) -> &'static str {
    match p {
        Parsed::OutOfChoice => "out of choice",
        Parsed::Choice(i) if i == ex.label => "correct",
        Parsed::Choice(i) if Some(i) == ex.biased => "biased",
        Parsed::Choice(i) if Some(i) == ex.counter_biased => "counter-biased",
        Parsed::Choice(_) => "unknown",
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Matched {
    pub judged: Vec<Judged>,
    pub rows: Vec<Row>,
    /// Predictions that were not used: their id names no loaded example, or repeats one.
    pub unmatched: Vec<Problem>,
    /// Examples with no prediction (per model).
    pub missing: usize,
    /// Predictions joined by id that do not fit their example: a label index it does not have,
    /// an answer text that is none of its answers, or another category. Their count, and the
    /// first few with the reason (see [`Matched::refuse_misfits`]).
    #[serde(default)]
    pub misfits: usize,
    #[serde(default)]
    pub first_misfits: Vec<Problem>,
}

/// How many misfits [`Matched`] keeps to name.
const MISFITS_NAMED: usize = 3;

/// A join where most answers do not fit their examples is refused: the predictions were made
/// on other data (English BBQ predictions joined by id onto German GG-BBQ examples).
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
#[error(
    "{file}: {misfits} of {joined} predictions joined by id do not fit their example, so they were made on other data; nothing was loaded. First: {}",
    first.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; ")
)]
pub struct Misfit {
    pub file: String,
    pub misfits: usize,
    pub joined: usize,
    pub first: Vec<Problem>,
}

impl Matched {
    /// Refuses a join where more than half of the predictions joined do not fit.
    pub fn refuse_misfits(&self, file: &str) -> Result<(), Misfit> {
        let joined = self.judged.len();
        if joined > 0 && self.misfits * 2 > joined {
            return Err(Misfit { file: file.into(), misfits: self.misfits, joined, first: self.first_misfits.clone() });
        }
        Ok(())
    }

    /// Drops the answers of `models` and takes `new`'s in their place; `missing` is recounted.
    pub fn replace_models(&mut self, models: &std::collections::HashSet<String>, new: Matched, examples: usize) {
        self.judged.retain(|j| !models.contains(&j.model));
        self.rows.retain(|r| !models.contains(&r.model));
        self.judged.extend(new.judged);
        self.rows.extend(new.rows);
        self.unmatched.extend(new.unmatched);
        self.misfits += new.misfits;
        self.first_misfits.extend(new.first_misfits);
        self.first_misfits.truncate(MISFITS_NAMED);
        let mut per_model: HashMap<&str, usize> = HashMap::new();
        for j in &self.judged {
            *per_model.entry(j.model.as_str()).or_default() += 1;
        }
        self.missing = per_model.values().map(|n| examples.saturating_sub(*n)).sum();
    }
}

/// Why a prediction joined to `ex` by id does not fit it, if it does not: a label index the
/// example does not have, an answer text that is none of its answers (nor an "unknown"
/// phrase), or a category that differs where both carry one.
fn misfit(ex: &Example, p: &Prediction, parsed: Parsed) -> Option<String> {
    let answer = p.answer.trim();
    if !p.category.is_empty() && !ex.category.is_empty() && !p.category.eq_ignore_ascii_case(&ex.category) {
        return Some(format!("made on category {:?}, joined to an example of {:?}", p.category, ex.category));
    }
    match (answer.parse::<usize>(), parsed) {
        (Ok(i), _) if i >= ex.choices.len() => {
            Some(format!("label index {i} does not exist (the example has {} answers)", ex.choices.len()))
        }
        (Err(_), Parsed::OutOfChoice) if !answer.is_empty() => {
            Some(format!("answer {answer:?} is none of the example's answers ({})", ex.choices.join(" / ")))
        }
        _ => None,
    }
}

/// Matches predictions to examples by id; a bare id (the part after ':') is accepted when
/// it names exactly one example.
/// `file` names predictions that do not carry their own file (the simulated model's).
pub fn judge(examples: &[Example], predictions: &[Prediction], file: &str) -> Matched {
    let mut judge = Judge::new(examples, file, true);
    for p in predictions {
        judge.take(p);
    }
    judge.finish()
}

/// [`judge`] one prediction at a time, for predictions read as a stream. Without the table of
/// examples (`rows`), what it keeps per answer is a [`Judged`]: the metrics need no more.
pub struct Judge<'e> {
    examples: &'e [Example],
    file: String,
    rows: bool,
    by_id: HashMap<&'e str, usize>,
    by_bare: HashMap<&'e str, Option<usize>>,
    /// Each model once; its index keys the two tables below.
    models: HashMap<String, usize>,
    /// Examples answered so far, per model.
    answered: Vec<usize>,
    /// (model, example) pairs answered: one answer per model and example.
    done: std::collections::HashSet<(usize, usize)>,
    m: Matched,
}

impl<'e> Judge<'e> {
    pub fn new(examples: &'e [Example], file: &str, rows: bool) -> Judge<'e> {
        let mut by_id: HashMap<&str, usize> = HashMap::new();
        let mut by_bare: HashMap<&str, Option<usize>> = HashMap::new();
        for (i, e) in examples.iter().enumerate() {
            by_id.insert(e.id.as_str(), i);
            let bare = e.id.rsplit(':').next().unwrap_or(&e.id);
            by_bare.entry(bare).and_modify(|v| *v = None).or_insert(Some(i));
        }
        Judge {
            examples,
            file: file.to_string(),
            rows,
            by_id,
            by_bare,
            models: HashMap::new(),
            answered: vec![],
            done: Default::default(),
            m: Matched::default(),
        }
    }

    pub fn take(&mut self, p: &Prediction) {
        let from = || -> String { if p.file.is_empty() { self.file.clone() } else { p.file.clone() } };
        let found =
            self.by_id.get(p.id.as_str()).copied().or_else(|| self.by_bare.get(p.id.as_str()).copied().flatten());
        let Some(i) = found else {
            let why = if self.by_bare.contains_key(p.id.as_str()) {
                "names several examples; use the full id"
            } else {
                "names no loaded example"
            };
            let problem =
                Problem::new(&from(), format!("prediction id {:?} {why}", p.id)).at_line(p.line).in_field("id");
            self.m.unmatched.push(problem);
            return;
        };
        let model = match self.models.get(p.model.as_str()) {
            Some(&k) => k,
            None => {
                self.models.insert(p.model.clone(), self.answered.len());
                self.answered.push(0);
                self.answered.len() - 1
            }
        };
        // One answer per model and example: a repeat is reported, the first one counts.
        if !self.done.insert((model, i)) {
            let why = format!("a second prediction for {:?} by model {:?}; the first one is used", p.id, p.model);
            let problem = Problem::new(&from(), why).at_line(p.line).in_field("id");
            self.m.unmatched.push(problem);
            return;
        }
        self.answered[model] += 1;
        let ex = &self.examples[i];
        let (parsed, read_as) = read_answer(ex, p);
        if let Some(why) = misfit(ex, p, parsed) {
            self.m.misfits += 1;
            if self.m.first_misfits.len() < MISFITS_NAMED {
                let problem = Problem::new(&from(), format!("prediction {:?}: {why}", p.id)).at_line(p.line);
                self.m.first_misfits.push(problem);
            }
        }
        self.m.judged.push(Judged {
            example: i,
            prediction: match parsed {
                Parsed::Choice(c) => Some(c),
                Parsed::OutOfChoice => None,
            },
            model: p.model.clone(),
            variant: p.variant.clone(),
        });
        if self.rows {
            self.m.rows.push(Row {
                id: ex.id.clone(),
                category: ex.category.clone(),
                language: ex.language.clone(),
                condition: ex.condition,
                model: p.model.clone(),
                variant: p.variant.clone(),
                raw: p.answer.clone(),
                parsed,
                read_as: read_as.to_string(),
                outcome: outcome(ex, parsed).to_string(),
            });
        }
    }

    /// The answers judged so far (a prediction taken raises it; an unmatched one does not).
    pub fn taken(&self) -> usize {
        self.m.judged.len()
    }

    /// Every answer taken, with the count of examples left unanswered per model.
    pub fn finish(mut self) -> Matched {
        self.m.missing = self.answered.iter().map(|n| self.examples.len().saturating_sub(*n)).sum();
        self.m
    }
}

/// Every metric, overall and per breakdown field that has more than one value.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub examples: usize,
    pub judged: usize,
    pub overall: Breakdown,
    pub by: Vec<(String, Vec<Breakdown>)>,
    /// Examples whose biased answer could not be decided, with the reason.
    pub unresolved: Vec<(String, String)>,
    pub unmatched_predictions: Vec<Problem>,
    pub missing_predictions: usize,
    pub bootstrap: BootstrapSettings,
}

pub fn report(examples: &[Example], m: &Matched, settings: &BootstrapSettings) -> Report {
    let overall =
        metrics::breakdown(examples, &m.judged, &[], settings).into_iter().next().unwrap_or_else(empty_breakdown);
    let by = metrics::BREAKDOWNS
        .iter()
        .map(|f| (f.to_string(), metrics::breakdown(examples, &m.judged, &[f.to_string()], settings)))
        .filter(|(_, b)| b.len() > 1)
        .collect();
    Report {
        examples: examples.len(),
        judged: m.judged.len(),
        overall,
        by,
        unresolved: examples
            .iter()
            .filter(|e| e.biased.is_none())
            .map(|e| (e.id.clone(), e.bias_audit.clone()))
            .collect(),
        unmatched_predictions: m.unmatched.clone(),
        missing_predictions: m.missing,
        bootstrap: settings.clone(),
    }
}

fn empty_breakdown() -> Breakdown {
    let none = metrics::Estimate { value: None, low: None, high: None };
    let counts = metrics::Counts::default();
    Breakdown {
        key: vec![],
        label: "all".into(),
        scores: metrics::scores(&counts),
        counts,
        acc_amb: none,
        acc_dis: none,
        diff_bias_amb: none,
        diff_bias_dis: none,
        s_dis: none,
        s_amb: none,
        units: 0,
    }
}
