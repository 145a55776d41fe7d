//! The facade tests, run both on a page (web_page.rs) and in a dedicated worker (web_worker.rs).

/// Declares every test of this file as a wasm-bindgen test in the including crate.
macro_rules! facade_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[wasm_bindgen_test::wasm_bindgen_test]
            fn $name() {
                facade::$name();
            }
        )*
    };
}

macro_rules! all_facade_tests {
    () => {
        facade_tests!(
            demo_numbers_equal_the_native_ones,
            every_export_refuses_garbage_without_trapping,
            load_reports_lines_and_keeps_earlier_records,
            unknown_csv_asks_for_a_mapping,
            share_and_bundle_round_trip,
            divergence_session_refuses_garbage_and_matches_the_core,
            divergence_run_cases_go_out_and_run_records_come_back,
            permanova_gives_the_native_bits,
            permanova_refuses_bad_input_without_trapping,
            permanova_run_split_equals_the_whole,
            crosslingual_session_refuses_garbage_and_runs,
            crosslingual_provider_run_contract,
            crosslingual_page_runs_and_distances,
            requirements_session_refuses_garbage_and_matches_the_core,
            paired_stats_give_the_native_bits,
        );
    };
}

#[path = "facade_requirements.rs"]
mod requirements;
pub use requirements::requirements_session_refuses_garbage_and_matches_the_core;

#[path = "paired_golden.rs"]
mod paired_golden;

use evenhand::stats::multivariate::Vectors;
use evenhand::stats::pca::pca_2d;
use evenhand::stats::permanova_query::PermanovaQuery;
use evenhand::web::{self, BbqSession, CrosslingualSession, DivergenceSession, Workspace};
use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::JsValue;

/// The numbers the native build computes for the demo (tests/golden, checked natively too).
const GOLDEN: &str = include_str!("../golden/demo_analysis.json");
const GOLDEN_CHART: &str = include_str!("../golden/demo_chart.svg");
/// PERMANOVA on a fixed data set, computed natively (tests/golden_permanova.rs).
const GOLDEN_PERMANOVA: &str = include_str!("../golden/permanova.json");
/// PERMANOVA past one slice of the group sums, computed natively (tests/golden_permanova.rs).
const GOLDEN_PERMANOVA_LARGE: &str = include_str!("../golden/permanova_large.json");
#[path = "permanova_large.rs"]
mod permanova_large;
/// The study statistics on fixed inputs, computed natively (tests/golden_paired_stats.rs).
const GOLDEN_PAIRED: &str = include_str!("../golden/paired_stats.json");

fn garbage() -> Vec<JsValue> {
    let obj = Object::new();
    let _ = Reflect::set(&obj, &"seed".into(), &"not a number".into());
    let _ = Reflect::set(&obj, &"samples".into(), &JsValue::from_f64(-3.0));
    let deep = Object::new();
    let _ = Reflect::set(&deep, &"group_by".into(), &Array::of1(&JsValue::from_f64(1.0)));
    let _ = Reflect::set(&deep, &"confidence".into(), &JsValue::from_f64(f64::NAN));
    vec![
        JsValue::UNDEFINED,
        JsValue::from_str("garbage"),
        JsValue::from_f64(f64::INFINITY),
        JsValue::TRUE,
        Array::of2(&1.into(), &"x".into()).into(),
        obj.into(),
        deep.into(),
        Uint8Array::new_with_length(3).into(),
    ]
}

fn message(err: &JsValue) -> String {
    Reflect::get(err, &"message".into()).ok().and_then(|m| m.as_string()).unwrap_or_default()
}

pub fn demo_numbers_equal_the_native_ones() {
    let ws = Workspace::new();
    let view = ws.view().expect("the demo view");
    let analysis = Reflect::get(&view, &"analysis".into()).unwrap();
    let here: serde_json::Value = serde_wasm_bindgen::from_value(analysis).unwrap();
    let native: serde_json::Value = serde_json::from_str(GOLDEN).unwrap();
    assert_eq!(here, native, "the browser's demo numbers differ from the native ones");
    let chart = Reflect::get(&view, &"chart_svg".into()).unwrap().as_string().unwrap();
    assert!(chart == GOLDEN_CHART, "the browser's demo chart differs from the native one");
}

