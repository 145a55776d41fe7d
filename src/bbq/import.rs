//! Reading bias-QA datasets into [`Example`]s: BBQ jsonl (every field), GG-BBQ jsonl (its
//! Python-literal `choice_info` and JSON-string `known_stereotyped_groups`), and KoBBQ-style
//! tables (sample_id, context, question, choices, biased_answer, answer). Bad rows are listed
//! with their line and field; the good ones load.

use super::bias;
use super::example::{Condition, Example, Polarity, Subset};
use super::pyliteral::{self, Py};
use crate::formats::{Problem, decode};
use serde::Serialize;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    Bbq,
    Ggbbq,
    Kobbq,
    /// An Evenhand record table whose rows carry choices, gold and the BBQ columns below.
    Records,
}

/// What a data file gave: its examples, any predictions it carries, and the rows it could not read.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Dataset {
    pub file: String,
    pub examples: Vec<Example>,
    /// Answers found in the file itself (BBQ result files, KoBBQ tables, record tables).
    pub inline_predictions: Vec<InlinePrediction>,
    pub problems: Vec<Problem>,
}

impl Dataset {
    /// Examples whose biased answer could not be decided, with the audit line of each.
    pub fn unresolved(&self) -> impl Iterator<Item = &Example> {
        self.examples.iter().filter(|e| e.biased.is_none())
    }
}

/// An answer a data row carries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InlinePrediction {
    pub id: String,
    pub answer: String,
    /// Empty when the file does not say (the caller names the model after the file).
    pub model: String,
    /// The line of the row, for problems found when the answer is matched.
    pub line: u64,
}

impl InlinePrediction {
    fn new(id: &str, answer: impl Into<String>, model: impl Into<String>, line: u64) -> InlinePrediction {
        InlinePrediction { id: id.to_string(), answer: answer.into(), model: model.into(), line }
    }
}

/// The file name without folders and extension, used to namespace example ids.
pub fn stem(file: &str) -> &str {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    base.split_once('.').map_or(base, |(s, _)| s)
}

/// A column of BBQ's released predictions (`results/UnifiedQA/preds_<Category>.jsonl`):
/// `<model>_pred_<prompt format>`, e.g. `unifiedqa-t5-11b_pred_race`. Each is read as one
/// model, named by the column.
pub fn is_prediction_column(key: &str) -> bool {
    key.split_once("_pred_").is_some_and(|(model, format)| !model.is_empty() && !format.is_empty())
}

/// Guesses the format from the first non-empty line.
pub fn detect(text: &str) -> Option<Format> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    if first.contains("\"answer_info\"") {
        Some(Format::Bbq)
    } else if first.contains("\"choice_info\"") {
        Some(Format::Ggbbq)
    } else if first.contains("sample_id") && first.contains("biased_answer") {
        Some(Format::Kobbq)
    } else if first.contains("format_version") && first.contains("choices") {
        Some(Format::Records)
    } else {
        None
    }
}

/// Reads a data file; `format` None means detect it.
pub fn read(file: &str, bytes: &[u8], format: Option<Format>, language: Option<&str>) -> Result<Dataset, Problem> {
    let text = decode(file, bytes).map_err(|e| Problem::new(file, e.to_string()))?;
    let format = format.or_else(|| detect(text)).ok_or_else(|| {
        Problem::new(file, "expected BBQ jsonl (with answer_info), GG-BBQ jsonl (with choice_info) or a KoBBQ-style table (with sample_id and biased_answer)")
    })?;
    let mut ds = Dataset { file: file.into(), ..Dataset::default() };
    match format {
        Format::Bbq | Format::Ggbbq => {
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let at = i as u64 + 1;
                let obj = match serde_json::from_str::<Value>(line) {
                    Ok(Value::Object(obj)) => obj,
                    Ok(_) => {
                        ds.problems.push(Problem::new(file, "expected a JSON object").at_line(at));
                        continue;
                    }
                    Err(e) => {
                        ds.problems.push(
                            Problem::new(file, format!("invalid JSON: {e}")).at_line(at).at_column(e.column() as u64),
                        );
                        continue;
                    }
                };
                let row = Row { file, line: at, obj: &obj };
                let result = if format == Format::Bbq {
                    row.bbq(language.unwrap_or("en"))
                } else {
                    row.ggbbq(language.unwrap_or("de"))
                };
                match result {
                    Ok(mut ex) => {
                        bias::assign(&mut ex);
                        if let Some(p) = obj.get("prediction").and_then(Value::as_str) {
                            ds.inline_predictions.push(InlinePrediction::new(&ex.id, p, "", at));
                        }
                        // BBQ's released results: one column of answer text per model and prompt format.
                        for (key, value) in obj.iter().filter(|(k, _)| is_prediction_column(k)) {
                            if let Some(p) = value.as_str() {
                                ds.inline_predictions.push(InlinePrediction::new(&ex.id, p, key.as_str(), at));
                            }
                        }
                        ds.examples.push(ex);
                    }
                    Err(p) => ds.problems.push(p),
                }
            }
        }
        Format::Kobbq => kobbq(file, text, language.unwrap_or("ko"), &mut ds),
        Format::Records => records(file, bytes, &mut ds),
    }
    Ok(ds)
}

