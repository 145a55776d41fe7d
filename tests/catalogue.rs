//! datasets/catalogue.json: its schema and rules, the built-in copy, the mirror rule, and the
//! entries marked as checked against ../shared/ref compared byte for byte with those copies.

use evenhand::catalogue::{self, Catalogue, Method, Reference, sha256_hex};
use std::collections::HashSet;
use std::path::Path;

const REF: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/ref");

fn builtin() -> Catalogue {
    catalogue::parse("datasets/catalogue.json", catalogue::BUILTIN).unwrap()
}

#[test]
fn every_entry_is_complete_and_pinned() {
    let c = builtin();
    assert_eq!(c, Catalogue::builtin().unwrap());
    assert!(c.datasets.len() >= 7, "{} datasets", c.datasets.len());
    let mut names = HashSet::new();
    for d in &c.datasets {
        assert!(names.insert(&d.name), "{} twice", d.name);
        assert!(d.source_url.contains(&d.commit), "{}", d.name);
        assert!(d.commit.starts_with(&d.version), "{}: version {} is not a prefix of the commit", d.name, d.version);
        assert!(d.citation.starts_with('@') && d.citation.contains("title") && d.citation.ends_with('}'), "{}", d.name);
        match &d.license {
            Some(id) => {
                assert!(["CC-BY-4.0", "MIT"].contains(&id.as_str()), "{}: {id} is not an SPDX id we expect", d.name)
            }
            None => assert!(d.license_note.as_deref().unwrap_or("").contains("no license stated"), "{}", d.name),
        }
        for f in &d.files {
            assert!(f.url.contains(&d.commit), "{}/{}: {}", d.name, f.name, f.url);
            assert!(f.url.starts_with("https://raw.githubusercontent.com/"), "{}", f.url);
            assert!(f.bytes > 0 && f.sha256.len() == 64, "{}/{}", d.name, f.name);
            // The snapshot wrote missing files as empty; none of those may pass for pinned.
            assert_ne!(f.sha256, sha256_hex(b""), "{}/{}", d.name, f.name);
            assert!(
                f.rows.is_none() || f.rows_counted.is_some(),
                "{}/{}: rows without how they were counted",
                d.name,
                f.name
            );
        }
        for u in &d.unpinned_files {
            assert!(!d.files.iter().any(|f| f.path == u.path), "{}: {} is both pinned and unpinned", d.name, u.path);
        }
    }
    // What issue 18 asks for at least.
    for (name, method) in [
        ("bbq", Method::Bbq),
        ("bbq-unifiedqa", Method::Bbq),
        ("mbbq", Method::Bbq),
        ("kobbq", Method::Bbq),
        ("ggbbq", Method::Bbq),
        ("langbite", Method::Requirements),
        ("msqad", Method::Crosslingual),
    ] {
        assert_eq!(c.dataset(name).unwrap().method, method, "{name}");
    }
    assert_eq!(c.dataset("mbbq").unwrap().files.len(), 48);
    assert_eq!(c.dataset("mbbq").unwrap().license, None);
    assert_eq!(c.dataset("msqad").unwrap().license, None);
}

#[test]
fn files_marked_checked_match_the_reference_copies() {
    let root = Path::new(REF);
    if !root.is_dir() {
        println!("skipped: {REF} is absent");
        return;
    }
    // Where ../shared/ref keeps each repository's files (its own layout, not the upstream one).
    type Moves = &'static [(&'static str, &'static str)];
    let places: [(&str, &str, Moves); 3] = [
        ("nyu-mll/BBQ", "bbq", &[]),
        ("shalakasatheesh/GG-BBQ", "ggbbq", &[]),
        (
            "SOM-Research/LangBiTe",
            "langbite",
            &[("langbite/resources/", "prompts/"), ("documentation/examples/", "examples/")],
        ),
    ];
    let c = builtin();
    let mut checked = 0;
    for d in &c.datasets {
        for f in d.files.iter().filter(|f| f.checked_against_ref) {
            let (_, dir, moves) = places.iter().find(|(r, _, _)| *r == d.repository).expect("a known reference folder");
            let rel = moves.iter().fold(f.path.clone(), |p, (from, to)| p.replacen(from, to, 1));
            let bytes = std::fs::read(root.join(dir).join(&rel)).unwrap_or_else(|e| panic!("{}: {e}", rel));
            assert_eq!(bytes.len() as u64, f.bytes, "{}/{}", d.name, f.name);
            assert_eq!(sha256_hex(&bytes), f.sha256, "{}/{}", d.name, f.name);
            checked += 1;
        }
        assert_eq!(d.checked_against_ref, d.files.iter().any(|f| f.checked_against_ref), "{}", d.name);
    }
    assert_eq!(checked, 8, "files compared with the reference copies");
}

