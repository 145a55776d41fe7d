//! Runs one target: replays its seed corpus, then feeds it mutants until the budget is spent.
//! A panic is caught, shrunk and saved; an execution slower than the slow limit is saved too;
//! one that hangs past the hang limit is saved by a watchdog thread, which then ends the
//! process (a hung reader cannot be interrupted from inside). Given a seed the sequence of
//! inputs is fixed, so a finding replays with the same seed and execution count.

use crate::mutate::{MAX_INPUT, Rng, mutate};
use crate::targets::Target;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::os::unix::fs::FileExt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex, Once};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

pub const CORPUS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/corpus");
pub const CRASH_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/target/fuzz-crashes");

/// Inputs kept to mutate: the seeds, plus mutants that gave an outcome not seen before.
const POOL_MAX: usize = 512;
/// Distinct outcomes remembered per target.
const OUTCOMES_MAX: usize = 100_000;
/// Slow inputs saved per target; the rest are only counted.
const SLOW_SAVED: usize = 5;

#[derive(Clone)]
pub struct Config {
    pub seed: u64,
    pub seconds: f64,
    pub max_execs: u64,
    /// An execution longer than this is reported as slow.
    pub slow: Duration,
    /// An execution longer than this is a hang: saved, then the process exits.
    pub hang: Duration,
    /// Write each input to <crash dir>/<target>/current.bin first, so a parent process can
    /// save the input that aborted its child (a stack overflow cannot be caught).
    pub keep_current: bool,
}

#[derive(Debug, Default)]
pub struct Report {
    pub target: &'static str,
    pub seeds: usize,
    pub seeds_accepted: usize,
    pub execs: u64,
    /// Distinct panics (by location), with the saved, shrunk input of each.
    pub crashes: Vec<(String, PathBuf)>,
    /// Every execution that panicked, including repeats of a known panic.
    pub panicking_execs: u64,
    pub slow: u64,
    pub slowest: Duration,
    pub outcomes: usize,
    pub elapsed: Duration,
}

impl Report {
    pub fn execs_per_second(&self) -> f64 {
        self.execs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

thread_local! {
    static FUZZING: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// What a fuzzing thread is executing, for the watchdog (tests fuzz on several threads).
struct Current {
    target: &'static str,
    input: Vec<u8>,
    since: Option<Instant>,
}

static CURRENT: LazyLock<Mutex<HashMap<ThreadId, Current>>> = LazyLock::new(Default::default);

fn with_current<T>(f: impl FnOnce(&mut Current) -> T) -> T {
    let mut all = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
    let cur = all.entry(std::thread::current().id()).or_insert(Current { target: "", input: vec![], since: None });
    f(cur)
}
static SETUP: Once = Once::new();

/// A panic hook that records where a fuzzed input panicked instead of printing a backtrace
/// per execution; panics outside an execution go to the previous hook as usual.
fn setup(hang: Duration) {
    SETUP.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if FUZZING.with(Cell::get) {
                let at =
                    info.location().map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column())).unwrap_or_default();
                let message = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{at}\t{message}")));
            } else {
                previous(info);
            }
        }));
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(100));
                let all = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(cur) = all.values().find(|c| c.since.is_some_and(|s| s.elapsed() > hang)) {
                    let path = save(cur.target, "hang", &cur.input, &format!("ran longer than {hang:?}"));
                    eprintln!("fuzz {}: an input hung for over {hang:?}; saved as {}", cur.target, path.display());
                    std::process::exit(3);
                }
            }
        });
    });
}

pub fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// Saves an input (and a note beside it) under target/fuzz-crashes/<target>/.
pub fn save(target: &str, kind: &str, input: &[u8], note: &str) -> PathBuf {
    let dir = Path::new(CRASH_DIR).join(target);
    let _ = fs::create_dir_all(&dir);
    let path = dir.join(format!("{kind}-{:016x}.bin", fnv(input)));
    let _ = fs::write(&path, input);
    let _ = fs::write(path.with_extension("txt"), format!("{note}\n"));
    path
}

/// The seed files of a target, sorted by name so the replay order is fixed.
pub fn seed_files(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(CORPUS_DIR).join(target);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    files.sort();
    files.into_iter().filter_map(|p| fs::read(&p).ok().map(|b| (p, b))).collect()
}

pub fn seeds(target: &str) -> Vec<Vec<u8>> {
    seed_files(target).into_iter().map(|(_, b)| b).collect()
}

/// What the reader says about each seed (a seed it refuses tests only its first check).
pub fn check_seeds(t: &Target) -> Vec<(PathBuf, Result<crate::targets::Outcome, String>)> {
    setup(Duration::from_secs(60));
    seed_files(t.name).into_iter().map(|(p, b)| (p, execute(t, &b))).collect()
}

/// One execution: Ok(outcome) or Err(panic location and message).
fn execute(t: &Target, input: &[u8]) -> Result<crate::targets::Outcome, String> {
    FUZZING.with(|f| f.set(true));
    let result = catch_unwind(AssertUnwindSafe(|| (t.run)(input)));
    FUZZING.with(|f| f.set(false));
    result.map_err(|_| LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "unknown panic".into()))
}

fn timed(t: &Target, input: &[u8]) -> Duration {
    let began = Instant::now();
    let _ = execute(t, input);
    began.elapsed()
}

fn location(panic: &str) -> &str {
    panic.split('\t').next().unwrap_or(panic)
}