pub fn every_export_refuses_garbage_without_trapping() {
    let mut ws = Workspace::new();
    for g in garbage() {
        // A JS `null` is a valid "no mapping"/"no settings" in places, so it is not garbage here.
        assert!(ws.run(g.clone()).is_err(), "run accepted {g:?}");
        assert!(ws.set_settings(g.clone()).is_err(), "set_settings accepted {g:?}");
        assert!(web::power_curve(g.clone()).is_err(), "power_curve accepted {g:?}");
        assert!(
            ws.load("x.csv", b"response\nok\n", g.clone()).is_err() || g.is_undefined(),
            "load accepted mapping {g:?}"
        );
        let rows = ws.rows(g.clone());
        assert!(rows.is_err() || g.is_undefined(), "rows accepted {g:?}");
    }
    // Garbage bytes and texts.
    const ALPHABET: &[u8] = b",;\t\"\n\r{}[]:abc\xff\xfe0-=@'";
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for round in 0..200 {
        let len = (round * 7) % 300;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                ALPHABET[(state % ALPHABET.len() as u64) as usize]
            })
            .collect();
        for name in ["f.csv", "f.jsonl", "f.json"] {
            let _ = ws.load(name, &bytes, JsValue::NULL);
        }
        let text = String::from_utf8_lossy(&bytes);
        assert!(ws.open_bundle("b.json", &text, None, None).is_err());
        assert!(ws.open_share(&format!("v1.{text}")).is_err());
    }
    assert!(ws.export("xlsx").is_err());
    // The bias-QA session: garbage settings and files are refused, and it keeps working.
    let mut bbq = BbqSession::new();
    for g in garbage() {
        assert!(bbq.simulate(g.clone()).is_err(), "simulate accepted {g:?}");
        assert!(bbq.set_bootstrap(g.clone()).is_err(), "set_bootstrap accepted {g:?}");
        assert!(bbq.rows(g.clone()).is_err() || g.is_undefined(), "bbq rows accepted {g:?}");
        assert!(bbq.simulate_part(g.clone(), 0, 10).is_err(), "simulate_part accepted {g:?}");
        assert!(bbq.keep(g.clone()).is_err() || g.is_undefined(), "keep accepted {g:?}");
    }
    assert!(bbq.provider_cases_jsonl(None).is_err(), "provider cases without data");
    assert!(bbq.add_data_in("d.jsonl", b"\xff\xfe{", Some("xx".into())).is_err());
    for name in ["d.jsonl", "d.tsv", "d.csv"] {
        assert!(bbq.add_data(name, b"{\"answer_info\": 7}\n\xff\n").is_err());
        assert!(bbq.add_predictions(name, b"id,prediction\n1,A\n", None).is_err(), "predictions before data");
    }
    assert!(bbq.use_builtin(1, vec!["en".into()]).is_ok());
    assert!(bbq.add_predictions("p.csv", b"id,prediction\nnope,A\n", Some("wrong".into())).is_err());
    // A selection with a misspelt field or value, or one that keeps nothing, changes nothing.
    for bad in
        [r#"{"condition": "ambiguos"}"#, r#"{"subset": 3}"#, r#"{"language": ["en"]}"#, r#"{"languages": ["xx"]}"#]
    {
        let value = js_sys::JSON::parse(bad).unwrap();
        assert!(bbq.keep(value).is_err(), "keep accepted {bad}");
    }
    assert!(bbq.provider_cases_jsonl(Some("no-such-variant".into())).is_err());
    assert!(bbq.view().is_ok());
    // After all that, the workspace still works.
    assert!(ws.view().is_ok());
}

pub fn load_reports_lines_and_keeps_earlier_records() {
    let mut ws = Workspace::new();
    let ok = ws
        .load(
            "good.jsonl",
            b"{\"response\":\"No\",\"expected\":\"No\"}\n{\"response\":\"x\",\"sample_index\":\"minus\"}\n",
            JsValue::NULL,
        )
        .unwrap();
    let errors = Reflect::get(&ok, &"errors".into()).unwrap();
    let first = Array::from(&errors).get(0);
    assert_eq!(Reflect::get(&first, &"line".into()).unwrap().as_f64(), Some(2.0));
    let err = ws.load("bad.csv", b"response,sample_index\nx,-1\n", JsValue::NULL).unwrap_err();
    assert!(message(&err).contains("earlier records are kept"), "{}", message(&err));
    let page = ws.rows(JsValue::NULL).unwrap();
    assert_eq!(Reflect::get(&page, &"total".into()).unwrap().as_f64(), Some(1.0));
}

pub fn unknown_csv_asks_for_a_mapping() {
    let mut ws = Workspace::new();
    let err = ws.load("other.csv", b"Model Output;lang\nhola;es\n", JsValue::NULL).unwrap_err();
    let detail = Reflect::get(&err, &"detail".into()).unwrap();
    let inner = Reflect::get(&detail, &"detail".into()).unwrap();
    assert_eq!(Reflect::get(&inner, &"kind".into()).unwrap().as_string().as_deref(), Some("needs_mapping"));
    let mapping = Object::new();
    Reflect::set(&mapping, &"response".into(), &"Model Output".into()).unwrap();
    let loaded = ws.load("other.csv", b"Model Output;lang\nhola;es\n", mapping.into()).unwrap();
    assert_eq!(Reflect::get(&loaded, &"loaded".into()).unwrap().as_f64(), Some(1.0));
}

