//! The page's requirements session natively: scenario check, browse, preview, plan, simulated
//! run, evaluation, charts, exports and the re-analysis of LangBiTe reports.

use evenhand::record::Status;
use evenhand::requirements::chart as requirements_chart;
use evenhand::requirements::session::{BrowseQuery, DEFAULT_SCENARIO, EvalQuery, PlanQuery, Session};
use evenhand::requirements::simulate::SimBias;
use evenhand::stats::confidence::Confidence;
use std::collections::BTreeMap;

fn plan_query() -> PlanQuery {
    PlanQuery { models: vec!["sim-model".into()], samples: 2, ..PlanQuery::default() }
}

#[test]
fn the_page_flow_from_scenario_to_exports() {
    let mut s = Session::default();
    let v = s.set_scenario(DEFAULT_SCENARIO);
    assert!(v.ok, "{:?}", v.errors);
    assert_eq!(v.requirements, 1);

    let b =
        s.browse(&BrowseQuery { language: "es_es".into(), concern: "sexism".into(), ..Default::default() }).unwrap();
    assert_eq!(b.total, 19);
    assert!(b.rows.iter().all(|r| r.language == "es_es" && r.concern == "sexism"));
    assert_eq!(b.languages.len(), 6);

    let p = s.preview(&plan_query()).unwrap();
    // 6 templates per language, each with one instance per community (3) or per ordered pair.
    assert_eq!(p.counts.len(), 2);
    assert_eq!(p.instances, p.counts.iter().map(|c| c.instances).sum::<usize>());
    assert_eq!(p.calls_per_model, p.instances * 2);
    assert_eq!(p.total_calls, p.calls_per_model);
    assert_eq!(p.models, vec!["simulated:sim-model".to_string()]);

    assert_eq!(s.plan(&plan_query()).unwrap(), p.total_calls);
    assert!(s.records.iter().all(|r| r.status == Status::Pending));
    // The scenario's temperature (0) and tokens (100) travel with every call.
    assert!(s.records.iter().all(|r| r.params["temperature"] == 0.0 && r.params["max_tokens"] == 100));
    let sim = SimBias { bias: 0.05, community: BTreeMap::from([("nonbinary".into(), 0.9)]), ..SimBias::default() };
    assert_eq!(s.simulate(&sim).unwrap(), p.total_calls);
    assert!(s.records.iter().all(|r| r.status == Status::Ok && !r.response.is_empty()));

    let view = s.evaluate(&EvalQuery::default()).unwrap();
    let summary_groups = view.groups.len();
    assert!(!view.groups.is_empty());
    assert_eq!(view.records, p.total_calls);
    assert_eq!(view.outcomes.values().sum::<usize>(), p.total_calls, "every record judged");
    assert!(view.forest_svg.as_deref().is_some_and(|f| f.contains("nonbinary")));
    let rates = view.pass_rates_svg.as_deref().unwrap();
    assert_eq!(rates.matches("<circle").count(), view.groups.iter().filter(|g| g.pass_rate.is_some()).count());
    assert!(rates.contains("stroke-dasharray"), "the tolerance ticks");
    let c = view.communities.as_ref().expect("community statistics");
    // The biased community should stand out in its pass share.
    let g = c.groups.iter().find(|g| g.kind == "categorical" && g.language == "en_us").unwrap();
    let share = |id: &str| g.means.iter().find(|m| m.community == id).map(|m| m.mean).unwrap();
    assert!(share("nonbinary") < share("women"), "{:?}", g.means);
    let forest = requirements_chart::forest(c);
    assert!(forest.starts_with("<svg") && forest.contains("nonbinary"));
    let heat = requirements_chart::mcnemar_heatmap(c, 0.05);
    assert!(heat.contains("<rect"), "{heat}");

    // The judge: a seeded audit sample of passes and failures; a judge that passes everything
    // agrees with the oracle on exactly its passes.
    let (n, jsonl) = s.judge_cases(3, 7).unwrap();
    assert_eq!(s.judge_cases(3, 7).unwrap().1, jsonl, "seeded");
    let answered: String = jsonl
        .lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            v["response"] = "PASS".into();
            v["status"] = "ok".into();
            v.to_string() + "\n"
        })
        .collect();
    let report = s.load_judge("judge.jsonl", answered.as_bytes()).unwrap();
    assert_eq!(report.agreement.n as usize, n);
    assert_eq!(report.agreement.only_a + report.agreement.neither, 0, "the judge never fails");
    assert!(report.agreement.both > 0 && report.agreement.only_b > 0, "{report:?}");
    assert!(s.load_judge("other.jsonl", b"{\"prompt\":\"x\",\"response\":\"PASS\"}\n").is_err());

    let files = s.files("20260101000000").unwrap();
    let manifest = &files.iter().find(|(n, _)| n == "manifest.json").unwrap().1;
    let manifest: serde_json::Value = serde_json::from_str(manifest).unwrap();
    let inputs = &manifest["inputs"];
    assert_eq!(inputs["records"]["origin"]["selected_templates"].as_array().unwrap().len(), 12, "6 per language");
    assert_eq!(inputs["records"]["origin"]["simulated"]["bias"], 0.05);
    assert_eq!(inputs["scenario"]["fnv1a64"].as_str().unwrap().len(), 16);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"langbite/20260101000000_global_evaluation.csv"), "{names:?}");
    assert!(files.len() >= 6, "{names:?}");

    // LangBiTe's global report, written above, read back with intervals; re-judging needs
    // LangBiTe libraries, which the built-in library is not.
    let (name, text) = files.iter().find(|(n, _)| n.ends_with("_global_evaluation.csv")).unwrap();
    assert_eq!(s.load_report(name, text).unwrap(), "global");
    let r = s.reports_view(Confidence::NINETY_FIVE);
    let global = r.global.expect("global rows");
    assert_eq!(global.len(), summary_groups, "one row per group");
    assert!(global.iter().all(|g| g.pass_rate.as_ref().is_none_or(|p| p.low <= p.rate && p.rate <= p.high)));
    assert!(r.rejudged.is_none());
}

