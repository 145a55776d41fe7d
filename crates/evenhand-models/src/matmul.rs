//! A matrix product with a register-tiled kernel of our own, for the page. In Chromium 156 on
//! this machine's cores (bench/models/matmul.rs: MiniLM's projections for 8 texts, 832 × 384 ×
//! 384 and the like) gemm's WebAssembly kernel, as candle builds it, computes about 30 GFLOP/s,
//! this one 42, and 50 in the build with relaxed SIMD's fused multiply-add (feature
//! `relaxed-simd`; V8's ceiling for that instruction here is 58). Natively gemm's AVX2 and
//! AVX-512 kernels stay ([`gemm_product`]: faster still); the same code runs natively on plain
//! arrays ([`crate::lanes`]) so that native tests check its blocking, packing and edges.
//!
//! The kernel keeps a 4 × 8 tile of the result in eight vector registers; each step of k loads
//! two vectors of the right-hand side's panel, broadcasts four values of the left-hand side's
//! group and does eight multiply-adds. Wider tiles were slower in V8 (6 × 8, 5 × 8, 4 × 12 and
//! 3 × 16 at 21 to 27 GFLOP/s with the fused multiply-add): it schedules the loads in program
//! order and the arithmetic late, so every loaded value of a step is live at once, and past 15
//! vector registers it spills. 2 × 16 was as fast as 4 × 8; unrolling k was slower, for the same
//! reason.
//!
//! Blocking: both operands are packed, KC steps of k at a time: the right-hand side (all of n)
//! as panels of 8 columns, the left-hand side (MC rows at a time) as groups of 4 rows, k-major,
//! zero-padded; the kernel runs panel by panel, group by group, so a panel stays in cache
//! across a block's groups. KC is large enough that MiniLM's products take k in one block (up
//! to 1,536; XLM-R base's 3,072 is two): each block after the first adds to result tiles last
//! written a whole pass over the result earlier (1.3 MB here, more than a core's L2), and in
//! blocks of 384 the output projection (832 × 384 × 1,536) ran at 45.4 GFLOP/s against 49.9
//! in one, and 46.9 against 50.6 with the order of the two builds swapped (relaxed builds,
//! three runs each way, medians). Packing reads whichever
//! direction of an operand is contiguous in order (the attention's short products spend as
//! much on packing as on arithmetic otherwise). Each result is a sum in order of k, one k
//! block after another, times `scale`.

use crate::lanes::F4;
use std::cell::RefCell;

const MR: usize = 4;
const NR: usize = 8;
const LANES: usize = NR / 4;
/// At most this many steps of k are packed at once; k is cut into equal blocks.
const KC: usize = 2048;
const MC: usize = 96;

/// A matrix in memory: its first element and the steps to the next row and the next column.
#[derive(Clone, Copy)]
pub struct Strided {
    pub at: *const f32,
    pub row: isize,
    pub col: isize,
}

impl Strided {
    /// Row-major, rows `width` apart.
    pub fn rows(at: *const f32, width: usize) -> Strided {
        Strided { at, row: width as isize, col: 1 }
    }

    /// The same matrix from row `i` on.
    fn rows_from(self, i: usize) -> Strided {
        Strided { at: self.at.wrapping_offset(i as isize * self.row), ..self }
    }

    /// Its transpose, in place.
    fn transposed(self) -> Strided {
        Strided { at: self.at, row: self.col, col: self.row }
    }

    /// Element (i, j). Safety: it must lie in memory the caller can read.
    unsafe fn get(&self, i: usize, j: usize) -> f32 {
        unsafe { *self.at.offset(i as isize * self.row + j as isize * self.col) }
    }
}

/// Both operands packed for the kernel, kept between products (a model's widest right-hand
/// side is 3,072 × 384 floats).
#[derive(Default)]
struct Packed {
    lhs: Vec<f32>,
    rhs: Vec<f32>,
}

thread_local! {
    static PACKED: RefCell<Packed> = RefCell::new(Packed::default());
}

