//! Files the catalogue lists without a pin (their source published no size or sha256), fetched
//! only when the user opts in (`datasets fetch ... --allow-unpinned`): trust on first use. The
//! first download's sha256 and size go to a record beside the file (`<file>.trust.json`), and
//! every later load, and any re-download, is checked against that record as strictly as a
//! pinned file is against the catalogue. The record outlives a removed file on purpose: only
//! removing the record itself starts the trust over.

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

fn file_path(u: &Unpinned, root: &Path) -> Result<PathBuf, Failure> {
    inside(root, &u.name, &u.path)
}

/// The record kept for `u` under `root`, if a first fetch made one.
pub fn read_record(u: &Unpinned, root: &Path) -> Result<Option<Record>, Failure> {
    let path = record_path(&file_path(u, root)?);
    if !path.is_file() {
        return Ok(None);
    }
    let r: Record = serde_json::from_str(&read_text(&path)?)
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
    if let Some(r) = read_record(u, root)? {
        let trusted = u.as_trusted(&r.sha256, r.bytes);
        let host = trusted_host(&r);
        // A download from another host is held to the first host's record: it must serve the
        // very bytes that were trusted, and the message names both.
        let now = origin(&source);
        let elsewhere = if now != host { format!("; now asked of {now}") } else { String::new() };
        let (path, status) = fetch(&trusted, root, base).map_err(|e| match e {
            Failure::Message(m) => Failure::new(format!(
                "{m} (the pin is the sha256 recorded when {dataset}/{} was first fetched, from {host}{elsewhere}: \
                 UNVERIFIED, trust on first use)",
                u.name
            )),
            other => other,
        })?;
        return Ok((path, status, with_host(trusted, &host)));
    }
    if !allow {
        return Err(Failure::new(
            catalogue::LookupError::Unpinned { dataset: dataset.into(), file: u.name.clone() }.to_string(),
        ));
    }
    let path = file_path(u, root)?;
    if let Some(dir) = path.parent() {
        create_dir(dir)?;
    }
    let status = if path.is_file() {
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
    Ok((path, status, with_host(u.as_trusted(&record.sha256, record.bytes), &host)))
}

/// The unverified label with the host the trust is in, for every output that names the file.
fn with_host(mut f: DataFile, host: &str) -> DataFile {
    f.note = Some(format!("{} (first fetched from {host})", catalogue::UNVERIFIED));
    f
}
