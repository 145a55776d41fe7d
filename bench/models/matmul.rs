//! The page's matrix kernel (crates/evenhand-models/src/matmul.rs) against gemm's WebAssembly
//! kernel as candle builds it (simd128), on the same buffers. bench/models/run.sh (part `kernel`)
//! builds this for wasm32 twice, plain and with the crate's `relaxed-simd` feature, and
//! bench/web/matmul.mjs times its exports in Chromium. Natively it holds nothing.
//!
//! Shapes are MiniLM's with 8 texts of 104 tokens per call, as the page's workers get them.

#[cfg(target_arch = "wasm32")]
mod exports {
    use evenhand_models::matmul::{Strided, gemm_product, product};

    /// `n` floats of a fixed pattern, never freed (the bench allocates once).
    #[unsafe(no_mangle)]
    pub extern "C" fn bench_alloc(n: usize) -> *mut f32 {
        let v: Vec<f32> = (0..n).map(|i| ((i % 97) as f32 - 48.0) / 97.0).collect();
        v.leak().as_mut_ptr()
    }

    /// Our kernel or gemm's (the same arguments).
    fn kernel(ours: bool) -> unsafe fn([usize; 3], *mut f32, usize, Strided, Strided, f32) {
        if ours { product } else { gemm_product }
    }

    /// y (m × n) = x (m × k) · Wᵀ, W being n × k row-major (a projection), `reps` times.
    /// Safety: x, w and y hold m·k, n·k and m·n floats.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn bench_project(
        ours: bool,
        reps: u32,
        m: usize,
        n: usize,
        k: usize,
        x: *const f32,
        w: *const f32,
        y: *mut f32,
    ) {
        let (lhs, rhs) = (Strided::rows(x, k), Strided { at: w, row: 1, col: k as isize });
        let run = kernel(ours);
        for _ in 0..reps {
            unsafe { run([m, n, k], y, n, lhs, rhs, 1.0) };
        }
    }

    /// One head's attention products, `reps` times: scores (t × t) = Q Kᵀ / √d, then context
    /// (t × d) = scores V, with Q, K and V read in place from a (t, 3·hidden) buffer.
    /// Safety: qkv holds t·3·hidden floats, scores t·t, context t·hidden.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn bench_attention(
        ours: bool,
        reps: u32,
        t: usize,
        d: usize,
        hidden: usize,
        qkv: *const f32,
        scores: *mut f32,
        context: *mut f32,
    ) {
        let width = 3 * hidden;
        let q = Strided::rows(qkv, width);
        let kt = Strided { at: qkv.wrapping_add(hidden), row: 1, col: width as isize };
        let v = Strided::rows(qkv.wrapping_add(2 * hidden), width);
        let weights = Strided::rows(scores, t);
        let run = kernel(ours);
        for _ in 0..reps {
            unsafe {
                run([t, t, d], scores, t, q, kt, 1.0 / (d as f32).sqrt());
                run([t, d, t], context, hidden, weights, v, 1.0);
            }
        }
    }

    /// What V8 makes of `f32x4.relaxed_madd` with no loads: eight independent chains,
    /// `iters` steps (8 · 4 · 2 FLOP each). The ceiling the kernel is measured against.
    #[cfg(feature = "relaxed-simd")]
    #[unsafe(no_mangle)]
    #[target_feature(enable = "relaxed-simd")]
    pub fn bench_peak(iters: u32, seed: f32) -> f32 {
        use core::arch::wasm32::*;
        let mut acc = [f32x4_splat(seed); 8];
        let (a, b) = (f32x4_splat(1.000_000_1), f32x4_splat(0.999_999_9));
        for _ in 0..iters {
            for x in acc.iter_mut() {
                *x = f32x4_relaxed_madd(*x, a, b);
            }
        }
        acc.iter().map(|x| f32x4_extract_lane::<0>(*x)).sum()
    }
}
