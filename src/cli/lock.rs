//! The journal's lock: while a run writes a journal, a lock file beside it
//! (`<journal>.lock`) names the holder (process id, host, start time). A second run with the
//! same `--out` is refused with the holder named, since two runs sharing a journal would both
//! send every call and pay twice. A lock left by a process that is gone (same host, no such
//! process) is taken over with a note; one from another host is never guessed about.

use super::{Failure, note};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Serialize, Deserialize)]
struct Holder {
    pid: u32,
    host: String,
    started: String,
}

/// Held while the run writes its journal; the lock file goes when this is dropped.
pub struct JournalLock {
    path: PathBuf,
}

impl Drop for JournalLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn now() -> String {
    let ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    evenhand::run::rfc3339(ms)
}

fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown host".into())
}

/// Whether process `pid` runs on this machine; where that cannot be known, it is assumed to.
fn alive(pid: u32) -> bool {
    let proc_ = Path::new("/proc");
    if !proc_.join("self").exists() {
        return true;
    }
    proc_.join(pid.to_string()).exists()
}

/// Takes the lock of `journal` for this process, or says who holds it.
pub fn acquire(journal: &Path) -> Result<JournalLock, Failure> {
    let mut name = journal.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    let path = journal.with_file_name(name);
    let shown = path.display().to_string();
    let me = Holder { pid: std::process::id(), host: host(), started: now() };
    let text = serde_json::to_string(&me)?;
    for _ in 0..2 {
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut f) => {
                f.write_all(text.as_bytes()).map_err(|e| Failure::new(format!("{shown}: cannot be written: {e}")))?;
                return Ok(JournalLock { path });
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let held = std::fs::read_to_string(&path).unwrap_or_default();
                let holder: Option<Holder> = serde_json::from_str(&held).ok();
                match holder {
                    Some(h) if h.host == me.host && !alive(h.pid) => {
                        note(format_args!(
                            "evenhand: {shown}: taking over a stale lock of process {} (started {}), which is no longer running",
                            h.pid, h.started
                        ));
                        let _ = std::fs::remove_file(&path);
                    }
                    Some(h) => {
                        return Err(Failure::new(format!(
                            "{shown}: another run is writing this journal: process {} on {}, started {}; wait for it to end, or use another --out (if that process is gone, remove the lock file)",
                            h.pid, h.host, h.started
                        )));
                    }
                    None => {
                        return Err(Failure::new(format!(
                            "{shown}: another run may be writing this journal (its lock file cannot be read); if none is, remove the lock file"
                        )));
                    }
                }
            }
            Err(e) => return Err(Failure::new(format!("{shown}: cannot be created: {e}; nothing was sent"))),
        }
    }
    Err(Failure::new(format!("{shown}: another run took the lock at the same moment")))
}