/// LangBiTe's sample reports, with its libraries uploaded, re-judged in the page's session.
#[test]
fn uploaded_langbite_reports_are_rejudged_with_uploaded_libraries() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/ref/langbite");
    if !dir.join("reports_sample/plain").is_dir() {
        println!("skipped: {} is absent", dir.display());
        return;
    }
    let mut s = Session::default();
    let v = s.set_scenario(&std::fs::read_to_string(dir.join("reports_sample/config_used.json")).unwrap());
    assert!(v.ok, "{:?}", v.errors);
    for lang in ["en_us", "es_es"] {
        let path = dir.join(format!("prompts/prompts_{lang}.csv"));
        s.load_library(lang, &format!("prompts_{lang}.csv"), &std::fs::read(path).unwrap()).unwrap();
    }
    let mut files: Vec<_> =
        std::fs::read_dir(dir.join("reports_sample/plain")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut kinds = vec![];
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        kinds.push(s.load_report(&name, &std::fs::read_to_string(path).unwrap()).unwrap());
    }
    kinds.sort();
    assert_eq!(kinds, ["evaluations", "global", "responses"]);
    let r = s.reports_view(Confidence::NINETY_FIVE);
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    let rejudged = r.rejudged.unwrap();
    assert!(!rejudged.is_empty());
    assert_eq!(r.agree, rejudged.len(), "every upstream verdict reproduced");
    // Upstream passes groups on 4 of 4 templates; the interval cannot support that at 0.9.
    assert!(r.disagreements > 0);
    assert!(s.browse(&BrowseQuery::default()).unwrap().source.contains("uploaded"));
}

