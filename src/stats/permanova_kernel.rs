//! The two PERMANOVA kernels: how a block of relabellings turns into sums of squares.
//!
//! Relabellings arrive perm-major (`labels[b * n + i]` is point i's group in permutation b).
//! Every permutation's sums are added in an order fixed by the data alone, so its result does
//! not depend on the block or chunk it ran in, on the thread that ran it, nor on the target.

use super::distance::DistanceMatrix;
use super::multivariate::{Grouping, Vectors};
use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, Axis};

/// Permutations that share one matrix product on the vector path. Large enough that
/// packing the embeddings (once per product) is small beside the product itself.
pub(crate) const BLOCK: usize = 64;

/// Permutations that share one pass over the condensed matrix on the matrix path.
pub(crate) const LANES: usize = 16;

/// Columns per partial sum when SS_B is reduced (the order of the additions is part of the
/// result's bits; 16 is the tile width of the kernel this one replaced, so small inputs keep
/// their former bits).
const REDUCE_W: usize = 16;

/// The vector path: SS_B = Σ_g ‖S_g‖²/n_g on centred rows, where S_g is the sum of group g's
/// rows. The largest group's sum is never accumulated: it is the total minus the others.
///
/// Natively, for a block of B relabellings the sums are one matrix product, S = M X, with M
/// the (B·slots × n) 0/1 indicator of each relabelling's summed groups and X the n × p
/// centred embeddings (ndarray's `general_mat_mul`, matrixmultiply's AVX2/FMA kernel). In
/// wasm the member rows are added instead ([`Layout::Panels`]). Why the bits are the same on
/// every target and for every block size: each entry of S is Σ_i m_i x_i with m_i ∈ {0, 1},
/// so every product is exact and a fused multiply-add rounds exactly like an add;
/// matrixmultiply sums each entry in index order within slices of 256 points (its k
/// blocking, the same constant for every f64 kernel) and adds the slices in order, as the
/// added-rows kernel does; and an entry does not depend on the other rows of M.
pub(crate) struct GroupSums {
    n: usize,
    dim: usize,
    x: Layout,
    /// Column sums of all rows, in index order.
    total: Vec<f64>,
    /// Accumulator slot of each group, or NONE for the group left out.
    slot: Vec<usize>,
    group_of_slot: Vec<usize>,
    skipped: usize,
    inv: Vec<f64>,
}

/// How the centred embeddings are held, which decides how a block's group sums are formed.
pub(crate) enum Layout {
    /// n × p, row-major: the operand of one matrix product per block (natively, where
    /// matrixmultiply's AVX2/FMA kernel runs on every core).
    Product(Array2<f64>),
    /// Panels of [`REDUCE_W`] columns (panel t holds columns t·W.. of every row, zero-padded
    /// past p), each member row added into its group's sum: what wasm runs. There the
    /// product's portable kernel multiplies every row by its 0 or 1 with two-lane SIMD and no
    /// fused multiply-add; adding only the rows that belong to a group does a quarter of that
    /// arithmetic (two groups: half the rows, adds only), and the block works through a
    /// panel a tile of [`TILE`] rows at a time (8 KB, in L1).
    Panels(Vec<[f64; REDUCE_W]>),
}

/// Points per slice of the sum: matrixmultiply's k blocking (`D_KC`, the same for all its
/// f64 kernels). The added-rows kernel sums in slices of the same length, so both give the
/// same bits.
const SLICE: usize = 256;

/// Rows of a panel that every relabelling of a block adds from before the block moves on
/// (8 KB at sixteen columns). A divisor of [`SLICE`] and below 256, so that a point's offset
/// in its tile, and a count of them, are one byte.
const TILE: usize = 64;
const _: () = assert!(TILE < 256 && SLICE.is_multiple_of(TILE));

const NONE: usize = usize::MAX;

impl GroupSums {
    /// Stores x − `mean` (centring is for accuracy: the sums of squares then do not cancel),
    /// laid out for this target's kernel.
    pub(crate) fn new(x: &Vectors, mean: &[f64], grouping: &Grouping) -> GroupSums {
        GroupSums::with_layout(x, mean, grouping, cfg!(target_arch = "wasm32"))
    }