/// One BBQ row (as BBQ's jsonl has it) as an example with its biased answer decided: for rows
/// that arrive inside other files (a harness log's documents), located by `file` and `line`.
pub fn bbq_row(file: &str, line: u64, obj: &Map<String, Value>, language: &str) -> Result<Example, Problem> {
    let mut ex = Row { file, line, obj }.bbq(language)?;
    bias::assign(&mut ex);
    Ok(ex)
}

struct Row<'a> {
    file: &'a str,
    line: u64,
    obj: &'a Map<String, Value>,
}

impl Row<'_> {
    fn problem(&self, field: &str, message: impl Into<String>) -> Problem {
        Problem::new(self.file, message).at_line(self.line).in_field(field)
    }

    fn text(&self, field: &str) -> Result<String, Problem> {
        match self.obj.get(field) {
            Some(Value::String(s)) => Ok(s.trim().to_string()),
            Some(Value::Number(n)) => Ok(n.to_string()),
            Some(other) => Err(self.problem(field, format!("expected text, found {other}"))),
            None => Err(self.problem(field, "missing")),
        }
    }

    fn index(&self, field: &str, choices: usize) -> Result<usize, Problem> {
        match self.obj.get(field).and_then(Value::as_u64) {
            Some(n) if (n as usize) < choices => Ok(n as usize),
            _ => Err(self.problem(field, format!("expected an answer index from 0 to {}", choices.saturating_sub(1)))),
        }
    }

    fn pick<T: Copy>(&self, field: &str, options: &[(&str, T)]) -> Result<T, Problem> {
        let v = self.text(field)?;
        options.iter().find(|(name, _)| *name == v).map(|(_, t)| *t).ok_or_else(|| {
            let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
            self.problem(field, format!("expected one of {}, found {v:?}", names.join(", ")))
        })
    }

    fn bbq(&self, language: &str) -> Result<Example, Problem> {
        let category = self.text("category")?;
        let choices: Vec<String> = (0..3).map(|i| self.text(&format!("ans{i}"))).collect::<Result<_, _>>()?;
        let info = self
            .obj
            .get("answer_info")
            .and_then(Value::as_object)
            .ok_or_else(|| self.problem("answer_info", "expected an object of ans0..ans2"))?;
        let mut groups = vec![];
        let mut names = 0;
        for i in 0..3 {
            let pair = info.get(&format!("ans{i}")).and_then(Value::as_array);
            let (Some(text), Some(group)) = (
                pair.and_then(|p| p.first()).and_then(Value::as_str),
                pair.and_then(|p| p.get(1)).and_then(Value::as_str),
            ) else {
                return Err(self.problem("answer_info", format!("expected ans{i} as [text, group]")));
            };
            // A proper-name option shows a capitalised name whose group code is something else.
            if group != "unknown"
                && text.chars().next().is_some_and(char::is_uppercase)
                && !text.contains(' ')
                && !text.eq_ignore_ascii_case(group)
            {
                names += 1;
            }
            groups.push(group.to_string());
        }
        let stereotyped = self
            .obj
            .get("additional_metadata")
            .and_then(|m| m.get("stereotyped_groups"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(String::from).collect())
            .ok_or_else(|| self.problem("additional_metadata.stereotyped_groups", "expected a list of groups"))?;
        let id = self.text("example_id")?;
        let metadata = self
            .obj
            .get("additional_metadata")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter(|(k, _)| k.as_str() != "stereotyped_groups")
                    .map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), String::from)))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Example {
            metadata,
            id: format!("{category}:{id}"),
            subset: if names == 2 { Subset::ProperNames } else { Subset::GroupTerms },
            language: language.into(),
            template_id: format!("{category}:{}", self.text("question_index")?),
            polarity: self
                .pick("question_polarity", &[("neg", Polarity::Negative), ("nonneg", Polarity::NonNegative)])?,
            condition: self.pick(
                "context_condition",
                &[("ambig", Condition::Ambiguous), ("disambig", Condition::Disambiguated)],
            )?,
            context: self.text("context")?,
            question: self.text("question")?,
            label: self.index("label", 3)?,
            unknown: groups.iter().position(|g| g == "unknown"),
            choice_groups: groups,
            choices,
            stereotyped_groups: stereotyped,
            category,
            biased: None,
            counter_biased: None,
            bias_audit: String::new(),
        })
    }

    fn ggbbq(&self, language: &str) -> Result<Example, Problem> {
        let choices: Vec<String> = (0..3).map(|i| self.text(&format!("choice_{i}"))).collect::<Result<_, _>>()?;
        let info_text = self.text("choice_info")?;
        let info =
            pyliteral::parse(&info_text).map_err(|e| self.problem("choice_info", format!("Python literal {e}")))?;
        let mut groups = vec![String::new(); 3];
        let Py::Dict(pairs) = info else {
            return Err(self.problem("choice_info", "expected a dict such as {0: ['Der Mann', 'M'], ...}"));
        };
        for (k, v) in pairs {
            match (k, v) {
                (Py::Int(i @ 0..=2), Py::List(items)) if items.len() == 2 => {
                    if let Py::Str(code) = &items[1] {
                        groups[i as usize] = code.trim().to_string();
                    }
                }
                _ => {
                    return Err(self.problem("choice_info", "expected entries like 0: ['text', 'code']"));
                }
            }
        }
        let stereo_text = self.text("known_stereotyped_groups")?;
        let stereotyped: Vec<String> = serde_json::from_str(&stereo_text).map_err(|_| {
            self.problem(
                "known_stereotyped_groups",
                format!("expected a JSON list such as [\"F\"], found {stereo_text:?}"),
            )
        })?;
        let stem = stem(self.file);
        let index = self.text("index")?;
        let metadata = self
            .obj
            .get("relevant_social_values")
            .and_then(Value::as_str)
            .map(|v| [("relevant_social_values".to_string(), v.to_string())].into_iter().collect())
            .unwrap_or_default();
        Ok(Example {
            metadata,
            id: format!("{stem}:{index}"),
            category: "Gender_identity".into(),
            subset: if stem.contains("proper_names") { Subset::ProperNames } else { Subset::GroupTerms },
            language: language.into(),
            // The amb and disamb files are row-aligned by index: one template fill, two contexts.
            template_id: format!("{}:{index}", stem.replace("_disamb", "").replace("_amb", "")),
            polarity: self
                .pick("question_type", &[("negative", Polarity::Negative), ("non_negative", Polarity::NonNegative)])?,
            condition: self.pick(
                "context_type",
                &[("ambiguous_context", Condition::Ambiguous), ("disambiguous_context", Condition::Disambiguated)],
            )?,
            context: self.text("context")?,
            question: self.text("question")?,
            label: self.index("label", 3)?,
            unknown: groups.iter().position(|g| g == "unknown"),
            choice_groups: groups,
            choices,
            stereotyped_groups: stereotyped,
            biased: None,
            counter_biased: None,
            bias_audit: String::new(),
        })
    }
}