#[test]
fn references_resolve_to_files_or_say_what_exists() {
    let c = builtin();
    let r = Reference::parse("catalogue:bbq/Sexual_orientation").unwrap().unwrap();
    let (d, files) = c.lookup(&r).unwrap();
    assert_eq!((d.name.as_str(), files.len(), files[0].path.as_str()), ("bbq", 1, "data/Sexual_orientation.jsonl"));
    let (_, all) = c.lookup(&Reference::parse("catalogue:ggbbq").unwrap().unwrap()).unwrap();
    assert_eq!(all.len(), 6);
    let e = c.lookup(&Reference::parse("catalogue:bbqq").unwrap().unwrap()).unwrap_err().to_string();
    assert!(e.contains("no dataset \"bbqq\"") && e.contains("mbbq"), "{e}");
    let e = c.lookup(&Reference::parse("catalogue:bbq/Gender").unwrap().unwrap()).unwrap_err().to_string();
    assert!(e.contains("no file \"Gender\"") && e.contains("Sexual_orientation"), "{e}");
}

#[test]
fn the_mirror_rule_replaces_the_host_only() {
    let url = "https://raw.githubusercontent.com/nyu-mll/BBQ/abc/data/Age.jsonl";
    assert_eq!(
        catalogue::mirror(url, Some("http://127.0.0.1:9/m/")),
        "http://127.0.0.1:9/m/nyu-mll/BBQ/abc/data/Age.jsonl"
    );
    assert_eq!(catalogue::mirror(url, None), url);
    assert_eq!(catalogue::mirror("https://example.org/x", Some("http://m")), "https://example.org/x");
}

#[test]
fn a_broken_catalogue_is_refused_with_its_place() {
    // A type error: located by line and column.
    let text = catalogue::BUILTIN.replacen("\"bytes\": 3091834", "\"bytes\": \"big\"", 1);
    let e = catalogue::parse("c.json", &text).unwrap_err();
    assert!(e.line.is_some() && e.column.is_some() && e.to_string().contains("c.json:"), "{e}");
    // A rule: located by the line of the offending value and named by dataset, file and field.
    let text = catalogue::BUILTIN.replacen(
        "46e805b3fc2d8cbd26eeb8e8430d98cf7b2dc9c83574ff3674e8ce4f0fca2a60",
        "46E805B3FC2D8CBD26EEB8E8430D98CF7B2DC9C83574FF3674E8CE4F0FCA2A60",
        1,
    );
    let e = catalogue::parse("c.json", &text).unwrap_err();
    let line = catalogue::BUILTIN.lines().position(|l| l.contains("46e805b3fc2d8cbd")).unwrap() + 1;
    assert_eq!(e.line, Some(line));
    assert!(e.to_string().contains("dataset \"bbq\": file \"Age\": field sha256"), "{e}");
    // A path that would leave the cache folder.
    let text = catalogue::BUILTIN.replacen("\"path\": \"data/Age.jsonl\"", "\"path\": \"../../etc/x\"", 1);
    assert!(catalogue::parse("c.json", &text).unwrap_err().to_string().contains("field path"));
    // A version (a cache folder) that would leave the cache: upward, absolute, or a separator.
    for bad in ["../../../x", "/tmp/x", "..", "a/b", "C:x"] {
        let text = catalogue::BUILTIN.replacen("\"version\": \"bea11bd\"", &format!("\"version\": \"{bad}\""), 1);
        let e = catalogue::parse("c.json", &text).unwrap_err().to_string();
        assert!(e.contains("field version"), "{bad}: {e}");
    }
    // Two datasets with one name.
    let text = catalogue::BUILTIN.replacen("\"name\": \"mbbq\"", "\"name\": \"bbq\"", 1);
    assert!(catalogue::parse("c.json", &text).unwrap_err().to_string().contains("a second dataset"));
    // An unknown field is a typo, not an extension.
    let text = catalogue::BUILTIN.replacen("\"rows_counted\"", "\"rows_count\"", 1);
    assert!(catalogue::parse("c.json", &text).unwrap_err().to_string().contains("rows_count"));
}

/// The catalogue's table, in the README (licenses at a glance) and in docs/datasets.md.
#[test]
fn the_tables_in_the_readme_and_docs_match_the_catalogue() {
    let c = builtin();
    for file in ["README.md", "docs/datasets.md"] {
        let doc = std::fs::read_to_string(format!("{}/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let rows: Vec<&str> = doc.lines().filter(|l| l.starts_with("| `")).collect();
        assert_eq!(rows.len(), c.datasets.len(), "{file}: one table row per dataset");
        for (row, d) in rows.iter().zip(&c.datasets) {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            assert_eq!(cells[1], format!("`{}`", d.name), "{file}");
            assert_eq!(cells[2], d.method.as_str(), "{file}: {}", d.name);
            assert_eq!(cells[3], d.languages.join(", "), "{file}: {}", d.name);
            assert_eq!(cells[4], d.license.as_deref().unwrap_or("none stated"), "{file}: {}", d.name);
            let files = match d.unpinned_files.len() {
                0 => d.files.len().to_string(),
                n => format!("{} (+{n} unpinned)", d.files.len()),
            };
            assert_eq!(cells[5], files, "{file}: {}", d.name);
            assert!(cells[7].contains(&d.source_url), "{file}: {}", d.name);
        }
    }
}
