//! What changed between the models, item by item: every item two models both answered, with
//! what each answered, how its answer was read and what was expected, and whether their
//! outcomes differ. "Outcome" is what each method's statistics count: BBQ's chosen option (or
//! out of choice), a requirement's oracle verdict, the refusal detector's verdict, divergence's
//! lean per context (local or Western). The page's item table, the report's "what changed"
//! section and the harness-logs view all read [`all`]; [`select`] filters and pages it,
//! [`Changes`] is what the report carries.

use super::inputs::Inputs;
use super::{Session, StudyError};
use crate::record::{Record, Status};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// How many disagreeing items per group the HTML report lists (the rest are in report.json).
pub const HTML_PER_GROUP: usize = 10;

/// One model's answer to an item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answer {
    /// The raw response (divergence: the context's most frequent fillers).
    pub response: String,
    /// How it was read, in words ("option 2 (the grandfather), by letter").
    pub read: String,
    /// What the method counts (correct, biased, passed, refused, leans local, ...): two
    /// models disagree when these differ.
    pub outcome: String,
}

/// One item under two models.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    pub method: String,
    pub model_a: String,
    pub model_b: String,
    /// The item's id within its method (case or example id, with the sample where there are several).
    pub id: String,
    /// BBQ category, requirement concern, cross-lingual topic, divergence aspect.
    pub category: String,
    pub language: String,
    /// BBQ context condition, requirement input and reflection type, cross-lingual mode,
    /// divergence context culture.
    pub condition: String,
    /// The question or prompt the models were asked.
    pub question: String,
    pub expected: String,
    pub a: Answer,
    pub b: Answer,
    pub disagree: bool,
}

/// One model's reading of one item, before pairing.
struct Read {
    id: String,
    category: String,
    language: String,
    condition: String,
    question: String,
    expected: String,
    answer: Answer,
}

/// Per method: item id -> model -> reading.
type Reads = BTreeMap<String, BTreeMap<String, Read>>;

fn answered(r: &Record) -> bool {
    matches!(r.status, Status::Ok | Status::Refused | Status::Unparseable | Status::Filtered)
}

fn sample_key(id: &str, sample: u32, samples: &BTreeSet<u32>) -> String {
    if samples.len() > 1 { format!("{id}#{sample}") } else { id.to_string() }
}

fn bbq_reads(inputs: &Inputs, records: &[Record]) -> Reads {
    use crate::bbq::parse::Parsed;
    use crate::bbq::score::{Prediction, outcome, read_answer};
    let mut out = Reads::new();
    let Some(input) = &inputs.bbq else { return out };
    let examples = &input.examples;
    let by_id: BTreeMap<&str, usize> = examples.iter().enumerate().map(|(i, e)| (e.id.as_str(), i)).collect();
    let samples: BTreeSet<u32> = records.iter().map(|r| r.sample_index).collect();
    for r in records.iter().filter(|r| answered(r)) {
        let id = if r.question_id.is_empty() { r.case_id.as_str() } else { r.question_id.as_str() };
        let Some(&i) = by_id.get(id) else { continue };
        let ex = &examples[i];
        let variant = r.params.get("variant").and_then(|v| v.as_str()).unwrap_or("");
        let p = Prediction {
            id: id.into(),
            answer: r.response.clone(),
            model: r.model.clone(),
            variant: variant.into(),
            line: 0,
            by_likelihood: false,
            file: String::new(),
            category: String::new(),
        };
        let (parsed, how) = read_answer(ex, &p);
        let read = match parsed {
            Parsed::Choice(c) => format!("option {} ({}), by {how}", c + 1, ex.choices[c]),
            Parsed::OutOfChoice => format!("no option ({how})"),
        };
        let result = if r.status == Status::Refused && parsed == Parsed::OutOfChoice {
            "refused".to_string()
        } else {
            outcome(ex, parsed).to_string()
        };
        let key = sample_key(&ex.id, r.sample_index, &samples);
        let question = format!("{} {}", ex.context, ex.question);
        let expected = format!("option {} ({})", ex.label + 1, ex.choices.get(ex.label).cloned().unwrap_or_default());
        let condition = match ex.condition {
            crate::bbq::Condition::Ambiguous => "ambiguous",
            crate::bbq::Condition::Disambiguated => "disambiguated",
        };
        // Outcomes differ when the models chose different options (two "unknown" readings of
        // different options still differ), so the option is part of what is compared.
        let outcome_key = match parsed {
            Parsed::Choice(c) => format!("{result}: option {}", c + 1),
            Parsed::OutOfChoice => result,
        };
        out.entry(key.clone()).or_default().entry(r.model.clone()).or_insert(Read {
            id: key,
            category: ex.category.clone(),
            language: ex.language.clone(),
            condition: condition.into(),
            question,
            expected,
            answer: Answer { response: r.response.clone(), read, outcome: outcome_key },
        });
    }
    out
}