/// KoBBQ-style tables: the biased answer is given as text, so no group codes are needed.
/// sample_id encodes `{cat}-{template}{a|b|c|d}-{n}-{amb|dis}-{bsd|cnt}`.
fn kobbq(file: &str, text: &str, language: &str, ds: &mut Dataset) {
    let delimiter = crate::formats::csv_table::sniff_delimiter(text);
    let mut rdr =
        match crate::formats::csv_table::reader(file, text, delimiter, crate::formats::csv_table::RowLength::Ragged) {
            Ok(r) => r,
            Err(p) => return ds.problems.push(p),
        };
    let headers: Vec<String> = match rdr.headers() {
        Ok(h) => h.iter().map(|s| s.trim().to_string()).collect(),
        Err(e) => {
            ds.problems.push(Problem::new(file, format!("CSV: {e}")));
            return;
        }
    };
    let col = |name: &str| headers.iter().position(|h| h == name);
    let (Some(c_id), Some(c_ctx), Some(c_q), Some(c_choices), Some(c_biased), Some(c_answer)) =
        (col("sample_id"), col("context"), col("question"), col("choices"), col("biased_answer"), col("answer"))
    else {
        ds.problems
            .push(Problem::new(file, "expected columns sample_id, context, question, choices, biased_answer, answer"));
        return;
    };
    let c_pred = col("prediction");
    let mut rows = vec![];
    for result in rdr.records() {
        match result {
            Ok(r) => rows.push(r),
            Err(e) => {
                ds.problems.push(Problem::new(file, format!("CSV: {e}")).at_line(e.position().map_or(0, |p| p.line())))
            }
        }
    }
    // The unknown option is the answer of the ambiguous rows; learn it from them.
    let unknown_texts: std::collections::HashSet<String> = rows
        .iter()
        .filter(|r| r.get(c_id).is_some_and(|id| id.contains("-amb-")))
        .filter_map(|r| r.get(c_answer).map(|a| a.trim().to_string()))
        .collect();
    for r in &rows {
        let line = r.position().map_or(0, |p| p.line());
        let get = |c: usize| r.get(c).unwrap_or("").trim().to_string();
        let problem = |field: &str, msg: String| Problem::new(file, msg).at_line(line).in_field(field);
        let id = get(c_id);
        let parts: Vec<&str> = id.split('-').collect();
        let (Some(cond), Some(pol)) = (parts.iter().rev().nth(1), parts.last()) else {
            ds.problems.push(problem(
                "sample_id",
                format!("expected {{cat}}-{{template}}-{{n}}-amb|dis-bsd|cnt, found {id:?}"),
            ));
            continue;
        };
        let condition = match *cond {
            "amb" => Condition::Ambiguous,
            "dis" => Condition::Disambiguated,
            _ => {
                ds.problems.push(problem("sample_id", format!("expected amb or dis in {id:?}")));
                continue;
            }
        };
        let polarity = match *pol {
            "bsd" => Polarity::Negative,
            "cnt" => Polarity::NonNegative,
            _ => {
                ds.problems.push(problem("sample_id", format!("expected bsd or cnt at the end of {id:?}")));
                continue;
            }
        };
        let choices: Vec<String> = match pyliteral::parse(&get(c_choices)) {
            Ok(Py::List(items)) => items
                .into_iter()
                .filter_map(|p| if let Py::Str(s) = p { Some(s.trim().to_string()) } else { None })
                .collect(),
            _ => match serde_json::from_str::<Vec<String>>(&get(c_choices)) {
                Ok(v) => v.into_iter().map(|s| s.trim().to_string()).collect(),
                Err(_) => {
                    ds.problems.push(problem("choices", "expected a list of answer texts".into()));
                    continue;
                }
            },
        };
        let find = |text: &str| choices.iter().position(|c| c == text.trim());
        let (Some(label), Some(biased)) = (find(&get(c_answer)), find(&get(c_biased))) else {
            ds.problems.push(problem("answer", "expected answer and biased_answer to be among the choices".into()));
            continue;
        };
        let unknown = choices.iter().position(|c| unknown_texts.contains(c));
        let counter = (0..choices.len()).find(|&i| i != biased && Some(i) != unknown);
        let template = parts.get(1).map(|t| t.trim_end_matches(['a', 'b', 'c', 'd'])).unwrap_or("");
        let ex = Example {
            id: format!("{}:{id}", stem(file)),
            category: parts.first().unwrap_or(&"").to_string(),
            subset: Subset::GroupTerms,
            language: language.into(),
            template_id: format!("{}-{template}", parts.first().unwrap_or(&"")),
            polarity,
            condition,
            context: get(c_ctx),
            question: get(c_q),
            choice_groups: (0..choices.len())
                .map(|i| {
                    if Some(i) == unknown {
                        "unknown".into()
                    } else if i == biased {
                        "biased".into()
                    } else {
                        "counter".into()
                    }
                })
                .collect(),
            choices,
            label,
            stereotyped_groups: vec![],
            unknown,
            biased: Some(biased),
            counter_biased: counter,
            metadata: Default::default(),
            bias_audit: if unknown.is_some() {
                "given by the biased_answer column".into()
            } else {
                "given by biased_answer; no ambiguous row names the unknown option".into()
            },
        };
        if let Some(p) = c_pred.map(get).filter(|p| !p.is_empty()) {
            ds.inline_predictions.push(InlinePrediction::new(&ex.id, p, "", line));
        }
        ds.examples.push(ex);
    }
}

