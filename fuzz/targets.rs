//! One fuzz target per reader reachable from the public API. Each takes raw bytes the way its
//! caller (CLI or page) does, and answers `Ok` with a short note when the input was accepted or
//! `Err` with the reader's message when it was refused; only a panic or a hang is a finding.
//! Where the page does something with what it read right away (a record table is analysed,
//! a probe set is checked), that step runs too, since it sees the same hostile values.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use evenhand::{bbq, catalogue, crosslingual, demo, divergence, formats, providers, requirements, run, study};

pub type Outcome = Result<String, String>;

pub struct Target {
    /// Also the corpus folder: fuzz/corpus/<name>/.
    pub name: &'static str,
    pub run: fn(&[u8]) -> Outcome,
}

fn text(file: &str, bytes: &[u8]) -> Result<String, String> {
    formats::decode(file, bytes).map(str::to_string).map_err(|e| e.to_string())
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

fn records(file: &str, bytes: &[u8]) -> Outcome {
    let loaded = formats::load(file, bytes, None).map_err(err)?;
    // The demo page analyses what it loaded straight away.
    let settings = demo::analysis::Settings::default();
    let analysed = demo::analysis::analyze(&loaded.records, &settings).map(|a| a.groups.len());
    Ok(format!("{} records, {} errors, analysis {:?}", loaded.records.len(), loaded.errors.len(), analysed.is_ok()))
}

fn bbq_data(file: &str, bytes: &[u8], format: Option<bbq::import::Format>) -> Outcome {
    let d = bbq::import::read(file, bytes, format, None).map_err(err)?;
    Ok(format!("{} examples, {} problems", d.examples.len(), d.problems.len()))
}

fn questions(bytes: &[u8]) -> Outcome {
    let set = crosslingual::questions::read("questions.json", bytes).map_err(err)?;
    Ok(format!("{} questions", set.questions.len()))
}

fn embeddings_table(bytes: &[u8]) -> Outcome {
    let t = formats::embeddings::read_embeddings("embeddings.csv", bytes).map_err(err)?;
    Ok(format!("{} vectors", t.ids.len()))
}

/// Records the distance matrices are checked against: ids r1..r4.
fn crosslingual_dataset() -> crosslingual::analysis::Dataset {
    let records = (1..=4)
        .map(|i| evenhand::record::Record {
            record_id: format!("r{i}"),
            question_id: format!("q{}", (i + 1) / 2),
            language: if i % 2 == 0 { "en".into() } else { "fr".into() },
            method: crosslingual::METHOD.into(),
            response: format!("answer {i}"),
            ..Default::default()
        })
        .collect();
    crosslingual::analysis::Dataset::new("records.csv", records, &evenhand::text::refusal::Lexicon::builtin())
}

fn spec_cases() -> Vec<evenhand::record::Record> {
    let rows = b"case_id,prompt\nc1,First question?\nc2,Second question?\n";
    run::cases::read("cases.csv", rows).unwrap_or_default()
}

fn batch_results(wire: providers::WireFormat, bytes: &[u8]) -> Outcome {
    let t = text("results.jsonl", bytes)?;
    let ids: Vec<String> = (1..=3).map(|i| format!("c{i}")).collect();
    let r = providers::batch::read_results(wire, &t, &ids).map_err(err)?;
    Ok(format!("{} missing, {} unknown", r.missing.len(), r.unknown.len()))
}

/// A harness log read, then analysed as the page does at once (small bootstrap).
fn harness_log(file: &str, bytes: &[u8]) -> Outcome {
    let log = evenhand::logs::read(file, bytes, None).map_err(err)?;
    let statistics = study::format::Statistics { replicates: 100, ..Default::default() };
    let a = study::logs::analyse(std::slice::from_ref(&log), &statistics, "").map_err(err)?;
    Ok(format!("{} samples, bbq {}", log.samples.len(), a.bbq.is_some()))
}

pub const TARGETS: &[Target] = &[
    Target { name: "harness_lm_eval", run: |b| harness_log("samples_bbq_2026-01-01T00-00-00.0.jsonl", b) },
    Target { name: "harness_inspect_eval", run: |b| harness_log("log.eval", b) },
    Target { name: "harness_inspect_json", run: |b| harness_log("log.json", b) },
    Target { name: "harness_promptfoo", run: |b| harness_log("results.json", b) },
    Target { name: "records_csv", run: |b| records("records.csv", b) },
    Target { name: "records_jsonl", run: |b| records("records.jsonl", b) },
    Target { name: "records_json", run: |b| records("records.json", b) },
    // A Parquet file goes through its converter and then the JSONL reader, as in the CLI and
    // the page (there in the second wasm module).
    Target {
        name: "records_parquet",
        run: |b| {
            let table = evenhand_parquet::to_jsonl(b).map_err(err)?;
            records("records.parquet", table.jsonl.as_bytes())
        },
    },
    Target {
        name: "cases",
        run: |b| run::cases::read("cases.csv", b).map(|c| format!("{} cases", c.len())).map_err(|p| format!("{p:?}")),
    },
    Target {
        name: "run_spec",
        run: |b| {
            let t = text("spec.json", b)?;
            let mut spec = run::RunSpec::from_json(&t).map_err(err)?;
            spec.fill_ids();
            // The CLI plans the run from the spec and its cases before anything is sent.
            let plan = run::Plan::from_cases(spec, &spec_cases()).map_err(err)?;
            Ok(format!("{} calls", plan.estimate().calls))
        },
    },
    Target {
        name: "journal",
        run: |b| {
            let t = text("run.csv.journal.jsonl", b)?;
            run::journal::read("run.csv.journal.jsonl", &t).map(|j| format!("{} records", j.records.len())).map_err(err)
        },
    },
    Target {
        name: "embed_texts",
        run: |b| run::embed_texts::read("texts.csv", b).map(|t| format!("{} texts", t.len())).map_err(err),
    },
    Target {
        name: "langbite_scenario",
        run: |b| {
            let t = text("scenario.json", b)?;
            requirements::scenario::parse("scenario.json", &t).map(|_| "parsed".to_string()).map_err(err)
        },
    },
    Target {
        name: "langbite_library_tsv",
        run: |b| {
            let mut s = requirements::session::Session::default();
            s.load_library("en_us", "library.tsv", b).map(|w| format!("{} warnings", w.len())).map_err(err)
        },
    },
    Target {
        name: "langbite_library_json",
        run: |b| {
            let mut s = requirements::session::Session::default();
            s.load_library("en_us", "library.json", b).map(|w| format!("{} warnings", w.len())).map_err(err)
        },
    },
    Target {
        name: "our_library",
        run: |b| {
            let t = text("library.json", b)?;
            requirements::ourlib::read::read("library.json", &t).map(|_| "read".to_string()).map_err(err)
        },
    },
    Target {
        name: "langbite_reports",
        run: |b| {
            let t = text("report.csv", b)?;
            let mut s = requirements::session::Session::default();
            s.load_report("report.csv", &t).map(str::to_string).map_err(err)
        },
    },
    Target {
        name: "bbq_data",
        run: |b| {
            // The reader goes by content, but the record reader underneath by extension: name
            // the file as a user would.
            let first = b.iter().find(|c| !c.is_ascii_whitespace());
            let line = b.split(|&c| c == b'\n').next().unwrap_or_default();
            let name = if first == Some(&b'{') {
                "Age.jsonl"
            } else if line.contains(&b'\t') {
                "KoBBQ_test.tsv"
            } else {
                "records.csv"
            };
            bbq_data(name, b, None)
        },
    },
    Target { name: "ggbbq_data", run: |b| bbq_data("bbq_de_amb_test.jsonl", b, Some(bbq::import::Format::Ggbbq)) },
    Target { name: "kobbq_data", run: |b| bbq_data("KoBBQ_test.tsv", b, Some(bbq::import::Format::Kobbq)) },
    Target {
        name: "bbq_predictions",
        run: |b| {
            let (p, problems) = bbq::score::read_predictions("predictions.csv", b, "model").map_err(err)?;
            Ok(format!("{} predictions, {} problems", p.len(), problems.len()))
        },
    },
    Target {
        name: "python_literal",
        run: |b| {
            let t = text("results.txt", b)?;
            bbq::pyliteral::parse(&t).map(|_| "parsed".to_string()).map_err(err)
        },
    },
    Target { name: "questions", run: questions },
    Target { name: "msqad", run: questions },
    Target {
        name: "crosslingual_embeddings",
        run: |b| crosslingual::embeddings::read("embeddings.jsonl", b).map(|_| "read".to_string()).map_err(err),
    },
    Target {
        name: "crosslingual_distances",
        run: |b| {
            let d = crosslingual_dataset();
            crosslingual::distances::read("distances.csv", b, &d).map(|_| "read".to_string()).map_err(err)
        },
    },
    Target {
        name: "probes",
        run: |b| {
            let t = text("probes.json", b)?;
            let (set, problems) = divergence::ProbeSet::parse("probes.json", &t).map_err(err)?;
            Ok(format!("{} aspects, {} problems", set.aspects.len(), problems.len()))
        },
    },
    Target {
        name: "reference",
        run: |b| {
            let r = divergence::Reference::load("reference.tsv", b, None, None).map_err(err)?;
            Ok(format!("{} entries, total {}", r.entries.len(), r.total()))
        },
    },
    Target {
        name: "logprobs",
        run: |b| {
            let (rows, problems) = divergence::logprobs::read("logprobs.csv", b, "model").map_err(err)?;
            Ok(format!("{} rows, {} problems", rows.len(), problems.len()))
        },
    },
    Target { name: "embeddings", run: embeddings_table },
    Target {
        name: "groups",
        run: |b| formats::embeddings::read_groups("groups.csv", b).map(|g| format!("{} ids", g.len())).map_err(err),
    },
    Target {
        name: "distance_matrix",
        run: |b| {
            formats::embeddings::read_distance_matrix("matrix.csv", b)
                .map(|(ids, _)| format!("{} ids", ids.len()))
                .map_err(err)
        },
    },
    Target {
        name: "bundle",
        run: |b| {
            let t = text("bundle.json", b)?;
            let bundle = demo::bundle::parse("bundle.json", &t).map_err(err)?;
            // Reproducing from the bundle's own records is what the page does on open.
            demo::bundle::reproduce("bundle.json", &bundle, None).map(|_| "reproduced".to_string()).map_err(err)
        },
    },
    Target {
        name: "share_link",
        run: |b| {
            // A link as pasted, or (to get past base64 and deflate) the settings inside one.
            let link = if b.starts_with(b"v1.") || b.starts_with(b"#") {
                String::from_utf8_lossy(b).to_string()
            } else {
                format!("v1.{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(b, 1)))
            };
            demo::share::decode(&link).map(|_| "decoded".to_string()).map_err(err)
        },
    },
    Target { name: "batch_results_openai", run: |b| batch_results(providers::WireFormat::OpenAiChat, b) },
    Target { name: "batch_results_anthropic", run: |b| batch_results(providers::WireFormat::AnthropicMessages, b) },
    Target {
        name: "study",
        run: |b| {
            let t = text("study.json", b)?;
            // Opening reads and checks the built-in inputs a study names (planning them is
            // the built-in sets' work, not the reader's, and too slow for a fuzz loop).
            let s = study::session::Session::open("study.json", &t).map_err(err)?;
            Ok(format!("{} missing, {} targets", s.missing().len(), s.study.targets.len()))
        },
    },
    Target {
        name: "catalogue",
        run: |b| {
            let t = text("catalogue.json", b)?;
            let c = catalogue::parse("catalogue.json", &t).map_err(err)?;
            // Every `catalogue:NAME/FILE` a user could write for it resolves or is refused.
            for d in &c.datasets {
                for f in &d.files {
                    let r = catalogue::reference::Reference { dataset: d.name.clone(), file: Some(f.name.clone()) };
                    c.lookup(&r).map_err(err)?;
                }
            }
            Ok(format!("{} datasets", c.datasets.len()))
        },
    },
    Target { name: "catalogue_paths", run: catalogue_paths },
    Target { name: "parquet_limits", run: parquet_limits },
    Target {
        name: "nonfinite",
        run: |b| {
            let t = text("questions.json", b)?;
            let (fixed, count) = formats::nonfinite::to_null(&t);
            // Valid JSON has no bare NaN or Infinity: the rewrite must leave it untouched.
            if serde_json::from_str::<serde_json::Value>(&t).is_ok() {
                assert_eq!((fixed.as_ref(), count), (t.as_str(), 0), "the rewrite changed valid JSON");
            }
            // Only the tokens change, each to `null`: at most one byte longer (NaN) per token.
            assert!(fixed.len() <= t.len() + count, "the rewrite grew the text by more than its tokens");
            assert!(count > 0 || fixed == t, "nothing replaced, yet the text changed");
            serde_json::from_str::<serde_json::Value>(&fixed).map_err(err)?;
            Ok(format!("{count} replaced"))
        },
    },
];

/// A catalogue whose one dataset's `name` and `version` and one file's `path` are the input's
/// first three lines: the fields that become folders under the cache.
fn catalogue_paths(bytes: &[u8]) -> Outcome {
    let t = text("paths.txt", bytes)?;
    let mut lines = t.split('\n');
    let mut next = || serde_json::to_string(lines.next().unwrap_or("")).unwrap_or_default();
    let (name, version, path) = (next(), next(), next());
    let commit = "0123456789abcdef0123456789abcdef01234567";
    let raw = format!("https://raw.githubusercontent.com/someone/toy/{commit}/");
    let doc = format!(
        r#"{{"format": "evenhand-catalogue", "version": 1, "datasets": [{{"name": {name}, "title": "t", "method": "bbq",
        "version": {version}, "repository": "someone/toy", "commit": "{commit}", "source_url": "https://github.com/someone/toy/tree/{commit}",
        "license": "MIT", "license_note": null, "languages": [], "categories": [], "description": "", "citation": "@misc{{t}}",
        "checked_against_ref": false, "files": [{{"name": "f", "path": {path}, "url": "{raw}x", "bytes": 1,
        "sha256": "{sha}", "rows": null, "rows_counted": null, "kind": "examples", "format": "bbq-jsonl"}}]}}]}}"#,
        sha = "a".repeat(64)
    );
    let c = catalogue::parse("catalogue.json", &doc).map_err(err)?;
    // Accepted: every segment, joined as the CLI joins them, stays a plain name under the root.
    for d in &c.datasets {
        for f in &d.files {
            let mut p = std::path::PathBuf::from("cache").join(&d.name).join(&d.version);
            for part in f.path.split('/') {
                p = p.join(part);
            }
            let plain = p.components().all(|c| matches!(c, std::path::Component::Normal(_)));
            assert!(plain, "accepted catalogue leaves the cache: {}", p.display());
            assert!(p.starts_with("cache"), "accepted catalogue leaves the cache: {}", p.display());
        }
    }
    Ok(format!("{}/{}", c.datasets[0].name, c.datasets[0].version))
}

/// A Parquet file read as the CLI reads it; what is accepted stays within the stated limits.
fn parquet_limits(bytes: &[u8]) -> Outcome {
    use evenhand_parquet::limits::*;
    let t = evenhand_parquet::to_jsonl(bytes).map_err(err)?;
    let rows = ceiling(ROWS_FLOOR, ROWS_PER_BYTE, bytes.len());
    let text = ceiling(TEXT_FLOOR, TEXT_PER_BYTE, bytes.len());
    assert!(t.rows as u64 <= rows, "{} rows accepted from {} bytes, above the ceiling {rows}", t.rows, bytes.len());
    assert!(t.jsonl.len() as u64 <= text, "{} bytes of text from {} bytes, above {text}", t.jsonl.len(), bytes.len());
    assert_eq!(t.jsonl.lines().count(), t.rows, "the row count and the text disagree");
    Ok(format!("{} rows", t.rows))
}

pub fn find(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}