/// dst (m × n, row-major, rows `dst_width` apart) = scale · lhs (m × k) · rhs (k × n), on this
/// thread; lhs and rhs may have any strides.
///
/// # Safety
/// Every element of the three matrices must lie in memory the caller owns, dst's exclusively.
pub unsafe fn product([m, n, k]: [usize; 3], dst: *mut f32, dst_width: usize, lhs: Strided, rhs: Strided, scale: f32) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        // An empty sum: zeros.
        for r in 0..m {
            // Safety: row r's n values of dst are the caller's.
            unsafe { std::slice::from_raw_parts_mut(dst.add(r * dst_width), n) }.fill(0.0);
        }
        return;
    }
    let blocks = k.div_ceil(KC);
    let kc_max = k.div_ceil(blocks);
    PACKED.with_borrow_mut(|packed| {
        packed.rhs.resize(n.div_ceil(NR) * NR * kc_max, 0.0);
        packed.lhs.resize(MC * kc_max, 0.0);
        for block in 0..blocks {
            let (k0, k1) = (block * kc_max, ((block + 1) * kc_max).min(k));
            let kc = k1 - k0;
            // Safety: every (p, j) of rhs is the caller's; the transpose reads rhs (k × n) as an
            // n × k matrix.
            unsafe { pack(rhs.transposed(), n, k0, kc, NR, &mut packed.rhs) };
            for r0 in (0..m).step_by(MC) {
                let rows = MC.min(m - r0);
                // Safety: rows r0..r0 + rows of lhs are the caller's.
                unsafe { pack(lhs.rows_from(r0), rows, k0, kc, MR, &mut packed.lhs) };
                for (panel, b) in packed.rhs.chunks(NR * kc).take(n.div_ceil(NR)).enumerate() {
                    let (j0, cols) = (panel * NR, NR.min(n - panel * NR));
                    for (group, a) in packed.lhs.chunks(MR * kc).take(rows.div_ceil(MR)).enumerate() {
                        let r = r0 + group * MR;
                        let tile = Tile {
                            dst: dst.wrapping_add(r * dst_width + j0),
                            dst_width,
                            rows: MR.min(m - r),
                            cols,
                            add: block > 0,
                            scale,
                        };
                        // Safety: dst's rows r.., columns j0..j0 + cols are the caller's.
                        unsafe { tile.run(a, b, kc) };
                    }
                }
            }
        }
    });
}

/// The same product through gemm, on this thread: what native builds use (its AVX2 and AVX-512
/// kernels are faster there), and the reference bench/models/matmul.rs measures ours against.
///
/// # Safety
/// As for [`product`].
pub unsafe fn gemm_product(
    [m, n, k]: [usize; 3],
    dst: *mut f32,
    dst_width: usize,
    lhs: Strided,
    rhs: Strided,
    scale: f32,
) {
    // gemm's arguments: dst and its column and row strides, whether to read dst (no), then each
    // operand with its column and row strides, then dst's factor (0) and the product's.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst,
            1,
            dst_width as isize,
            false,
            lhs.at,
            lhs.col,
            lhs.row,
            rhs.at,
            rhs.col,
            rhs.row,
            0.0,
            scale,
            false,
            false,
            false,
            gemm::Parallelism::None,
        )
    }
}

