//! The dataset catalogue (datasets/catalogue.json, documented in docs/datasets.md): public
//! datasets the methods read, each pinned to a commit of its repository, with every file's
//! URL, size and sha256. Nothing in it is data; the files are fetched at run time.
//!
//! This module is pure: it reads and checks the catalogue, resolves `catalogue:NAME[/FILE]`
//! references, applies the mirror rule and computes digests. Fetching, caching and the files'
//! readers live with their callers (the CLI, the page).

pub mod checksum;
pub mod reference;

pub use checksum::{Sha256Stream, sha256_hex};
pub use reference::Reference;

use serde::{Deserialize, Serialize};
use std::collections::HashSet;

pub const FORMAT: &str = "evenhand-catalogue";
pub const VERSION: u32 = 1;

/// The host every catalogue URL starts with; a mirror replaces exactly this prefix.
pub const RAW_HOST: &str = "https://raw.githubusercontent.com";

/// The catalogue shipped with this build.
pub const BUILTIN: &str = include_str!("../../datasets/catalogue.json");

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    pub format: String,
    pub version: u32,
    #[serde(default)]
    pub about: String,
    pub datasets: Vec<Dataset>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dataset {
    /// The stable id used in `catalogue:NAME[/FILE]`.
    pub name: String,
    pub title: String,
    pub method: Method,
    /// A short commit or a release tag.
    pub version: String,
    /// `owner/name` on GitHub.
    pub repository: String,
    pub commit: String,
    pub source_url: String,
    /// An SPDX id, or None when the repository states no license.
    pub license: Option<String>,
    pub license_note: Option<String>,
    pub languages: Vec<String>,
    pub categories: Vec<String>,
    pub description: String,
    /// BibTeX.
    pub citation: String,
    /// Some of its files were compared byte for byte with a local reference copy.
    pub checked_against_ref: bool,
    pub files: Vec<DataFile>,
    /// Files the repository lists but whose content could not be pinned (no size, no sha256).
    #[serde(default)]
    pub unpinned_files: Vec<Unpinned>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataFile {
    /// FILE in `catalogue:NAME/FILE`.
    pub name: String,
    /// The path in the repository; also where the file goes under a cache or `--to` folder.
    pub path: String,
    pub url: String,
    pub bytes: u64,
    pub sha256: String,
    pub rows: Option<u64>,
    /// How `rows` was counted: "lines" (one record per line), "lines-minus-header" (a table),
    /// "array-items" (a JSON array).
    pub rows_counted: Option<String>,
    pub kind: Kind,
    pub format: FileFormat,
    #[serde(default)]
    pub language: Option<String>,
    #[serde(default)]
    pub category: Option<String>,
    /// MBBQ: "bias" or "control".
    #[serde(default)]
    pub variant: Option<String>,
    /// MSQAD: the model that wrote the reference responses.
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub quirks: Vec<Quirk>,
    #[serde(default)]
    pub checked_against_ref: bool,
    /// What a user must know before using the file, in our words: why no reader reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unpinned {
    /// FILE in `catalogue:NAME/FILE`, named as the dataset's pinned files are.
    pub name: String,
    pub path: String,
    pub url: String,
    pub reason: String,
    pub kind: Kind,
    pub format: FileFormat,
    #[serde(default)]
    pub language: Option<String>,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
}

impl Unpinned {
    /// The file as a pinned one, its sha256 and size those recorded on first use; the note
    /// says so, for every output that names it.
    pub fn as_trusted(&self, sha256: &str, bytes: u64) -> DataFile {
        DataFile {
            name: self.name.clone(),
            path: self.path.clone(),
            url: self.url.clone(),
            bytes,
            sha256: sha256.into(),
            rows: None,
            rows_counted: None,
            kind: self.kind,
            format: self.format,
            language: self.language.clone(),
            category: self.category.clone(),
            variant: None,
            model: self.model.clone(),
            quirks: vec![],
            checked_against_ref: false,
            note: Some(UNVERIFIED.into()),
        }
    }
}

/// How every output labels a file the catalogue could not pin.
pub const UNVERIFIED: &str =
    "unverified: not pinned by the catalogue; its sha256 was recorded on first fetch (trust on first use)";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    Bbq,
    Requirements,
    Crosslingual,
    Divergence,
}

impl Method {
    pub const ALL: [Method; 4] = [Method::Bbq, Method::Requirements, Method::Crosslingual, Method::Divergence];

