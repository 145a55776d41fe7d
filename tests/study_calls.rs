//! The report's calls table (`study::calls`): per model and language, answered, out of choice,
//! refused, failed (and left out, for divergence) add up to the planned calls, equal counts made by hand from the answers
//! given, and reconcile with the n the figures use.

#[path = "common/study.rs"]
mod fixture;

use evenhand::record::Status;
use evenhand::study;
use evenhand::study::calls::CallRow;
use evenhand::study::session::Origin;
use std::collections::BTreeMap;

/// What the test's provider did with call `i`.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Fate {
    NotRun,
    Error,
    Refused,
    OutOfChoice,
    Letter,
}

fn fate(method: &str, i: usize) -> Fate {
    match i {
        _ if i.is_multiple_of(13) => Fate::NotRun,
        _ if i.is_multiple_of(11) => Fate::Error,
        // BBQ has no refusal detector: the provider's refusals are left to the other methods.
        _ if i.is_multiple_of(9) && method != "bbq" => Fate::Refused,
        _ if i.is_multiple_of(7) => Fate::OutOfChoice,
        _ => Fate::Letter,
    }
}

/// Per (method, language): how many calls met each fate.
type ByHand = BTreeMap<(String, String), BTreeMap<&'static str, u64>>;

/// The parity study with gpt-4o-mini's run: out-of-choice answers, refusals, errors and calls
/// never made, by [`fate`]; and the counts made by hand.
fn study_with_every_fate() -> (study::report::Report, ByHand) {
    let mut s = study::Session::open("parity.json", fixture::PARITY).unwrap();
    s.simulate().unwrap();
    let mut records = vec![];
    let mut by_hand: ByHand = BTreeMap::new();
    // Divergence: the built-in set has both references for cities only; first names have no
    // local one, so the study plans no call for them.
    let probes = evenhand::divergence::builtin::probe_set("pl-western").unwrap();
    let names = probes.aspects.iter().find(|a| a.id == "first_names").unwrap();
    let analysed = |case: &str| !names.contexts.iter().any(|c| case.starts_with(&c.id));
    for (i, mut r) in s.run_cases().unwrap().into_iter().enumerate() {
        let f = fate(&r.method, i);
        let column = match f {
            Fate::NotRun | Fate::Error => "failed",
            Fate::Refused => "refused",
            _ if r.method == "divergence" && !analysed(&r.case_id) => "left_out",
            // A completion that starts with a city of the set is a sample; a letter is not.
            Fate::Letter if r.method == "divergence" && i % 2 == 0 => "answered",
            Fate::Letter if r.method == "divergence" => "out_of_choice",
            // Cross-lingual answers are free text: "banana" is an answer that refuses nothing.
            Fate::OutOfChoice if r.method == "crosslingual" => "answered",
            Fate::OutOfChoice => "out_of_choice",
            Fate::Letter => "answered",
        };
        *by_hand.entry((r.method.clone(), r.language.clone())).or_default().entry(column).or_default() += 1;
        if f == Fate::NotRun {
            continue;
        }
        r.provider = "openai".into();
        r.model = "gpt-4o-mini".into();
        r.record_id = format!("run:{i}");
        (r.status, r.response) = match f {
            Fate::Error => (Status::Error, String::new()),
            Fate::Refused => (Status::Refused, String::new()),
            Fate::OutOfChoice => (Status::Ok, "banana".into()),
            Fate::Letter if r.method == "divergence" && i % 2 == 0 => (Status::Ok, "Warszawie, od lat.".into()),
            _ => (Status::Ok, ["A", "B", "C"][i % 3].into()),
        };
        records.push(r);
    }
    // Completions for a first-names context come from elsewhere (another tool's run): they are
    // left out of every figure, and counted as such.
    let template = records.iter().find(|r| r.method == "divergence").unwrap().clone();
    for k in 0..7 {
        records.push(evenhand::record::Record {
            record_id: format!("other:{k}"),
            case_id: names.contexts[0].id.clone(),
            template_id: names.contexts[0].id.clone(),
            concern: "first_names".into(),
            response: "Anna".into(),
            status: Status::Ok,
            ..template.clone()
        });
        *by_hand.entry(("divergence".into(), template.language.clone())).or_default().entry("left_out").or_default() +=
            1;
    }
    let text = evenhand::formats::write(&records, evenhand::formats::FileFormat::Jsonl);
    s.add_records("run.jsonl", text.as_bytes(), None, Origin::Run).unwrap();
    (s.report("T").unwrap(), by_hand)
}

fn rows<'a>(r: &'a study::report::Report, method: &str) -> &'a [CallRow] {
    &r.sections.iter().find(|x| x.method == method).unwrap().calls.rows
}

fn adds_up(row: &CallRow) {
    let left_out = row.left_out.unwrap_or(0);
    assert_eq!(
        row.answered + row.out_of_choice + row.refused.unwrap_or(0) + row.failed + left_out,
        row.total,
        "{row:?}"
    );
}

