//! The Requirements tab's facade (`RequirementsSession`) in the browser: garbage refused without a
//! trap, and the page's flow giving the numbers the native session gives.

use super::{garbage, message};
use evenhand::requirements::session::{DEFAULT_SCENARIO, EvalQuery, PlanQuery, Session};
use evenhand::requirements::simulate::SimBias;
use evenhand::web::RequirementsSession;
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::JsValue;

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).unwrap()
}

pub fn requirements_session_refuses_garbage_and_matches_the_core() {
    let mut r = RequirementsSession::new();
    assert!(r.preview(Object::new().into()).is_err(), "no scenario yet");
    assert!(r.evaluate(Object::new().into()).is_err(), "no records yet");
    assert!(r.files("20260101000000").is_err());
    assert!(r.records_jsonl().is_err());
    let v = r.set_scenario("{\"nTemplates\": ").unwrap();
    assert_eq!(get(&v, "ok").as_bool(), Some(false));
    for g in garbage() {
        assert!(r.browse(g.clone()).is_err(), "browse accepted {g:?}");
        assert!(r.preview(g.clone()).is_err(), "preview accepted {g:?}");
        assert!(r.plan(g.clone()).is_err(), "plan accepted {g:?}");
        assert!(r.simulate(g.clone()).is_err(), "simulate accepted {g:?}");
        assert!(r.evaluate(g.clone()).is_err(), "evaluate accepted {g:?}");
    }
    for bytes in [&b""[..], b"\xff\xfe", b"[1,2"] {
        assert!(r.load_library("en_us", "lib.json", bytes).is_err());
        assert!(r.load_records("r.csv", js_sys::Uint8Array::from(bytes)).is_err());
    }
    assert!(r.load_report("g.csv", ",Provider\n0,x\n").is_err());
    assert!(r.reports_view(f64::NAN).is_err());
    let err = r.load_library("", "lib.csv", b"x").unwrap_err();
    assert!(message(&err).contains("language"), "{}", message(&err));

    // The page's flow, and the same flow natively.
    assert_eq!(get(&r.set_scenario(DEFAULT_SCENARIO).unwrap(), "ok").as_bool(), Some(true));
    let plan = Object::new();
    Reflect::set(&plan, &"models".into(), &Array::of1(&"sim-model".into())).unwrap();
    Reflect::set(&plan, &"samples".into(), &JsValue::from_f64(2.0)).unwrap();
    let planned = r.plan(plan.into()).unwrap();
    let sim = Object::new();
    Reflect::set(&sim, &"bias".into(), &JsValue::from_f64(0.2)).unwrap();
    assert_eq!(r.simulate(sim.into()).unwrap(), planned);
    let view = r.evaluate(Object::new().into()).unwrap();

    let mut native = Session::default();
    assert!(native.set_scenario(DEFAULT_SCENARIO).ok);
    let q = PlanQuery { models: vec!["sim-model".into()], samples: 2, ..PlanQuery::default() };
    assert_eq!(native.plan(&q).unwrap(), planned);
    native.simulate(&SimBias { bias: 0.2, ..SimBias::default() }).unwrap();
    let expected = native.evaluate(&EvalQuery::default()).unwrap();
    let groups = Array::from(&get(&view, "groups"));
    assert_eq!(groups.length() as usize, expected.groups.len());
    for (i, g) in expected.groups.iter().enumerate() {
        let rate = get(&get(&groups.get(i as u32), "pass_rate"), "rate").as_f64();
        assert_eq!(rate, g.pass_rate.as_ref().map(|p| p.rate), "group {i}: the same bits");
    }
    let files = Array::from(&r.files("20260101000000").unwrap());
    let native_files = native.files("20260101000000").unwrap();
    assert_eq!(files.length() as usize, native_files.len());
    for (i, (name, text)) in native_files.iter().enumerate() {
        let pair = Array::from(&files.get(i as u32));
        assert_eq!(pair.get(0).as_string().as_deref(), Some(name.as_str()));
        assert_eq!(pair.get(1).as_string().as_deref(), Some(text.as_str()), "{name}: the same bytes");
    }
}
