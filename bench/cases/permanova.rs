//! PERMANOVA + PERMDISP on embeddings: two groups of N vectors of dimension D, P permutations,
//! Euclidean distance (the fast path). Args: N D P (default 1000 768 999); PERMDISP=median
//! for the spatial-median PERMDISP (default centroid); RAYON_NUM_THREADS sets the threads.
//! The data are generated deterministically and written to bench/out/permanova_<2N>x<D>.f64
//! (raw little-endian f64, row-major; first N rows are group A), which
//! bench/cases/permanova_skbio.py and bench/web/permanova.mjs read too. Timed: from the
//! vectors in memory to the report (centring, PERMDISP centres, permutations); reading the
//! file is not. REPEAT runs (default 1; bench/permanova.py runs whole processes instead),
//! the best reported. Prints JSON: seconds, seconds_permutations, kernel_gflops (the vector
//! path's product flops over the permutation time), threads, peak_rss_mb, p, and sample
//! [[F, PERMDISP F]] for the cross-check.
//! bench-size: 1000

use evenhand::stats::distance::Distance;
use evenhand::stats::multivariate::Vectors;
use evenhand::stats::permanova::{Input, Options, PermanovaJob};
use evenhand::stats::permdisp::Center;
use std::time::Instant;

fn main() {
    let arg = |k: usize, d: usize| std::env::args().nth(k).and_then(|a| a.parse::<usize>().ok()).unwrap_or(d);
    let (n, dim, perms) = (arg(1, 1000), arg(2, 768), arg(3, 999));
    let center = std::env::var("PERMDISP").ok().and_then(|c| Center::parse(&c)).unwrap_or_default();
    let path = format!("{}/bench/out/permanova_{}x{dim}.f64", env!("CARGO_MANIFEST_DIR"), 2 * n);
    let data = load_or_generate(&path, 2 * n, dim);
    let labels: Vec<&str> = (0..2 * n).map(|i| if i < n { "A" } else { "B" }).collect();
    let v = Vectors::from_flat(dim, data).expect("finite data");
    let repeat = std::env::var("REPEAT").ok().and_then(|r| r.parse::<usize>().ok()).unwrap_or(1).max(1);
    let (mut seconds, mut seconds_perms) = (f64::INFINITY, f64::INFINITY);
    let mut report = None;
    let mut flops = None;
    for _ in 0..repeat {
        let start = Instant::now();
        let options = Options { permutations: perms, seed: 42, permdisp: center };
        let mut job =
            PermanovaJob::new(Input::Vectors(&v, Distance::Euclidean), &labels, options).expect("valid input");
        let perm_start = Instant::now();
        job.advance(perms);
        seconds_perms = seconds_perms.min(perm_start.elapsed().as_secs_f64());
        let r = job.result().expect("finished");
        seconds = seconds.min(start.elapsed().as_secs_f64());
        flops = job.flops_per_permutation();
        report = Some(r);
    }
    let r = report.expect("at least one run");
    let gflops = flops.map(|f| f * perms as f64 / seconds_perms / 1e9);
    println!(
        "{}",
        serde_json::json!({
            "seconds": seconds, "seconds_permutations": seconds_perms, "kernel_gflops": gflops,
            "threads": rayon::current_num_threads(), "permdisp_center": center.name(),
            "n": 2 * n, "dim": dim, "permutations": perms, "p": r.p,
            "permdisp_p": r.permdisp.p, "peak_rss_mb": peak_rss_mb(),
            "sample": [[r.f, r.permdisp.f]]
        })
    );
}

/// Uniform(−0.5, 0.5) from xorshift64, group B shifted by 0.01 in every coordinate and
/// spread 1.002 times wider, so both PERMANOVA and PERMDISP have something to find.
pub fn generate(rows: usize, dim: usize) -> Vec<f64> {
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut out = Vec::with_capacity(rows * dim);
    for i in 0..rows {
        let b = i >= rows / 2;
        for _ in 0..dim {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let u = (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            out.push(if b { u * 1.002 + 0.01 } else { u });
        }
    }
    out
}

fn load_or_generate(path: &str, rows: usize, dim: usize) -> Vec<f64> {
    if let Ok(bytes) = std::fs::read(path)
        && bytes.len() == rows * dim * 8
    {
        return bytes.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
    }
    let data = generate(rows, dim);
    let _ = std::fs::create_dir_all(std::path::Path::new(path).parent().unwrap());
    let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(path, bytes).expect("write the data file");
    data
}

/// Peak resident memory of this process (Linux: VmHWM), in MB; null elsewhere.
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