#[test]
fn the_calls_table_equals_the_hand_count_and_adds_up_to_the_planned_calls() {
    let (r, by_hand) = study_with_every_fate();
    let planned = |method: &str, language: &str| -> u64 {
        by_hand.get(&(method.to_string(), language.to_string())).map_or(0, |c| c.values().sum())
    };
    let hand = |method: &str, language: &str, column: &str| -> u64 {
        by_hand[&(method.to_string(), language.to_string())].get(column).copied().unwrap_or(0)
    };
    for method in ["bbq", "crosslingual", "requirements", "divergence"] {
        let rows = rows(&r, method);
        assert!(!rows.is_empty(), "{method} has a calls table");
        for row in rows {
            adds_up(row);
            // Only gpt-4o-mini has the completions from elsewhere (left out).
            let elsewhere = if row.model == "gpt-4o-mini" { 0 } else { hand(method, &row.language, "left_out") };
            assert_eq!(row.total, planned(method, &row.language) - elsewhere, "{method}: {row:?}");
            // The left-out calls were not the study's: it plans none for an aspect it cannot use.
            assert_eq!(row.planned, Some(row.total - row.left_out.unwrap_or(0)), "{method}: {row:?}");
        }
    }
    // The simulated model answered every call it was given.
    assert!(rows(&r, "bbq").iter().filter(|x| x.model == "sim:fair").all(|x| x.failed == 0 && x.not_run == 0));
    // BBQ and cross-lingual, cell by cell: exactly what was answered.
    for method in ["bbq", "crosslingual"] {
        for row in rows(&r, method).iter().filter(|x| x.model == "gpt-4o-mini") {
            let l = row.language.as_str();
            assert_eq!(row.answered, hand(method, l, "answered"), "{method} {l}");
            assert_eq!(row.out_of_choice, hand(method, l, "out_of_choice"), "{method} {l}");
            assert_eq!(row.failed, hand(method, l, "failed"), "{method} {l}");
            let refused = if method == "bbq" { None } else { Some(hand(method, l, "refused")) };
            assert_eq!(row.refused, refused, "{method} {l}: BBQ detects no refusals");
            assert!(row.failed > row.not_run && row.not_run > 0, "{row:?}");
            assert_eq!(row.out_of_choice > 0, method == "bbq", "{row:?}");
        }
    }
    // Divergence, cell by cell: a completion starting with a city is answered, anything else
    // out of choice, and every call of the aspect without both references left out.
    for row in rows(&r, "divergence").iter().filter(|x| x.model == "gpt-4o-mini") {
        let l = row.language.as_str();
        for (column, got) in [
            ("answered", row.answered),
            ("out_of_choice", row.out_of_choice),
            ("failed", row.failed),
            ("refused", row.refused.unwrap_or(0)),
            ("left_out", row.left_out.unwrap_or(0)),
        ] {
            assert_eq!(got, hand("divergence", l, column), "divergence {l} {column}: {row:?}");
        }
        assert!(row.answered > 0 && row.out_of_choice > 0 && row.left_out == Some(7), "{row:?}");
    }
    // Requirements: the provider's refusals and failures are the oracle's too; a letter or
    // "banana" is passed, failed or unreadable by the requirement's oracle.
    for row in rows(&r, "requirements").iter().filter(|x| x.model == "gpt-4o-mini") {
        let l = row.language.as_str();
        assert_eq!(row.failed, hand("requirements", l, "failed"), "{l}");
        assert!(row.refused.unwrap() >= hand("requirements", l, "refused"), "{l}: {row:?}");
    }
}

#[test]
fn the_figures_count_the_columns_the_table_says() {
    let (r, _) = study_with_every_fate();
    let section = |m: &str| r.sections.iter().find(|x| x.method == m).unwrap();
    let bbq = section("bbq");
    assert!(bbq.calls.figures_count.contains("answered column"), "{}", bbq.calls.figures_count);
    for model in ["sim:fair", "gpt-4o-mini"] {
        let all = bbq.figures.iter().find(|f| f.figure == "accuracy · all" && f.model == model).unwrap();
        let answered: u64 = bbq.calls.rows.iter().filter(|x| x.model == model).map(|x| x.answered).sum();
        assert_eq!(all.n, answered, "{model}: accuracy · all counts the answered calls");
    }
    let x = section("crosslingual");
    for row in &x.calls.rows {
        let name = format!("refusal rate · {}", row.language);
        let f = x.figures.iter().find(|f| f.figure == name && f.model == row.model).unwrap();
        assert_eq!(f.n, row.answered + row.refused.unwrap(), "{row:?}");
    }
    let req = section("requirements");
    for row in &req.calls.rows {
        let suffix = format!(" · {}", row.language);
        let n: u64 =
            req.figures.iter().filter(|f| f.model == row.model && f.figure.ends_with(&suffix)).map(|f| f.n).sum();
        assert_eq!(n, row.answered, "{row:?}: the pass rates count the answered calls");
    }
    // Divergence: the answered calls are the samples of the model's distributions.
    let div = section("divergence");
    let analysis_matched: u64 = div.calls.rows.iter().filter(|x| x.model == "gpt-4o-mini").map(|x| x.answered).sum();
    assert!(div.calls.figures_count.contains("answered column"), "{}", div.calls.figures_count);
    assert!(div.notes.iter().any(|n| n.contains("first_names")), "the aspect left out is named: {:?}", div.notes);
    assert!(analysis_matched > 0);
    // The HTML shows each table with its columns.
    let html = study::html::render(&r);
    assert_eq!(
        html.matches("<h3>Calls per model and language</h3>").count(),
        4,
        "bbq, crosslingual, requirements, divergence"
    );
    assert!(html.contains("<th>Left out</th>"), "divergence's left-out column is shown");
    assert!(html.contains("not run)"), "planned calls without a record are named");
}