/// Columns k0..k0 + kc of `rows` rows of x, as groups of `width` rows, k-major (the group's
/// `width` values of one k side by side), the last group padded with zeros.
/// Safety: every (i, k0 + p) for i < rows, p < kc must be readable.
unsafe fn pack(x: Strided, rows: usize, k0: usize, kc: usize, width: usize, out: &mut [f32]) {
    for (group, dst) in out.chunks_mut(width * kc).take(rows.div_ceil(width)).enumerate() {
        let first = group * width;
        let here = width.min(rows - first);
        if here < width {
            dst.fill(0.0);
        }
        // Whichever of x's two directions is contiguous is read in order (a general element
        // read costs as much as the attention's short products save).
        if x.col == 1 {
            // Safety: row first + ii from column k0 (the caller's for kc columns).
            let row_at = |ii: usize| unsafe { x.at.offset((first + ii) as isize * x.row + k0 as isize) };
            // A whole group, four rows by four steps of k at a time, transposed in registers:
            // element by element, one head's attention products (where packing weighs most)
            // ran at 36 GFLOP/s against 40 with the fused multiply-add (36.0 against 38.5-39.0
            // with the builds' order swapped), 25-31 against 33 without; the projections did
            // not change measurably.
            let done = if here == width && width.is_multiple_of(4) { kc / 4 * 4 } else { 0 };
            for quad in (0..width).step_by(4).take_while(|_| done > 0) {
                let rows: [*const f32; 4] = std::array::from_fn(|i| row_at(quad + i));
                for p in (0..done).step_by(4) {
                    // Safety: p + 4 <= kc, so each row's four floats from p are the caller's.
                    let steps = F4::transpose(std::array::from_fn(|i| unsafe { F4::load(rows[i].add(p)) }));
                    for (s, v) in steps.into_iter().enumerate() {
                        v.store(&mut dst[(p + s) * width + quad..]);
                    }
                }
            }
            for ii in 0..here {
                // Safety: as above.
                let row = unsafe { std::slice::from_raw_parts(row_at(ii), kc) };
                for (p, &v) in row.iter().enumerate().skip(done) {
                    dst[p * width + ii] = v;
                }
            }
        } else if x.row == 1 {
            for (p, step) in dst.chunks_mut(width).enumerate() {
                // Safety: rows first.. first + here of column k0 + p (the caller's).
                let column = unsafe {
                    std::slice::from_raw_parts(x.at.offset(first as isize + (k0 + p) as isize * x.col), here)
                };
                step[..here].copy_from_slice(column);
            }
        } else {
            for (p, step) in dst.chunks_mut(width).enumerate() {
                for (ii, v) in step.iter_mut().enumerate().take(here) {
                    *v = unsafe { x.get(first + ii, k0 + p) };
                }
            }
        }
    }
}

/// Where a tile's results go: `rows` × `cols` from `dst`, rows `dst_width` apart, stored or
/// (after the first k block) added.
struct Tile {
    dst: *mut f32,
    dst_width: usize,
    rows: usize,
    cols: usize,
    add: bool,
    scale: f32,
}

impl Tile {
    /// A packed group of MR rows (kc steps of MR) times a packed panel (kc steps of NR).
    /// Safety: the tile's rows and columns of dst are the caller's.
    #[cfg_attr(all(target_arch = "wasm32", feature = "relaxed-simd"), target_feature(enable = "relaxed-simd"))]
    #[inline]
    unsafe fn run(&self, a: &[f32], b: &[f32], kc: usize) {
        assert!(a.len() >= kc * MR && b.len() >= kc * NR);
        let mut acc = [[F4::zero(); LANES]; MR];
        for p in 0..kc {
            // Safety: p < kc, and a and b hold kc steps (asserted).
            let b: [F4; LANES] = std::array::from_fn(|v| unsafe { F4::load(b.as_ptr().add(p * NR + 4 * v)) });
            for (row, acc) in acc.iter_mut().enumerate() {
                let x = F4::splat(unsafe { *a.get_unchecked(p * MR + row) });
                for v in 0..LANES {
                    acc[v] = acc[v].mul_add(x, b[v]);
                }
            }
        }
        let scale = F4::splat(self.scale);
        for (row, acc) in acc.iter().enumerate().take(self.rows) {
            // Safety: the tile's rows and columns of dst are the caller's.
            let dst = unsafe { std::slice::from_raw_parts_mut(self.dst.add(row * self.dst_width), self.cols) };
            if self.cols == NR {
                // A whole tile row: vector stores (the attention's short products make many).
                for (v, lanes) in acc.iter().enumerate() {
                    let out = &mut dst[4 * v..4 * v + 4];
                    let product = lanes.mul(scale);
                    // Safety: out holds four floats.
                    let sum = if self.add { unsafe { F4::load(out.as_ptr()) }.add(product) } else { product };
                    sum.store(out);
                }
                continue;
            }
            let mut tile = [0.0f32; NR];
            for (v, lanes) in acc.iter().enumerate() {
                lanes.store(&mut tile[4 * v..]);
            }
            for (d, t) in dst.iter_mut().zip(tile) {
                *d = if self.add { *d + self.scale * t } else { self.scale * t };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs from a small fixed generator.
    fn values(n: usize, seed: u32) -> Vec<f32> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                (s as f32 / u32::MAX as f32) - 0.5
            })
            .collect()
    }

