//! Files the catalogue lists without a pin (their source published no size or sha256), fetched
//! only when the user opts in (`datasets fetch ... --allow-unpinned`): trust on first use. The
//! first download's sha256 and size go to a record beside the file (`<file>.trust.json`), and
//! every later load, and any re-download, is checked against that record as strictly as a
//! pinned file is against the catalogue. The record outlives a removed file on purpose: only
//! removing the record itself starts the trust over.
//!
//! Trust is per host, as in the page: a record trusts the host that served the first copy
//! (`served_by`), and a download of the same file from another host (another mirror, or none)
//! is a first use of its own, needing `--allow-unpinned` again. The first host's copy keeps the
//! file's own path; another host's copy and record go under `mirrors/<host>/<path>` beside it,
//! so neither stands for the other.

use super::datasets::{Cap, digest_file, download, fetch, inside, io_err, open_part, part_path};
use super::{Failure, create_dir, read_text};
use evenhand::catalogue::{self, DataFile, Unpinned};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const FORMAT: &str = "evenhand-trust-on-first-use";
/// A first download has no size to stop at; no catalogue file comes near this.
const FIRST_FETCH_LIMIT: u64 = 1 << 34;

/// What the first download of an unpinned file was.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub format: String,
    pub url: String,
    pub sha256: String,
    pub bytes: u64,
    /// Seconds since 1970 (UTC) when the record was written.
    pub first_fetched: u64,
    /// The origin that served the first copy (a mirror's, or the catalogue URL's own): the
    /// trust is in that host. Absent in records written before hosts were kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served_by: Option<String>,
}

/// `scheme://host[:port]` of a URL.
pub fn origin(url: &str) -> String {
    let after = url.find("://").map_or(0, |i| i + 3);
    let end = url[after..].find('/').map_or(url.len(), |i| after + i);
    url[..end].to_string()
}

/// Who a record trusts, for messages: its host, or the catalogue URL's when not recorded.
pub fn trusted_host(r: &Record) -> String {
    r.served_by.clone().unwrap_or_else(|| origin(&r.url))
}

pub fn record_path(file: &Path) -> PathBuf {
    let mut p = file.as_os_str().to_os_string();
    p.push(".trust.json");
    PathBuf::from(p)
}

/// Where `host`'s copy of `u` lives under `root` (relative): the file's own path, unless a
/// copy from another host holds it, then `mirrors/<host>/<path>`.
fn host_rel(u: &Unpinned, root: &Path, host: &str) -> Result<String, Failure> {
    let slug: String = host
        .replace("://", "_")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' })
        .collect();
    let aside = format!("{MIRRORS}/{slug}/{}", u.path);
    if load(&record_path(&inside(root, &u.name, &aside)?))?.is_some() {
        return Ok(aside);
    }
    match load(&record_path(&inside(root, &u.name, &u.path)?))? {
        Some(r) if trusted_host(&r) != host => Ok(aside),
        _ => Ok(u.path.clone()),
    }
}

/// The folder, beside a dataset's files, of copies served by a host other than the first.
const MIRRORS: &str = "mirrors";

/// The record kept for `u` under `root` for copies served by `host`, if a first fetch from that
/// host made one.
pub fn read_record(u: &Unpinned, root: &Path, host: &str) -> Result<Option<Record>, Failure> {
    let rel = host_rel(u, root, host)?;
    Ok(load(&record_path(&inside(root, &u.name, &rel)?))?.filter(|r| trusted_host(r) == host))
}

/// The host a record for `u` trusts other than `host`, for the message refusing `host`.
fn other_host(u: &Unpinned, root: &Path, host: &str) -> Result<Option<String>, Failure> {
    Ok(load(&record_path(&inside(root, &u.name, &u.path)?))?.map(|r| trusted_host(&r)).filter(|h| h != host))
}

