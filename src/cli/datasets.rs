//! `evenhand datasets`: the catalogue (datasets/catalogue.json) listed, fetched into a cache
//! and verified; and [`resolve`], through which every method command turns a
//! `catalogue:NAME[/FILE]` argument into files on disk, fetching what the cache lacks.
//!
//! A download goes to `<file>.part` and is resumed with a Range request when that exists; the
//! whole file's sha256 is checked before the rename, so a file under its final name has always
//! matched its pin. A mismatch removes the .part: resuming a wrong file would only repeat it.

use super::{Failure, Outcome, create_dir, note, print_json, read_text, unpinned};
use evenhand::catalogue::{self, Catalogue, DataFile, Dataset, Method, Reference, Sha256Stream};
use serde::Serialize;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// The mirror rule's environment variable: a base URL replacing https://raw.githubusercontent.com.
pub const BASE_ENV: &str = "EVENHAND_DATASETS_BASE";
/// A catalogue file used instead of the built-in one (a host's own, or a test's).
pub const CATALOGUE_ENV: &str = "EVENHAND_CATALOGUE";

/// The catalogue in $EVENHAND_CATALOGUE, else the built-in one.
pub fn load_catalogue() -> Result<Catalogue, Failure> {
    match std::env::var_os(CATALOGUE_ENV).filter(|v| !v.is_empty()) {
        Some(p) => {
            let p = PathBuf::from(p);
            Ok(catalogue::parse(&p.display().to_string(), &read_text(&p)?)?)
        }
        None => Ok(Catalogue::builtin()?),
    }
}

#[derive(clap::Args)]
#[command(after_help = "A catalogue:NAME[/FILE] argument of a method command is fetched into the cache the same \
way. Environment: EVENHAND_DATASETS_BASE=URL (a mirror, as --base-url); XDG_CACHE_HOME (the cache is \
$XDG_CACHE_HOME/evenhand/datasets, else ~/.cache/evenhand/datasets); EVENHAND_CATALOGUE=FILE (a catalogue \
used instead of the built-in one). See docs/datasets.md.")]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// The catalogue: name, method, languages, license, files and size per dataset.
    List {
        /// Only the datasets of this method: bbq, requirements, crosslingual or divergence.
        #[arg(long)]
        method: Option<String>,
    },
    /// Download a dataset (NAME) or one of its files (NAME/FILE), resuming an interrupted
    /// download, and check every file's sha256 before keeping it.
    Fetch {
        /// A dataset name from `evenhand datasets list`, or NAME/FILE for one file.
        name: String,
        /// Write the files here (at their paths in the source repository) instead of the cache.
        #[arg(long)]
        to: Option<PathBuf>,
        /// The cache folder [default: $XDG_CACHE_HOME/evenhand/datasets, else
        /// ~/.cache/evenhand/datasets].
        #[arg(long)]
        cache_dir: Option<PathBuf>,
        /// A mirror: replaces https://raw.githubusercontent.com in every file URL, keeping the
        /// path [env: EVENHAND_DATASETS_BASE].
        #[arg(long)]
        base_url: Option<String>,
        /// Also fetch files the catalogue lists without a pin (no published size or sha256):
        /// unverified, their sha256 and size recorded on first fetch (`<file>.trust.json`) and
        /// checked on every later load (trust on first use). Trust is per host: a copy from
        /// another mirror (or from none) is a first use of its own, kept under `mirrors/<host>/`.
        #[arg(long)]
        allow_unpinned: bool,
    },
    /// Check every catalogue file found under DIR (a cache or a --to folder) against its
    /// sha256; exit 1 when one differs.
    Verify { dir: PathBuf },
}

