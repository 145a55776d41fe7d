//! The record table's readers and writers: round trips in every format, and each malformed
//! input gives its precise error without losing the good rows.

use evenhand::demo::{self, Experiment};
use evenhand::formats::{self, FileFormat, LoadError, csv_table};
use evenhand::record::{FIELDS, Record, Status};
use std::collections::BTreeMap;

fn tricky() -> Vec<Record> {
    let mut r = Record {
        format_version: 1,
        record_id: "r1".into(),
        run_id: "run".into(),
        method: "bbq".into(),
        case_id: "c1".into(),
        language: "es".into(),
        communities: BTreeMap::from([("GENDER".into(), "las mujeres".into())]),
        prompt: "Línea uno\nlínea \"dos\", con coma; y punto y coma\ttab".into(),
        params: BTreeMap::from([("temperature".into(), 0.0.into()), ("seed".into(), 7.into())]),
        response: "=HYPERLINK(\"http://x\")".into(),
        status: Status::Refused,
        latency_ms: Some(12.5),
        tokens_in: Some(10),
        choices: vec!["A".into(), "B, b".into()],
        gold: Some(1),
        logprobs: Some(serde_json::json!([{"token": "No", "logprob": -0.01}])),
        ..Record::default()
    };
    r.extra.insert("note".into(), "-1 is a sentinel".into());
    let plain = Record {
        record_id: "r2".into(),
        case_id: "c2".into(),
        response: "'=quoted".into(),
        format_version: 1,
        ..Record::default()
    };
    vec![r, plain]
}

#[test]
fn every_format_round_trips_exactly() {
    let mut records = tricky();
    records.extend(demo::run(&Experiment { samples: 2, ..Experiment::default() }).unwrap());
    for (format, name) in [(FileFormat::Csv, "r.csv"), (FileFormat::Jsonl, "r.jsonl"), (FileFormat::Json, "r.json")] {
        let text = formats::write(&records, format);
        let loaded = formats::load(name, text.as_bytes(), None).unwrap();
        assert!(loaded.errors.is_empty(), "{name}: {:?}", loaded.errors);
        assert!(loaded.records == records, "{name} did not round trip");
    }
}

#[test]
fn csv_export_neutralises_formulas_and_reads_them_back() {
    let text = formats::write(&tricky(), FileFormat::Csv);
    assert!(text.contains("\"'=HYPERLINK("), "formula not guarded: {text}");
    assert!(text.contains("'-1 is a sentinel"));
    assert!(text.contains("''=quoted"));
    for cell in ["=1+1", "+x", "-2", "@SUM", "'=a", "''", "'", "plain", "\ttab"] {
        assert_eq!(csv_table::unguard(&csv_table::guard(cell)), cell);
    }
}

#[test]
fn csv_dialects_are_read_alike() {
    let body = "case_id;response;sample_index\r\nc1;\"multi\r\nline; with ;\";3\r\nc2;plain;4";
    for bytes in [
        body.as_bytes().to_vec(),
        [b"\xEF\xBB\xBF".as_slice(), body.as_bytes()].concat(),
        body.replace("\r\n", "\n").into_bytes(),
    ] {
        let loaded = formats::load("x.csv", &bytes, None).unwrap();
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        assert_eq!(loaded.records.len(), 2);
        assert!(loaded.records[0].response.starts_with("multi") && loaded.records[0].response.ends_with("; with ;"));
        assert_eq!(loaded.records[1].sample_index, 4);
    }
    let tsv = formats::load("x.tsv", b"response\tlanguage\nhola, mundo\tes\n", None).unwrap();
    assert_eq!((tsv.records[0].response.as_str(), tsv.records[0].language.as_str()), ("hola, mundo", "es"));
}

