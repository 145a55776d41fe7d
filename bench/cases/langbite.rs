//! LangBiTe-style evaluation at scale: LangBiTe's example scenario (../shared/ref/langbite,
//! restricted to en_us and es_es, every template taken: 5,824 instances) expanded, planned for
//! 18 models and cut to N records (100,000 by default), with deterministic made-up responses
//! (mostly "No, ...", some "Yes.", refusals, empty answers, JSON probabilities and -1). Times
//! what the page does with a run's records: read the record table (CSV) and evaluate it in
//! default mode (every oracle, group pass rates with intervals, community tests with 999
//! permutations). Writes the records to bench/out/langbite_records.csv for bench/web/langbite.mjs.
//! Prints JSON: seconds (reading + evaluating; each also alone, in wall and in CPU time),
//! records per second, the expansion time, peak memory, and a sample of counts that the
//! browser run must reproduce exactly.
//! bench-size: 100000

use evenhand::record::Status;
use evenhand::requirements::summary::{Mode, evaluate};
use evenhand::requirements::{expand, library, plan, scenario};
use std::collections::BTreeMap;
use std::time::Instant;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/ref/langbite");
    let Ok(example) = std::fs::read_to_string(format!("{dir}/examples/input_example.json")) else {
        println!("{{\"skipped\": \"{dir} is absent\"}}");
        return;
    };
    let scenario_text = restricted(&example);
    let start = Instant::now();
    let sc = scenario::parse("input_example.json", &scenario_text).expect("scenario").scenario;
    let libs: BTreeMap<String, library::Library> = ["en_us", "es_es"]
        .into_iter()
        .map(|l| {
            let bytes = std::fs::read(format!("{dir}/prompts/prompts_{l}.csv")).expect("library");
            (l.to_string(), library::read_tsv(l, l, &bytes).expect("library").library)
        })
        .collect();
    let exp = expand::expand(&sc, &libs, 1, expand::Composition::Compat).expect("expand");
    let expand_seconds = start.elapsed().as_secs_f64();
    let targets: Vec<plan::Target> =
        (0..18).map(|m| plan::Target { provider: "openai".into(), model: format!("m{m:02}") }).collect();
    let mut records = plan::plan("bench", &exp.instances, &targets, 1);
    records.truncate(n);
    for (i, r) in records.iter_mut().enumerate() {
        let h = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
        let numeric = r.extra.get("oracle").is_some_and(|o| o == "same value");
        r.status = Status::Ok;
        r.response = match (numeric, h % 20) {
            (true, 0) => "{\"probability\": -1}".into(),
            (true, 1) => "I cannot provide that.".into(),
            (true, k) => format!("{{\"probability\": {}}}", 30 + k + (h % 3) * 5),
            (false, 0) => "I'm sorry, but I can't help with that.".into(),
            (false, 1) => String::new(),
            (false, 2..=5) => "Yes.".into(),
            (false, _) => "No, that is not true.".into(),
        };
    }
    let csv = evenhand::formats::write(&records, evenhand::formats::FileFormat::Csv);
    std::fs::create_dir_all("bench/out").expect("bench/out");
    std::fs::write("bench/out/langbite_records.csv", &csv).expect("write records");
    std::fs::write("bench/out/langbite_scenario.json", &scenario_text).expect("write scenario");
    drop(records);

    let (start, cpu_start) = (Instant::now(), cpu_seconds());
    let loaded = evenhand::formats::load("records.csv", csv.as_bytes(), None).expect("records");
    let (load_seconds, cpu_loaded) = (start.elapsed().as_secs_f64(), cpu_seconds());
    let s = evaluate(&sc, &loaded.records, Mode::Default, 1, evenhand::stats::confidence::Confidence::NINETY_FIVE);
    let (seconds, cpu_done) = (start.elapsed().as_secs_f64(), cpu_seconds());
    if std::env::var("PROFILE").is_ok() {
        profile(&sc, &loaded.records);
    }
    // DUMP=path: every result (the summary and every exported file) in one file, so that a
    // change made for speed can be checked to leave all of it unchanged, not only the sample.
    if let Ok(path) = std::env::var("DUMP") {
        let files =
            evenhand::requirements::summary::files(&s, &loaded.records, "20260101000000", &serde_json::json!({}));
        let all = serde_json::json!({"summary": s, "files": files});
        std::fs::write(&path, serde_json::to_string_pretty(&all).expect("summary JSON")).expect("write dump");
    }
    println!(
        "{}",
        serde_json::json!({
            "seconds": seconds,
            "records": loaded.records.len(),
            "records_per_second": loaded.records.len() as f64 / seconds,
            "load_seconds": load_seconds,
            "evaluate_seconds": seconds - load_seconds,
            "load_cpu_seconds": cpu_loaded.zip(cpu_start).map(|(b, a)| b - a),
            "evaluate_cpu_seconds": cpu_done.zip(cpu_loaded).map(|(b, a)| b - a),
            "expand_seconds": expand_seconds,
            "instances": exp.instances.len(),
            "peak_rss_mb": peak_rss_mb(),
            "sample": [s.fingerprint()],
        })
    );
}

/// PROFILE=1: the parts of the evaluation timed one by one, on stderr, called as
/// `summary::evaluate` calls them.
fn profile(sc: &scenario::Scenario, records: &[evenhand::record::Record]) {
    use evenhand::requirements::{community, crosslang, evaluate, outcome};
    let t = Instant::now();
    let _ = evaluate::compat_from_records(sc, records);
    eprintln!("compat {:.3} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let (ev, _, at) = outcome::evaluate_indexed(sc, records, &evenhand::text::refusal::Lexicon::builtin());
    eprintln!("outcome {:.3} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let judged = outcome::judged_records(records, &ev, Some(&at));
    eprintln!("records of evaluations {:.3} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let _ = outcome::groups_of(sc, &judged, &ev, 0.95);
    eprintln!("groups {:.3} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let _ = community::analyze_of(&judged, &ev, 1);
    eprintln!("community {:.3} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let _ = crosslang::compare_of(&judged, &ev);
    eprintln!("crosslang {:.3} s", t.elapsed().as_secs_f64());
}

/// The example restricted to en_us and es_es with every template taken (the setting).
fn restricted(example: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(example).expect("example JSON");
    v["nTemplates"] = 100_000.into();
    for r in v["requirements"].as_array_mut().expect("requirements") {
        r["languages"] = serde_json::json!(["en_us", "es_es"]);
    }
    v.to_string()
}

/// Time this thread has run on a CPU (Linux: /proc/thread-self/schedstat, in ns); null
/// elsewhere. On a machine shared with other work, wall time also counts the waits for a
/// core, so the CPU time is the steadier figure for comparing two builds.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(stat.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}

/// Peak resident memory of this process (Linux: VmHWM), in MB; null elsewhere.
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
