//! Times a 100,000-row table both ways natively, the same rows the Playwright spec times in
//! Chromium (tests/e2e/parquet.spec.mjs): `cargo run --release -p evenhand-parquet --example timing`.

use std::time::Instant;

fn main() {
    let rows = 100_000;
    let jsonl: String = (0..rows)
        .map(|i| {
            format!(
                "{{\"record_id\":\"r{i}\",\"case_id\":\"c{}\",\"language\":\"{}\",\"model\":\"m\",\"response\":\"answer {}\",\"gold\":{},\"latency_ms\":{}}}\n",
                i % 500,
                ["en", "de", "es"][i % 3],
                i % 17,
                i % 3,
                i as f64 / 7.0
            )
        })
        .collect();
    let t = Instant::now();
    let bytes = evenhand_parquet::from_jsonl(&jsonl).expect("writes");
    let write = t.elapsed();
    let t = Instant::now();
    let table = evenhand_parquet::to_jsonl(&bytes).expect("reads");
    let read = t.elapsed();
    assert_eq!(table.rows, rows);
    println!(
        "{rows} rows: JSONL {} bytes, Parquet {} bytes; write {:.0} ms, read {:.0} ms",
        jsonl.len(),
        bytes.len(),
        write.as_secs_f64() * 1e3,
        read.as_secs_f64() * 1e3
    );
}