#[test]
fn malformed_rows_are_listed_with_line_column_and_field_and_good_rows_load() {
    let csv = "case_id,response,sample_index,status,communities,latency_ms\n\
               ok1,fine,0,ok,,\n\
               bad1,fine,two,ok,,\n\
               bad2,fine,1,maybe,,\n\
               \"bad3\",\"multi\nline\",1,ok,{not json},\n\
               bad4,fine,1,ok,,fast\n\
               ok2,fine,1,error,\"{\"\"G\"\":\"\"x\"\"}\",3.5\n";
    let loaded = formats::load("up.csv", csv.as_bytes(), None).unwrap();
    assert_eq!(loaded.records.iter().map(|r| r.case_id.as_str()).collect::<Vec<_>>(), ["ok1", "ok2"]);
    let found: Vec<(u64, u64, String)> =
        loaded.errors.iter().map(|p| (p.line.unwrap(), p.column.unwrap(), p.field.clone().unwrap())).collect();
    assert_eq!(
        found,
        [
            (3, 3, "sample_index".to_string()),
            (4, 4, "status".to_string()),
            (5, 5, "communities".to_string()),
            (7, 6, "latency_ms".to_string()),
        ]
    );
    assert!(
        loaded.errors[0]
            .to_string()
            .starts_with("up.csv:3:3: field sample_index: expected a non-negative integer, found \"two\"")
    );
    assert!(loaded.errors[1].message.contains("one of ok, refused"));
}

#[test]
fn jsonl_errors_name_line_and_column_and_keep_the_rest() {
    let text = "{\"response\":\"a\"}\n{\"response\": \"b\",, }\n[1,2]\n{\"response\":\"c\",\"gold\":-1}\n{\"prompt\":\"no response\"}\n\n{\"response\":\"d\"}\n";
    let loaded = formats::load("r.jsonl", text.as_bytes(), None).unwrap();
    assert_eq!(loaded.records.iter().map(|r| r.response.as_str()).collect::<Vec<_>>(), ["a", "d"]);
    let lines: Vec<u64> = loaded.errors.iter().map(|p| p.line.unwrap()).collect();
    assert_eq!(lines, [2, 3, 4, 5]);
    assert_eq!(loaded.errors[0].column, Some(18));
    assert_eq!(loaded.errors[2].field.as_deref(), Some("gold"));
    assert!(loaded.errors[3].message.contains("expected a \"response\" key"));
}

