//! Parquet through the command line: record tables converted both ways and read by every
//! command, a BBQ dataset read from Parquet, damaged files refused with the file named, and
//! (where python3 with pyarrow is at hand) files written by pyarrow itself.

#![cfg(not(target_arch = "wasm32"))]

#[path = "common/cli.rs"]
mod cli;
use cli::evenhand;
use std::path::{Path, PathBuf};

fn temp(name: &str) -> PathBuf {
    cli::temp("parquet", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn records(path: &Path) -> Vec<evenhand::record::Record> {
    let bytes = std::fs::read(path).unwrap();
    let loaded = evenhand::formats::load(s(path), &bytes, None).unwrap();
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    loaded.records
}

/// The demo's records (every field kind, communities and choices included).
fn demo_records(dir: &Path) -> PathBuf {
    let (code, _, stderr) = evenhand(&["demo", "--out", s(dir), "--samples", "2", "--seed", "5"]);
    assert_eq!(code, 0, "{stderr}");
    dir.join("records.jsonl")
}

#[test]
fn records_round_trip_through_parquet_and_every_command_reads_it() {
    let dir = temp("roundtrip");
    let jsonl = demo_records(&dir);
    let pq = dir.join("records.parquet");
    let (code, stdout, stderr) = evenhand(&["convert", s(&jsonl), "--out", s(&pq)]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json(&stdout)["format"], "parquet");
    assert!(std::fs::read(&pq).unwrap().starts_with(b"PAR1"));
    let back = dir.join("back.jsonl");
    let (code, _, stderr) = evenhand(&["convert", s(&pq), "--out", s(&back)]);
    assert_eq!(code, 0, "{stderr}");
    let (a, b) = (records(&jsonl), records(&back));
    assert_eq!(a.len(), 144);
    assert_eq!(a, b);
    // validate and analyze take the Parquet file as they take the JSONL.
    let (code, stdout, stderr) = evenhand(&["validate", s(&pq)]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json(&stdout)["records"], 144);
    let (_, from_jsonl, _) = evenhand(&["analyze", s(&jsonl)]);
    let (code, from_parquet, stderr) = evenhand(&["analyze", s(&pq)]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json(&from_parquet)["groups"], json(&from_jsonl)["groups"]);
    // Found by its magic bytes too, whatever its name.
    let renamed = dir.join("records.bin");
    std::fs::copy(&pq, &renamed).unwrap();
    let (code, stdout, _) = evenhand(&["validate", s(&renamed)]);
    assert_eq!((code, json(&stdout)["records"].clone()), (0, 144.into()));
}

#[test]
fn a_bad_row_in_parquet_is_located_at_its_row() {
    let dir = temp("badrow");
    let rows: Vec<_> = [r#"{"response":"fine","sample_index":1}"#, r#"{"response":"bad","sample_index":-3}"#]
        .iter()
        .map(|r| serde_json::from_str(r).unwrap())
        .collect();
    let pq = dir.join("bad.parquet");
    std::fs::write(&pq, evenhand_parquet::from_rows(&rows).unwrap()).unwrap();
    let (code, _, stderr) = evenhand(&["validate", s(&pq)]);
    assert_eq!(code, 1);
    assert!(stderr.contains("bad.parquet:2:") && stderr.contains("sample_index"), "{stderr}");
    // convert refuses to write a table with rows it could not read.
    let (code, _, stderr) = evenhand(&["convert", s(&pq), "--out", s(&dir.join("out.csv"))]);
    assert_eq!(code, 2, "{stderr}");
    assert!(!dir.join("out.csv").exists());
}

#[test]
fn damaged_parquet_files_are_refused_naming_the_file() {
    let dir = temp("damaged");
    let good = std::fs::read(demo_records(&dir)).unwrap();
    let good = evenhand_parquet::from_jsonl(std::str::from_utf8(&good).unwrap()).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("csv.parquet", b"response\nhello\n".to_vec(), "not a Parquet file"),
        ("truncated.parquet", good[..good.len() / 2].to_vec(), "not a Parquet file"),
        ("footer.parquet", [&good[..good.len() / 2], b"\x10\0\0\0PAR1"].concat(), "damaged or truncated"),
        ("magic.parquet", b"PAR1PAR1".to_vec(), "damaged or truncated"),
    ];
    for (name, bytes, says) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let (code, _, stderr) = evenhand(&["validate", s(&path)]);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(stderr.contains(&format!("{name}: ")) && stderr.contains(says), "{name}: {stderr}");
    }
}

#[test]
fn convert_says_which_formats_it_writes() {
    let dir = temp("formats");
    let jsonl = demo_records(&dir);
    let (code, _, stderr) = evenhand(&["convert", s(&jsonl), "--out", s(&dir.join("x.xlsx"))]);
    assert_eq!(code, 2);
    assert!(stderr.contains("expected csv, jsonl, json or parquet"), "{stderr}");
    let csv = dir.join("x.csv");
    let (code, _, _) = evenhand(&["convert", s(&jsonl), "--out", s(&csv)]);
    assert_eq!(code, 0);
    assert_eq!(records(&csv), records(&jsonl));
}

/// python3 with pyarrow, or why not: EVENHAND_PYTHON names another interpreter (a venv's).
fn pyarrow() -> Result<String, String> {
    let python = std::env::var("EVENHAND_PYTHON").unwrap_or_else(|_| "python3".into());
    match std::process::Command::new(&python).args(["-c", "import pyarrow"]).output() {
        Ok(o) if o.status.success() => Ok(python),
        Ok(_) => Err(format!("{python} has no pyarrow")),
        Err(e) => Err(format!("{python}: {e}")),
    }
}

fn pyarrow_write(python: &str, jsonl: &Path, out: &Path, codec: &str, categorical: &[&str]) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parquet/pyarrow_write.py");
    let o = std::process::Command::new(python)
        .arg(script)
        .args([s(jsonl), s(out), codec])
        .args(categorical)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn files_written_by_pyarrow_read_as_their_jsonl_does() {
    let python = match pyarrow() {
        Ok(p) => p,
        Err(why) => return eprintln!("skipped: {why} (set EVENHAND_PYTHON to a python with pyarrow)"),
    };
    let dir = temp("pyarrow");
    // Records, with a categorical column, in every codec this build reads.
    let jsonl = demo_records(&dir);
    for codec in ["snappy", "gzip", "zstd", "lz4", "none"] {
        let pq = dir.join(format!("records-{codec}.parquet"));
        pyarrow_write(&python, &jsonl, &pq, codec, &["model", "language"]);
        let back = dir.join(format!("back-{codec}.jsonl"));
        let (code, _, stderr) = evenhand(&["convert", s(&pq), "--out", s(&back)]);
        assert_eq!(code, 0, "{codec}: {stderr}");
        assert_eq!(records(&back), records(&jsonl), "{codec}");
    }
    // Brotli is not among the codecs: the error names it and the column.
    let pq = dir.join("records-brotli.parquet");
    pyarrow_write(&python, &jsonl, &pq, "brotli", &[]);
    let (code, _, stderr) = evenhand(&["validate", s(&pq)]);
    assert_eq!(code, 2);
    assert!(stderr.contains("records-brotli.parquet: column") && stderr.contains("Brotli"), "{stderr}");
    // A BBQ file with BBQ's released prediction columns: answer_info and additional_metadata
    // become structs of lists in pyarrow; the scores are those of the JSONL.
    let bbq = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/bbq_data/preds_Age.jsonl");
    let pq = dir.join("preds_Age.parquet");
    pyarrow_write(&python, &bbq, &pq, "snappy", &[]);
    let (code, from_jsonl, stderr) = evenhand(&["bbq", "--data", s(&bbq), "--replicates", "50"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, from_parquet, stderr) = evenhand(&["bbq", "--data", s(&pq), "--replicates", "50"]);
    assert_eq!(code, 0, "{stderr}");
    let (a, b) = (json(&from_jsonl), json(&from_parquet));
    assert_eq!(a["report"]["judged"], 6);
    assert_eq!(a["report"], b["report"]);
}

/// The committed pyarrow-written file (tests/fixtures/bbq_preds_age.parquet: the forty examples
/// of our own words that tests/e2e/datasets.spec.mjs serves, with two prediction columns, Snappy,
/// nested fields as structs) is read without pyarrow at hand: one model per column, scored.
#[test]
fn a_committed_pyarrow_bbq_file_scores_without_pyarrow() {
    let pq = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bbq_preds_age.parquet");
    let (code, out, stderr) = evenhand(&["bbq", "--data", s(&pq), "--replicates", "50"]);
    assert_eq!(code, 0, "{stderr}");
    let report = &json(&out)["report"];
    assert_eq!((report["examples"].as_u64(), report["judged"].as_u64()), (Some(40), Some(80)));
    let by_model = report["by"].as_array().unwrap().iter().find(|b| b[0] == "model").unwrap()[1].as_array().unwrap();
    let acc_amb = |model: &str| {
        let row = by_model.iter().find(|r| r["label"] == model).unwrap_or_else(|| panic!("{model}: {by_model:?}"));
        row["scores"]["acc_amb"].as_f64().unwrap()
    };
    // "Not known" (the arc column) is right on every ambiguous example, the grandfather (race) on none.
    assert_eq!(acc_amb("unifiedqa-t5-11b_pred_arc"), 1.0);
    assert_eq!(acc_amb("unifiedqa-t5-11b_pred_race"), 0.0);
}