    /// [`GroupSums::new`] with the added-rows kernel (`panels`) or the matrix product.
    pub(crate) fn with_layout(x: &Vectors, mean: &[f64], grouping: &Grouping, panels: bool) -> GroupSums {
        let (n, dim) = (x.len(), x.dim());
        let mut total = vec![0.0; dim];
        let layout = if panels {
            // Panel by panel, appended: no zeroed 12 MB to write first, and each panel is
            // written in order. Every column's total still adds its rows in index order.
            let tiles = dim.div_ceil(REDUCE_W);
            let mut p = Vec::with_capacity(tiles * n);
            for t in 0..tiles {
                let (c0, w) = (t * REDUCE_W, REDUCE_W.min(dim - t * REDUCE_W));
                let (m, tot) = (&mean[c0..c0 + w], &mut total[c0..c0 + w]);
                for row in x.rows() {
                    let mut piece = [0.0; REDUCE_W];
                    for ((out, v), m) in piece.iter_mut().zip(&row[c0..c0 + w]).zip(m) {
                        *out = v - m;
                    }
                    for (t, c) in tot.iter_mut().zip(&piece) {
                        *t += c;
                    }
                    p.push(piece);
                }
            }
            Layout::Panels(p)
        } else {
            let mut centred = Array2::<f64>::zeros((n, dim));
            for (mut out, row) in centred.axis_iter_mut(Axis(0)).zip(x.rows()) {
                for (((o, v), m), t) in out.iter_mut().zip(row).zip(mean).zip(total.iter_mut()) {
                    *o = v - m;
                    *t += *o;
                }
            }
            Layout::Product(centred)
        };
        let skipped = (0..grouping.count()).max_by_key(|&g| (grouping.sizes[g], usize::MAX - g)).unwrap_or(0);
        let mut slot = vec![NONE; grouping.count()];
        let mut group_of_slot = vec![];
        for (g, sl) in slot.iter_mut().enumerate() {
            if g != skipped {
                *sl = group_of_slot.len();
                group_of_slot.push(g);
            }
        }
        let inv = grouping.sizes.iter().map(|&m| 1.0 / m as f64).collect();
        GroupSums { n, dim, x: layout, total, slot, group_of_slot, skipped, inv }
    }

    /// Centred value of row `i`, column `k` (for tests).
    #[cfg(test)]
    fn at(&self, i: usize, k: usize) -> f64 {
        match &self.x {
            Layout::Product(x) => x[[i, k]],
            Layout::Panels(p) => p[(k / REDUCE_W) * self.n + i][k % REDUCE_W],
        }
    }

    /// Multiply-adds of one permutation's share of the product (for GFLOP/s figures).
    pub(crate) fn flops_per_permutation(&self) -> f64 {
        2.0 * (self.group_of_slot.len() * self.n * self.dim) as f64
    }

    /// Σ_i ‖x_i‖² of the centred rows: SS_T.
    pub(crate) fn total_ss(&self) -> f64 {
        if let Layout::Panels(p) = &self.x {
            // The same additions panel by panel: each row's sum of squares runs over its
            // pieces in order, then the rows are added as below.
            let mut row_ss = vec![0.0f64; self.n];
            for panel in p.chunks_exact(self.n) {
                for (s, t) in row_ss.iter_mut().zip(panel) {
                    *s += super::multivariate::dot(t, t);
                }
            }
            let mut acc = [0.0f64; 4];
            for (i, s) in row_ss.iter().enumerate() {
                acc[i % 4] += s;
            }
            return (acc[0] + acc[1]) + (acc[2] + acc[3]);
        }
        let mut acc = [0.0f64; 4];
        for i in 0..self.n {
            let mut s = 0.0;
            for c0 in (0..self.dim).step_by(REDUCE_W) {
                // Zero-padded to the full width, as the former tiles were (same bits).
                let t = match &self.x {
                    Layout::Panels(p) => p[(c0 / REDUCE_W) * self.n + i],
                    Layout::Product(x) => {
                        let mut t = [0.0f64; REDUCE_W];
                        let w = REDUCE_W.min(self.dim - c0);
                        t[..w].iter_mut().enumerate().for_each(|(k, v)| *v = x[[i, c0 + k]]);
                        t
                    }
                };
                s += super::multivariate::dot(&t, &t);
            }
            acc[i % 4] += s;
        }
        (acc[0] + acc[1]) + (acc[2] + acc[3])
    }