#[test]
fn json_errors_name_the_record() {
    let loaded =
        formats::load("r.json", br#"{"records": [{"response": "a"}, {"response": "b", "tokens_in": "many"}]}"#, None)
            .unwrap();
    assert_eq!(loaded.records.len(), 1);
    assert!(loaded.errors[0].message.starts_with("record 2:"), "{:?}", loaded.errors);
    match formats::load("r.json", b"[\n {\"response\": }\n]", None) {
        Err(LoadError::Syntax(p)) => assert_eq!((p.line, p.column), (Some(2), Some(15))),
        other => panic!("{other:?}"),
    }
}

#[test]
fn whole_file_problems_are_typed() {
    assert!(matches!(formats::load("e.csv", b"  \n", None), Err(LoadError::Empty { .. })));
    match formats::load("bin.csv", b"response\nok\nbad \xff byte\n", None) {
        Err(LoadError::Encoding { line, column, .. }) => assert_eq!((line, column), (3, 5)),
        other => panic!("{other:?}"),
    }
    match formats::load("other.csv", b"Model Output,lang\nhola,es\n", None) {
        Err(LoadError::NeedsMapping(req)) => {
            assert_eq!(req.missing, ["response"]);
            assert_eq!(req.suggested.get("language").map(String::as_str), Some("lang"));
            assert_eq!(req.preview, [["hola", "es"]]);
        }
        other => panic!("{other:?}"),
    }
    let mapping = BTreeMap::from([("response".to_string(), "Model Output".to_string())]);
    let loaded = formats::load("other.csv", b"Model Output,lang\nhola,es\n", Some(&mapping)).unwrap();
    assert_eq!(loaded.records[0].response, "hola");
    assert_eq!(loaded.records[0].extra.get("lang").map(String::as_str), Some("es"), "unmapped columns are kept");
    let wrong = BTreeMap::from([("response".to_string(), "nope".to_string())]);
    assert!(matches!(formats::load("other.csv", b"a\n1\n", Some(&wrong)), Err(LoadError::Mapping(_))));
}

#[test]
fn duplicate_ids_are_warned_about() {
    let loaded = formats::load("d.csv", b"record_id,response\nx,a\ny,b\nx,c\n", None).unwrap();
    assert_eq!(loaded.records.len(), 3);
    assert_eq!(loaded.warnings.len(), 1);
    assert!(loaded.warnings[0].message.contains("first at line 2"));
}

#[test]
fn ragged_rows_are_errors_and_repeated_ids_warnings_in_line_order() {
    // Lines 4, 6 and 7 are ragged (not loaded, each an error); line 5 repeats x; line 8 has
    // only empty extra cells (loaded, with a warning).
    let csv = b"record_id,response\nx,a\ny,b\nx,c,extra\nx,d\nz,e,extra\nw\nv,f,,\n";
    let loaded = formats::load("d.csv", csv, None).unwrap();
    let ids: Vec<&str> = loaded.records.iter().map(|r| r.record_id.as_str()).collect();
    assert_eq!(ids, ["x", "y", "x", "v"]);
    let errors: Vec<(Option<u64>, &str)> = loaded.errors.iter().map(|w| (w.line, w.message.as_str())).collect();
    assert_eq!(
        errors,
        [
            (Some(4), "expected 2 columns as in the header, found 3 (a stray delimiter?); row not loaded"),
            (Some(6), "expected 2 columns as in the header, found 3 (a stray delimiter?); row not loaded"),
            (Some(7), "expected 2 columns as in the header, found 1 (the row is cut short); row not loaded"),
        ]
    );
    let got: Vec<(Option<u64>, &str)> = loaded.warnings.iter().map(|w| (w.line, w.message.as_str())).collect();
    assert_eq!(
        got,
        [
            (Some(5), "duplicate record_id \"x\" (first at line 2)"),
            (Some(8), "expected 2 columns as in the header, found 4 (the extra cells are empty)"),
        ]
    );
    assert_eq!(loaded.warnings[0].field.as_deref(), Some("record_id"));
    let json = br#"[{"record_id": "a", "response": "1"}, {"record_id": "b", "response": "2"}, {"record_id": "a", "response": "3"}]"#;
    let loaded = formats::load("d.json", json, None).unwrap();
    let got: Vec<(Option<u64>, &str)> = loaded.warnings.iter().map(|w| (w.line, w.message.as_str())).collect();
    assert_eq!(got, [(Some(3), "duplicate record_id \"a\" (first at record 1)")]);
    let distinct = formats::load(
        "d.jsonl",
        b"{\"record_id\": \"a\", \"response\": \"1\"}\n{\"record_id\": \"b\", \"response\": \"2\"}\n",
        None,
    )
    .unwrap();
    assert!(distinct.warnings.is_empty(), "{:?}", distinct.warnings);
}

#[test]
fn the_formats_page_documents_every_column() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/formats.md")).unwrap();
    for f in FIELDS {
        assert!(page.contains(&format!("| `{}` |", f.name)), "docs/formats.md does not document the column {}", f.name);
    }
}

#[test]
fn readers_never_panic_on_noise() {
    // A deterministic stream of awkward bytes; any panic fails the test.
    let alphabet: &[u8] = b",;\t\"\n\r{}[]:x0-=@'\\\xc3\xa9\xff";
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..3000 {
        let len = round % 120;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                alphabet[(state % alphabet.len() as u64) as usize]
            })
            .collect();
        for name in ["n.csv", "n.jsonl", "n.json"] {
            let _ = formats::load(name, &bytes, None);
            let with_header = [b"response,sample_index,communities\n".as_slice(), &bytes].concat();
            let _ = formats::load(name, &with_header, None);
        }
    }
}