/// Smaller input that panics at the same place: chunks removed while it still does.
fn shrink(t: &Target, input: &[u8], at: &str) -> Vec<u8> {
    let mut best = input.to_vec();
    let mut tries = 0;
    let mut chunk = best.len() / 2;
    while chunk >= 1 && tries < 3000 {
        let mut i = 0;
        while i + chunk <= best.len() && tries < 3000 {
            let mut cand = best.clone();
            cand.drain(i..i + chunk);
            tries += 1;
            if matches!(execute(t, &cand), Err(p) if location(&p) == at) {
                best = cand;
            } else {
                i += chunk;
            }
        }
        chunk /= 2;
    }
    best
}

/// What an outcome says, without its numbers, so that "3 rows" and "4 rows" are one outcome.
fn signature(outcome: &crate::targets::Outcome) -> String {
    let (tag, text) = match outcome {
        Ok(s) => ("ok", s),
        Err(s) => ("err", s),
    };
    let words: String = text.chars().filter(|c| !c.is_ascii_digit()).take(100).collect();
    format!("{tag}:{words}")
}

pub fn run(t: &'static Target, cfg: &Config) -> Report {
    setup(cfg.hang);
    let started = Instant::now();
    let seeds = seeds(t.name);
    let mut report = Report { target: t.name, seeds: seeds.len(), ..Report::default() };
    let mut rng = Rng::new(cfg.seed ^ fnv(t.name.as_bytes()));
    let mut pool: Vec<Vec<u8>> = seeds.clone();
    if pool.is_empty() {
        pool.push(Vec::new());
    }
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut crashes: BTreeMap<String, PathBuf> = BTreeMap::new();
    let current_path = Path::new(CRASH_DIR).join(t.name).join("current.bin");
    let mut current_file = cfg
        .keep_current
        .then(|| fs::create_dir_all(current_path.parent()?).ok().and_then(|_| fs::File::create(&current_path).ok()))
        .flatten();
    let deadline = Duration::from_secs_f64(cfg.seconds.max(0.0));
    let mut slow_saved = 0;
    let mut k = 0usize;
    loop {
        let input = if k < seeds.len() {
            seeds[k].clone()
        } else {
            if report.execs >= cfg.max_execs || started.elapsed() >= deadline {
                break;
            }
            let refs: Vec<&[u8]> = pool.iter().map(Vec::as_slice).collect();
            let base = &pool[rng.below(pool.len())];
            mutate(&mut rng, base, &refs)
        };
        k += 1;
        if let Some(file) = &current_file {
            // Two system calls on an open file: cheap enough to do for every input.
            if file.write_all_at(&input, 0).and_then(|_| file.set_len(input.len() as u64)).is_err() {
                current_file = None;
            }
        }
        with_current(|cur| {
            cur.target = t.name;
            cur.input.clear();
            cur.input.extend_from_slice(&input);
            cur.since = Some(Instant::now());
        });
        let began = Instant::now();
        let result = execute(t, &input);
        let took = began.elapsed();
        with_current(|cur| cur.since = None);
        report.execs += 1;
        report.slowest = report.slowest.max(took);
        // On a shared machine a slow execution is often a preempted one: it counts only if it
        // is slow again when repeated.
        if took > cfg.slow && (0..2).all(|_| timed(t, &input) > cfg.slow) {
            report.slow += 1;
            if slow_saved < SLOW_SAVED {
                slow_saved += 1;
                save(t.name, "slow", &input, &format!("took {took:?} ({} bytes)", input.len()));
            }
        }
        match result {
            Ok(outcome) => {
                if k <= seeds.len() && outcome.is_ok() {
                    report.seeds_accepted += 1;
                }
                // Messages that quote the input make outcomes unbounded; past a cap only the
                // ones already seen are recognised, so memory stays bounded on long runs.
                let sig = signature(&outcome);
                let new = !seen.contains(&sig) && seen.len() < OUTCOMES_MAX && seen.insert(sig);
                if new && k > seeds.len() && pool.len() < POOL_MAX && input.len() < MAX_INPUT {
                    pool.push(input);
                }
            }
            Err(panic) => {
                report.panicking_execs += 1;
                let at = location(&panic).to_string();
                if let std::collections::btree_map::Entry::Vacant(slot) = crashes.entry(at.clone()) {
                    let small = shrink(t, &input, &at);
                    let note = format!(
                        "{panic}\nreader target: {}\nseed {} execution {}\nshrunk from {} to {} bytes; the input as Rust: {:?}",
                        t.name,
                        cfg.seed,
                        report.execs,
                        input.len(),
                        small.len(),
                        String::from_utf8_lossy(&small)
                    );
                    let path = save(t.name, "crash", &small, &note);
                    slot.insert(path);
                }
            }
        }
    }
    if current_file.take().is_some() {
        let _ = fs::remove_file(&current_path);
    }
    report.crashes = crashes.into_iter().collect();
    report.outcomes = seen.len();
    report.elapsed = started.elapsed();
    report
}

pub fn header() -> String {
    format!(
        "{:<26} {:>10} {:>8} {:>6} {:>10} {:>10} {:>8} {:>9}",
        "target", "execs", "crashes", "slow", "slowest", "exec/s", "seeds ok", "outcomes"
    )
}

pub fn line(r: &Report) -> String {
    format!(
        "{:<26} {:>10} {:>8} {:>6} {:>8.1}ms {:>10.0} {:>8} {:>9}",
        r.target,
        r.execs,
        r.crashes.len(),
        r.slow,
        r.slowest.as_secs_f64() * 1e3,
        r.execs_per_second(),
        format!("{}/{}", r.seeds_accepted, r.seeds),
        r.outcomes
    )
}
