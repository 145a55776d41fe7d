//! The tools' built-in datasets leave the page's wasm (src/builtin.rs): build.sh copies them to
//! www/data/, the worker fetches them from there and the service worker caches them for offline
//! use. These tests keep the lists and the files in step.

use evenhand::builtin::{self, FILES};
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn every_builtin_file_is_in_datasets_and_compiled_in_natively() {
    for path in FILES {
        let on_disk = std::fs::read_to_string(Path::new(ROOT).join("datasets").join(path)).unwrap();
        assert_eq!(builtin::text(path).unwrap(), on_disk, "datasets/{path}");
    }
}

#[test]
fn the_service_worker_caches_every_builtin_file() {
    let sw = std::fs::read_to_string(Path::new(ROOT).join("www/sw.js")).unwrap();
    let start = sw.find("const OPTIONAL = [").expect("sw.js has an OPTIONAL list");
    let end = start + sw[start..].find("];").expect("the OPTIONAL list ends");
    let listed: Vec<&str> = sw[start..end].split('"').skip(1).step_by(2).collect();
    for path in FILES {
        let url = format!("./data/{path}");
        assert!(listed.contains(&url.as_str()), "www/sw.js does not cache {url}: the tool would not work offline");
    }
    let data: Vec<&&str> =
        listed.iter().filter(|u| u.starts_with("./data/") && **u != "./data/catalogue.json").collect();
    assert_eq!(data.len(), FILES.len(), "www/sw.js caches data files src/builtin.rs does not know: {data:?}");
}

#[test]
fn build_sh_reads_the_list_from_src_builtin_rs() {
    // build.sh copies the files named in the `builtin_files!` list, one per line as `    "path",`; a reformatted list
    // would copy nothing, so the format is checked here.
    let source = std::fs::read_to_string(Path::new(ROOT).join("src/builtin.rs")).unwrap();
    let start = source.find("\nbuiltin_files! {").unwrap();
    let end = start + source[start..].find("\n}").unwrap();
    let lines: Vec<&str> =
        source[start..end].lines().filter_map(|l| l.strip_prefix("    \"")?.strip_suffix("\",")).collect();
    assert_eq!(lines, FILES);
    let build = std::fs::read_to_string(Path::new(ROOT).join("build.sh")).unwrap();
    assert!(build.contains("/^builtin_files! {/,/^}/"), "build.sh no longer reads src/builtin.rs's list");
}