pub fn run(a: Args) -> Outcome {
    let c = load_catalogue()?;
    match a.command {
        Sub::List { method } => list(&c, method.as_deref()),
        Sub::Fetch { name, to, cache_dir, base_url, allow_unpinned } => {
            let bare = name.strip_prefix(catalogue::reference::PREFIX).unwrap_or(&name);
            let r = Reference::parse(&format!("{}{bare}", catalogue::reference::PREFIX))
                .unwrap_or_else(|| Err(String::new()))
                .map_err(|e| Failure::new(format!("fetch: {e}")))?;
            let base = base_url.or_else(|| std::env::var(BASE_ENV).ok());
            // One unpinned file named, or a whole dataset with its unpinned files when allowed.
            let (d, files, unpinned) = match c.lookup(&r) {
                Ok((d, files)) => {
                    let extra = if allow_unpinned && r.file.is_none() { c.lookup_unpinned(&r)?.1 } else { vec![] };
                    (d, files, extra)
                }
                Err(catalogue::LookupError::Unpinned { .. }) => {
                    let (d, extra) = c.lookup_unpinned(&r)?;
                    (d, vec![], extra)
                }
                Err(e) => return Err(e.into()),
            };
            let root = match to {
                Some(dir) => dir,
                None => dataset_dir(&cache_root(cache_dir)?, d)?,
            };
            if d.license.is_none() {
                note(format_args!(
                    "{}: {}. Source: {}",
                    d.name,
                    d.license_note.as_deref().unwrap_or("no license stated"),
                    d.source_url
                ));
            }
            let mut out = vec![];
            for f in files {
                let (path, status) = fetch(f, &root, base.as_deref())?;
                let served_by =
                    (status != "cached").then(|| unpinned::origin(&catalogue::mirror(&f.url, base.as_deref())));
                let via = served_by.as_ref().map(|h| format!(", served by {h}")).unwrap_or_default();
                note(format_args!("{status} {} ({} bytes, sha256 checked{via})", path.display(), f.bytes));
                out.push(Fetched {
                    file: f.name.clone(),
                    path: path.display().to_string(),
                    bytes: f.bytes,
                    sha256: f.sha256.clone(),
                    status,
                    verified: "pinned by the catalogue".into(),
                    served_by,
                });
            }
            for u in unpinned {
                let (path, status, f) = unpinned::fetch_unpinned(u, &d.name, &root, base.as_deref(), allow_unpinned)?;
                note(format_args!(
                    "UNVERIFIED {status} {} ({} bytes, sha256 {}): {}; {}",
                    path.display(),
                    f.bytes,
                    f.sha256,
                    f.note.as_deref().unwrap_or(catalogue::UNVERIFIED),
                    if status == "fetched" || status == "recorded" {
                        "this first copy is now trusted and later loads are checked against it"
                    } else {
                        "checked against the sha256 recorded on its first fetch"
                    }
                ));
                out.push(Fetched {
                    file: f.name.clone(),
                    path: path.display().to_string(),
                    bytes: f.bytes,
                    sha256: f.sha256.clone(),
                    status,
                    verified: f.note.clone().unwrap_or_else(|| catalogue::UNVERIFIED.into()),
                    served_by: {
                        let host = unpinned::origin(&catalogue::mirror(&u.url, base.as_deref()));
                        unpinned::read_record(u, &root, &host)?.as_ref().map(unpinned::trusted_host)
                    },
                });
            }
            print_json(
                &serde_json::json!({"dataset": d.name, "license": d.license, "license_note": d.license_note, "files": out}),
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Sub::Verify { dir } => verify(&c, &dir),
    }
}

#[derive(Serialize)]
struct Fetched {
    file: String,
    path: String,
    bytes: u64,
    sha256: String,
    /// "fetched", "resumed", "cached" or (an unpinned file trusted as found) "recorded".
    status: &'static str,
    /// "pinned by the catalogue", or the unverified label of an unpinned file (with its host).
    verified: String,
    /// The origin that served this copy (a mirror's, or the catalogue URL's own): the one just
    /// fetched from, or for an unpinned file the one its trust is in. None for a cached pinned file.
    served_by: Option<String>,
}

fn list(c: &Catalogue, method: Option<&str>) -> Outcome {
    let method = match method {
        None => None,
        Some(m) => Some(Method::ALL.into_iter().find(|x| x.as_str() == m).ok_or_else(|| {
            Failure::new(format!("--method: expected bbq, requirements, crosslingual or divergence, found {m:?}"))
        })?),
    };
    #[derive(Serialize)]
    struct Row<'a> {
        name: &'a str,
        title: &'a str,
        method: &'static str,
        version: &'a str,
        languages: &'a [String],
        license: &'a str,
        files: usize,
        bytes: u64,
        source: &'a str,
        unpinned_files: usize,
    }
    let rows: Vec<Row> = c
        .datasets
        .iter()
        .filter(|d| method.is_none_or(|m| d.method == m))
        .map(|d| Row {
            name: &d.name,
            title: &d.title,
            method: d.method.as_str(),
            version: &d.version,
            languages: &d.languages,
            license: d.license.as_deref().unwrap_or("no license stated"),
            files: d.files.len(),
            bytes: d.files.iter().map(|f| f.bytes).sum(),
            source: &d.source_url,
            unpinned_files: d.unpinned_files.len(),
        })
        .collect();
    print_json(&rows)?;
    Ok(ExitCode::SUCCESS)
}

/// The cache folder: `--cache-dir`, else $XDG_CACHE_HOME/evenhand/datasets, else
/// ~/.cache/evenhand/datasets.
pub fn cache_root(flag: Option<PathBuf>) -> Result<PathBuf, Failure> {
    if let Some(dir) = flag {
        return Ok(dir);
    }
    let non_empty = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(xdg) = non_empty("XDG_CACHE_HOME") {
        return Ok(xdg.join("evenhand").join("datasets"));
    }
    non_empty("HOME").map(|h| h.join(".cache").join("evenhand").join("datasets")).ok_or_else(|| {
        Failure::new("no cache folder: set XDG_CACHE_HOME or HOME, or pass --cache-dir to `evenhand datasets fetch`")
    })
}

/// Where a dataset's files live in the cache: one folder per name and version. Both come
/// from a catalogue (maybe $EVENHAND_CATALOGUE's), so each must be one folder name: the
/// catalogue's own check says so too, and this one keeps the cache's edge where it is used.
fn dataset_dir(cache: &Path, d: &Dataset) -> Result<PathBuf, Failure> {
    for (field, value) in [("name", &d.name), ("version", &d.version)] {
        if !catalogue::safe_segment(value) {
            return Err(Failure::new(format!(
                "catalogue: dataset {:?}: field {field}: {value:?} would leave the cache folder; expected one folder name",
                d.name
            )));
        }
    }
    Ok(cache.join(&d.name).join(&d.version))
}

/// `root/<rel>` for a catalogue file's `path`, refused (naming the field) when it would leave `root`.
pub(super) fn inside(root: &Path, file: &str, rel: &str) -> Result<PathBuf, Failure> {
    if !catalogue::safe_path(rel) {
        return Err(Failure::new(format!(
            "catalogue: file {file:?}: field path: {rel:?} would leave the folder {}; expected a relative path \
             without '..', ':' or '\\'",
            root.display()
        )));
    }
    Ok(rel.split('/').fold(root.to_path_buf(), |p, part| p.join(part)))
}

/// A data file a method command was given: its path, and what the catalogue says of it.
pub struct Input {
    pub path: PathBuf,
    pub file: Option<DataFile>,
}

impl Input {
    pub fn name(&self) -> String {
        self.path.display().to_string()
    }

    pub fn language(&self) -> Option<&str> {
        self.file.as_ref().and_then(|f| f.language.as_deref())
    }
}

/// A path as given, or the files a `catalogue:NAME[/FILE]` names, fetched into the cache
/// (with $EVENHAND_DATASETS_BASE as mirror) when missing there.
pub fn resolve(arg: &Path) -> Result<Vec<Input>, Failure> {
    let text = arg.to_string_lossy();
    let Some(r) = Reference::parse(&text) else { return Ok(vec![Input { path: arg.to_path_buf(), file: None }]) };
    let r = r.map_err(Failure::new)?;
    let c = load_catalogue()?;
    let base = std::env::var(BASE_ENV).ok();
    let (d, files) = match c.lookup(&r) {
        Err(catalogue::LookupError::Unpinned { .. }) => {
            // Usable once `datasets fetch --allow-unpinned` recorded it; checked against that.
            let (d, found) = c.lookup_unpinned(&r)?;
            let root = dataset_dir(&cache_root(None)?, d)?;
            let mut out = vec![];
            for u in found {
                let (path, _, f) = unpinned::fetch_unpinned(u, &d.name, &root, base.as_deref(), false)?;
                note(format_args!(
                    "{r}: UNVERIFIED: {} ({})",
                    path.display(),
                    f.note.as_deref().unwrap_or(catalogue::UNVERIFIED)
                ));
                out.push(Input { path, file: Some(f) });
            }
            return Ok(out);
        }
        other => other?,
    };
    let root = dataset_dir(&cache_root(None)?, d)?;
    let mut out = vec![];
    for f in files {
        let (path, status) = fetch(f, &root, base.as_deref())?;
        if status != "cached" {
            note(format_args!("{r}: {status} {} ({} bytes, sha256 checked)", path.display(), f.bytes));
        }
        out.push(Input { path, file: Some(f.clone()) });
    }
    Ok(out)
}

/// [`resolve`] for an argument that must name exactly one file.
pub fn resolve_one(arg: &Path) -> Result<Input, Failure> {
    let mut all = resolve(arg)?;
    match all.len() {
        1 => Ok(all.remove(0)),
        n => Err(Failure::new(format!(
            "{}: names {n} files where one is expected; add /FILE (see `evenhand datasets list`)",
            arg.display()
        ))),
    }
}

/// The folder a `catalogue:NAME` stands for once all its files are fetched (for options
/// that take a folder, such as `expand --langbite-dir`).
pub fn resolve_dir(arg: &Path) -> Result<PathBuf, Failure> {
    let text = arg.to_string_lossy();
    if Reference::parse(&text).is_none() {
        return Ok(arg.to_path_buf());
    }
    let inputs = resolve(arg)?;
    let first = inputs.first().ok_or_else(|| Failure::new(format!("{text}: no files")))?;
    let (path, rel) = (&first.path, first.file.as_ref().map_or("", |f| f.path.as_str()));
    let depth = rel.split('/').count();
    Ok(path.ancestors().nth(depth).unwrap_or(path).to_path_buf())
}

pub(super) fn part_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_os_string();
    p.push(".part");
    PathBuf::from(p)
}