fn requirement_reads(inputs: &Inputs, records: &[Record]) -> Reads {
    use crate::requirements::outcome::{Outcome, evaluate};
    let mut out = Reads::new();
    let Some(input) = &inputs.requirements else { return out };
    let (evals, _) = evaluate(&input.scenario, records, &crate::text::refusal::Lexicon::builtin());
    let by_id: BTreeMap<&str, &Record> = records.iter().map(|r| (r.record_id.as_str(), r)).collect();
    let samples: BTreeSet<u32> = records.iter().map(|r| r.sample_index).collect();
    for e in &evals {
        let Some(r) = by_id.get(e.record_id.as_str()) else { continue };
        if !answered(r) {
            continue;
        }
        let outcome = match e.outcome {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Refused => "refused",
            Outcome::Unparseable => "unreadable",
            Outcome::Error => "error",
        };
        let mut read = format!("{outcome} by {:?}", e.operation);
        if let Some(v) = e.value {
            read.push_str(&format!(", read {v}"));
        }
        if !e.reason.is_empty() {
            read.push_str(&format!(": {}", e.reason));
        }
        let condition = [r.input_type.as_str(), r.reflection_type.as_str()]
            .into_iter()
            .filter(|x| !x.is_empty())
            .collect::<Vec<_>>();
        let key = sample_key(&r.case_id, r.sample_index, &samples);
        out.entry(key.clone()).or_default().entry(r.model.clone()).or_insert(Read {
            id: key,
            category: r.concern.clone(),
            language: r.language.clone(),
            condition: condition.join(" · "),
            question: r.prompt.clone(),
            expected: r.expected.clone(),
            answer: Answer { response: r.response.clone(), read, outcome: outcome.into() },
        });
    }
    out
}

fn crosslingual_reads(records: &[Record]) -> Reads {
    use crate::crosslingual::analysis::{Dataset, Settings};
    let mut out = Reads::new();
    let lexicon = crate::text::refusal::Lexicon::builtin();
    let d = Dataset::new("crosslingual records", records.to_vec(), &lexicon);
    let detector = Settings::default().detector;
    let samples: BTreeSet<u32> = d.records.iter().map(|r| r.sample_index).collect();
    for (r, v) in d.records.iter().zip(&d.verdicts) {
        let Some(refused) = v.get(detector) else { continue };
        let read = match (&v.lexicon_match, refused) {
            (Some(phrase), true) => format!("refused ({detector:?} detector: {phrase})"),
            (_, true) => format!("refused ({detector:?} detector)"),
            (_, false) => format!("answered ({detector:?} detector found no refusal)"),
        };
        let key = sample_key(&r.case_id, r.sample_index, &samples);
        out.entry(key.clone()).or_default().entry(r.model.clone()).or_insert(Read {
            id: key,
            category: r.concern.clone(),
            language: r.language.clone(),
            condition: r.template_id.clone(),
            question: r.prompt.clone(),
            expected: String::new(),
            answer: Answer {
                response: r.response.clone(),
                read,
                outcome: if refused { "refused" } else { "answered" }.into(),
            },
        });
    }
    out
}

fn divergence_reads(inputs: &Inputs, records: &[Record]) -> Reads {
    use crate::divergence::analysis::{Input, ModelData, Settings, analyze};
    let mut out = Reads::new();
    let Some(input) = &inputs.divergence else { return out };
    let data = ModelData::Records(records.iter().filter(|r| answered(r)).cloned().collect());
    let mut settings = Settings::default();
    // Per-context values only: no interval is shown here.
    settings.bootstrap.replicates = 0;
    let Ok(analysis) = analyze(&Input { probes: &input.probes, references: &input.references, data: &data }, &settings)
    else {
        return out;
    };
    let share = |x: f64| super::units::value(super::units::Kind::Rate, x);
    for m in &analysis.models {
        for a in &m.aspects {
            for c in &a.contexts {
                let top: Vec<String> =
                    c.fillers.iter().take(3).map(|f| format!("{} {}", f.filler, share(f.model))).collect();
                let best = |pick: fn(&crate::divergence::result::FillerShare) -> f64| {
                    c.fillers.iter().max_by(|x, y| pick(x).total_cmp(&pick(y))).map(|f| f.filler.clone())
                };
                let lean = if c.cd.value < 0.0 {
                    "leans local"
                } else if c.cd.value > 0.0 {
                    "leans Western"
                } else {
                    "no lean"
                };
                let expected = match (best(|f| f.local), best(|f| f.western)) {
                    (Some(l), Some(w)) => format!("local reference's most likely: {l}; Western's: {w}"),
                    _ => String::new(),
                };
                let key = format!("{}/{}", a.aspect, c.context);
                out.entry(key.clone()).or_default().entry(m.model.clone()).or_insert(Read {
                    id: key,
                    category: a.aspect.clone(),
                    language: analysis.language.clone(),
                    condition: c.culture.clone().unwrap_or_else(|| "both".into()),
                    question: c.text.clone(),
                    expected,
                    answer: Answer {
                        response: top.join(", "),
                        read: format!("CD {:+.3} over {} matched completion(s)", c.cd.value, c.n),
                        outcome: lean.into(),
                    },
                });
            }
        }
    }
    out
}