    /// SS_B for `out.len()` relabellings (any number; blocks of at most [`BLOCK`] are best).
    pub(crate) fn between(&self, labels: &[u32], out: &mut [f64]) {
        let (n, bs, slots, dim) = (self.n, out.len(), self.group_of_slot.len(), self.dim);
        let mut sums = vec![0.0; bs * slots * dim];
        match &self.x {
            Layout::Product(x) => {
                let mut m = Array2::<f64>::zeros((bs * slots, n));
                for b in 0..bs {
                    for (i, &l) in labels[b * n..(b + 1) * n].iter().enumerate() {
                        let s = self.slot[l as usize];
                        if s != NONE {
                            m[[b * slots + s, i]] = 1.0;
                        }
                    }
                }
                let mut view = ndarray::ArrayViewMut2::from_shape((bs * slots, dim), &mut sums)
                    .expect("the buffer has bs·slots·dim entries");
                general_mat_mul(1.0, &m, x, 0.0, &mut view);
            }
            Layout::Panels(p) => self.add_rows(p, labels, bs, &mut sums),
        }
        for (b, o) in out.iter_mut().enumerate() {
            let mut ss_b = 0.0;
            for c0 in (0..dim).step_by(REDUCE_W) {
                let w = REDUCE_W.min(dim - c0);
                let mut rest = [0.0f64; REDUCE_W];
                rest[..w].copy_from_slice(&self.total[c0..c0 + w]);
                let mut ss = 0.0;
                for s in 0..slots {
                    let acc = &sums[(b * slots + s) * dim + c0..][..w];
                    ss += norm2(acc) * self.inv[self.group_of_slot[s]];
                    for (r, a) in rest.iter_mut().zip(acc) {
                        *r -= a;
                    }
                }
                ss += norm2(&rest[..w]) * self.inv[self.skipped];
                ss_b += ss;
            }
            *o = ss_b;
        }
    }

    /// The group sums of a block by adding member rows, in the product's order: in index order
    /// within each slice of [`SLICE`] points from zero, the slices' sums added in order (the
    /// product adds 0·x for the other rows, which changes no bit).
    ///
    /// Every relabelling of the block takes its turn on one [`TILE`] of a panel before the
    /// next tile: the tile's rows stay in L1 while the block re-reads them, where a pass of
    /// one relabelling over the whole panel fetched every row from L2 again. A relabelling's
    /// running sum is carried from tile to tile within a slice, so the additions, and the
    /// bits, are those of one pass.
    fn add_rows(&self, panels: &[[f64; REDUCE_W]], labels: &[u32], bs: usize, sums: &mut [f64]) {
        let (n, slots, dim) = (self.n, self.group_of_slot.len(), self.dim);
        let rows = bs * slots;
        // The points of each (tile, permutation), as offsets within the tile, sorted by slot
        // (a counting sort, kept in the point order within a slot), with where each slot
        // starts: one byte per point and per slot. The group left out sorts last, as slot
        // `slots`, never read: sorting every point somewhere spares a branch on a coin-flip
        // label (with that branch the sort took a quarter of the kernel's time natively).
        let tiles = n.div_ceil(TILE);
        let kinds = slots + 1;
        let slot_or_rest: Vec<usize> = self.slot.iter().map(|&s| if s == NONE { slots } else { s }).collect();
        let mut starts = vec![0u8; tiles * bs * (kinds + 1)];
        let mut members = vec![0u8; tiles * bs * TILE];
        let mut cursor = vec![0u8; kinds];
        for b in 0..bs {
            for (tile, chunk) in labels[b * n..(b + 1) * n].chunks(TILE).enumerate() {
                let at = tile * bs + b;
                let start = &mut starts[at * (kinds + 1)..][..kinds + 1];
                let sorted = &mut members[at * TILE..][..TILE];
                if kinds == 2 {
                    // Two groups: the summed one fills from the front, the other from the
                    // back, in one pass with both positions in registers.
                    let (mut front, mut back) = (0, chunk.len());
                    for (off, &l) in chunk.iter().enumerate() {
                        let rest = slot_or_rest[l as usize];
                        back -= rest;
                        sorted[if rest == 0 { front } else { back }] = off as u8;
                        front += 1 - rest;
                    }
                    start[1] = front as u8;
                    start[2] = chunk.len() as u8;
                    continue;
                }
                for &l in chunk {
                    start[slot_or_rest[l as usize] + 1] += 1;
                }
                for k in 1..=kinds {
                    start[k] += start[k - 1];
                }
                cursor.copy_from_slice(&start[..kinds]);
                for (off, &l) in chunk.iter().enumerate() {
                    let c = &mut cursor[slot_or_rest[l as usize]];
                    sorted[*c as usize] = off as u8;
                    *c += 1;
                }
            }
        }
        // The running sum of each row's current slice, and the sum of its finished slices.
        let mut running = vec![[0.0f64; REDUCE_W]; rows];
        let mut total = vec![[0.0f64; REDUCE_W]; rows];
        for (t, panel) in panels.chunks_exact(n).enumerate() {
            for (tile, rows_of_tile) in panel.chunks(TILE).enumerate() {
                let from = tile * TILE;
                let opens_slice = from.is_multiple_of(SLICE);
                let closes_slice = (from + TILE).is_multiple_of(SLICE) || from + TILE >= n;
                for r in 0..rows {
                    let (at, s) = (tile * bs + r / slots, r % slots);
                    let start = &starts[at * (kinds + 1) + s..];
                    let who = &members[at * TILE + start[0] as usize..at * TILE + start[1] as usize];
                    let mut acc = if opens_slice { [0.0f64; REDUCE_W] } else { running[r] };
                    for &i in who {
                        let row = &rows_of_tile[i as usize];
                        for c in 0..REDUCE_W {
                            acc[c] += row[c];
                        }
                    }
                    if !closes_slice {
                        running[r] = acc;
                    } else if from < SLICE {
                        total[r] = acc;
                    } else {
                        for c in 0..REDUCE_W {
                            total[r][c] += acc[c];
                        }
                    }
                }
            }
            let w = REDUCE_W.min(dim - t * REDUCE_W);
            for (r, tot) in total.iter().enumerate() {
                sums[r * dim + t * REDUCE_W..][..w].copy_from_slice(&tot[..w]);
            }
        }
    }
}

