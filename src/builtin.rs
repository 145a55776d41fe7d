//! The larger built-in datasets (under datasets/ in the repository), asked for by their path
//! there. The CLI and the tests compile them in (feature `compiled-data`, on by default), so
//! they need no files; the page's wasm is built without them, which keeps about 1 MB of text
//! (240 KB gzipped) out of it: build.sh copies them to www/data/, the page's worker fetches the
//! ones a tool needs the first time it is used and hands them over through [`install`]. Either
//! way the core asks [`text`] and gets text, never a file or a URL.
//!
//! The small tables the code reads through infallible lookups (BBQ's phrases and instructions,
//! the refusal lexicon, the cross-lingual modes, the demo's templates; 30 KB together) stay
//! compiled in everywhere: the demo's are needed by the first load, and making the others
//! fallible would put an error path into every prompt and parser for a few KB.

use serde::Serialize;

/// Declares [`FILES`] and, with `compiled-data`, the compiled-in copies, from one list (which
/// build.sh also reads: one `"path",` per line between `builtin_files! {` and `}`).
macro_rules! builtin_files {
    ($($path:literal,)*) => {
        /// Every file [`text`] knows, by its path under datasets/: the list build.sh copies and the
        /// worker fetches (the worker asks `builtin_files()`; tests/builtin_data.rs keeps sw.js's
        /// list equal).
        pub const FILES: &[&str] = &[$($path),*];
        #[cfg(feature = "compiled-data")]
        const COMPILED: &[(&str, &str)] = &[$(($path, include_str!(concat!("../datasets/", $path)))),*];
    };
}

builtin_files! {
    "bbq/templates.csv",
    "bbq/vocabulary.csv",
    "bbq/proper_names.csv",
    "bbq/unknown.csv",
    "crosslingual/questions.json",
    "divergence/probes/pl-western.json",
    "divergence/probes/de-western.json",
    "divergence/references/pl_cities.tsv",
    "divergence/references/de_cities.tsv",
    "divergence/references/us_cities.tsv",
    "divergence/references/us_first_names.tsv",
    "requirements/de_de.json",
    "requirements/en_us.json",
    "requirements/es_es.json",
    "requirements/fr_fr.json",
    "requirements/hi_in.json",
    "requirements/zh_cn.json",
}

/// A built-in dataset asked for before the page handed it over (or one that does not exist).
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
#[error("datasets/{path}: this built-in dataset is not loaded (the page fetches it from data/{path}; reload the page)")]
pub struct NotLoaded {
    pub path: String,
}

/// The text of the built-in dataset at `path` (under datasets/).
pub fn text(path: &str) -> Result<&'static str, NotLoaded> {
    source::text(path).ok_or_else(|| NotLoaded { path: path.to_string() })
}

/// Hands over a built-in dataset's text (the page's worker, after fetching it). A path not in
/// [`FILES`] is refused; a second copy of a path replaces the first.
pub fn install(path: &str, text: String) -> Result<(), NotLoaded> {
    if !FILES.contains(&path) {
        return Err(NotLoaded { path: path.to_string() });
    }
    source::install(path, text);
    Ok(())
}

#[cfg(feature = "compiled-data")]
mod source {
    pub fn text(path: &str) -> Option<&'static str> {
        super::COMPILED.iter().find(|(p, _)| *p == path).map(|(_, t)| *t)
    }

    /// The compiled-in copy is the dataset; a handed-over one is ignored.
    pub fn install(_path: &str, _text: String) {}
}

#[cfg(not(feature = "compiled-data"))]
mod source {
    use std::collections::BTreeMap;
    use std::sync::{Mutex, PoisonError};

    // Leaked on purpose: each file is handed over once per page and lives as long as the page,
    // and `&'static str` keeps the readers' signatures the same as with the compiled-in copy.
    static INSTALLED: Mutex<BTreeMap<String, &'static str>> = Mutex::new(BTreeMap::new());

    pub fn text(path: &str) -> Option<&'static str> {
        INSTALLED.lock().unwrap_or_else(PoisonError::into_inner).get(path).copied()
    }

    pub fn install(path: &str, text: String) {
        let mut installed = INSTALLED.lock().unwrap_or_else(PoisonError::into_inner);
        if installed.get(path).is_none_or(|old| **old != text) {
            installed.insert(path.to_string(), Box::leak(text.into_boxed_str()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_known_and_unknown_paths_are_refused() {
        for path in FILES {
            #[cfg(feature = "compiled-data")]
            assert!(!text(path).unwrap().is_empty(), "{path}");
            install(path, String::new()).unwrap();
        }
        let e = install("../secrets.txt", "x".into()).unwrap_err();
        assert_eq!(e.path, "../secrets.txt");
        assert!(text("bbq/nothing.csv").unwrap_err().to_string().contains("datasets/bbq/nothing.csv"));
    }
}