#[test]
fn our_superset_is_read_and_checked_by_field() {
    let mut s = Session::default();
    let with = |ext: &str| DEFAULT_SCENARIO.replacen('{', &format!("{{\"evenhand\": {ext},"), 1);
    let v = s.set_scenario(&with(
        r#"{"seed": 9, "samples": 2, "targets": ["openai:gpt-4o-mini"], "statistics": {"alpha": 0.01}}"#,
    ));
    assert!(v.ok, "{:?}", v.errors);
    let ext = s.scenario.as_ref().unwrap().evenhand.clone().unwrap();
    assert_eq!((ext.seed, ext.samples, ext.statistics.alpha, ext.statistics.confidence), (9, 2, 0.01, 0.95));
    let v = s.set_scenario(&with(r#"{"samples": 0}"#));
    assert!(!v.ok && v.errors[0].field.as_deref() == Some("evenhand.samples"), "{:?}", v.errors);
}

#[test]
fn an_invalid_scenario_keeps_the_previous_one_and_names_the_field() {
    let mut s = Session::default();
    assert!(s.set_scenario(DEFAULT_SCENARIO).ok);
    let bad = DEFAULT_SCENARIO.replace("\"tolerance\": 0.8", "\"tolerance\": 7");
    let v = s.set_scenario(&bad);
    assert!(!v.ok);
    assert!(v.errors.iter().any(|e| e.field.as_deref().is_some_and(|f| f.contains("tolerance"))), "{:?}", v.errors);
    assert!(s.scenario.as_ref().is_some_and(|sc| sc.requirements[0].tolerance == 0.8));
    let v = s.set_scenario("{\"nTemplates\": ");
    assert!(!v.ok && v.errors[0].line.is_some());
    assert!(s.plan(&PlanQuery { samples: 0, ..plan_query() }).is_err());
    assert!(s.simulate(&SimBias { refusal: f64::NAN, ..SimBias::default() }).is_err());
}

/// The page loads a record file without hashing it and gives the hash when an export asks:
/// the exports are then byte for byte those of a file hashed as it loads.
#[test]
fn a_record_file_hashed_later_exports_the_same_files() {
    let mut s = Session::default();
    assert!(s.set_scenario(DEFAULT_SCENARIO).ok);
    s.plan(&plan_query()).unwrap();
    s.simulate(&SimBias::default()).unwrap();
    let csv = evenhand::formats::write(&s.records, evenhand::formats::FileFormat::Csv);
    let exports = |s: &mut Session| {
        s.evaluate(&EvalQuery::default()).unwrap();
        s.files("20260101000000")
    };
    let mut now = Session::default();
    assert!(now.set_scenario(DEFAULT_SCENARIO).ok);
    now.load_records("run.csv", csv.as_bytes()).unwrap();
    assert!(!now.records_hash_pending());
    let now = exports(&mut now).unwrap();
    let manifest = &now.iter().find(|(n, _)| n == "manifest.json").unwrap().1;
    let hash = format!("{:016x}", evenhand::rng::stable_hash(&[csv.as_bytes()]));
    assert!(manifest.contains(&format!("\"fnv1a64\": \"{hash}\"")), "{manifest}");

    let mut later = Session::default();
    assert!(later.set_scenario(DEFAULT_SCENARIO).ok);
    let (n, problems) = later.load_records_unhashed("run.csv", csv.as_bytes()).unwrap();
    assert_eq!((n, problems.len()), (s.records.len(), 0));
    assert!(later.records_hash_pending());
    let refused = exports(&mut later).unwrap_err().to_string();
    assert!(refused.contains("hash"), "{refused}");
    later.set_records_hash(evenhand::rng::stable_hash(&[csv.as_bytes()]));
    assert_eq!(exports(&mut later).unwrap(), now);
    // Planned records have no file to hash.
    later.plan(&plan_query()).unwrap();
    assert!(!later.records_hash_pending());
}