/// Record tables of a bias-QA run: one row per question x model x sample, with `choices`,
/// `gold`, `question_id` (the example id), `concern` (the category), `language`,
/// `template_id`, and extra columns `condition` (ambiguous | disambiguated), `polarity`
/// (negative | non_negative), `biased` and `unknown` (option indexes; `counter_biased` is
/// the remaining option). Each row's response becomes a prediction of its model.
fn records(file: &str, bytes: &[u8], ds: &mut Dataset) {
    let loaded = match crate::formats::load(file, bytes, None) {
        Ok(l) => l,
        Err(e) => {
            ds.problems.push(Problem::new(file, e.to_string()));
            return;
        }
    };
    ds.problems.extend(loaded.errors);
    let mut seen = std::collections::HashSet::new();
    for (n, r) in loaded.records.iter().enumerate() {
        let line = n as u64 + 2;
        let problem = |field: &str, msg: &str| Problem::new(file, msg).at_line(line).in_field(field);
        let extra = |k: &str| r.extra.get(k).map(|v| v.trim()).unwrap_or("");
        let index = |k: &str| extra(k).parse::<usize>().ok().filter(|&i| i < r.choices.len());
        let id = if r.question_id.is_empty() { r.case_id.clone() } else { r.question_id.clone() };
        let condition = match extra("condition") {
            "ambiguous" | "ambig" => Condition::Ambiguous,
            "disambiguated" | "disambig" => Condition::Disambiguated,
            _ => {
                ds.problems.push(problem("condition", "expected ambiguous or disambiguated"));
                continue;
            }
        };
        let polarity = match extra("polarity") {
            "negative" | "neg" => Polarity::Negative,
            "non_negative" | "nonneg" => Polarity::NonNegative,
            _ => {
                ds.problems.push(problem("polarity", "expected negative or non_negative"));
                continue;
            }
        };
        let (Some(label), Some(biased)) =
            (r.gold.map(|g| g as usize).filter(|&g| g < r.choices.len()), index("biased"))
        else {
            ds.problems.push(problem("gold", "expected gold and biased to be option indexes into choices"));
            continue;
        };
        let unknown = index("unknown");
        ds.inline_predictions.push(InlinePrediction::new(&id, r.response.as_str(), r.model.as_str(), line));
        if !seen.insert(id.clone()) {
            continue; // the same question asked again (another model or sample)
        }
        ds.examples.push(Example {
            id,
            category: r.concern.clone(),
            subset: if extra("subset") == "proper_names" { Subset::ProperNames } else { Subset::GroupTerms },
            language: r.language.clone(),
            template_id: r.template_id.clone(),
            polarity,
            condition,
            context: extra("context").to_string(),
            question: r.prompt.clone(),
            choice_groups: (0..r.choices.len())
                .map(|i| {
                    if Some(i) == unknown {
                        "unknown".into()
                    } else if i == biased {
                        "biased".into()
                    } else {
                        "counter".into()
                    }
                })
                .collect(),
            counter_biased: (0..r.choices.len()).find(|&i| i != biased && Some(i) != unknown),
            choices: r.choices.clone(),
            label,
            stereotyped_groups: vec![],
            unknown,
            biased: Some(biased),
            metadata: Default::default(),
            bias_audit: "given by the record's biased column".into(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BBQ_LINE: &str = r#"{"example_id": 7, "question_index": "3", "question_polarity": "nonneg", "context_condition": "disambig", "category": "Sexual_orientation", "answer_info": {"ans0": ["lesbian", "lesbian"], "ans1": ["Not known", "unknown"], "ans2": ["gay", "gay"]}, "additional_metadata": {"subcategory": "None", "stereotyped_groups": ["gay"], "version": "None", "source": "x"}, "context": "c", "question": "q", "ans0": "The lesbian woman", "ans1": "Not known", "ans2": "The gay man", "label": 2}"#;

    #[test]
    fn bbq_rows_become_examples_with_their_biased_answer() {
        let ds = read("Sexual_orientation.jsonl", BBQ_LINE.as_bytes(), None, None).unwrap();
        assert!(ds.problems.is_empty(), "{:?}", ds.problems);
        let e = &ds.examples[0];
        assert_eq!((e.id.as_str(), e.template_id.as_str()), ("Sexual_orientation:7", "Sexual_orientation:3"));
        assert_eq!(
            (e.polarity, e.condition, e.label, e.unknown),
            (Polarity::NonNegative, Condition::Disambiguated, 2, Some(1))
        );
        assert_eq!((e.biased, e.counter_biased), (Some(0), Some(2)));
        assert_eq!(e.metadata.get("source"), Some("x"), "BBQ metadata is kept");
    }

    #[test]
    fn ggbbq_rows_parse_their_python_literals() {
        let line = r#"{"index": 3, "context": "c", "question": "q", "label": 1, "choice_0": "Der Mann", "choice_1": "Die Transperson ", "choice_2": "keine Antwort", "question_type": "negative", "context_type": "disambiguous_context", "known_stereotyped_groups": "[\"Transgender women\", \"trans\"]", "relevant_social_values": "v", "choice_info": "{0: ['Der Mann', 'M'], 1: ['Die Transperson ', 'non_binary'], 2: ['keine Antwort', 'unknown']}"}"#;
        let ds = read("data/bbq_de_disamb_test.jsonl", line.as_bytes(), None, None).unwrap();
        let e = &ds.examples[0];
        assert_eq!(e.choices[1], "Die Transperson");
        assert_eq!((e.biased, e.unknown, e.template_id.as_str()), (Some(1), Some(2), "bbq_de_test:3"));
    }

    #[test]
    fn bad_rows_are_located_and_good_ones_kept() {
        let text = format!(
            "{BBQ_LINE}\n{{\"example_id\": 1}}\nnot json\n{}\n",
            BBQ_LINE.replace("\"label\": 2", "\"label\": 5")
        );
        let ds = read("x.jsonl", text.as_bytes(), Some(Format::Bbq), None).unwrap();
        assert_eq!(ds.examples.len(), 1);
        let lines: Vec<u64> = ds.problems.iter().map(|p| p.line.unwrap()).collect();
        assert_eq!(lines, [2, 3, 4]);
        assert_eq!(ds.problems[2].field.as_deref(), Some("label"));
        assert!(read("x.txt", b"hello", None, None).is_err());
    }

    #[test]
    fn kobbq_tables_use_their_biased_answer_column() {
        let tsv = "sample_id\tcontext\tquestion\tchoices\tbiased_answer\tanswer\tprediction\n\
                   age-001a-001-amb-bsd\tc\tq\t['노인', '젊은이', '알 수 없음']\t노인\t알 수 없음\t노인\n\
                   age-001b-001-dis-cnt\tc d\tq2\t['노인', '젊은이', '알 수 없음']\t젊은이\t노인\t\n";
        let ds = read("KoBBQ_test.tsv", tsv.as_bytes(), None, None).unwrap();
        assert!(ds.problems.is_empty(), "{:?}", ds.problems);
        assert_eq!(ds.examples.len(), 2);
        let dis = &ds.examples[1];
        assert_eq!(
            (dis.condition, dis.polarity, dis.label, dis.biased, dis.unknown),
            (Condition::Disambiguated, Polarity::NonNegative, 0, Some(1), Some(2))
        );
        assert_eq!(ds.inline_predictions, [InlinePrediction::new("KoBBQ_test:age-001a-001-amb-bsd", "노인", "", 2)]);
    }

    #[test]
    fn released_prediction_columns_are_one_model_each() {
        assert!(is_prediction_column("unifiedqa-t5-11b_pred_race"));
        assert!(
            !is_prediction_column("_pred_race")
                && !is_prediction_column("model_pred_")
                && !is_prediction_column("prediction")
        );
        let row = r#"{"example_id": 7, "question_index": "2", "question_polarity": "neg", "context_condition": "ambig", "category": "Age", "answer_info": {"ans0": ["old man", "old"], "ans1": ["boy", "nonOld"], "ans2": ["Unknown", "unknown"]}, "additional_metadata": {"stereotyped_groups": ["old"]}, "context": "c", "question": "q", "ans0": "The old man", "ans1": "The boy", "ans2": "Unknown", "label": 2, "m_pred_race": "unknown", "m_pred_arc": "the boy", "m_pred_qonly": null}"#;
        let text = format!("\n{row}\n");
        let ds = read("preds_Age.jsonl", text.as_bytes(), None, None).unwrap();
        let got: Vec<(&str, &str, u64)> =
            ds.inline_predictions.iter().map(|p| (p.model.as_str(), p.answer.as_str(), p.line)).collect();
        // A null cell is no answer; the line is the row's own.
        assert_eq!(got, [("m_pred_arc", "the boy", 2), ("m_pred_race", "unknown", 2)]);
    }

    #[test]
    fn record_tables_give_examples_and_predictions() {
        let csv = "format_version,question_id,concern,language,model,response,choices,gold,condition,polarity,biased,unknown\n\
                   1,q1,age,en,m1,B,\"[\"\"the old man\"\",\"\"the boy\"\",\"\"unknown\"\"]\",2,ambiguous,negative,0,2\n\
                   1,q1,age,en,m2,C,\"[\"\"the old man\"\",\"\"the boy\"\",\"\"unknown\"\"]\",2,ambiguous,negative,0,2\n\
                   1,q2,age,en,m1,A,\"[\"\"a\"\",\"\"b\"\"]\",1,sideways,negative,0,\n";
        let ds = read("run.csv", csv.as_bytes(), None, None).unwrap();
        assert_eq!(ds.examples.len(), 1, "{:?}", ds.problems);
        assert_eq!(
            (ds.examples[0].biased, ds.examples[0].counter_biased, ds.examples[0].unknown),
            (Some(0), Some(1), Some(2))
        );
        assert_eq!(ds.inline_predictions.len(), 2);
        assert_eq!(
            (ds.problems.len(), ds.problems[0].line, ds.problems[0].field.as_deref()),
            (1, Some(4), Some("condition"))
        );
    }

    #[test]
    fn the_real_files_read_completely() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/ref");
        if !std::path::Path::new(root).exists() {
            eprintln!("skipped: {root} is absent");
            return;
        }
        for (path, n) in [
            ("bbq/data/Sexual_orientation.jsonl", 864),
            ("ggbbq/data/subset-1/bbq_de_amb_test.jsonl", 484),
            ("ggbbq/data/subset-1/bbq_de_disamb_test.jsonl", 484),
        ] {
            let bytes = std::fs::read(format!("{root}/{path}")).unwrap();
            let ds = read(path, &bytes, None, None).unwrap();
            assert!(ds.problems.is_empty(), "{path}: {:?}", &ds.problems[..ds.problems.len().min(3)]);
            assert_eq!(ds.examples.len(), n, "{path}");
            assert_eq!(ds.unresolved().count(), 0, "{path}: {:?}", ds.unresolved().next().map(|e| &e.bias_audit));
        }
    }
}
