//! `evenhand embed`: a local model folder (a tiny random-weight BERT the test writes) turns an
//! embed plan into vectors that `crosslingual --embeddings` and `permanova` take; pinned
//! hashes are enforced; bad input is located.

#![cfg(not(target_arch = "wasm32"))]

#[path = "common/cli.rs"]
mod cli;
use cli::evenhand;

#[test]
fn plan_to_vectors_to_permanova_with_a_local_model() {
    let dir = cli::temp("embed", "pipeline");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    evenhand_models::tiny::write(&dir.join("tiny"), 5).unwrap();
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/crosslingual/questions.json");
    let sim = ["crosslingual", "--questions", fixture, "--simulate", "--languages", "en,de", "--samples", "3"];
    let (code, _, err) = evenhand(&[&sim[..], &["--permutations", "0", "--out", &path("sim")]].concat());
    assert_eq!(code, 0, "{err}");
    let records = path("sim/records.csv");
    let (code, _, err) = evenhand(&["crosslingual", "--records", &records, "--embed-plan-out", &path("texts.jsonl")]);
    assert_eq!(code, 0, "{err}");
    let n = std::fs::read_to_string(path("texts.jsonl")).unwrap().lines().count();
    assert!(n >= 6, "{n} texts");

    let (code, out, err) =
        evenhand(&["embed", "--model-dir", &path("tiny"), &path("texts.jsonl"), "--out", &path("vectors.jsonl")]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((report["texts"].as_u64(), report["dimension"].as_u64()), (Some(n as u64), Some(16)));
    assert_eq!(report["model"], "local:tiny");
    // Outside the catalogue nothing is pinned: every file is labelled, on stderr and in the report.
    assert!(report["files"].as_array().unwrap().iter().all(|f| f["status"] == "trust-on-first-use"), "{report}");
    assert!(err.contains("unverified") && report["note"].as_str().unwrap().contains("trust on first use"));
    let vectors: Vec<serde_json::Value> = std::fs::read_to_string(path("vectors.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(vectors.len(), n);
    // The vectors are the library's, in the plan's order, each of unit length.
    let texts: Vec<serde_json::Value> = std::fs::read_to_string(path("texts.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let files = evenhand_models::ModelFiles::read_dir(&dir.join("tiny"), None).unwrap();
    let e = evenhand_models::Embedder::load(files, true).unwrap();
    let expected = e.embed(&[texts[n - 1]["text"].as_str().unwrap()], |_| {}).unwrap();
    assert_eq!(vectors[n - 1]["id"], texts[n - 1]["id"]);
    let last: Vec<f32> = serde_json::from_value(vectors[n - 1]["embedding"].clone()).unwrap();
    assert!(last.iter().zip(&expected[0]).all(|(a, b)| (a - b).abs() < 1e-6), "{last:?} vs {:?}", expected[0]);
    assert!((last.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5);

    let (code, out, err) = evenhand(&[
        "crosslingual",
        "--records",
        &records,
        "--embeddings",
        &path("vectors.jsonl"),
        "--embedding-model",
        "local:tiny",
        "--permutations",
        "99",
    ]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["embeddings"]["models"], serde_json::json!(["local:tiny"]));
    let rows = report["permanova"]["rows"].as_array().unwrap();
    assert!(!rows.is_empty() && rows.iter().all(|r| r["result"]["p"].as_f64().is_some()), "{rows:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pinned_hashes_are_enforced_and_bad_input_is_located() {
    let dir = cli::temp("embed", "refusals");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    evenhand_models::tiny::write(&dir.join("tiny"), 5).unwrap();
    std::fs::write(dir.join("a.jsonl"), "{\"id\": \"x1\", \"text\": \"hello\"}\n").unwrap();
    std::fs::write(dir.join("b.jsonl"), "{\"id\": \"x1\", \"text\": \"again\"}\n").unwrap();
    std::fs::write(dir.join("bad.jsonl"), "{\"id\": \"x2\", \"text\": \"ok\"}\n{\"id\": \"x3\"}\n").unwrap();
    let embed = |extra: &[&str]| {
        evenhand(&[&["embed", "--model-dir", &path("tiny"), "--out", &path("v.jsonl")][..], extra].concat())
    };
    // The folder claims to be all-MiniLM-L6-v2: its weights are not the pinned bytes.
    let (code, _, err) = embed(&["--model", "all-minilm-l6-v2", &path("a.jsonl")]);
    assert_eq!(code, 2);
    let found = evenhand_models::pin::sha256_hex(&std::fs::read(dir.join("tiny/model.safetensors")).unwrap());
    assert!(err.contains("model.safetensors: sha256 ") && err.contains(&found), "{err}");
    assert!(err.contains("53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"), "{err}");
    assert!(!dir.join("v.jsonl").exists(), "nothing is written from refused weights");
    let (code, _, err) = embed(&["--model", "no-such-model", &path("a.jsonl")]);
    assert_eq!(code, 2);
    assert!(err.contains("--model: expected one of all-minilm-l6-v2"), "{err}");
    let (code, _, err) = embed(&[&path("a.jsonl"), &path("b.jsonl")]);
    assert_eq!(code, 2);
    assert!(err.contains("b.jsonl: id \"x1\" is also in") && err.contains("a.jsonl"), "{err}");
    let (code, _, err) = embed(&[&path("bad.jsonl")]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.jsonl:2:") && err.contains("missing field `text`"), "{err}");
    let (code, out, _) = evenhand(&["models"]);
    assert_eq!(code, 0);
    let models: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(models.as_array().unwrap().iter().any(|m| m["repository"] == "intfloat/multilingual-e5-small"));
    let _ = std::fs::remove_dir_all(&dir);
}
