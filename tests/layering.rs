//! The core knows nothing about the web: only the facade under src/web/ may import
//! wasm-bindgen, web-sys, js-sys, gloo-net or serde-wasm-bindgen.

use std::path::Path;

const WEB_CRATES: [&str; 6] = ["wasm_bindgen", "web_sys", "js_sys", "gloo_net", "gloo_", "serde_wasm_bindgen"];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn only_the_web_facade_touches_javascript() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    rust_files(&src, &mut files);
    assert!(files.len() > 10, "found only {} source files", files.len());
    let mut offenders = vec![];
    for file in files {
        if file.strip_prefix(&src).is_ok_and(|rel| rel.starts_with("web")) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if WEB_CRATES.iter().any(|c| code.contains(c)) {
                offenders.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(offenders.is_empty(), "core modules import web crates:\n{}", offenders.join("\n"));
}

#[test]
fn the_check_itself_catches_an_import() {
    let line = "use wasm_bindgen::prelude::*;";
    assert!(WEB_CRATES.iter().any(|c| line.contains(c)));
}
