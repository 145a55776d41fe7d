//! Issue 15, defect 1: a quoted field that never closes used to swallow the rest of a CSV file
//! into one cell without a word. Every table reader now refuses it at the line where it opens.

const BROKEN: &str = "\"unterminated\n";

/// A valid table with `header` and one good row, then a row whose first cell opens a quote
/// that never closes (line 3), then two more rows that would have been swallowed.
fn table(header: &str, good: &str) -> String {
    format!("{header}\n{good}\n{BROKEN}{good}\n{good}\n")
}

fn assert_at_line_3(what: &str, p: &evenhand::formats::Problem) {
    assert_eq!(p.line, Some(3), "{what}: {p}");
    assert!(p.message.contains("never closed"), "{what}: {p}");
}

#[test]
fn every_csv_reader_refuses_an_unclosed_quote_at_its_line() {
    let t = table("id,v0,v1", "a,1,2");
    assert_at_line_3("embeddings", &evenhand::formats::embeddings::read_embeddings("e.csv", t.as_bytes()).unwrap_err());
    let t = table("id,group", "a,en");
    assert_at_line_3("groups", &evenhand::formats::embeddings::read_groups("g.csv", t.as_bytes()).unwrap_err());
    let t = table("case_id,prompt", "q1,hello");
    let problems = evenhand::run::cases::read("cases.csv", t.as_bytes()).unwrap_err();
    assert_at_line_3("cases", &problems[0]);
    let t = table("context_id,filler,logprob", "c1,Paris,-1.5");
    match evenhand::divergence::logprobs::read("lp.csv", t.as_bytes(), "m") {
        Err(evenhand::divergence::DivergenceError::Input(p)) => assert_at_line_3("logprobs", &p),
        other => panic!("logprobs: {other:?}"),
    }
    let t = table("Provider,Model,Instance,Response", "p,m,i,r");
    assert_at_line_3("LangBiTe report", &evenhand::requirements::reports::read("responses.csv", &t, &[]).unwrap_err());
    let t = table("record_id,prompt,response", "1,hi,yes");
    match evenhand::formats::load("records.csv", t.as_bytes(), None) {
        Err(evenhand::formats::LoadError::Syntax(p)) => assert_at_line_3("records", &p),
        other => panic!("records: {other:?}"),
    }
}
