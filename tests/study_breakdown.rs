//! Breakdowns (issue 25, "where"): a BBQ study over en and de gets diff-bias per language and
//! per category for each model, with intervals, and the paired model difference in each,
//! corrected as a family of its own; the report's answer names the model the numbers find more
//! biased.

use evenhand::study::Session;

const STUDY: &str = r#"{
  "format": "evenhand-study",
  "version": 1,
  "title": "BBQ in two languages",
  "question": "Which model is more biased, and in which language?",
  "targets": ["simulated:fair", "simulated:skewed"],
  "methods": {"bbq": {"dataset": {"builtin": "evenhand"}, "languages": ["en", "de"]}},
  "samples": 1,
  "seeds": {"plan": 1, "simulation": 7, "statistics": 1},
  "statistics": {"confidence": 0.95, "alpha": 0.05, "correction": "holm", "interval": "wilson", "replicates": 200}
}"#;

#[test]
fn a_bbq_study_over_two_languages_is_broken_down_by_language_and_category_with_paired_differences() {
    let mut s = Session::open("two-languages.json", STUDY).unwrap();
    s.simulate().unwrap();
    let r = s.report("T").unwrap();
    let by = |field: &str| r.breakdowns.iter().find(|b| b.method == "bbq" && b.by == field).expect(field);
    let lang = by("language");
    for language in ["en", "de"] {
        for model in ["sim:fair", "sim:skewed"] {
            let f = lang
                .figures
                .iter()
                .find(|f| f.figure == format!("diff-bias · ambiguous · {language}") && f.model == model)
                .unwrap_or_else(|| panic!("{language} {model}"));
            assert!(f.value.is_some() && f.interval.is_some() && f.n > 0, "{f:?}");
        }
        let c = lang
            .comparisons
            .iter()
            .find(|c| c.figure == format!("diff-bias · ambiguous · {language}"))
            .unwrap_or_else(|| panic!("no paired difference in {language}"));
        assert_eq!((c.model_a.as_str(), c.model_b.as_str()), ("sim:fair", "sim:skewed"));
        assert!(c.interval.is_some() && c.n > 0);
        assert!(c.p_adjusted >= c.p_value, "corrected within the breakdowns' family");
    }
    // The language figures' n add up to the pooled figure's.
    let pooled = |model: &str| {
        r.sections[0].figures.iter().find(|f| f.figure == "diff-bias · ambiguous" && f.model == model).unwrap().n
    };
    let split: u64 = lang
        .figures
        .iter()
        .filter(|f| f.model == "sim:skewed" && f.figure.starts_with("diff-bias · ambiguous · "))
        .map(|f| f.n)
        .sum();
    assert_eq!(split, pooled("sim:skewed"));
    let cat = by("category");
    assert!(cat.figures.len() >= 4 && !cat.comparisons.is_empty());
    // The headline family is unchanged by the breakdowns.
    assert_eq!(r.family.size, r.sections.iter().map(|x| x.comparisons.len()).sum::<usize>());
    // The answer names the skewed model, from the comparisons.
    assert!(r.answer.answer.starts_with("sim:skewed is the more biased model"), "{}", r.answer.answer);
    // Every finding names a figure of the report, with its adjusted p.
    assert!(r.answer.findings.iter().all(|f| f.text.contains("adjusted p")));
    let html = evenhand::study::html::render(&r);
    assert!(html.contains("<h3>bbq by language</h3>") && html.contains("diff-bias · ambiguous · de"));
}