    pub fn as_str(self) -> &'static str {
        match self {
            Method::Bbq => "bbq",
            Method::Requirements => "requirements",
            Method::Crosslingual => "crosslingual",
            Method::Divergence => "divergence",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Examples,
    Predictions,
    Templates,
    Library,
    Scenario,
    Questions,
    Responses,
}

/// Every file format the catalogue names; each maps to one reader of its method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileFormat {
    BbqJsonl,
    /// BBQ rows plus one `<model>_pred_<format>` column of answer text per model and prompt.
    BbqPredictionsJsonl,
    KobbqTsv,
    /// KoBBQ's template table: fetched and checked only. Its column layout is not described in
    /// the sources the catalogue was built from, so no reader was written against a guess.
    KobbqTemplatesTsv,
    GgbbqJsonl,
    GgbbqTemplatesCsv,
    LangbiteLibraryCsv,
    LangbiteScenarioJson,
    MsqadJson,
}

impl FileFormat {
    /// False for formats kept in the catalogue for fetching and checking only.
    pub fn has_reader(self) -> bool {
        !matches!(self, FileFormat::KobbqTemplatesTsv)
    }
}

/// Known oddities of real files that their reader takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Quirk {
    /// Bare `NaN`, `Infinity`, `-Infinity` for missing values (Python's json.dump).
    NanTokens,
    /// Predictions in `<model>_pred_<format>` columns, one model per column.
    PredictionColumns,
}

/// A problem in the catalogue file, located by line and column (syntax, types) or by the
/// dataset, file and field at fault (rules the types cannot say).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}{}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default(), column.map(|c| format!(":{c}")).unwrap_or_default())]
pub struct CatalogueError {
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

/// Why a `catalogue:` reference names nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LookupError {
    #[error("catalogue: no dataset {name:?}; the catalogue has {known}")]
    NoDataset { name: String, known: String },
    #[error("catalogue:{dataset}: no file {file:?}; it has {known}")]
    NoFile { dataset: String, file: String, known: String },
    #[error(
        "catalogue:{dataset}/{file} is not pinned (its source published no size or sha256): fetch it unverified, \
         trusting its first download, with `evenhand datasets fetch {dataset}/{file} --allow-unpinned`"
    )]
    Unpinned { dataset: String, file: String },
}

impl Catalogue {
    /// The catalogue built into this program (datasets/catalogue.json); tests/catalogue.rs
    /// keeps it valid, and a broken one is still reported rather than read as empty.
    pub fn builtin() -> Result<Catalogue, CatalogueError> {
        parse("datasets/catalogue.json", BUILTIN)
    }

    pub fn dataset(&self, name: &str) -> Result<&Dataset, LookupError> {
        self.datasets.iter().find(|d| d.name == name).ok_or_else(|| LookupError::NoDataset {
            name: name.into(),
            known: self.datasets.iter().map(|d| d.name.as_str()).collect::<Vec<_>>().join(", "),
        })
    }

    /// The dataset and the files a reference names: one file, or all of the dataset's.
    pub fn lookup(&self, r: &Reference) -> Result<(&Dataset, Vec<&DataFile>), LookupError> {
        let d = self.dataset(&r.dataset)?;
        let files = match &r.file {
            None => d.files.iter().collect(),
            Some(f) => vec![d.files.iter().find(|x| &x.name == f).ok_or_else(|| {
                if d.unpinned_files.iter().any(|u| &u.name == f) {
                    return LookupError::Unpinned { dataset: d.name.clone(), file: f.clone() };
                }
                LookupError::NoFile {
                    dataset: d.name.clone(),
                    file: f.clone(),
                    known: d.files.iter().map(|x| x.name.as_str()).collect::<Vec<_>>().join(", "),
                }
            })?],
        };
        Ok((d, files))
    }

    /// The unpinned files a reference names: the one it names, or (for a whole dataset) all.
    pub fn lookup_unpinned(&self, r: &Reference) -> Result<(&Dataset, Vec<&Unpinned>), LookupError> {
        let d = self.dataset(&r.dataset)?;
        Ok((d, d.unpinned_files.iter().filter(|u| r.file.as_ref().is_none_or(|f| &u.name == f)).collect()))
    }
}

/// The mirror rule: a base URL replaces [`RAW_HOST`] in a file URL, keeping the path.
/// URLs on other hosts are returned unchanged.
pub fn mirror(url: &str, base: Option<&str>) -> String {
    match (base, url.strip_prefix(RAW_HOST)) {
        (Some(base), Some(rest)) => format!("{}{rest}", base.trim_end_matches('/')),
        _ => url.to_string(),
    }
}

/// Reads and checks a catalogue.
pub fn parse(file: &str, text: &str) -> Result<Catalogue, CatalogueError> {
    let c: Catalogue = serde_json::from_str(text).map_err(|e| CatalogueError {
        file: file.into(),
        line: Some(e.line()),
        column: Some(e.column()),
        message: e.to_string(),
    })?;
    check(&c).map_err(|(needle, message)| CatalogueError {
        file: file.into(),
        line: needle.and_then(|n| line_of(text, &n)),
        column: None,
        message,
    })?;
    Ok(c)
}