pub(super) fn io_err(path: &Path, what: &str) -> impl Fn(std::io::Error) -> Failure {
    let path = path.display().to_string();
    let what = what.to_string();
    move |e| Failure::new(format!("{path}: cannot {what}: {e}"))
}

/// The sha256 and length of a file on disk, read in chunks.
pub(super) fn digest_file(path: &Path) -> Result<(String, u64), Failure> {
    let mut file = std::fs::File::open(path).map_err(io_err(path, "read"))?;
    let mut s = Sha256Stream::default();
    let mut buf = vec![0u8; 1 << 16];
    let mut n = 0u64;
    loop {
        let k = file.read(&mut buf).map_err(io_err(path, "read"))?;
        if k == 0 {
            return Ok((s.finish(), n));
        }
        s.update(&buf[..k]);
        n += k as u64;
    }
}

/// Makes `root/<f.path>` hold the pinned file: kept when already there and matching, else
/// downloaded (resumed from a .part) and checked. Returns the path and what was done.
pub fn fetch(f: &DataFile, root: &Path, base: Option<&str>) -> Result<(PathBuf, &'static str), Failure> {
    let path = inside(root, &f.name, &f.path)?;
    if path.is_file() {
        let (sha, _) = digest_file(&path)?;
        if sha == f.sha256 {
            return Ok((path, "cached"));
        }
        return Err(Failure::new(format!(
            "{}: present, but its sha256 is {sha}, not the pinned {}; remove it to fetch it again",
            path.display(),
            f.sha256
        )));
    }
    if let Some(dir) = path.parent() {
        create_dir(dir)?;
    }
    let url = catalogue::mirror(&f.url, base);
    let part = part_path(&path);
    let mut out = open_part(&part)?;
    let have = out.metadata().map_err(io_err(&part, "read"))?.len();
    let resumed = have > 0 && have <= f.bytes;
    if have > f.bytes {
        // Longer than the pinned file: it cannot become it.
        out.set_len(0).map_err(io_err(&part, "write"))?;
    }
    let appended = if resumed && have == f.bytes {
        true
    } else {
        download(&url, &part, &mut out, if resumed { have } else { 0 }, Cap::Pinned(f.bytes))?
    };
    let (sha, len) = digest_file(&part)?;
    if sha != f.sha256 || len != f.bytes {
        std::fs::remove_file(&part).map_err(io_err(&part, "remove"))?;
        return Err(Failure::new(format!(
            "{url}: refused: sha256 {sha} ({len} bytes) differs from the pinned {} ({} bytes); nothing was kept",
            f.sha256, f.bytes
        )));
    }
    std::fs::rename(&part, &path).map_err(io_err(&path, "write"))?;
    Ok((path, if resumed && appended { "resumed" } else { "fetched" }))
}

