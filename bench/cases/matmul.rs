//! The machine's matrix-product throughput, the limit the PERMANOVA kernel is measured
//! against: ndarray's `dot` (matrixmultiply) of an M x K by a K x M matrix of f64, on one
//! thread and on all of rayon's threads (rows of the left factor split between them).
//! Args: M K (default 2000 768). Best of 5. Prints JSON with GFLOP/s (2·M·K·M flops).

use ndarray::{Array2, Axis, s};
use rayon::prelude::*;
use std::time::Instant;

fn main() {
    let arg = |k: usize, d: usize| std::env::args().nth(k).and_then(|a| a.parse::<usize>().ok()).unwrap_or(d);
    let (m, k) = (arg(1, 2000), arg(2, 768));
    let a = Array2::from_shape_fn((m, k), |(i, j)| ((i * 31 + j * 17) % 101) as f64 / 101.0 - 0.5);
    let b = a.t().to_owned();
    let flops = 2.0 * (m * k * m) as f64;
    let best = |f: &dyn Fn() -> f64| (0..5).map(|_| f()).fold(f64::INFINITY, f64::min);
    let one = best(&|| {
        let t = Instant::now();
        let c = a.dot(&b);
        std::hint::black_box(c[[0, 0]]);
        t.elapsed().as_secs_f64()
    });
    let threads = rayon::current_num_threads();
    let all = best(&|| {
        let t = Instant::now();
        let rows = m.div_ceil(threads);
        let parts: Vec<Array2<f64>> =
            (0..threads).into_par_iter().map(|p| a.slice(s![p * rows..((p + 1) * rows).min(m), ..]).dot(&b)).collect();
        std::hint::black_box(parts.iter().map(|c| c.len_of(Axis(0))).sum::<usize>());
        t.elapsed().as_secs_f64()
    });
    println!(
        "{}",
        serde_json::json!({
            "m": m, "k": k, "gflops_1_thread": flops / one / 1e9,
            "threads": threads, "gflops_all_threads": flops / all / 1e9,
        })
    );
}
