//! One open bias-QA analysis: the examples loaded, the predictions for them, and the
//! bootstrap settings. A failed load never replaces what is already here.

use super::example::Example;
use super::import;
use super::metrics::{self, BootstrapSettings};
use super::score::{self, Matched, Prediction, Report, Row};
use crate::formats::Problem;
use crate::simulate::{self, Ask, Behaviour, Outcome, Question};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default)]
pub struct Session {
    examples: Vec<Example>,
    data_files: Vec<String>,
    predictions: Vec<Prediction>,
    pub settings: BootstrapSettings,
    /// The predictions matched and parsed, redone whenever examples or predictions change
    /// (parsing is the costly part, and every page of the table needs it).
    matched: Matched,
}

#[derive(Debug, Clone, Serialize)]
pub struct DataSummary {
    pub file: String,
    pub examples: usize,
    pub unresolved: usize,
    pub problems: Vec<Problem>,
    pub total_examples: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct PredictionSummary {
    pub file: String,
    pub predictions: usize,
    pub unmatched: Vec<Problem>,
    pub problems: Vec<Problem>,
}

#[derive(Debug, thiserror::Error, Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum SessionError {
    #[error("{0}")]
    File(Problem),
    #[error("{file}: no example could be read; the earlier data is kept")]
    NoExamples { file: String, problems: Vec<Problem> },
    #[error("{file}: no prediction matches a loaded example; the earlier predictions are kept")]
    NoPredictions { file: String, unmatched: Vec<Problem>, problems: Vec<Problem> },
    #[error("load a benchmark data file (or the built-in set) before predictions")]
    NoData,
    #[error("prompt variant: {0}")]
    Variant(String),
    #[error("format: expected bbq, ggbbq, kobbq, records or table, found {0:?}")]
    Format(String),
    #[error("bootstrap settings: expected replicates from 1 to 100000")]
    Bootstrap,
    #[error("{0}")]
    Selection(#[from] super::select::SelectionError),
    #[error("the selection keeps none of the {0} examples loaded; they are all kept")]
    NothingSelected(usize),
    #[error("{0}")]
    Misfit(#[from] score::Misfit),
}

#[derive(Debug, Clone, Serialize)]
pub struct SimulatedPart {
    pub answered: usize,
    /// Where the next part starts.
    pub to: usize,
    pub examples: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct KeepSummary {
    pub kept: usize,
    pub dropped: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProviderCases {
    pub cases: Vec<crate::record::Record>,
    /// Examples in a language that has no prompt variant (and none was chosen).
    pub skipped: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct View {
    pub report: Report,
    /// Accuracy against diff-bias, one point per model (or per group of `points_by`).
    pub scatter_svg: String,
    /// Diff-bias per category.
    pub categories_svg: String,
    pub models: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RowQuery {
    pub offset: usize,
    pub limit: usize,
    /// correct, biased, counter-biased, unknown or out of choice.
    pub outcome: String,
    /// ambiguous or disambiguated.
    pub condition: String,
    pub search: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct RowsPage {
    pub total: usize,
    pub offset: usize,
    pub rows: Vec<Row>,
}

impl Session {
    pub fn add_data(&mut self, name: &str, bytes: &[u8]) -> Result<DataSummary, SessionError> {
        self.add_data_in(name, bytes, None)
    }

    /// Like [`Session::add_data`], with the language of a file whose rows do not say it (MBBQ's
    /// Dutch file has BBQ's shape; the catalogue knows its language).
    pub fn add_data_in(
        &mut self,
        name: &str,
        bytes: &[u8],
        language: Option<&str>,
    ) -> Result<DataSummary, SessionError> {
        let ds = import::read(name, bytes, None, language).map_err(SessionError::File)?;
        if ds.examples.is_empty() {
            return Err(SessionError::NoExamples { file: name.into(), problems: ds.problems });
        }
        let unresolved = ds.unresolved().count();
        let n = ds.examples.len();
        // Rows that carry their own answers (record tables, BBQ result files) bring them along.
        let carried = score::inline_predictions(&ds.examples, &ds, import::stem(name));
        self.examples.extend(ds.examples);
        self.data_files.push(name.into());
        self.predictions.extend(carried);
        self.rematch();
        Ok(DataSummary {
            file: name.into(),
            examples: n,
            unresolved,
            problems: ds.problems,
            total_examples: self.examples.len(),
        })
    }

    /// Replaces the data with Evenhand's own BBQ-style set (datasets/bbq). Fails, keeping the
    /// data loaded, only if the set's files are missing (the page had not handed them over).
    pub fn use_builtin(
        &mut self,
        seed: u64,
        languages: &[&str],
    ) -> Result<DataSummary, super::generate::GenerateError> {
        self.examples = super::generate::builtin_examples(seed, languages)?;
        self.data_files = vec!["built-in set (datasets/bbq)".into()];
        self.predictions.clear();
        self.rematch();
        Ok(DataSummary {
            file: self.data_files[0].clone(),
            examples: self.examples.len(),
            unresolved: self.examples.iter().filter(|e| e.biased.is_none()).count(),
            problems: vec![],
            total_examples: self.examples.len(),
        })
    }

    pub fn set_bootstrap(&mut self, settings: BootstrapSettings) -> Result<(), SessionError> {
        // The confidence level was checked when the settings were read (Confidence).
        if !(1..=100_000).contains(&settings.replicates) {
            return Err(SessionError::Bootstrap);
        }
        self.settings = settings;
        Ok(())
    }

    pub fn clear(&mut self) {
        *self = Session { settings: self.settings.clone(), ..Session::default() };
    }

    pub fn add_predictions(
        &mut self,
        name: &str,
        bytes: &[u8],
        format: Option<&str>,
    ) -> Result<PredictionSummary, SessionError> {
        if self.examples.is_empty() {
            return Err(SessionError::NoData);
        }
        let model = import::stem(name).to_string();
        let (preds, problems) = match format.unwrap_or("table") {
            f @ ("bbq" | "ggbbq" | "kobbq") => {
                let format = match f {
                    "bbq" => import::Format::Bbq,
                    "ggbbq" => import::Format::Ggbbq,
                    _ => import::Format::Kobbq,
                };
                let rows = import::read(name, bytes, Some(format), None).map_err(SessionError::File)?;
                (score::inline_predictions(&self.examples, &rows, &model), rows.problems)
            }
            "records" | "table" => score::read_predictions(name, bytes, &model).map_err(SessionError::File)?,
            other => return Err(SessionError::Format(other.into())),
        };
        let matched = score::judge(&self.examples, &preds, name);
        if matched.judged.is_empty() {
            return Err(SessionError::NoPredictions { file: name.into(), unmatched: matched.unmatched, problems });
        }
        matched.refuse_misfits(name)?;
        let n = matched.judged.len();
        let unmatched = matched.unmatched.clone();
        self.replace_models(preds, matched);
        Ok(PredictionSummary { file: name.into(), predictions: n, unmatched, problems })
    }

    /// Asks the simulated model every example, rendered with a prompt variant of its language
    /// (`variant` None: the first variant of each language). Replaces that model's predictions.
    pub fn simulate(&mut self, behaviour: &Behaviour, seed: u64, variant: Option<&str>) -> Result<usize, SessionError> {
        Ok(self.simulate_part(behaviour, seed, variant, 0, usize::MAX)?.answered)
    }

    /// The simulated model on examples `from..to` only, so that a page can show progress on a
    /// large benchmark: the part from 0 replaces that model's predictions, later parts add to
    /// them (ask them in order). Every answer depends on its example alone, so the parts
    /// together give what one [`Session::simulate`] gives.
    pub fn simulate_part(
        &mut self,
        behaviour: &Behaviour,
        seed: u64,
        variant: Option<&str>,
        from: usize,
        to: usize,
    ) -> Result<SimulatedPart, SessionError> {
        if self.examples.is_empty() {
            return Err(SessionError::NoData);
        }
        let fixed = variant
            .map(|id| super::prompt::variant(id).map_err(|e| SessionError::Variant(e.to_string())))
            .transpose()?;
        let model = behaviour.model();
        let mut preds = vec![];
        let to = to.min(self.examples.len());
        for ex in self.examples.get(from..to).unwrap_or_default() {
            let Some(v) = fixed.or_else(|| super::prompt::variants_for(&ex.language).first().copied()) else {
                continue;
            };
            let prompt = super::prompt::render(ex, v);
            let question =
                Question::Choice { options: ex.choices.clone(), stereotyped: ex.biased, gold: Some(ex.label) };
            let communities = [ex.category.clone()];
            let ask = Ask {
                language: &ex.language,
                communities: &communities,
                prompt: &prompt,
                question: &question,
                sample: 0,
            };
            let answer = match simulate::answer(behaviour, seed, &ask).outcome {
                Outcome::Answer(t) | Outcome::Refusal(t) => t,
                Outcome::Failure(_) => continue,
            };
            preds.push(Prediction {
                id: ex.id.clone(),
                answer,
                model: model.clone(),
                variant: v.id.clone(),
                line: 0,
                by_likelihood: false,
                category: String::new(),
                file: String::new(),
            });
        }
        let answered = preds.len();
        let matched = score::judge(&self.examples, &preds, "simulated");
        if from == 0 {
            self.replace_models(preds, matched);
        } else {
            self.predictions.extend(preds);
            self.matched.replace_models(&Default::default(), matched, self.examples.len());
        }
        Ok(SimulatedPart { answered, to: to.max(from), examples: self.examples.len() })
    }

    /// Keeps only the examples the selection names, with their predictions; a selection that
    /// keeps nothing is refused and changes nothing.
    pub fn keep(&mut self, selection: &super::select::Selection) -> Result<KeepSummary, SessionError> {
        let filter = selection.filter()?;
        let kept = self.examples.iter().filter(|e| filter.keeps(e)).count();
        if kept == 0 && !self.examples.is_empty() {
            return Err(SessionError::NothingSelected(self.examples.len()));
        }
        let dropped = self.examples.len() - kept;
        if dropped > 0 {
            // Predictions go with their examples: one that matched a dropped example would
            // otherwise be listed as naming no example.
            let kept: Vec<bool> = self.examples.iter().map(|e| filter.keeps(e)).collect();
            let old = score::judge(&self.examples, &self.predictions, "predictions");
            let bare = |id: &str| id.rsplit(':').next().unwrap_or(id).to_string();
            // A prediction may name its example by the full id or by the part after ':'.
            let dropped_any: std::collections::HashSet<String> = old
                .judged
                .iter()
                .filter(|j| !kept[j.example])
                .flat_map(|j| [self.examples[j.example].id.clone(), bare(&self.examples[j.example].id)])
                .collect();
            self.predictions.retain(|p| !dropped_any.contains(&p.id));
            let mut i = 0;
            self.examples.retain(|_| {
                i += 1;
                kept[i - 1]
            });
            self.rematch();
        }
        Ok(KeepSummary { kept, dropped })
    }

    /// The loaded examples as pending records for a provider run (the Run tab's input).
    pub fn provider_cases(&self, variant: Option<&str>) -> Result<ProviderCases, SessionError> {
        if self.examples.is_empty() {
            return Err(SessionError::NoData);
        }
        let fixed = variant
            .map(|id| super::prompt::variant(id).map_err(|e| SessionError::Variant(e.to_string())))
            .transpose()?;
        let (cases, skipped) = super::select::provider_cases(&self.examples, fixed);
        Ok(ProviderCases { cases, skipped })
    }

    /// [`Session::provider_cases`] as JSONL, written record by record: (jsonl, cases, skipped).
    pub fn provider_cases_jsonl(&self, variant: Option<&str>) -> Result<(String, usize, usize), SessionError> {
        let mut jsonl = String::new();
        let (cases, skipped) = self.each_provider_case_line(variant, |line| jsonl.push_str(line))?;
        Ok((jsonl, cases, skipped))
    }

    /// The provider cases one JSONL line (newline included) at a time, so that a caller
    /// never holds them all as records, nor (the page's facade) as one growing string:
    /// (cases, skipped).
    pub fn each_provider_case_line(
        &self,
        variant: Option<&str>,
        mut emit: impl FnMut(&str),
    ) -> Result<(usize, usize), SessionError> {
        if self.examples.is_empty() {
            return Err(SessionError::NoData);
        }
        let fixed = variant
            .map(|id| super::prompt::variant(id).map_err(|e| SessionError::Variant(e.to_string())))
            .transpose()?;
        let mut cases = 0;
        let skipped = super::select::each_provider_case(&self.examples, fixed, |r| {
            emit(&crate::formats::write(std::slice::from_ref(&r), crate::formats::FileFormat::Jsonl));
            cases += 1;
        });
        Ok((cases, skipped))
    }

    /// New predictions replace those of the same models; only the new ones are matched and
    /// parsed, which is most of the cost of adding predictions.
    fn replace_models(&mut self, preds: Vec<Prediction>, matched: Matched) {
        let models: std::collections::HashSet<String> = preds.iter().map(|p| p.model.clone()).collect();
        self.predictions.retain(|p| !models.contains(&p.model));
        self.predictions.extend(preds);
        self.matched.replace_models(&models, matched, self.examples.len());
    }

    fn rematch(&mut self) {
        self.matched = score::judge(&self.examples, &self.predictions, "predictions");
    }

    pub fn examples(&self) -> &[Example] {
        &self.examples
    }

    pub fn view(&self) -> View {
        let matched = &self.matched;
        let report = score::report(&self.examples, matched, &self.settings);
        let by_model = metrics::breakdown(&self.examples, &matched.judged, &["model".into()], &self.settings);
        let by_category = metrics::breakdown(&self.examples, &matched.judged, &["category".into()], &self.settings);
        let simulated = by_model.iter().any(|b| b.label.starts_with("sim:"));
        let suffix = if simulated { " (includes a SIMULATED model)" } else { "" };
        View {
            scatter_svg: super::chart::accuracy_vs_bias(
                &by_model,
                &format!("Accuracy and diff-bias per model{suffix}"),
            ),
            categories_svg: super::chart::bias_bars(&by_category, &format!("Diff-bias per category{suffix}")),
            models: by_model.iter().map(|b| b.label.clone()).collect(),
            report,
        }
    }

    pub fn rows(&self, q: &RowQuery) -> RowsPage {
        let needle = q.search.to_lowercase();
        // An unknown condition matches nothing rather than quietly meaning one of the two.
        let condition = |r: &Row| match q.condition.as_str() {
            "" => true,
            "ambiguous" => r.condition == super::Condition::Ambiguous,
            "disambiguated" => r.condition == super::Condition::Disambiguated,
            _ => false,
        };
        let rows: Vec<&Row> = self
            .matched
            .rows
            .iter()
            .filter(|r| q.outcome.is_empty() || r.outcome == q.outcome)
            .filter(|r| condition(r))
            .filter(|r| {
                needle.is_empty() || r.id.to_lowercase().contains(&needle) || r.raw.to_lowercase().contains(&needle)
            })
            .collect();
        let limit = if q.limit == 0 { 25 } else { q.limit.min(500) };
        RowsPage {
            total: rows.len(),
            offset: q.offset,
            rows: rows.into_iter().skip(q.offset).take(limit).cloned().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cached_match_equals_a_full_rematch() {
        let mut s = Session::default();
        s.use_builtin(2, &["en"]).unwrap();
        let ids: Vec<String> = s.examples.iter().map(|e| e.id.clone()).collect();
        let file = |model: &str, letter: &str, every: usize| {
            let mut csv = String::from("id,prediction,model\n");
            for (i, id) in ids.iter().enumerate().filter(|(i, _)| i % every == 0) {
                csv.push_str(&format!("{id},{},{model}\n", if i % 3 == 0 { letter } else { "C" }));
            }
            csv
        };
        s.add_predictions("a.csv", file("a", "A", 1).as_bytes(), None).unwrap();
        s.add_predictions("b.csv", file("b", "B", 2).as_bytes(), None).unwrap();
        s.add_predictions("a2.csv", file("a", "B", 3).as_bytes(), None).unwrap(); // replaces model a
        s.simulate(&Behaviour::default(), 4, None).unwrap();
        let full = score::judge(&s.examples, &s.predictions, "predictions");
        let sorted = |m: &Matched| {
            let mut j: Vec<String> =
                m.judged.iter().map(|j| format!("{}|{}|{:?}", j.model, j.example, j.prediction)).collect();
            j.sort();
            j
        };
        assert_eq!(sorted(&s.matched), sorted(&full));
        assert_eq!(s.matched.missing, full.missing);
        assert_eq!(s.matched.rows.len(), full.rows.len());
    }

    #[test]
    fn keep_narrows_examples_and_their_predictions_and_refuses_an_empty_result() {
        let mut s = Session::default();
        s.use_builtin(2, &["en", "de"]).unwrap();
        s.simulate(&Behaviour::default(), 4, None).unwrap();
        let before = s.examples.len();
        let sel = super::super::select::Selection { languages: vec!["en".into()], ..Default::default() };
        let k = s.keep(&sel).unwrap();
        assert_eq!(k.kept + k.dropped, before);
        assert!(k.kept > 0 && k.dropped > 0);
        assert!(s.examples.iter().all(|e| e.language == "en"));
        assert_eq!(s.matched.judged.len(), k.kept, "each kept example keeps its one simulated answer");
        assert!(s.matched.unmatched.is_empty(), "{:?}", s.matched.unmatched);
        let none = super::super::select::Selection { languages: vec!["xx".into()], ..Default::default() };
        assert!(matches!(s.keep(&none), Err(SessionError::NothingSelected(n)) if n == k.kept));
        assert_eq!(s.examples.len(), k.kept);
    }

    #[test]
    fn simulating_in_parts_equals_one_call() {
        let mut whole = Session::default();
        whole.use_builtin(3, &["en", "fr"]).unwrap();
        let mut parts = whole.clone();
        let b = Behaviour::default();
        let n = whole.simulate(&b, 9, None).unwrap();
        // A model answered before is replaced by the part from 0, as by a whole call.
        parts.simulate(&Behaviour::default(), 1, None).unwrap();
        let mut from = 0;
        let mut answered = 0;
        while from < parts.examples.len() {
            let p = parts.simulate_part(&b, 9, None, from, from + 7).unwrap();
            answered += p.answered;
            from = p.to;
        }
        assert_eq!(answered, n);
        assert_eq!(parts.predictions, whole.predictions);
        let key = |m: &Matched| {
            let mut j: Vec<String> =
                m.judged.iter().map(|j| format!("{}|{}|{:?}", j.model, j.example, j.prediction)).collect();
            j.sort();
            (j, m.missing, m.rows.len())
        };
        assert_eq!(key(&parts.matched), key(&whole.matched));
    }
}
