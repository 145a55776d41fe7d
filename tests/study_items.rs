//! What changed between the models, item by item, on the example study: every method gives
//! items for its model pair, the disagreements agree with the paired tests' discordant counts,
//! and the HTML report lists the first N per category with the rest in report.json.

use evenhand::study::{example, html, items};

#[test]
fn the_example_study_gives_items_in_every_method_and_its_disagreements_match_mcnemar() {
    let s = example::session().unwrap();
    let all = items::all(&s).unwrap();
    for method in ["requirements", "bbq", "crosslingual", "divergence"] {
        let of: Vec<_> = all.iter().filter(|i| i.method == method).collect();
        assert!(!of.is_empty(), "{method}: no item");
        assert!(of.iter().all(|i| i.model_a == "sim:fair" && i.model_b == "sim:skewed"), "{method}");
        assert!(of.iter().any(|i| i.disagree), "{method}: the skewed model should differ somewhere");
        assert!(of.iter().any(|i| !i.disagree), "{method}: and agree somewhere");
    }
    let report = s.report("T").unwrap();
    // Cross-lingual: per language, the items whose refusal verdicts differ are McNemar's discordant pairs.
    let section = report.sections.iter().find(|x| x.method == "crosslingual").unwrap();
    for c in &section.comparisons {
        let language = c.figure.strip_prefix("refusal rate · ").unwrap();
        let (only_a, only_b) = c.discordant.unwrap();
        let differ = all.iter().filter(|i| i.method == "crosslingual" && i.language == language && i.disagree).count();
        assert_eq!(differ as u64, only_a + only_b, "{language}");
        let a_refused = all
            .iter()
            .filter(|i| i.method == "crosslingual" && i.language == language && i.disagree && i.a.outcome == "refused")
            .count();
        assert_eq!(a_refused as u64, only_a, "{language}: A refused, B answered");
    }
    // Requirements: among items judged passed or failed by both, the differing ones are McNemar's.
    let section = report.sections.iter().find(|x| x.method == "requirements").unwrap();
    let discordant: u64 = section.comparisons.iter().map(|c| c.discordant.map_or(0, |(a, b)| a + b)).sum();
    let judged = |o: &str| o == "passed" || o == "failed";
    let differ = all
        .iter()
        .filter(|i| i.method == "requirements" && i.disagree && judged(&i.a.outcome) && judged(&i.b.outcome))
        .count();
    assert_eq!(differ as u64, discordant);
    // BBQ: every item carries its question, both answers, how they were read and the expected option.
    let bbq = all.iter().find(|i| i.method == "bbq" && i.disagree).unwrap();
    assert!(!bbq.question.is_empty() && bbq.expected.starts_with("option "));
    assert!(bbq.a.read.contains("option") || bbq.a.read.starts_with("no option"), "{}", bbq.a.read);
    assert!(matches!(bbq.condition.as_str(), "ambiguous" | "disambiguated"));
}

#[test]
fn the_report_carries_every_disagreement_and_the_html_the_first_n_per_category() {
    let s = example::session().unwrap();
    let report = s.report("T").unwrap();
    let ch = &report.changes;
    let total: u64 = ch.groups.iter().map(|g| g.disagree).sum();
    assert_eq!(total as usize, ch.items.len());
    assert!(ch.items.iter().all(|i| i.disagree));
    let json = html::report_json(&report);
    assert!(json.contains("\"changes\""));
    let page = html::render(&report);
    assert!(page.contains("What changed between the models, item by item"));
    let big = ch.groups.iter().find(|g| g.disagree as usize > ch.html_per_group).expect("a category with more than N");
    let more = big.disagree as usize - ch.html_per_group;
    assert!(page.contains(&format!("… and {more} more in report.json")), "the cut-off says how many are left out");
    // Every differing item of the first group shown is in the HTML up to N, and not beyond.
    let (first, _) = ch.first_of(big, ch.html_per_group);
    assert_eq!(first.len(), ch.html_per_group);
    let rows = page.matches("<tr><td>").count();
    let listed: usize = ch.groups.iter().map(|g| (g.disagree as usize).min(ch.html_per_group)).sum();
    assert!(rows >= listed, "{rows} rows for {listed} listed items");
}
