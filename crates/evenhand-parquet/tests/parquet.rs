//! Round trips through our writer and reader, nested columns, and damaged files refused
//! with a message (never a panic).

use evenhand_parquet::{Error, from_jsonl, from_rows, is_parquet, to_jsonl};
use serde_json::{Value, json};

fn rows(v: Value) -> Vec<serde_json::Map<String, Value>> {
    v.as_array().unwrap().iter().map(|r| r.as_object().unwrap().clone()).collect()
}

#[test]
fn rows_come_back_equal_with_their_types() {
    let input = rows(json!([
        {"id": "a", "n": 1, "x": 0.5, "ok": true, "choices": ["yes", "no"], "note": "ünï \"q\"\nline"},
        {"id": "b", "n": -7, "x": 2, "ok": false},
        {"id": "c", "x": 1e300, "extra": "only here"}
    ]));
    let bytes = from_rows(&input).unwrap();
    assert!(is_parquet(&bytes));
    let t = to_jsonl(&bytes).unwrap();
    assert_eq!(t.rows, 3);
    // serde_json's objects keep their keys sorted, so the columns come in that order.
    assert_eq!(t.columns, ["choices", "id", "n", "note", "ok", "x", "extra"]);
    let back: Vec<Value> = t.jsonl.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // Ints stay ints, a number column of ints and floats becomes floats, nested values are
    // written as JSON text, missing stays missing.
    assert_eq!(
        back[0],
        json!({"id": "a", "n": 1, "x": 0.5, "ok": true, "choices": "[\"yes\",\"no\"]", "note": "ünï \"q\"\nline"})
    );
    assert_eq!(back[1], json!({"id": "b", "n": -7, "x": 2.0, "ok": false}));
    assert_eq!(back[2], json!({"id": "c", "x": 1e300, "extra": "only here"}));
}

#[test]
fn jsonl_errors_name_the_line() {
    assert_eq!(
        from_jsonl("{\"a\":1}\n\n[1]\n"),
        Err(Error::Json { line: 3, message: "expected a JSON object".into() })
    );
    assert!(matches!(from_jsonl("{\"a\":1}\n{bad\n"), Err(Error::Json { line: 2, .. })));
}

#[test]
fn an_empty_table_round_trips_to_no_rows() {
    let t = to_jsonl(&from_jsonl("").unwrap()).unwrap();
    assert_eq!((t.rows, t.jsonl.as_str()), (0, ""));
}

#[test]
fn twenty_thousand_rows_round_trip() {
    let text: String = (0..20_000)
        .map(|i| format!("{{\"record_id\":\"r{i}\",\"response\":\"answer {}\",\"gold\":{}}}\n", i % 17, i % 3))
        .collect();
    let bytes = from_jsonl(&text).unwrap();
    let t = to_jsonl(&bytes).unwrap();
    assert_eq!(t.rows, 20_000);
    let same = t
        .jsonl
        .lines()
        .zip(text.lines())
        .all(|(a, b)| serde_json::from_str::<Value>(a).unwrap() == serde_json::from_str::<Value>(b).unwrap());
    assert!(same && t.jsonl.lines().count() == 20_000, "the rows differ");
}

#[test]
fn damaged_files_are_refused_with_a_reason() {
    let good = from_jsonl("{\"a\":\"x\",\"b\":1}\n{\"a\":\"y\",\"b\":2}\n").unwrap();
    assert_eq!(to_jsonl(b"a,b\n1,2\n"), Err(Error::NotParquet));
    assert_eq!(to_jsonl(b"PAR1"), Err(Error::NotParquet));
    // Truncated anywhere, or with bytes flipped: an error each time, never a panic.
    for cut in (8..good.len()).step_by(7) {
        let mut t = good[..cut].to_vec();
        t.extend_from_slice(b"PAR1");
        assert!(to_jsonl(&t).is_err() || cut + 4 >= good.len(), "cut at {cut} was accepted");
    }
    for at in 4..good.len() - 4 {
        let mut t = good.clone();
        t[at] ^= 0x5a;
        let _ = to_jsonl(&t); // either answer is fine; a panic fails the test
    }
    let mut footer = good.clone();
    let n = footer.len();
    footer[n - 8..n - 4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(to_jsonl(&footer), Err(Error::Corrupt(_))));
}

/// Inputs the fuzzer found (fuzz/, target records_parquet) that once panicked the reader:
/// each must now be refused with a message.
#[test]
fn inputs_that_once_panicked_are_refused() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corrupt");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let result = to_jsonl(&std::fs::read(&path).unwrap());
        assert!(matches!(result, Err(Error::Corrupt(_))), "{}: {result:?}", path.display());
        seen += 1;
    }
    assert!(seen >= 1);
}
