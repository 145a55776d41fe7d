//! The service worker's app shell (www/sw.js) names every file the page loads, so the page
//! opens offline after the first visit even when a module was added since.

use std::path::Path;

const WWW: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/www");

fn shell() -> Vec<String> {
    let sw = std::fs::read_to_string(Path::new(WWW).join("sw.js")).unwrap();
    let start = sw.find("const SHELL = [").expect("sw.js has a SHELL list");
    let end = start + sw[start..].find("];").expect("the SHELL list ends");
    sw[start..end].split('"').skip(1).step_by(2).map(str::to_string).collect()
}

/// The page's own files: www/ and www/views/, without the worker itself and the build output.
fn page_files() -> Vec<String> {
    let mut out = vec![];
    for dir in ["", "views"] {
        for entry in std::fs::read_dir(Path::new(WWW).join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
            let page_file = ["js", "html", "css", "svg", "webmanifest"]
                .iter()
                .any(|ext| path.extension().is_some_and(|x| x == *ext));
            if path.is_file() && page_file && name != "sw.js" {
                out.push(if dir.is_empty() { format!("./{name}") } else { format!("./{dir}/{name}") });
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_shell_lists_every_page_file_and_both_wasm_modules() {
    let (shell, files) = (shell(), page_files());
    let missing: Vec<&String> = files.iter().filter(|f| !shell.contains(f)).collect();
    assert!(missing.is_empty(), "www/sw.js SHELL lacks {missing:?}: the page would not open offline");
    // The first-load module and the full one the worker loads when a tool is first used.
    for built in ["./", "./pkg/home.js", "./pkg/home_bg.wasm", "./pkg/evenhand.js", "./pkg/evenhand_bg.wasm"] {
        assert!(shell.iter().any(|f| f == built), "www/sw.js SHELL lacks {built}");
    }
    // The lazily loaded modules are not part of a first visit: fetched (and kept) on first use.
    for lazy in ["./pkg-parquet/", "./pkg-models/", "./pkg-models-relaxed/"] {
        assert!(!shell.iter().any(|f| f.starts_with(lazy)), "www/sw.js SHELL installs {lazy} on the first visit");
    }
}

#[test]
fn the_shell_names_only_files_that_exist() {
    for file in shell() {
        if file == "./" || file.starts_with("./pkg/") {
            continue; // the page's address, and the build output (absent before ./build.sh build)
        }
        assert!(Path::new(WWW).join(&file).is_file(), "www/sw.js SHELL names {file}, which is not in www/");
    }
}

#[test]
fn the_page_links_its_manifest_and_icon() {
    let html = std::fs::read_to_string(Path::new(WWW).join("index.html")).unwrap();
    assert!(html.contains(r#"<link rel="manifest" href="./manifest.webmanifest">"#));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(Path::new(WWW).join("manifest.webmanifest")).unwrap()).unwrap();
    assert_eq!(manifest["start_url"], "./");
    assert_eq!(manifest["display"], "standalone");
    for key in ["name", "short_name", "theme_color", "background_color"] {
        assert!(manifest[key].as_str().is_some_and(|s| !s.is_empty()), "manifest lacks {key}");
    }
    let icon = manifest["icons"][0]["src"].as_str().unwrap();
    assert!(Path::new(WWW).join(icon).is_file(), "the manifest's icon {icon} is not in www/");
}

/// The Datasets view keeps verified files in a cache of its own (www/dataset-store.js); the
/// service worker deletes old builds' "evenhand-…" caches on activation and must spare it, or
/// every update would throw away what the user downloaded. The same for the local models' weights.
#[test]
fn the_service_worker_spares_the_models_cache() {
    let worker = std::fs::read_to_string(Path::new(WWW).join("models-worker.js")).unwrap();
    let name = worker
        .split("const CACHE = \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("models-worker.js names its CACHE");
    let sw = std::fs::read_to_string(Path::new(WWW).join("sw.js")).unwrap();
    assert!(sw.contains(&format!("const MODELS_CACHE = \"{name}\";")), "sw.js does not name the models cache {name}");
    let activate = &sw[sw.find("addEventListener(\"activate\"").expect("an activate handler")..];
    let filter = activate.lines().find(|l| l.contains("caches.delete")).expect("the activate handler deletes caches");
    assert!(filter.contains("n !== MODELS_CACHE"), "the activate handler would delete the models cache: {filter}");
}

#[test]
fn the_service_worker_spares_the_datasets_cache() {
    let store = std::fs::read_to_string(Path::new(WWW).join("dataset-store.js")).unwrap();
    let name = store
        .split("export const CACHE = \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("dataset-store.js exports its CACHE name");
    let sw = std::fs::read_to_string(Path::new(WWW).join("sw.js")).unwrap();
    assert!(
        sw.contains(&format!("const DATASETS_CACHE = \"{name}\";")),
        "sw.js does not name the datasets cache {name}"
    );
    let activate = &sw[sw.find("addEventListener(\"activate\"").expect("an activate handler")..];
    let filter = activate.lines().find(|l| l.contains("caches.delete")).expect("the activate handler deletes caches");
    assert!(filter.contains("n !== DATASETS_CACHE"), "the activate handler would delete the datasets cache: {filter}");
}
