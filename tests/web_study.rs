//! The study facade in headless Chromium: the page's report JSON for the parity fixture equals
//! the CLI's (tests/golden/study_report.json, timestamp excluded); a bad study is refused with
//! its located problem; the example study opens and reports, and how long that takes.
#![cfg(target_arch = "wasm32")]

#[path = "common/study.rs"]
mod fixture;

use evenhand::web::StudySession;
use js_sys::Reflect;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

#[wasm_bindgen_test]
fn the_pages_report_equals_the_clis() {
    let upload = StudySession::new("upload.json", fixture::UPLOAD).unwrap();
    let mut upload = upload;
    upload.simulate().unwrap();
    let records = fixture::relabel(&upload.records_jsonl());
    let mut s = StudySession::new("parity.json", fixture::PARITY).unwrap();
    s.simulate().unwrap();
    s.add_records("records.jsonl", records.as_bytes(), None, None).unwrap();
    let json = s.report_json(Some(fixture::GENERATED_AT.into())).unwrap();
    assert!(
        fixture::without_time(&json) == fixture::without_time(fixture::GOLDEN),
        "the page's report.json differs from the CLI's golden"
    );
    let html = s.report_html(None).unwrap();
    assert!(!html.to_lowercase().contains("<script"));
}

#[wasm_bindgen_test]
fn a_bad_study_is_refused_with_its_location() {
    let bad = fixture::PARITY.replace("\"samples\": 1", "\"samples\": 1, \"sampels\": 2");
    let err = StudySession::new("bad.json", &bad).err().expect("refused");
    let detail = get(&err, "detail");
    assert_eq!(get(&detail, "file").as_string().as_deref(), Some("bad.json"));
    assert_eq!(get(&detail, "line").as_f64(), Some(13.0));
    assert!(get(&detail, "column").as_f64().is_some());
    assert_eq!(get(&detail, "field").as_string().as_deref(), Some("sampels"));
    for garbage in ["", "{", "[]", "null", "\u{0}", "{\"format\":\"evenhand-study\",\"version\":1}"] {
        assert!(StudySession::new("x.json", garbage).is_err(), "accepted {garbage:?}");
        assert!(StudySession::open_bundle("x.json", garbage).is_err(), "bundle accepted {garbage:?}");
        assert!(StudySession::open_share(garbage).is_err(), "share accepted {garbage:?}");
    }
    let mut s = StudySession::new("parity.json", fixture::PARITY).unwrap();
    assert!(s.add_records("x.csv", b"not,a\nrecord,table", None, None).is_err());
    assert!(s.add_records("x.jsonl", b"\xff\xfe", Some("bbq".into()), None).is_err());
    assert!(s.add_records("x.jsonl", b"{}", Some("nonsense".into()), None).is_err());
    let err =
        s.add_records("x.jsonl", b"{}", None, Some("borrowed".into())).err().expect("an unknown origin is refused");
    let message = get(&err, "message").as_string().unwrap_or_default();
    assert!(message.contains("origin") && message.contains("borrowed"), "{message}");
}

/// Each step yields to the event loop: the debug build takes seconds per report, and a renderer
/// that never answers chromedriver for 30 s ends the whole test binary.
#[wasm_bindgen_test]
async fn the_example_opens_and_reports_quickly() {
    let now = || js_sys::Date::now();
    let t0 = now();
    let s = StudySession::example().unwrap();
    let t1 = now();
    breathe().await;
    let report = s.report(None).unwrap();
    let t2 = now();
    web_sys_log(&format!("example study (debug build): open and simulate {:.0} ms, report {:.0} ms", t1 - t0, t2 - t1));
    assert_eq!(js_sys::Array::from(&get(&report, "sections")).length(), 4);
    breathe().await;
    let html = s.report_html(None).unwrap();
    assert!(html.contains("SIMULATED"));
    breathe().await;
    let mine = s.report_json(Some("T".into())).unwrap();
    breathe().await;
    let shared = StudySession::open_share(&s.share_fragment()).unwrap();
    breathe().await;
    assert_eq!(shared.report_json(Some("T".into())).unwrap(), mine);
    breathe().await;
    let bundled = StudySession::open_bundle("b.json", &s.bundle()).unwrap();
    breathe().await;
    assert_eq!(bundled.report_json(Some("T".into())).unwrap(), mine);
}

/// A macrotask boundary, so the renderer can answer the test driver between long steps.
async fn breathe() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let global = js_sys::global();
        let set_timeout = Reflect::get(&global, &"setTimeout".into()).unwrap();
        let _ = js_sys::Function::from(set_timeout).call2(&global, &resolve, &0.into());
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

fn web_sys_log(text: &str) {
    wasm_bindgen_test::console_log!("{text}");
}