/// Pairs every two models' readings of the same items, in model order.
fn pair(method: &str, reads: Reads, models: &[String], out: &mut Vec<Item>) {
    for (i, a) in models.iter().enumerate() {
        for b in &models[i + 1..] {
            for per_model in reads.values() {
                let (Some(ra), Some(rb)) = (per_model.get(a), per_model.get(b)) else { continue };
                out.push(Item {
                    method: method.into(),
                    model_a: a.clone(),
                    model_b: b.clone(),
                    id: ra.id.clone(),
                    category: ra.category.clone(),
                    language: ra.language.clone(),
                    condition: ra.condition.clone(),
                    question: ra.question.clone(),
                    expected: ra.expected.clone(),
                    disagree: ra.answer.outcome != rb.answer.outcome,
                    a: ra.answer.clone(),
                    b: rb.answer.clone(),
                });
            }
        }
    }
}

/// Every item two models both answered, for every model pair (in `models`' order) and method.
pub fn of(inputs: &Inputs, records: &[Record], methods: &[&str], models: &[String]) -> Vec<Item> {
    let by_method: Vec<(&str, Vec<Record>)> =
        methods.iter().map(|&m| (m, records.iter().filter(|r| r.method == m).cloned().collect())).collect();
    of_methods(inputs, &by_method, models)
}

/// [`of`] over records already split by method (the report holds them so).
pub fn of_methods(inputs: &Inputs, by_method: &[(&str, Vec<Record>)], models: &[String]) -> Vec<Item> {
    let mut out = vec![];
    for (method, of_method) in by_method {
        if of_method.is_empty() {
            continue;
        }
        let reads = match *method {
            "bbq" => bbq_reads(inputs, of_method),
            "requirements" => requirement_reads(inputs, of_method),
            "crosslingual" => crosslingual_reads(of_method),
            "divergence" => divergence_reads(inputs, of_method),
            _ => continue,
        };
        pair(method, reads, models, &mut out);
    }
    out
}

/// Every item of the session's records (see [`of`]), models in the report's order.
pub fn all(s: &Session) -> Result<Vec<Item>, StudyError> {
    let inputs = s.inputs()?;
    let models: Vec<String> = super::report::model_order(s).into_iter().map(|(_, m, _)| m).collect();
    Ok(of(inputs, &s.records, &s.study.methods.used(), &models))
}

/// One group of the report's "what changed" section: a model pair, a method, a category.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    pub method: String,
    pub model_a: String,
    pub model_b: String,
    pub category: String,
    /// Items both models answered.
    pub items: u64,
    /// Items whose outcomes differ.
    pub disagree: u64,
}

/// What the report carries: the counts per group, and every item where the models disagree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Changes {
    pub groups: Vec<Group>,
    /// The HTML report lists this many items per group; all of them are in `items`.
    pub html_per_group: usize,
    pub items: Vec<Item>,
}

impl Changes {
    pub fn of(all: &[Item]) -> Changes {
        let mut groups: BTreeMap<(usize, String), Group> = BTreeMap::new();
        // Groups keep the items' order of pairs and methods; categories sorted within them.
        let mut order: Vec<(String, String, String)> = vec![];
        for it in all {
            let head = (it.method.clone(), it.model_a.clone(), it.model_b.clone());
            let at = order.iter().position(|o| o == &head).unwrap_or_else(|| {
                order.push(head.clone());
                order.len() - 1
            });
            let g = groups.entry((at, it.category.clone())).or_insert_with(|| Group {
                method: it.method.clone(),
                model_a: it.model_a.clone(),
                model_b: it.model_b.clone(),
                category: it.category.clone(),
                items: 0,
                disagree: 0,
            });
            g.items += 1;
            g.disagree += u64::from(it.disagree);
        }
        Changes {
            groups: groups.into_values().collect(),
            html_per_group: HTML_PER_GROUP,
            items: all.iter().filter(|i| i.disagree).cloned().collect(),
        }
    }