/// Opens (creating it if absent) a download's .part, locked for this process: two fetches of
/// the same file at once would otherwise both write into it and spoil it for each other. The
/// lock is the operating system's (released when the file is closed or the process ends), so
/// an interrupted fetch leaves nothing to clean up.
pub(super) fn open_part(part: &Path) -> Result<std::fs::File, Failure> {
    let file = std::fs::OpenOptions::new().create(true).append(true).open(part).map_err(io_err(part, "write"))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(Failure::new(format!(
            "{}: another evenhand is downloading this file right now; wait for it to finish, then run the command again",
            part.display()
        ))),
        Err(std::fs::TryLockError::Error(e)) => Err(io_err(part, "lock")(e)),
    }
}

/// The most a download may bring: a pinned file's size, or the limit on a file without a pin.
#[derive(Clone, Copy)]
pub(super) enum Cap {
    Pinned(u64),
    Limit(u64),
}

/// GETs `url` into the locked `part` (`out`, opened by [`open_part`]) from byte `from` on (a
/// Range request when `from` > 0), up to the cap. An interrupted body leaves what came in the
/// .part for next time; a body longer than the cap is not the file, so the .part is emptied
/// and the download refused (resuming it would only fetch the same bytes again).
/// True when the server took the Range request and the body was appended.
pub(super) fn download(url: &str, part: &Path, out: &mut std::fs::File, from: u64, cap: Cap) -> Result<bool, Failure> {
    let total = match cap {
        Cap::Pinned(n) | Cap::Limit(n) => n,
    };
    let agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_recv_response(Some(Duration::from_secs(60)))
        // A stalled body ends in the interrupted-download error, and the next fetch resumes.
        .timeout_recv_body(Some(Duration::from_secs(30 * 60)))
        .user_agent(format!("evenhand/{}", evenhand::VERSION))
        .build()
        .new_agent();
    let mut req = agent.get(url);
    if from > 0 {
        req = req.header("Range", format!("bytes={from}-"));
    }
    let response = req.call().map_err(|e| Failure::new(format!("{url}: {e}")))?;
    let status = response.status().as_u16();
    let append = match status {
        206 if from > 0 => true,
        200 => false,
        416 if from > 0 => {
            // The server has fewer bytes than the .part: it cannot be the pinned file's start.
            std::fs::remove_file(part).map_err(io_err(part, "remove"))?;
            return Err(Failure::new(format!(
                "{url}: HTTP 416: the server's file is shorter than the {from} bytes already fetched; \
                 the partial download was removed"
            )));
        }
        _ => return Err(Failure::new(format!("{url}: HTTP {status}; expected the file"))),
    };
    if !append {
        out.set_len(0).map_err(io_err(part, "write"))?;
    }
    let mut got = if append { from } else { 0 };
    let mut body = response.into_body().into_with_config().limit(u64::MAX).reader();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match body.read(&mut buf) {
            Ok(0) => break,
            Ok(k) => {
                got += k as u64;
                if got > total {
                    // One byte over is enough to know: not the file.
                    out.set_len(0).map_err(io_err(part, "write"))?;
                    std::fs::remove_file(part).map_err(io_err(part, "remove"))?;
                    let what = match cap {
                        Cap::Pinned(n) => format!("the pinned file has {n} bytes, so this is not it"),
                        Cap::Limit(n) => format!("a file without a pin may have at most {n} bytes"),
                    };
                    return Err(Failure::new(format!(
                        "{url}: refused: the server sent more than {total} bytes ({what}); nothing was kept"
                    )));
                }
                out.write_all(&buf[..k]).map_err(io_err(part, "write"))?;
            }
            Err(e) => {
                out.flush().map_err(io_err(part, "write"))?;
                return Err(Failure::new(format!(
                    "{url}: interrupted after {got} of {total} bytes ({e}); run the command again to resume from {}",
                    part.display()
                )));
            }
        }
    }
    out.flush().map_err(io_err(part, "write"))?;
    Ok(append)
}

