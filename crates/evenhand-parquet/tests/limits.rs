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

/// A file of one text column, one page (no dictionary, Snappy): 1100 values of 1000 bytes,
/// so its page's uncompressed size takes four bytes of the header, to be overwritten in place.
fn one_big_page() -> Vec<u8> {
    use arrow_array::{ArrayRef, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::Compression;
    use parquet::file::properties::WriterProperties;
    let values: ArrayRef = std::sync::Arc::new(StringArray::from(vec!["a".repeat(1000); 1100]));
    let batch = RecordBatch::try_from_iter([("c", values)]).unwrap();
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_compression(Compression::SNAPPY)
        .set_data_page_size_limit(16 << 20)
        .build();
    let mut out = vec![];
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    out
}

/// Where the first data page's header starts, and the byte range of each of its varints:
/// [uncompressed size, compressed size, values], read by hand (field 1 type, 2 and 3 sizes,
/// then the data page header's field 1).
fn header_fields(bytes: &[u8]) -> [std::ops::Range<usize>; 3] {
    use parquet::file::metadata::ParquetMetaDataReader;
    let meta = ParquetMetaDataReader::new().parse_and_finish(&bytes::Bytes::copy_from_slice(bytes)).unwrap();
    let at = meta.row_group(0).column(0).data_page_offset() as usize;
    let varint = |from: usize| from..from + bytes[from..].iter().position(|b| b & 0x80 == 0).unwrap() + 1;
    assert_eq!(bytes[at..at + 3], [0x15, 0x00, 0x15], "a data page header, field 2 next");
    let uncompressed = varint(at + 3);
    assert_eq!(bytes[uncompressed.end], 0x15, "field 3 next");
    let compressed = varint(uncompressed.end + 1);
    assert_eq!(bytes[compressed.end..compressed.end + 2], [0x2c, 0x15], "the data page header, its field 1 next");
    let values = varint(compressed.end + 2);
    [uncompressed, compressed, values]
}

/// `bytes` with the varint at `at` set to the largest positive zigzag number of its length.
fn claim_most(bytes: &[u8], at: &std::ops::Range<usize>) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for i in at.clone() {
        out[i] = if i + 1 == at.end { 0x7f } else { 0xff };
    }
    out[at.start] &= 0xfe; // even: positive
    out
}

/// Regression (issue 28): page headers were bounded only through the footer's totals, and the
/// `parquet` crate reserves whatever a page header claims before decompressing it. A header
/// claiming a huge page, a page past its chunk, or more values than its chunk holds is refused
/// naming the page, before any page is decoded.
#[test]
fn page_headers_claiming_more_than_their_chunk_are_refused_naming_the_page() {
    let good = one_big_page();
    assert_eq!(to_jsonl(&good).unwrap().rows, 1100);
    let [uncompressed, compressed, values] = header_fields(&good);
    assert_eq!(uncompressed.len(), 4, "the fixture's page is about 1 MB");
    for (field, what) in [(&uncompressed, "uncompressed"), (&compressed, "past the end"), (&values, "values")] {
        let bad = claim_most(&good, field);
        let e = match to_jsonl(&bad) {
            Ok(t) => panic!("{what}: accepted, {} rows", t.rows),
            Err(e) => e,
        };
        assert!(
            matches!(&e, Error::Limit { place, .. } if place == "row group 1, column chunk \"c\", page 1"),
            "{what}: {e}"
        );
        assert!(e.to_string().contains(what), "{what}: {e}");
    }
    // The small seed of the fuzz corpus, with its page's values overstated, is refused too.
    let seed =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/corpus/parquet_limits/lying_page.parquet"));
    if let Ok(seed) = seed {
        assert!(matches!(to_jsonl(&seed), Err(Error::Limit { .. })), "{:?}", to_jsonl(&seed).map(|t| t.rows));
    }
}

/// A header that ends early or nests without end is refused as unreadable, not a panic.
#[test]
fn unreadable_page_headers_are_refused() {
    let good = one_big_page();
    let [uncompressed, ..] = header_fields(&good);
    let mut bad = good.clone();
    // Field 2 becomes a struct whose fields are structs, without end.
    for b in &mut bad[uncompressed.start - 1..uncompressed.end + 1] {
        *b = 0x1c;
    }
    let e = to_jsonl(&bad).unwrap_err();
    assert!(matches!(&e, Error::Limit { .. } | Error::Corrupt(_)), "{e}");
}