pub fn share_and_bundle_round_trip() {
    let ws = Workspace::new();
    let fragment = ws.share_fragment().unwrap();
    let bundle = ws.bundle().unwrap();
    let mut other = Workspace::new();
    assert_eq!(other.open_share(&fragment).unwrap(), 1440);
    let summary = other.open_bundle("b.json", &bundle, None, None).unwrap();
    assert_eq!(Reflect::get(&summary, &"identical".into()).unwrap().as_bool(), Some(true));
    assert_eq!(Reflect::get(&summary, &"records_rebuilt".into()).unwrap().as_bool(), Some(true));
}

pub fn divergence_session_refuses_garbage_and_matches_the_core() {
    let mut d = DivergenceSession::new();
    // Nothing loaded: every step says so instead of trapping.
    assert!(d.analyze(JsValue::NULL).is_err());
    assert!(d.chart("m", "c").is_err());
    assert!(d.export("json").is_err());
    assert!(d.load_logprobs("l.csv", b"context_id,filler,logprob\nc,x,-1\n").is_err(), "no probe set yet");
    assert!(d.use_builtin("xx-western").is_err());
    d.use_builtin("pl-western").unwrap();
    for g in garbage() {
        assert!(d.simulate(g.clone()).is_err(), "simulate accepted {g:?}");
        assert!(d.analyze(g.clone()).is_err(), "analyze accepted {g:?}");
    }
    const ALPHABET: &[u8] = b",;\t\"\n{}[]:ab\xff0-=@'";
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..60 {
        let bytes: Vec<u8> = (0..(round * 11) % 200)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                ALPHABET[(state % ALPHABET.len() as u64) as usize]
            })
            .collect();
        let _ = d.load_probes("p.json", &bytes);
        let _ = d.add_reference("local", "cities", "r.csv", &bytes, None, JsValue::NULL);
        let _ = d.load_logprobs("l.csv", &bytes);
        let _ = d.load_records("r.csv", &bytes);
    }
    assert!(d.add_reference("martian", "cities", "r.csv", b"name,count\nA,1\n", None, JsValue::NULL).is_err());
    assert!(
        d.add_reference("local", "cities", "r.csv", b"name,count\nA,1\n", Some("xml".into()), JsValue::NULL).is_err()
    );
    for g in garbage() {
        let r = d.add_reference("local", "cities", "r.csv", b"Stadt,Leute\nA,1\n", Some("table".into()), g.clone());
        assert!(r.is_err() || g.is_undefined(), "add_reference accepted columns {g:?}");
    }
    let columns = Object::new();
    Reflect::set(&columns, &"name".into(), &"Stadt".into()).unwrap();
    Reflect::set(&columns, &"weight".into(), &"Leute".into()).unwrap();
    assert!(
        d.add_reference("local", "cities", "r.csv", b"Stadt,Leute\nA,1\n", Some("table".into()), columns.into())
            .is_ok()
    );
    d.clear_references();
    // A real run: the facade's numbers are the core's numbers.
    d.use_builtin("pl-western").unwrap();
    let request = Object::new();
    Reflect::set(&request, &"mode".into(), &"sampling".into()).unwrap();
    let model = Object::new();
    Reflect::set(&model, &"name".into(), &"m".into()).unwrap();
    Reflect::set(&model, &"lean".into(), &JsValue::from_f64(0.25)).unwrap();
    Reflect::set(&model, &"samples".into(), &JsValue::from_f64(10.0)).unwrap();
    Reflect::set(&request, &"models".into(), &Array::of1(&model)).unwrap();
    Reflect::set(&request, &"seed".into(), &JsValue::from_f64(3.0)).unwrap();
    d.simulate(request.into()).unwrap();
    let settings = Object::new();
    for (k, v) in [
        ("smoothing", JsValue::from_str("add-alpha:0.5")),
        ("unit", "nats".into()),
        ("replicates", 100.into()),
        ("confidence", JsValue::from_f64(0.95)),
        ("seed", 3.into()),
    ] {
        Reflect::set(&settings, &k.into(), &v).unwrap();
    }
    let here: serde_json::Value = serde_wasm_bindgen::from_value(d.analyze(settings.into()).unwrap()).unwrap();
    use evenhand::divergence::{
        analysis::SettingsText,
        session::{Session, SimRequest},
        simulate::Lean,
    };
    let mut core = Session::default();
    core.use_builtin("pl-western").unwrap();
    let lean = Lean { name: "m".into(), lean: 0.25, samples: 10, ..Lean::default() };
    core.simulate(&SimRequest { mode: "sampling".into(), models: vec![lean], seed: 3 }).unwrap();
    let s = SettingsText {
        smoothing: "add-alpha:0.5".into(),
        unit: "nats".into(),
        replicates: 100,
        confidence: 0.95,
        seed: 3,
    }
    .parse()
    .unwrap();
    let native = serde_json::to_value(core.analyze(&s).unwrap()).unwrap();
    assert!(same(&here["models"], &native["models"]), "the facade's numbers differ from the core's");
    assert!(d.chart("sim:m", "pl-city-01").unwrap().starts_with("<svg"));
    assert!(d.export("csv").unwrap().starts_with("model,level"));
    assert!(d.export("xlsx").is_err());
}