/// Every file under `dir` whose path ends with a catalogue file's path is checked against
/// that file's sha256.
fn verify(c: &Catalogue, dir: &Path) -> Outcome {
    if !dir.is_dir() {
        return Err(Failure::new(format!("{}: not a folder", dir.display())));
    }
    let (mut found, mut links) = (vec![], vec![]);
    walk(dir, &mut found, &mut links)?;
    found.sort();
    links.sort();
    let links: Vec<String> =
        links.iter().map(|p| p.strip_prefix(dir).unwrap_or(p).to_string_lossy().replace('\\', "/")).collect();
    for l in &links {
        note(format_args!("{l}: a symbolic link, not followed"));
    }
    #[derive(Serialize)]
    struct Checked {
        path: String,
        dataset: String,
        file: String,
        ok: bool,
        sha256: String,
        expected: String,
        /// Where `expected` comes from: the catalogue's pin, or a first fetch's record.
        verified: String,
        /// For an unpinned file: the host its first fetch came from.
        #[serde(skip_serializing_if = "Option::is_none")]
        served_by: Option<String>,
    }
    let mut checked = vec![];
    let mut unknown = vec![];
    for path in found {
        let rel = path.strip_prefix(dir).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        let candidates: Vec<(&Dataset, &DataFile)> = c
            .datasets
            .iter()
            .flat_map(|d| d.files.iter().map(move |f| (d, f)))
            .filter(|(_, f)| rel == f.path || rel.ends_with(&format!("/{}", f.path)))
            .collect();
        if rel.ends_with(".trust.json") {
            continue;
        }
        if candidates.is_empty() {
            // An unpinned file is checked against the record its first fetch left beside it.
            let unpinned = c
                .datasets
                .iter()
                .flat_map(|d| d.unpinned_files.iter().map(move |u| (d, u)))
                .find(|(_, u)| rel == u.path || rel.ends_with(&format!("/{}", u.path)));
            let record = std::fs::read_to_string(unpinned::record_path(&path)).ok();
            let record = record.and_then(|t| serde_json::from_str::<unpinned::Record>(&t).ok());
            match (unpinned, record) {
                (Some((d, u)), Some(record)) => {
                    let host = unpinned::trusted_host(&record);
                    let expected = record.sha256;
                    let (sha, _) = digest_file(&path)?;
                    checked.push(Checked {
                        path: rel,
                        dataset: d.name.clone(),
                        file: u.name.clone(),
                        ok: sha == expected,
                        expected,
                        sha256: sha,
                        verified: format!("{} (first fetched from {host})", catalogue::UNVERIFIED),
                        served_by: Some(host),
                    });
                }
                _ if !rel.ends_with(".part") => unknown.push(rel),
                _ => {}
            }
            continue;
        }
        let (sha, _) = digest_file(&path)?;
        // Two datasets may share a path (data/Age.jsonl); the one whose pin matches, or the
        // one whose cache folder (NAME/VERSION/) the path is under.
        let pick = candidates
            .iter()
            .find(|(_, f)| f.sha256 == sha)
            .or_else(|| candidates.iter().find(|(d, _)| rel.starts_with(&format!("{}/{}/", d.name, d.version))))
            .unwrap_or(&candidates[0]);
        checked.push(Checked {
            path: rel,
            dataset: pick.0.name.clone(),
            file: pick.1.name.clone(),
            ok: pick.1.sha256 == sha,
            expected: pick.1.sha256.clone(),
            sha256: sha,
            verified: "pinned by the catalogue".into(),
            served_by: None,
        });
    }
    if checked.is_empty() {
        return Err(Failure::new(format!(
            "{}: no catalogue file found under it (files are matched by their path in the source repository; \
             symbolic links are not followed)",
            dir.display()
        )));
    }
    let bad = checked.iter().filter(|c| !c.ok).count();
    for c in checked.iter().filter(|c| !c.ok) {
        note(format_args!(
            "{}: sha256 {} differs from the pinned {} ({}/{})",
            c.path, c.sha256, c.expected, c.dataset, c.file
        ));
    }
    print_json(&serde_json::json!({
        "checked": checked, "mismatched": bad, "not_in_catalogue": unknown, "links_not_followed": links
    }))?;
    Ok(if bad > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The files under `dir`, symbolic links not followed (kept apart in `links`): a link may
/// point out of the folder, or back into it and loop, and neither is a file the folder holds.
fn walk(dir: &Path, out: &mut Vec<PathBuf>, links: &mut Vec<PathBuf>) -> Result<(), Failure> {
    for entry in std::fs::read_dir(dir).map_err(io_err(dir, "read"))? {
        let entry = entry.map_err(io_err(dir, "read"))?;
        let kind = entry.file_type().map_err(io_err(&entry.path(), "read"))?;
        if kind.is_symlink() {
            links.push(entry.path());
        } else if kind.is_dir() {
            walk(&entry.path(), out, links)?;
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
    Ok(())
}