fn load(path: &Path) -> Result<Option<Record>, Failure> {
    if !path.is_file() {
        return Ok(None);
    }
    let r: Record = serde_json::from_str(&read_text(path)?)
        .map_err(|e| Failure::new(format!("{}: not a trust record: {e}", path.display())))?;
    if r.format != FORMAT {
        return Err(Failure::new(format!(
            "{}: field format: expected {FORMAT:?}, found {:?}",
            path.display(),
            r.format
        )));
    }
    Ok(Some(r))
}

/// Makes `root/<u.path>` hold the file: checked against its record when one exists; else,
/// only with `allow`, downloaded and recorded. Returns the path, what was done, and the file
/// as the method readers take it (its sha256 and size those recorded).
pub fn fetch_unpinned(
    u: &Unpinned,
    dataset: &str,
    root: &Path,
    base: Option<&str>,
    allow: bool,
) -> Result<(PathBuf, &'static str, DataFile), Failure> {
    let source = catalogue::mirror(&u.url, base);
    let now = origin(&source);
    let rel = host_rel(u, root, &now)?;
    if let Some(r) = read_record(u, root, &now)? {
        let mut trusted = u.as_trusted(&r.sha256, r.bytes);
        trusted.path = rel;
        let (path, status) = fetch(&trusted, root, base).map_err(|e| match e {
            Failure::Message(m) => Failure::new(format!(
                "{m} (the pin is the sha256 recorded when {dataset}/{} was first fetched from {now}: \
                 UNVERIFIED, trust on first use)",
                u.name
            )),
            other => other,
        })?;
        return Ok((path, status, with_host(trusted, &now)));
    }
    if !allow {
        let unpinned = catalogue::LookupError::Unpinned { dataset: dataset.into(), file: u.name.clone() }.to_string();
        return Err(Failure::new(match other_host(u, root, &now)? {
            Some(first) => format!(
                "{unpinned} (trust on first use is per host: {dataset}/{} was first fetched from {first}, never \
                 from {now}; pass --allow-unpinned to trust {now}'s copy on its first use)",
                u.name
            ),
            None => unpinned,
        }));
    }
    let path = inside(root, &u.name, &rel)?;
    if let Some(dir) = path.parent() {
        create_dir(dir)?;
    }
    // A file at its own path with another host's record is that host's copy, never this one's.
    let status = if path.is_file() && load(&record_path(&path))?.is_none() {
        // A copy the user put there: trusted as found, like a download would be.
        "recorded"
    } else {
        let part = part_path(&path);
        // Without a pin, a partial download has nothing to be resumed against: download
        // empties the .part and starts from 0.
        let mut out = open_part(&part)?;
        download(&source, &part, &mut out, 0, Cap::Limit(FIRST_FETCH_LIMIT))?;
        std::fs::rename(&part, &path).map_err(io_err(&path, "write"))?;
        "fetched"
    };
    let (sha256, bytes) = digest_file(&path)?;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    // A copy the user put there was served by no host: it is trusted as theirs.
    let served_by = if status == "fetched" { origin(&source) } else { "a local copy".into() };
    let record = Record {
        format: FORMAT.into(),
        url: u.url.clone(),
        sha256,
        bytes,
        first_fetched: now,
        served_by: Some(served_by),
    };
    let text = serde_json::to_string_pretty(&record).map_err(|e| Failure::new(e.to_string()))? + "\n";
    let at = record_path(&path);
    std::fs::write(&at, text).map_err(io_err(&at, "write"))?;
    let host = trusted_host(&record);
    let mut trusted = u.as_trusted(&record.sha256, record.bytes);
    trusted.path = rel;
    Ok((path, status, with_host(trusted, &host)))
}

/// The unverified label with the host the trust is in, for every output that names the file.
fn with_host(mut f: DataFile, host: &str) -> DataFile {
    f.note = Some(format!("{} (first fetched from {host})", catalogue::UNVERIFIED));
    f
}