pub fn divergence_run_cases_go_out_and_run_records_come_back() {
    let mut d = DivergenceSession::new();
    assert!(d.run_cases_jsonl("score").is_err(), "no probe set yet");
    d.use_builtin("pl-western").unwrap();
    assert!(d.run_cases_jsonl("guess").is_err());
    let jsonl =
        |text: String| -> Vec<serde_json::Value> { text.lines().map(|l| serde_json::from_str(l).unwrap()).collect() };
    let sample = jsonl(d.run_cases_jsonl("sample").unwrap());
    assert_eq!(sample.len(), 47, "one sampling case per context of pl-western");
    let cases = jsonl(d.run_cases_jsonl("score").unwrap());
    assert_eq!(cases.len(), 24 * 37 + 23 * 41, "one scoring case per context and filler");
    // The run's records, as the run engine stores them: each case answered with a score.
    let records: Vec<serde_json::Value> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut r = c.clone();
            r["status"] = "ok".into();
            r["model"] = "m".into();
            r["logprob_sum"] = format!("{:?}", -(((i * 7919) % 97) as f64) / 8.0).into();
            r
        })
        .collect();
    let text = serde_json::to_string(&records).unwrap();
    for bad in [&b"[{\"job\":"[..], b"", b"[]"] {
        assert!(d.load_records("run.json", bad).is_err());
    }
    let summary: serde_json::Value =
        serde_wasm_bindgen::from_value(d.load_records("run.json", text.as_bytes()).unwrap()).unwrap();
    assert_eq!(summary["calls"]["mode"], "scoring");
    assert_eq!(summary["calls"]["used"], records.len());
    let settings = serde_json::json!({"smoothing": "add-alpha:0.5", "unit": "nats", "replicates": 50, "confidence": 0.95, "seed": 1});
    let here: serde_json::Value = serde_wasm_bindgen::from_value(d.analyze(json_to_js(&settings)).unwrap()).unwrap();
    // The same numbers from the log-probability table the records give.
    use evenhand::divergence::{analysis::SettingsText, session::Session};
    let mut core = Session::default();
    core.use_builtin("pl-western").unwrap();
    core.load_records("run.json", text.as_bytes()).unwrap();
    let table = core.data_csv().unwrap();
    core.load_logprobs("m.csv", table.as_bytes()).unwrap();
    let s: SettingsText = serde_json::from_value(settings).unwrap();
    let native = serde_json::to_value(core.analyze(&s.parse().unwrap()).unwrap()).unwrap();
    assert!(same(&here["models"], &native["models"]), "run records and their table give different numbers");
}

/// JSON equality where numbers compare as f64: JavaScript has one number type, so 0.0 comes
/// back from the page as the integer 0.
fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value::*;
    match (a, b) {
        (Number(x), Number(y)) => x.as_f64() == y.as_f64(),
        (Array(x), Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Object(x), Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        _ => a == b,
    }
}

fn json_to_js(value: &serde_json::Value) -> JsValue {
    use serde::Serialize;
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).unwrap()
}

/// The page's build leaves the one-call `permanova` export out (only the benchmarks build it,
/// with `--features bench`), so these run the core's flat-number request in the browser's wasm.
fn permanova_query(value: &JsValue) -> Result<PermanovaQuery, String> {
    let json: serde_json::Value = serde_wasm_bindgen::from_value(value.clone()).map_err(|e| e.to_string())?;
    if json.is_array() {
        return Err("an array".into());
    }
    serde_json::from_value(json).map_err(|e| e.to_string())
}

fn permanova_of(query: &serde_json::Value, values: Vec<f64>) -> Result<serde_json::Value, String> {
    let q: PermanovaQuery = serde_json::from_value(query.clone()).map_err(|e| e.to_string())?;
    let mut job = q.job(values).map_err(|e| e.to_string())?;
    job.advance(usize::MAX);
    Ok(serde_json::to_value(job.result().map_err(|e| e.to_string())?).unwrap())
}