/// Issue 15, defect 8: a column named twice used to keep one value and say nothing; a field and
/// its alias did the same. The first is refused, the second loads with a warning naming both.
#[test]
fn a_column_named_twice_is_refused_and_a_field_with_its_alias_is_warned_about() {
    let Err(LoadError::Syntax(p)) = formats::load("d.csv", b"record_id,response,response\n1,a,b\n", None) else {
        panic!("a duplicated column loaded")
    };
    assert_eq!((p.line, p.column), (Some(1), Some(3)));
    assert!(p.message.contains("\"response\" appears twice"), "{p}");
    let loaded = formats::load("d.csv", b"record_id,response,model,model_name\n1,a,m1,m2\n", None).unwrap();
    assert_eq!(loaded.records[0].model, "m1");
    assert_eq!(loaded.records[0].extra.get("model_name").map(String::as_str), Some("m2"));
    assert!(
        loaded.warnings.iter().any(|w| w.message.contains("\"model_name\" is kept as an extra column")),
        "{:?}",
        loaded.warnings
    );
}

/// Issue 15, defect 8: an object, array or boolean where text belongs was printed as JSON text
/// without a word, and a repeated record_id was counted twice by the analysis.
#[test]
fn non_text_json_is_refused_and_a_repeated_id_is_counted_once() {
    let loaded = formats::load(
        "r.jsonl",
        b"{\"record_id\":\"1\",\"response\":{\"a\":1}}\n{\"record_id\":\"2\",\"response\":true}\n{\"record_id\":\"3\",\"response\":\"yes\",\"model\":7}\n",
        None,
    )
    .unwrap();
    let errors: Vec<(Option<u64>, &str)> = loaded.errors.iter().map(|e| (e.line, e.message.as_str())).collect();
    assert_eq!(errors, [(Some(1), "expected text, found an object"), (Some(2), "expected text, found a boolean")]);
    assert_eq!((loaded.records.len(), loaded.records[0].model.as_str()), (1, "7"), "a number is still fine as text");

    let csv = b"record_id,prompt,response,expected\n1,p,yes,yes\n1,p,no,yes\n2,p,no,yes\n";
    let loaded = formats::load("d.csv", csv, None).unwrap();
    let a = evenhand::demo::analysis::analyze(&loaded.records, &Default::default()).unwrap();
    assert_eq!((a.records, a.judged, a.repeated_ids_left_out), (2, 2, 1));
}

/// Issue 15, defect 11: a header of blank names was reported as "the file is empty".
#[test]
fn a_header_of_blank_names_is_named_as_such() {
    let Err(LoadError::Syntax(p)) = formats::load("b.csv", b",,\n1,2,3\n", None) else { panic!("loaded") };
    assert_eq!(p.line, Some(1));
    assert!(p.message.contains("no column names"), "{p}");
}

#[test]
fn checking_without_keeping_records_reports_what_loading_does() {
    // `evenhand validate` reads through formats::check, which keeps ids, not records (issue 15,
    // memory): its count, errors and warnings must be those of formats::load, format by format.
    let files: [(&str, &str); 4] = [
        (
            "a.csv",
            "record_id,prompt,response,status\nr1,p,yes,ok\nr2,p,no,nope\nr1,p,again,ok\nr3,p\nr4,q,x,ok,,\n,p,y,ok\n",
        ),
        (
            "b.jsonl",
            "{\"record_id\":\"a\",\"response\":\"x\"}\n{\"record_id\":\"a\",\"response\":\"y\"}\nnot json\n{\"response\":1}\n",
        ),
        (
            "c.json",
            "[{\"record_id\":\"a\",\"response\":\"x\"},{\"record_id\":\"a\",\"response\":\"y\"},3,{\"response\":[1]}]",
        ),
        ("d.csv", "id;output\n1;a\n2;b\n3;c\n"),
    ];
    for (name, text) in files {
        let loaded = formats::load(name, text.as_bytes(), None).unwrap();
        let checked = formats::check(name, text.as_bytes(), None).unwrap();
        assert!(checked.records.is_empty(), "{name}: check keeps no record");
        assert_eq!(checked.count(), loaded.records.len(), "{name}");
        assert_eq!(loaded.count(), loaded.records.len(), "{name}");
        assert_eq!(
            (checked.format, &checked.errors, &checked.warnings),
            (loaded.format, &loaded.errors, &loaded.warnings),
            "{name}"
        );
        assert!(!loaded.errors.is_empty() || name == "d.csv", "{name}: the case has errors to compare");
    }
    let dup = formats::check("a.csv", files[0].1.as_bytes(), None).unwrap();
    assert!(dup.warnings.iter().any(|w| w.message.contains("duplicate record_id \"r1\"")), "{:?}", dup.warnings);
}

