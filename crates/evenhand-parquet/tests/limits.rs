//! Regression tests (issue 28): a small file declaring millions of rows, and a footer that
//! claims rows its pages do not hold, are refused naming the row group or column chunk.

use evenhand_parquet::{Error, from_jsonl, limits, to_jsonl};

/// A real, well-formed file whose one column repeats a value `n` times: run-length encoding
/// makes it a few kilobytes whatever `n` is.
fn repeated(n: usize) -> Vec<u8> {
    let text = "{\"c\":\"the same answer every time\"}\n".repeat(n);
    from_jsonl(&text).unwrap()
}

#[test]
fn a_small_file_declaring_millions_of_rows_is_refused_naming_the_row_group() {
    let bytes = repeated(2_000_000);
    let max = limits::ceiling(limits::ROWS_FLOOR, limits::ROWS_PER_BYTE, bytes.len());
    assert!(max < 2_000_000, "the fixture is {} bytes: not a bomb", bytes.len());
    let e = to_jsonl(&bytes).unwrap_err();
    assert!(matches!(&e, Error::Limit { place, .. } if place.starts_with("row group ")), "{e}");
    assert!(e.to_string().contains(&format!("more than {max} rows")), "{e}");
    // The same shape within the ceiling still reads.
    let t = to_jsonl(&repeated(50_000)).unwrap();
    assert_eq!(t.rows, 50_000);
}

/// The file with its row group's `num_rows` set to `rows` (the file's total follows it, as the
/// footer writer sums the groups): the pages and the column chunks still hold what they held.
fn claiming(bytes: &[u8], rows: i64) -> Vec<u8> {
    use parquet::file::metadata::{ParquetMetaDataReader, ParquetMetaDataWriter};
    let data = bytes::Bytes::copy_from_slice(bytes);
    let meta = ParquetMetaDataReader::new().parse_and_finish(&data).unwrap();
    assert_eq!(meta.num_row_groups(), 1);
    let group = meta.row_group(0).clone().into_builder().set_num_rows(rows).build().unwrap();
    let lying = meta.into_builder().set_row_groups(vec![group]).build();
    let n = bytes.len();
    let footer_len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
    let mut out = bytes[..n - 8 - footer_len].to_vec();
    ParquetMetaDataWriter::new(&mut out, &lying).finish().unwrap();
    let check = ParquetMetaDataReader::new().parse_and_finish(&bytes::Bytes::from(out.clone())).unwrap();
    assert_eq!((check.row_group(0).num_rows(), check.file_metadata().num_rows()), (rows, rows));
    out
}

#[test]
fn a_footer_claiming_more_rows_than_its_pages_hold_is_refused_naming_the_row_group() {
    let text: String = (0..30).map(|i| format!("{{\"id\":\"r{i}\",\"n\":{i}}}\n")).collect();
    let good = from_jsonl(&text).unwrap();
    assert_eq!(to_jsonl(&good).unwrap().rows, 30);
    for rows in [1i64 << 62, 31] {
        let bad = claiming(&good, rows);
        let e = to_jsonl(&bad).unwrap_err();
        assert!(matches!(e, Error::Rows { group: 1, .. }), "{rows}: {e}");
        assert!(e.to_string().starts_with("row group 1: claims"), "{rows}: {e}");
    }
}