pub fn permanova_gives_the_native_bits() {
    let golden: serde_json::Value = serde_json::from_str(GOLDEN_PERMANOVA).unwrap();
    let values: Vec<f64> = serde_json::from_value(golden["values"].clone()).unwrap();
    for distance in ["euclidean", "chord", "cosine"] {
        let mut query = golden["query"].clone();
        query["distance"] = distance.into();
        let here = permanova_of(&query, values.clone()).expect("permanova");
        assert_eq!(here, golden[distance], "{distance}: the browser's PERMANOVA differs from the native one");
        // A chunk at a time, as the worker runs it: the same bits.
        let q: PermanovaQuery = serde_json::from_value(query.clone()).unwrap();
        let mut job = q.job(values.clone()).expect("job");
        loop {
            let p = serde_json::to_value(job.advance(37)).unwrap();
            if p["done"].as_f64().unwrap() >= 499.0 {
                break;
            }
            assert!(job.result().is_err(), "a result before the last permutation");
        }
        let chunked = serde_json::to_value(job.result().unwrap()).unwrap();
        assert_eq!(chunked, golden[distance], "{distance}: chunked");
    }
    let pca = pca_2d(&Vectors::from_flat(6, values.clone()).unwrap()).expect("pca");
    assert_eq!(pca.points.len(), 45);
    // 600 points: the browser adds member rows where natively a matrix product runs.
    let large: serde_json::Value = serde_json::from_str(GOLDEN_PERMANOVA_LARGE).unwrap();
    for (groups, distance) in permanova_large::CASES {
        let (_, values, _) = permanova_large::fixture(groups);
        let here = permanova_of(&permanova_large::query(groups, distance), values).expect("permanova");
        assert_eq!(here, large[format!("{groups} groups, {distance}")], "{groups} groups, {distance}: differs");
    }
}

/// The pool's route through the facade (www/permanova-pool.js): runs built from the same
/// request count ranges of the permutations, one run absorbs them all, and the report is the
/// native golden one; bad counts are error objects, not traps.
pub fn permanova_run_split_equals_the_whole() {
    let golden: serde_json::Value = serde_json::from_str(GOLDEN_PERMANOVA).unwrap();
    let values: Vec<f64> = serde_json::from_value(golden["values"].clone()).unwrap();
    let mut query = golden["query"].clone();
    query["distance"] = "chord".into();
    let run = || web::PermanovaRun::new(json_to_js(&query), values.clone()).expect("run");
    let mut whole = run();
    let mut counts = vec![];
    for (first, end) in [(250, 499), (0, 1), (1, 250)] {
        counts.push(run().count(first, end).expect("count"));
    }
    assert!(whole.result().is_err(), "nothing counted yet");
    for c in &counts {
        whole.absorb(c.clone()).expect("absorb");
    }
    let report: serde_json::Value = serde_wasm_bindgen::from_value(whole.result().unwrap()).unwrap();
    assert!(same(&report, &golden["chord"]), "the split's report differs from the native one");
    // Counted twice, outside the job, or not counts at all: refused.
    assert!(whole.absorb(counts[1].clone()).is_err(), "a range absorbed twice");
    assert!(run().count(0, 500).is_err(), "past the last permutation");
    assert!(run().count(9, 3).is_err(), "a backwards range");
    for g in garbage() {
        assert!(run().absorb(g.clone()).is_err(), "absorb accepted {g:?}");
    }
    let mut r = run();
    assert_eq!(Reflect::get(&r.advance(100).unwrap(), &"done".into()).unwrap().as_f64(), Some(100.0));
    assert_eq!(Reflect::get(&r.progress().unwrap(), &"total".into()).unwrap().as_f64(), Some(499.0));
}