/// Σ a_k² in index order.
#[inline]
fn norm2(a: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in a {
        s += x * x;
    }
    s
}

/// The matrix path: SS_W = Σ_i (1/n_{g(i)}) Σ_{j>i, g(j)=g(i)} d_ij², over the condensed
/// squared distances. Sixteen relabellings share each pass over the matrix; labels are
/// stored point-major so the inner loop is a branch-free select over sixteen lanes.
///
/// Not a matrix product: the analogue of the vector path, SS_W = Σ_g m_gᵀ D² m_g / (2 n_g)
/// with (B·g × n) indicators times the n × n matrix, needs the full square (800 MB at the
/// 10,000-point limit, twice the condensed triangle) and 4g times the arithmetic of this
/// select-and-add pass. The memory rules it out at the limit; below it, it was not tried.
pub(crate) struct PairSums {
    n: usize,
    d2: Vec<f64>,
    inv: Vec<f64>,
}

impl PairSums {
    pub(crate) fn new(dm: &DistanceMatrix, grouping: &Grouping) -> PairSums {
        let n = dm.len();
        let d2 = dm.condensed().iter().map(|d| d * d).collect();
        let inv = grouping.sizes.iter().map(|&m| 1.0 / m as f64).collect();
        PairSums { n, d2, inv }
    }

    /// SS_T = (1/N) Σ_{i<j} d_ij².
    pub(crate) fn total_ss(&self) -> f64 {
        let mut acc = [0.0f64; 4];
        for c in self.d2.chunks(4) {
            for (a, x) in acc.iter_mut().zip(c) {
                *a += x;
            }
        }
        ((acc[0] + acc[1]) + (acc[2] + acc[3])) / self.n as f64
    }

    /// SS_W for `out.len()` relabellings, sixteen per pass.
    pub(crate) fn within(&self, labels: &[u32], out: &mut [f64]) {
        let n = self.n;
        let mut lab = vec![0u32; n * LANES];
        for (k, out) in out.chunks_mut(LANES).enumerate() {
            let labels = &labels[k * LANES * n..];
            let bs = out.len();
            for j in 0..n {
                for b in 0..LANES {
                    // Unused lanes repeat lane 0; their sums are computed and dropped.
                    lab[j * LANES + b] = labels[(if b < bs { b } else { 0 }) * n + j];
                }
            }
            self.pass(&lab, out);
        }
    }