    /// The first `n` disagreeing items of a group, and how many more there are.
    pub fn first_of<'a>(&'a self, g: &Group, n: usize) -> (Vec<&'a Item>, usize) {
        let of: Vec<&Item> = self
            .items
            .iter()
            .filter(|i| {
                i.method == g.method && i.model_a == g.model_a && i.model_b == g.model_b && i.category == g.category
            })
            .collect();
        let more = of.len().saturating_sub(n);
        (of.into_iter().take(n).collect(), more)
    }
}

/// A filter over the items, as the page's table sends it: empty fields match everything.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Query {
    /// "A|B", as [`Facets::pairs`] lists them.
    pub pair: String,
    pub method: String,
    pub category: String,
    pub language: String,
    pub condition: String,
    pub disagree: bool,
    pub offset: usize,
    /// At most this many items (0: 50).
    pub limit: usize,
}

/// The values each filter can take (over all items, so a filter never hides its own choices).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Facets {
    pub pairs: Vec<String>,
    pub methods: Vec<String>,
    pub categories: Vec<String>,
    pub languages: Vec<String>,
    pub conditions: Vec<String>,
}

/// One page of the filtered items.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Page {
    /// Items the filter matches.
    pub total: usize,
    /// Of those, the items where the models disagree.
    pub disagree: usize,
    pub offset: usize,
    pub items: Vec<Item>,
    pub facets: Facets,
}

pub fn pair_name(a: &str, b: &str) -> String {
    format!("{a}|{b}")
}