/// The 1-based line of the first occurrence of `needle` (the JSON text of the offending value).
fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.find(needle).map(|at| text[..at].matches('\n').count() + 1)
}

fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// One folder name that stays inside the folder it is joined to: not empty, not `.` or `..`,
/// no separator, drive letter or NUL (a catalogue's `name` and `version` become cache folders).
pub fn safe_segment(s: &str) -> bool {
    !s.is_empty() && s != "." && s != ".." && !s.contains(['/', '\\', ':', '\0'])
}

/// A relative path that stays inside the folder it is joined to: segments as [`safe_segment`].
pub fn safe_path(p: &str) -> bool {
    !p.is_empty() && p.split('/').all(safe_segment)
}

type Fault = (Option<String>, String);

fn check(c: &Catalogue) -> Result<(), Fault> {
    let quoted = |s: &str| Some(serde_json::to_string(s).unwrap_or_default());
    if c.format != FORMAT {
        return Err((quoted(&c.format), format!("field format: expected {FORMAT:?}, found {:?}", c.format)));
    }
    if c.version != VERSION {
        return Err((None, format!("field version: expected {VERSION}, found {}", c.version)));
    }
    let mut names = HashSet::new();
    for d in &c.datasets {
        let at = |field: &str, msg: String| format!("dataset {:?}: field {field}: {msg}", d.name);
        let name_ok =
            !d.name.is_empty() && d.name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !name_ok {
            return Err((quoted(&d.name), at("name", "expected lower-case letters, digits and '-'".into())));
        }
        if !safe_segment(&d.version) {
            return Err((
                quoted(&d.version),
                at("version", "expected one folder name (not '.' or '..', without '/', '\\' or ':')".into()),
            ));
        }
        if !names.insert(d.name.as_str()) {
            return Err((quoted(&d.name), at("name", "a second dataset with this name".into())));
        }
        if !is_hex(&d.commit, 40) {
            return Err((quoted(&d.commit), at("commit", "expected 40 lower-case hex digits".into())));
        }
        if !d.source_url.contains(&d.commit) {
            return Err((quoted(&d.source_url), at("source_url", "expected the commit in the URL".into())));
        }
        if d.license.is_none() && d.license_note.as_deref().is_none_or(str::is_empty) {
            return Err((
                quoted(&d.name),
                at("license_note", "a dataset with no license needs a note saying so".into()),
            ));
        }
        if !d.citation.trim_start().starts_with('@') {
            return Err((quoted(&d.name), at("citation", "expected a BibTeX entry".into())));
        }
        if d.files.is_empty() {
            return Err((quoted(&d.name), at("files", "expected at least one file".into())));
        }
        let prefix = format!("{RAW_HOST}/{}/{}/", d.repository, d.commit);
        let mut file_names = HashSet::new();
        for f in &d.files {
            let at =
                |field: &str, msg: String| format!("dataset {:?}: file {:?}: field {field}: {msg}", d.name, f.name);
            check_place(&f.name, &f.path, &f.url, &prefix, &mut file_names, &at)?;
            if !is_hex(&f.sha256, 64) {
                return Err((quoted(&f.sha256), at("sha256", "expected 64 lower-case hex digits".into())));
            }
            if f.bytes == 0 {
                return Err((quoted(&f.sha256), at("bytes", "an empty file is not a pinned dataset file".into())));
            }
        }
        for u in &d.unpinned_files {
            let at = |field: &str, msg: String| {
                format!("dataset {:?}: unpinned file {:?}: field {field}: {msg}", d.name, u.name)
            };
            check_place(&u.name, &u.path, &u.url, &prefix, &mut file_names, &at)?;
        }
    }
    Ok(())
}

/// A file's name (unique in its dataset, pinned or not), path and URL (under the dataset's
/// commit): the checks every listed file gets, with `at` placing the problem.
fn check_place<'a>(
    name: &'a str,
    path: &str,
    url: &str,
    prefix: &str,
    names: &mut HashSet<&'a str>,
    at: &dyn Fn(&str, String) -> String,
) -> Result<(), Fault> {
    let quoted = |s: &str| Some(serde_json::to_string(s).unwrap_or_default());
    if name.is_empty() || name.contains(':') || !names.insert(name) {
        return Err((quoted(name), at("name", "expected a non-empty name, unique in the dataset, without ':'".into())));
    }
    if !safe_path(path) {
        return Err((quoted(path), at("path", "expected a relative path without '..', ':' or '\\'".into())));
    }
    if !url.starts_with(prefix) {
        return Err((quoted(url), at("url", format!("expected it to start with {prefix}"))));
    }
    Ok(())
}
