//! Evenhand's fuzz harness: a seeded, structure-aware mutation fuzzer on stable Rust.
//!
//!   cargo run --profile fuzz --example fuzz -- [--seconds N] [--execs N] [--seed S]
//!       [--target NAME]... [--slow-ms N] [--hang-s N] [--in-process] [--list] [--seeds]
//!
//! Each target runs in a child process of its own, so an abort that cannot be caught (a stack
//! overflow) loses only that target, and the input that caused it is kept. Findings are saved
//! under target/fuzz-crashes/<target>/. Exit status 1 when anything crashed, hung or aborted.
//! `./build.sh fuzz [SECONDS]` is the usual way in.

mod engine;
mod mutate;
mod targets;

use std::process::{Command, ExitCode};
use std::time::Duration;

const USAGE: &str = "fuzz [--seconds N] [--execs N] [--seed S] [--target NAME]... [--slow-ms N] [--hang-s N] \
                     [--in-process] [--list] [--seeds]";

struct Args {
    cfg: engine::Config,
    targets: Vec<&'static targets::Target>,
    in_process: bool,
    child: bool,
}

fn usage(problem: &str) -> ! {
    eprintln!("fuzz: {problem}");
    eprintln!("usage: {USAGE}");
    std::process::exit(2);
}

fn parse() -> Args {
    let mut cfg = engine::Config {
        seed: 1,
        seconds: 60.0,
        max_execs: u64::MAX,
        slow: Duration::from_millis(250),
        hang: Duration::from_secs(20),
        keep_current: false,
    };
    let mut names = vec![];
    let (mut in_process, mut child) = (false, false);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |what: &str| it.next().unwrap_or_else(|| usage(&format!("{a} needs {what}")));
        let number = |v: String| v.parse::<f64>().ok().filter(|n| n.is_finite() && *n >= 0.0);
        match a.as_str() {
            "--seconds" => cfg.seconds = number(value("a number")).unwrap_or_else(|| usage("--seconds: a number")),
            "--execs" => cfg.max_execs = value("a count").parse().unwrap_or_else(|_| usage("--execs: a whole number")),
            "--seed" => cfg.seed = value("a number").parse().unwrap_or_else(|_| usage("--seed: a whole number")),
            "--slow-ms" => {
                cfg.slow =
                    Duration::from_secs_f64(number(value("milliseconds")).unwrap_or_else(|| usage("--slow-ms")) / 1e3)
            }
            "--hang-s" => {
                cfg.hang = Duration::from_secs_f64(number(value("seconds")).unwrap_or_else(|| usage("--hang-s")))
            }
            "--target" => names.push(value("a target name")),
            "--in-process" => in_process = true,
            "--child" => child = true,
            "--seeds" => {
                for t in targets::TARGETS {
                    for (path, outcome) in engine::check_seeds(t) {
                        let name = path.file_name().unwrap_or_default().to_string_lossy();
                        let said = match outcome {
                            Ok(Ok(s)) => format!("accepted: {s}"),
                            Ok(Err(s)) => format!("REFUSED: {s}"),
                            Err(p) => format!("PANIC: {p}"),
                        };
                        println!("{}/{name}: {said}", t.name);
                    }
                }
                std::process::exit(0);
            }
            "--help" | "-h" => {
                println!("usage: {USAGE}");
                std::process::exit(0);
            }
            "--list" => {
                for t in targets::TARGETS {
                    println!("{}", t.name);
                }
                std::process::exit(0);
            }
            _ => usage(&format!("unknown argument {a}")),
        }
    }
    let targets = if names.is_empty() {
        targets::TARGETS.iter().collect()
    } else {
        names
            .iter()
            .map(|n| targets::find(n).unwrap_or_else(|| usage(&format!("no target {n} (see --list)"))))
            .collect()
    };
    Args { cfg, targets, in_process, child }
}

/// The parent's view of a child: its report line, or why it died.
fn run_child(t: &targets::Target, cfg: &engine::Config) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .args(["--child", "--target", t.name, "--seed", &cfg.seed.to_string()])
        .args(["--seconds", &cfg.seconds.to_string()])
        .args(["--slow-ms", &(cfg.slow.as_secs_f64() * 1e3).to_string()])
        .args(["--hang-s", &cfg.hang.as_secs_f64().to_string()])
        .args(if cfg.max_execs == u64::MAX { vec![] } else { vec!["--execs".to_string(), cfg.max_execs.to_string()] })
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let line = stdout.lines().find(|l| l.starts_with(t.name)).unwrap_or("").to_string();
    match out.status.code() {
        Some(0) | Some(1) if !line.is_empty() => {
            print!(
                "{}",
                stdout.lines().filter(|l| !l.starts_with(t.name)).map(|l| format!("{l}\n")).collect::<String>()
            );
            if out.status.code() == Some(1) { Err(line) } else { Ok(line) }
        }
        Some(3) => Err(format!("{:<26} hung (see target/fuzz-crashes/{}/hang-*.bin)", t.name, t.name)),
        _ => {
            // Killed by a signal or aborted: the input it was on is in current.bin.
            let current = std::path::Path::new(engine::CRASH_DIR).join(t.name).join("current.bin");
            let saved = std::fs::read(&current)
                .map(|input| engine::save(t.name, "abort", &input, &format!("the process ended with {}", out.status)))
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| "no input was recorded".into());
            Err(format!("{:<26} aborted ({}); input saved as {saved}", t.name, out.status))
        }
    }
}

fn main() -> ExitCode {
    let args = parse();
    let mut failed = false;
    if args.child || args.in_process {
        let cfg = engine::Config { keep_current: args.child, ..args.cfg.clone() };
        if !args.child {
            println!("{}", engine::header());
        }
        for t in &args.targets {
            let r = engine::run(t, &cfg);
            for (panic, path) in &r.crashes {
                println!("  panic at {panic}: input saved as {}", path.display());
            }
            println!("{}", engine::line(&r));
            failed |= !r.crashes.is_empty();
        }
    } else {
        println!(
            "fuzzing {} targets, {} s each, seed {} (findings go to target/fuzz-crashes/)",
            args.targets.len(),
            args.cfg.seconds,
            args.cfg.seed
        );
        println!("{}", engine::header());
        let mut lines = vec![];
        for t in &args.targets {
            let line = run_child(t, &args.cfg);
            let text = match &line {
                Ok(l) | Err(l) => l.clone(),
            };
            println!("{text}");
            failed |= line.is_err();
            lines.push(text);
        }
        let total: u64 =
            lines.iter().filter_map(|l| l.split_whitespace().nth(1).and_then(|n| n.parse::<u64>().ok())).sum();
        println!("total executions: {total}; {}", if failed { "FINDINGS above" } else { "no crash, hang or abort" });
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