/// The items `q` matches, `q.limit` of them from `q.offset`.
pub fn select(all: &[Item], q: &Query) -> Page {
    let matches = |field: &str, value: &str| field.is_empty() || field == value;
    let hit: Vec<&Item> = all
        .iter()
        .filter(|it| {
            matches(&q.pair, &pair_name(&it.model_a, &it.model_b))
                && matches(&q.method, &it.method)
                && matches(&q.category, &it.category)
                && matches(&q.language, &it.language)
                && matches(&q.condition, &it.condition)
                && (!q.disagree || it.disagree)
        })
        .collect();
    let limit = if q.limit == 0 { 50 } else { q.limit.min(1000) };
    let mut facets = Facets::default();
    let add = |v: &mut Vec<String>, x: String| {
        if !v.contains(&x) {
            v.push(x);
        }
    };
    for it in all {
        add(&mut facets.pairs, pair_name(&it.model_a, &it.model_b));
        add(&mut facets.methods, it.method.clone());
        add(&mut facets.categories, it.category.clone());
        add(&mut facets.languages, it.language.clone());
        add(&mut facets.conditions, it.condition.clone());
    }
    facets.categories.sort();
    facets.languages.sort();
    facets.conditions.sort();
    facets.conditions.retain(|c| !c.is_empty());
    Page {
        total: hit.len(),
        disagree: hit.iter().filter(|i| i.disagree).count(),
        offset: q.offset,
        items: hit.into_iter().skip(q.offset).take(limit).cloned().collect(),
        facets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(id: &str, category: &str, outcome: &str) -> Read {
        Read {
            id: id.into(),
            category: category.into(),
            language: "en".into(),
            condition: "ambiguous".into(),
            question: format!("question {id}"),
            expected: "x".into(),
            answer: Answer { response: outcome.into(), read: outcome.into(), outcome: outcome.into() },
        }
    }

    /// Items 0..n in `category`; model C differs from A on the items `differ` names; B equals A.
    fn reads(n: usize, category: &str, differ: &[usize]) -> Reads {
        let mut out = Reads::new();
        for i in 0..n {
            let id = format!("{category}-{i:02}");
            let m = out.entry(id.clone()).or_default();
            m.insert("A".into(), read(&id, category, "correct"));
            m.insert("B".into(), read(&id, category, "correct"));
            let c = if differ.contains(&i) { "biased" } else { "correct" };
            m.insert("C".into(), read(&id, category, c));
        }
        out
    }

    #[test]
    fn every_pair_of_models_in_order_with_disagreement_where_outcomes_differ() {
        let mut items = vec![];
        let models = ["A".to_string(), "B".into(), "C".into()];
        pair("bbq", reads(4, "Age", &[1, 3]), &models, &mut items);
        let pairs: Vec<String> =
            items.iter().map(|i| pair_name(&i.model_a, &i.model_b)).collect::<BTreeSet<_>>().into_iter().collect();
        assert_eq!(pairs, ["A|B", "A|C", "B|C"]);
        assert_eq!(items.len(), 12, "4 items x 3 pairs");
        let differ = |p: &str| -> Vec<&str> {
            items
                .iter()
                .filter(|i| pair_name(&i.model_a, &i.model_b) == p && i.disagree)
                .map(|i| i.id.as_str())
                .collect()
        };
        assert!(differ("A|B").is_empty());
        assert_eq!(differ("A|C"), ["Age-01", "Age-03"]);
        assert_eq!(differ("B|C"), ["Age-01", "Age-03"]);
        let one = items.iter().find(|i| i.model_a == "A" && i.model_b == "C" && i.id == "Age-01").unwrap();
        assert_eq!((one.a.outcome.as_str(), one.b.outcome.as_str()), ("correct", "biased"));
    }

    #[test]
    fn a_model_without_the_item_gives_no_pair_for_it() {
        let mut r = reads(3, "Age", &[0]);
        r.get_mut("Age-00").unwrap().remove("C");
        let mut items = vec![];
        pair("bbq", r, &["A".into(), "C".into()], &mut items);
        assert_eq!(items.len(), 2);
        assert!(items.iter().all(|i| !i.disagree));
    }

    #[test]
    fn changes_count_per_group_and_the_html_lists_the_first_n() {
        let mut items = vec![];
        let models = ["A".to_string(), "C".into()];
        pair("bbq", reads(30, "Age", &(0..25).collect::<Vec<_>>()), &models, &mut items);
        pair("bbq", reads(5, "Race", &[2]), &models, &mut items);
        pair("requirements", reads(3, "Age", &[]), &models, &mut items);
        let ch = Changes::of(&items);
        let counts: Vec<(&str, &str, u64, u64)> =
            ch.groups.iter().map(|g| (g.method.as_str(), g.category.as_str(), g.items, g.disagree)).collect();
        assert_eq!(counts, [("bbq", "Age", 30, 25), ("bbq", "Race", 5, 1), ("requirements", "Age", 3, 0)]);
        assert_eq!(ch.items.len(), 26, "every disagreeing item, not only the first N");
        let (first, more) = ch.first_of(&ch.groups[0], HTML_PER_GROUP);
        assert_eq!((first.len(), more), (10, 15));
        assert_eq!(first[0].id, "Age-00");
        let (first, more) = ch.first_of(&ch.groups[1], HTML_PER_GROUP);
        assert_eq!((first.len(), more), (1, 0));
        assert!(ch.first_of(&ch.groups[2], HTML_PER_GROUP).0.is_empty());
        // On paper only the first few per group: Age's 10 rows on screen, 3 of them printed,
        // with a note that says so; Race's one row prints and needs no note.
        let mut html = String::new();
        super::super::items_html::render(&mut html, &ch);
        let print = super::super::items_html::PRINT_PER_GROUP;
        assert_eq!(html.matches("<tr class=\"screen-only\">").count(), HTML_PER_GROUP - print);
        assert_eq!(html.matches("class=\"meta print-only\"").count(), 1, "{html}");
        assert!(html.contains(&format!("Printed: the first {print} of 25; the report on screen shows 10")), "{html}");
    }

    #[test]
    fn select_filters_on_every_field_and_pages() {
        let mut items = vec![];
        let models = ["A".to_string(), "B".into(), "C".into()];
        pair("bbq", reads(30, "Age", &(0..25).collect::<Vec<_>>()), &models, &mut items);
        pair("bbq", reads(5, "Race", &[2]), &models, &mut items);
        let q = Query { pair: "A|C".into(), category: "Age".into(), disagree: true, limit: 10, ..Query::default() };
        let page = select(&items, &q);
        assert_eq!((page.total, page.disagree, page.items.len()), (25, 25, 10));
        assert!(page.items.iter().all(|i| i.disagree && i.category == "Age" && i.model_b == "C"));
        let next = select(&items, &Query { offset: 20, ..q.clone() });
        assert_eq!(next.items.len(), 5);
        let all_age = select(&items, &Query { category: "Age".into(), ..Query::default() });
        assert_eq!((all_age.total, all_age.disagree), (90, 50));
        assert_eq!(select(&items, &Query { language: "de".into(), ..Query::default() }).total, 0);
        assert_eq!(page.facets.pairs, ["A|B", "A|C", "B|C"]);
        assert_eq!(page.facets.categories, ["Age", "Race"]);
    }
}