    /// scale · x · W against a float64 sum, with W read (k × n) row-major or, `transposed`, as
    /// the transpose of an n × k row-major matrix (the projections' Wᵀ and the attention's Kᵀ);
    /// the result written into columns at..at + n of rows `width` wide, the rest left alone.
    fn check(m: usize, k: usize, n: usize, transposed: bool, width: usize, at: usize) {
        let (x, w) = (values(m * k, 0x2545_f491), values(n * k, 0x9e37_79b9));
        let rhs =
            if transposed { Strided { at: w.as_ptr(), row: 1, col: k as isize } } else { Strided::rows(w.as_ptr(), n) };
        // Ours, and gemm's through the same arguments (what native builds call).
        for kernel in [product, gemm_product] {
            let mut y = vec![7.0f32; m * width];
            unsafe {
                kernel([m, n, k], y.as_mut_ptr().wrapping_add(at), width, Strided::rows(x.as_ptr(), k), rhs, 0.5)
            };
            expect(&y, m, k, n, width, at, |r, c| {
                let w_at = |p: usize| if transposed { w[c * k + p] } else { w[p * n + c] } as f64;
                0.5 * (0..k).map(|p| x[r * k + p] as f64 * w_at(p)).sum::<f64>()
            });
        }
    }

    /// y's columns at..at + n hold want(row, column) to float32 precision; the others are 7.
    fn expect(y: &[f32], m: usize, k: usize, n: usize, width: usize, at: usize, want: impl Fn(usize, usize) -> f64) {
        for r in 0..m {
            for j in 0..width {
                let got = y[r * width + j];
                if j < at || j >= at + n {
                    assert_eq!(got, 7.0, "({r}, {j}) outside the product was written");
                    continue;
                }
                let want = want(r, j - at);
                assert!(
                    (got as f64 - want).abs() < 1e-6 * (k as f64).sqrt().max(1.0),
                    "({r}, {j}): {got} vs {want}, {m}x{k}x{n}"
                );
            }
        }
    }

    #[test]
    fn reads_operands_with_any_strides() {
        // Neither direction contiguous: the right-hand side every other element of every other
        // row (k × n read from a 2k × 2n buffer), the left-hand side as the transpose of a
        // row-major k × m matrix.
        let (m, k, n) = (9, 21, 11);
        let (x, w) = (values(m * k, 7), values(4 * k * n, 8));
        let lhs = Strided { at: x.as_ptr(), row: 1, col: m as isize };
        let rhs = Strided { at: w.as_ptr(), row: 4 * n as isize, col: 2 };
        let mut y = vec![0.0f32; m * n];
        unsafe { product([m, n, k], y.as_mut_ptr(), n, lhs, rhs, 1.0) };
        for (i, j) in (0..m).flat_map(|i| (0..n).map(move |j| (i, j))) {
            let want: f64 = (0..k).map(|p| x[p * m + i] as f64 * w[p * 4 * n + 2 * j] as f64).sum();
            assert!((y[i * n + j] as f64 - want).abs() < 1e-5, "({i}, {j}): {} vs {want}", y[i * n + j]);
        }
    }

    #[test]
    fn equals_a_float64_product_on_every_edge() {
        // Rows and columns off the tile sizes, k in one, two and three blocks, and results
        // written into the middle columns of wider rows (as query, key and value are).
        for (m, k, n) in [(1, 1, 1), (5, 3, 7), (13, 17, 9), (97, 384, 24), (200, 385, 33), (7, 1000, 8)] {
            for transposed in [false, true] {
                check(m, k, n, transposed, n, 0);
                check(m, k, n, transposed, 3 * n + 2, n + 1);
            }
        }
        check(0, 4, 4, true, 4, 0);
        check(3, 0, 5, true, 5, 0);
    }
}