pub fn permanova_refuses_bad_input_without_trapping() {
    for g in garbage() {
        let refused = permanova_query(&g)
            .map_err(|e| e.to_string())
            .and_then(|q| q.job(vec![1.0, 2.0]).map(|_| ()).map_err(|e| e.to_string()));
        assert!(refused.is_err(), "permanova accepted {g:?}");
    }
    let q = |text: &str| -> serde_json::Value { serde_json::from_str(text).unwrap() };
    let two = r#"{"dim": 2, "groups": ["a", "a", "b", "b"]}"#;
    let ok = [0.0, 1.0, 1.0, 0.0, 5.0, 5.0, 6.0, 4.0];
    assert!(permanova_of(&q(two), ok.to_vec()).is_ok());
    let cases: Vec<(&str, Vec<f64>, &str)> = vec![
        (two, vec![0.0, 1.0, 1.0, f64::NAN, 5.0, 5.0, 6.0, 4.0], "row 1, column 1"),
        (two, ok[..7].to_vec(), "expected 2 values"),
        (r#"{"dim": 2, "groups": ["a", "a", "a", "a"]}"#, ok.to_vec(), "at least 2 groups"),
        (r#"{"dim": 2, "groups": ["a", "b"]}"#, ok.to_vec(), "4 points but 2 labels"),
        (r#"{"dim": 2, "groups": ["a", "a", "b", "b"], "permutations": 0}"#, ok.to_vec(), "permutations"),
        (r#"{"groups": ["a", "a", "b", "b"]}"#, ok.to_vec(), "dim"),
        (r#"{"dim": 2, "groups": ["a", "a", "b", "b"], "distance": "manhattan"}"#, ok.to_vec(), "manhattan"),
        (r#"{"groups": ["a", "b"], "matrix": true}"#, vec![0.0, 1.0, 2.0, 0.0], "symmetric"),
        (r#"{"groups": ["a", "b", "c"], "matrix": true}"#, vec![0.0, 1.0, 1.0, 0.0], "square"),
        (r#"{"dim": 0, "groups": ["a", "b"]}"#, vec![], "2 points"),
    ];
    for (query, values, expect) in cases {
        let err = permanova_of(&q(query), values).unwrap_err();
        assert!(err.contains(expect), "{query}: {err:?} lacks {expect:?}");
    }
    let flat = |dim, values| Vectors::from_flat(dim, values).and_then(|v| pca_2d(&v));
    assert!(flat(0, vec![]).is_err());
    assert!(flat(2, vec![1.0]).is_err());
    assert!(flat(2, vec![1.0, f64::INFINITY, 0.0, 0.0]).is_err());
}

pub fn crosslingual_session_refuses_garbage_and_runs() {
    let mut x = CrosslingualSession::new();
    assert!(x.view().is_err(), "no data yet");
    assert!(x.step(5).is_err(), "no run planned");
    for g in garbage() {
        assert!(x.plan_run(g.clone()).is_err(), "plan_run accepted {g:?}");
        assert!(x.set_settings(g.clone()).is_err(), "set_settings accepted {g:?}");
    }
    for bytes in [&b""[..], b"\xff\xfe", b"[1,2", b"{\"format\":\"evenhand-questions\"}", b"[{}]", b"42"] {
        assert!(x.load_questions("q.json", bytes).is_err());
        assert!(x.load_records("r.csv", bytes).is_err());
        assert!(x.load_embeddings("e.csv", bytes).is_err());
    }
    assert!(x.export("xlsx").is_err());
    assert!(x.use_references().is_err(), "no question set yet");
    x.use_builtin().unwrap();
    let request = Object::new();
    Reflect::set(&request, &"languages".into(), &Array::of2(&"en".into(), &"hi".into())).unwrap();
    Reflect::set(&request, &"modes".into(), &Array::of1(&"non_acceptable".into())).unwrap();
    Reflect::set(&request, &"samples".into(), &JsValue::from_f64(2.0)).unwrap();
    // The built-in set: 170 questions x 2 languages x 1 mode x 2 samples.
    let plan = x.plan_run(request.into()).unwrap();
    assert_eq!(Reflect::get(&plan, &"total".into()).unwrap().as_f64(), Some(680.0));
    let mut done = 0.0;
    while done < 680.0 {
        done = Reflect::get(&x.step(50).unwrap(), &"done".into()).unwrap().as_f64().unwrap();
    }
    let view = x.view().unwrap();
    let report = Reflect::get(&view, &"report".into()).unwrap();
    assert_eq!(Reflect::get(&report, &"records".into()).unwrap().as_f64(), Some(680.0));
    assert!(x.load_embeddings("e.csv", b"record_id,embedding\nnope,[1]\n").is_err());
    // PERMANOVA through the facade: garbage settings are refused; one pair over all topics and
    // each of the 17 topics, a test per call.
    assert!(x.permanova_step(1).is_err(), "nothing planned");
    for g in garbage() {
        assert!(x.permanova_plan(g.clone()).is_err(), "permanova_plan accepted {g:?}");
    }
    let settings = Object::new();
    Reflect::set(&settings, &"permutations".into(), &JsValue::from_f64(19.0)).unwrap();
    let total =
        Reflect::get(&x.permanova_plan(settings.clone().into()).unwrap(), &"total".into()).unwrap().as_f64().unwrap();
    assert_eq!(total, 18.0);
    let mut done = 0.0;
    while done < total {
        done = Reflect::get(&x.permanova_step(1).unwrap(), &"done".into()).unwrap().as_f64().unwrap();
    }
    let report = Reflect::get(&x.view().unwrap(), &"report".into()).unwrap();
    let stepped = Reflect::get(&report, &"permanova".into()).unwrap();
    let rows = Reflect::get(&stepped, &"rows".into()).unwrap();
    assert_eq!(Array::from(&rows).length(), 18);
    // The same family the pool's way: each test's request out, a PermanovaRun on it, its
    // report back; garbage reports are refused.
    assert!(x.permanova_take(Object::new().into()).is_err(), "nothing planned");
    x.permanova_plan(settings.into()).unwrap();
    loop {
        let next = x.permanova_next().unwrap();
        let query = Reflect::get(&next, &"query".into()).unwrap();
        if query.is_null() {
            break;
        }
        let values = js_sys::Float64Array::from(Reflect::get(&next, &"values".into()).unwrap()).to_vec();
        for g in garbage() {
            assert!(x.permanova_take(g.clone()).is_err(), "permanova_take accepted {g:?}");
        }
        let mut run = web::PermanovaRun::new(query, values).unwrap();
        run.advance(u32::MAX).unwrap();
        let done = Reflect::get(&x.permanova_take(run.result().unwrap()).unwrap(), &"done".into()).unwrap();
        if done.as_f64() == Some(total) {
            break;
        }
    }
    let pooled =
        Reflect::get(&Reflect::get(&x.view().unwrap(), &"report".into()).unwrap(), &"permanova".into()).unwrap();
    let json = |v: &JsValue| -> serde_json::Value { serde_wasm_bindgen::from_value(v.clone()).unwrap() };
    assert!(same(&json(&pooled), &json(&stepped)), "the pool's route gives the steps' family");
}

/// The page's side of a provider run: cases out, records back (failed ones counted), texts to
/// embed out, vectors back with their model, judge cases out, replies back as verdicts.
pub fn crosslingual_provider_run_contract() {
    let mut x = CrosslingualSession::new();
    assert!(x.run_cases(Object::new().into()).is_err(), "no question set yet");
    assert!(x.embed_items().is_err() && x.judge_cases().is_err(), "no records yet");
    x.use_builtin().unwrap();
    for g in garbage() {
        assert!(x.run_cases(g.clone()).is_err(), "run_cases accepted {g:?}");
        assert!(x.add_embeddings(g.clone()).is_err(), "add_embeddings accepted {g:?}");
    }
    let request = Object::new();
    Reflect::set(&request, &"languages".into(), &Array::of2(&"en".into(), &"hi".into())).unwrap();
    Reflect::set(&request, &"modes".into(), &Array::of1(&"answer".into())).unwrap();
    let cases = Array::from(&x.run_cases(request.into()).unwrap());
    assert_eq!(cases.length(), 340, "170 questions x 2 languages x 1 mode");
    let first = cases.get(0);
    assert_eq!(Reflect::get(&first, &"status".into()).unwrap().as_string().as_deref(), Some("pending"));
    assert!(Reflect::get(&first, &"question_id".into()).unwrap().as_string().is_some_and(|q| !q.is_empty()));

    let records = concat!(
        r#"{"record_id":"r1","method":"crosslingual","question_id":"q1","language":"en","prompt":"P","response":"Sure.","status":"ok"}"#,
        "\n",
        r#"{"record_id":"r2","method":"crosslingual","question_id":"q1","language":"hi","prompt":"P","response":"","status":"error","error":"HTTP 500"}"#,
        "\n"
    );
    x.load_records("run.jsonl", records.as_bytes()).unwrap();
    let report = Reflect::get(&x.view().unwrap(), &"report".into()).unwrap();
    let statuses = Reflect::get(&report, &"statuses".into()).unwrap();
    assert_eq!(Reflect::get(&statuses, &"error".into()).unwrap().as_f64(), Some(1.0));
    assert_eq!(Array::from(&Reflect::get(&report, &"unanswered".into()).unwrap()).length(), 1);

    let items = Array::from(&x.embed_items().unwrap());
    assert_eq!(items.length(), 1, "the failed call has nothing to embed");
    let batch = |model: &str, id: &str, v: &[f64]| {
        let b = Object::new();
        Reflect::set(&b, &"model".into(), &model.into()).unwrap();
        Reflect::set(&b, &"ids".into(), &Array::of1(&id.into())).unwrap();
        let vector: Array = v.iter().map(|&f| JsValue::from_f64(f)).collect();
        Reflect::set(&b, &"vectors".into(), &Array::of1(&vector)).unwrap();
        JsValue::from(b)
    };
    assert!(x.add_embeddings(batch("m", "nobody", &[1.0, 2.0])).is_err());
    assert!(x.add_embeddings(batch("m", "r1", &[])).is_err());
    assert_eq!(x.add_embeddings(batch("m", "r1", &[1.0, 2.0])).unwrap(), 1);
    assert!(message(&x.add_embeddings(batch("other", "r1", &[1.0, 2.0])).unwrap_err()).contains("other"));
    assert!(x.export("csv").unwrap().contains("embedding_model"));

    let judge = Array::from(&x.judge_cases().unwrap());
    assert_eq!(judge.length(), 1);
    let reply = r#"{"method":"crosslingual-judge","case_id":"judge:r1","model":"j","response":"ANSWER","status":"ok","judged_record_id":"r1"}"#;
    let summary = x.load_judge("judge.jsonl", reply.as_bytes()).unwrap();
    assert_eq!(Reflect::get(&summary, &"verdicts".into()).unwrap().as_f64(), Some(1.0));
    assert!(x.load_judge("judge.jsonl", b"\xff").is_err());
}

/// The Cross-lingual tab's runs through the Run tab and its uploaded distance matrix: texts out
/// as JSONL, a run's vectors in place of the old ones, judge cases as JSONL, and a matrix whose
/// errors carry their line and column.
pub fn crosslingual_page_runs_and_distances() {
    let mut x = CrosslingualSession::new();
    assert!(x.embed_texts(Some(true)).is_err() && x.judge_cases_jsonl().is_err(), "no records yet");
    assert!(x.load_distances("d.csv", b",a\na,0\n").is_err());
    let records = concat!(
        r#"{"record_id":"r1","method":"crosslingual","question_id":"q1","language":"en","prompt":"P","response":"Sure.","status":"ok"}"#,
        "\n",
        r#"{"record_id":"r2","method":"crosslingual","question_id":"q1","language":"hi","prompt":"P","response":"Yes.","status":"ok"}"#,
        "\n",
        r#"{"record_id":"r3","method":"crosslingual","question_id":"q2","language":"en","prompt":"P","response":"No.","status":"ok"}"#,
        "\n"
    );
    x.load_records("run.jsonl", records.as_bytes()).unwrap();
    let texts = x.embed_texts(None).unwrap();
    assert_eq!(texts.lines().count(), 3);
    assert!(texts.starts_with(r#"{"id":"r1","text":"Sure."}"#), "{texts}");
    assert_eq!(x.judge_cases_jsonl().unwrap().lines().count(), 3);
    for g in garbage() {
        assert!(x.use_embedding_run(g.clone()).is_err(), "use_embedding_run accepted {g:?}");
    }
    let batch = |model: &str, ids: &[&str]| {
        let b = Object::new();
        Reflect::set(&b, &"model".into(), &model.into()).unwrap();
        let list: Array = ids.iter().map(|&i| JsValue::from_str(i)).collect();
        Reflect::set(&b, &"ids".into(), &list).unwrap();
        let vectors: Array =
            ids.iter().enumerate().map(|(k, _)| JsValue::from(Array::of2(&(k as f64).into(), &1.0.into()))).collect();
        Reflect::set(&b, &"vectors".into(), &vectors).unwrap();
        JsValue::from(b)
    };
    assert_eq!(x.use_embedding_run(batch("a", &["r1", "r2"])).unwrap(), 2);
    // Another model's run replaces the vectors instead of being refused.
    assert_eq!(x.use_embedding_run(batch("b", &["r1", "r2", "r3"])).unwrap(), 3);
    let report = Reflect::get(&x.view().unwrap(), &"report".into()).unwrap();
    let info = Reflect::get(&report, &"embeddings".into()).unwrap();
    assert_eq!(Reflect::get(&info, &"with_embedding".into()).unwrap().as_f64(), Some(3.0));
    assert!(x.use_embedding_run(batch("c", &["nobody"])).is_err());

    assert!(x.distances().unwrap().is_null());
    let e = x.load_distances("d.csv", b",r1,r2\nr1,0,1\nr2,2,0\n").unwrap_err();
    let problem = Reflect::get(&Reflect::get(&e, &"detail".into()).unwrap(), &"detail".into()).unwrap();
    assert_eq!(Reflect::get(&problem, &"line".into()).unwrap().as_f64(), Some(2.0));
    assert_eq!(Reflect::get(&problem, &"column".into()).unwrap().as_f64(), Some(3.0));
    assert!(message(&e).contains("symmetric"));
    let s = x.load_distances("d.csv", b",r1,r2,r3\nr1,0,1,2\nr2,1,0,1\nr3,2,1,0\n").unwrap();
    assert_eq!(Reflect::get(&s, &"records_matched".into()).unwrap().as_f64(), Some(3.0));
    assert!(!x.distances().unwrap().is_null());
}

pub fn paired_stats_give_the_native_bits() {
    let golden: serde_json::Value = serde_json::from_str(GOLDEN_PAIRED).unwrap();
    let here = paired_golden::compute(&golden["inputs"]);
    for part in ["clustered_rate", "paired_mcnemar", "paired_bootstrap", "detectable"] {
        assert_eq!(here[part], golden[part], "{part}: the browser's numbers differ from the native ones");
    }
}