#[test]
fn empty_cells_read_as_defaults() {
    // The CSV reader skips empty cells (csv_table::read), which is only right while an empty
    // cell converts to the value a new record already holds, for every field.
    use evenhand::formats::row::{Cell, set_field};
    let fresh = Record { format_version: 1, ..Record::default() };
    for field in FIELDS {
        let mut rec = fresh.clone();
        set_field(&mut rec, field, Cell::Text("")).unwrap_or_else(|e| panic!("{}: {}", field.name, e.message()));
        assert_eq!(rec, fresh, "an empty {} cell", field.name);
    }
    // And a table with empty cells reads as the same records either way.
    let records = formats::load("e.csv", b"record_id,prompt,response,status,latency_ms,communities\nr1,p,,,,\n", None)
        .unwrap()
        .records;
    assert_eq!(records.len(), 1);
    assert_eq!((records[0].response.as_str(), records[0].status, records[0].latency_ms), ("", Status::Ok, None));
    assert!(records[0].communities.is_empty() && records[0].format_version == 1);
}

#[test]
fn a_bad_byte_far_into_a_long_file_is_located_as_before() {
    // The whole-file check reads many bytes at a time (simdutf8); where it fails, the line and
    // column are still the first bad byte's, columns counted in characters.
    let mut text = String::from("record_id,response\n");
    for i in 0..300 {
        text.push_str(&format!("r{i},\"Sí, señor: ¿por qué no? «ñandú» 日本語 {i}\"\n"));
    }
    let good = text.clone().into_bytes();
    assert_eq!(formats::load("long.csv", &good, None).unwrap().records.len(), 300);
    let bad = |line: &str, at: usize, junk: &[u8]| {
        let mut bytes = good.clone();
        let start = text.find(line).unwrap();
        let cut = start + line.char_indices().nth(at).unwrap().0;
        bytes.splice(cut..cut, junk.iter().copied());
        match formats::load("long.csv", &bytes, None) {
            Err(LoadError::Encoding { file, line, column }) => (file, line, column),
            other => panic!("{other:?}"),
        }
    };
    let line_200 = "r198,\"Sí, señor";
    // A stray continuation byte, a surrogate, an overlong form and a cut-off character.
    for junk in [&b"\x80"[..], &b"\xED\xA0\x80"[..], &b"\xC0\xAF"[..], &b"\xE6\x97"[..]] {
        assert_eq!(bad(line_200, 8, junk), ("long.csv".into(), 200, 9), "{junk:?}");
    }
    // At the very end, after the last line break.
    let mut end = good.clone();
    end.extend_from_slice(b"r300,\"\xC3\xB1\xE2\x82");
    match formats::load("long.csv", &end, None) {
        Err(LoadError::Encoding { line, column, .. }) => assert_eq!((line, column), (302, 8)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn cells_that_begin_and_end_with_wide_characters_keep_them() {
    // Each row's cells are cut from one checked buffer at their bounds: a cell next to the
    // delimiter, quoted or not, over a line break or with doubled quotes, keeps every character.
    let text = "record_id;prompt;response;language\r\n\
                ñ1;\"«¿Qué?»\r\n—dijo \"\"él\"\"\";日本;é\r\n\
                ñ2;€;\"\";ü\r\n\
                ñ3;\"a;b\nñ\";\"😀\";\"\"\r\n";
    let loaded = formats::load("wide.csv", text.as_bytes(), None).unwrap();
    assert!(loaded.errors.is_empty() && loaded.warnings.is_empty(), "{loaded:?}");
    let cells: Vec<[&str; 4]> = loaded
        .records
        .iter()
        .map(|r| [r.record_id.as_str(), r.prompt.as_str(), r.response.as_str(), r.language.as_str()])
        .collect();
    assert_eq!(
        cells,
        [["ñ1", "«¿Qué?»\r\n—dijo \"él\"", "日本", "é"], ["ñ2", "€", "", "ü"], ["ñ3", "a;b\nñ", "😀", ""],]
    );
}