    fn pass(&self, lab: &[u32], out: &mut [f64]) {
        let (n, bs) = (self.n, out.len());
        out.fill(0.0);
        let mut start = 0;
        for i in 0..n {
            let len = n - i - 1;
            let row = &self.d2[start..start + len];
            start += len;
            let li: [u32; LANES] = lab[i * LANES..(i + 1) * LANES].try_into().unwrap_or([0; LANES]);
            let mut rs = [0.0f64; LANES];
            for (&d, lj) in row.iter().zip(lab[(i + 1) * LANES..].chunks_exact(LANES)) {
                for b in 0..LANES {
                    rs[b] += if lj[b] == li[b] { d } else { 0.0 };
                }
            }
            for b in 0..bs {
                out[b] += rs[b] * self.inv[li[b] as usize];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SS_B the slow way: each group's sum added in index order within slices of 256 points,
    /// the slices added in order (matrixmultiply's k blocking), then the same reduction.
    fn by_hand(x: &Vectors, labels: &[u32], grouping: &Grouping, sums: &GroupSums) -> f64 {
        let dim = x.dim();
        let mut s = vec![vec![0.0; dim]; grouping.count()];
        for (g, sum) in s.iter_mut().enumerate() {
            for start in (0..x.len()).step_by(256) {
                let mut part = vec![0.0; dim];
                for i in (start..(start + 256).min(x.len())).filter(|&i| labels[i] as usize == g) {
                    part.iter_mut().enumerate().for_each(|(k, p)| *p += sums.at(i, k));
                }
                sum.iter_mut().zip(&part).for_each(|(a, p)| *a = if start == 0 { *p } else { *a + p });
            }
        }
        let mut ss_b = 0.0;
        for c0 in (0..dim).step_by(REDUCE_W) {
            let w = REDUCE_W.min(dim - c0);
            let mut rest: Vec<f64> = sums.total[c0..c0 + w].to_vec();
            let mut ss = 0.0;
            for &g in &sums.group_of_slot {
                ss += norm2(&s[g][c0..c0 + w]) * sums.inv[g];
                rest.iter_mut().zip(&s[g][c0..c0 + w]).for_each(|(r, a)| *r -= a);
            }
            ss_b += ss + norm2(&rest) * sums.inv[sums.skipped];
        }
        ss_b
    }

    #[test]
    fn the_product_adds_in_a_fixed_order_whatever_the_block() {
        for (n, dim, groups) in [(37, 21, 2), (600, 19, 3), (700, 40, 2), (1100, 9, 4), (300, 7, 40)] {
            let data: Vec<f64> = (0..n * dim).map(|k| ((k * 7919) % 101) as f64 / 13.0 - 3.0).collect();
            let x = Vectors::from_flat(dim, data).unwrap();
            let labels: Vec<String> = (0..n).map(|i| format!("g{}", (i * 5) % groups)).collect();
            let grouping = Grouping::new(&labels, n).unwrap();
            let mut perms = vec![0u32; 5 * n];
            for (b, out) in perms.chunks_exact_mut(n).enumerate() {
                super::super::permutation::relabel(9, b"t", b, &grouping.of, out);
            }
            // The matrix product (native) and the added rows (wasm) give the same bits.
            let product = GroupSums::with_layout(&x, &vec![0.25; dim], &grouping, false);
            let panels = GroupSums::with_layout(&x, &vec![0.25; dim], &grouping, true);
            assert_eq!(product.total_ss().to_bits(), panels.total_ss().to_bits());
            assert_eq!(product.total, panels.total);
            for sums in [&product, &panels] {
                let mut block = [0.0; 5];
                sums.between(&perms, &mut block);
                for (b, &ss) in block.iter().enumerate() {
                    let mut alone = [0.0];
                    sums.between(&perms[b * n..(b + 1) * n], &mut alone);
                    assert_eq!(ss.to_bits(), alone[0].to_bits(), "{n}: block position {b}");
                    let hand = by_hand(&x, &perms[b * n..(b + 1) * n], &grouping, sums);
                    assert_eq!(ss.to_bits(), hand.to_bits(), "{n}: {ss} vs {hand}");
                    assert!(ss > 0.0);
                }
            }
        }
    }
}
