//! The two PERMANOVA kernels: how a block of relabellings turns into sums of squares.
//!
//! Relabellings arrive perm-major (`labels[b * n + i]` is point i's group in permutation b).
//! Each kernel adds in a fixed order (points in index order, vector components in eight
//! fixed lanes), so a permutation's result does not depend on which block or chunk it ran
//! in, nor on the target.

use super::distance::DistanceMatrix;
use super::multivariate::{Grouping, Vectors};

/// At most this many permutations share one pass over the data.
pub(crate) const BLOCK: usize = 16;

/// Keep the block's group-sum accumulators within this many bytes (about L2 size).
const ACC_BYTES: usize = 256 * 1024;

/// The vector path: SS_B = Σ_g ‖S_g‖²/n_g on centred rows, where S_g is the sum of group g's
/// rows. The largest group's sum is never accumulated: it is the total minus the others.
pub(crate) struct GroupSums {
    x: Vectors,
    total: Vec<f64>,
    /// Accumulator slot of each group, or NONE for the group left out.
    slot: Vec<usize>,
    skipped: usize,
    inv: Vec<f64>,
    block: usize,
    acc: Vec<f64>,
    scratch: Vec<f64>,
}

const NONE: usize = usize::MAX;

impl GroupSums {
    /// `x` must already be centred on its grand mean (for accuracy, not correctness).
    pub(crate) fn new(x: Vectors, grouping: &Grouping) -> GroupSums {
        let dim = x.dim();
        let mut total = vec![0.0; dim];
        for row in x.rows() {
            add(&mut total, row);
        }
        let skipped = (0..grouping.count()).max_by_key(|&g| (grouping.sizes[g], usize::MAX - g)).unwrap_or(0);
        let mut slot = vec![NONE; grouping.count()];
        let mut s = 0;
        for (g, sl) in slot.iter_mut().enumerate() {
            if g != skipped {
                *sl = s;
                s += 1;
            }
        }
        let per_perm = s * dim * 8;
        let block = (ACC_BYTES / per_perm.max(1)).clamp(1, BLOCK);
        let inv = grouping.sizes.iter().map(|&m| 1.0 / m as f64).collect();
        GroupSums { x, total, slot, skipped, inv, block, acc: vec![0.0; block * s * dim], scratch: vec![0.0; dim] }
    }

    pub(crate) fn block(&self) -> usize {
        self.block
    }

    /// Σ_i ‖x_i‖² of the centred rows: SS_T.
    pub(crate) fn total_ss(&self) -> f64 {
        let mut acc = [0.0f64; 4];
        for (i, row) in self.x.rows().enumerate() {
            acc[i % 4] += super::multivariate::dot(row, row);
        }
        (acc[0] + acc[1]) + (acc[2] + acc[3])
    }

    /// SS_B for `out.len()` (≤ block) relabellings.
    pub(crate) fn between(&mut self, labels: &[u32], out: &mut [f64]) {
        let (n, dim, bs) = (self.x.len(), self.x.dim(), out.len());
        let slots = self.slot.len() - 1;
        let acc = &mut self.acc[..bs * slots * dim];
        acc.fill(0.0);
        for (i, row) in self.x.rows().enumerate() {
            for b in 0..bs {
                let s = self.slot[labels[b * n + i] as usize];
                if s != NONE {
                    let at = (b * slots + s) * dim;
                    add(&mut acc[at..at + dim], row);
                }
            }
        }
        for (b, o) in out.iter_mut().enumerate() {
            self.scratch.copy_from_slice(&self.total);
            let mut ss = 0.0;
            for (g, &s) in self.slot.iter().enumerate() {
                if s == NONE {
                    continue;
                }
                let sum = &acc[(b * slots + s) * dim..][..dim];
                ss += super::multivariate::dot(sum, sum) * self.inv[g];
                sub(&mut self.scratch, sum);
            }
            ss += super::multivariate::dot(&self.scratch, &self.scratch) * self.inv[self.skipped];
            *o = ss;
        }
    }
}

#[inline]
fn add(acc: &mut [f64], row: &[f64]) {
    for (a, x) in acc.iter_mut().zip(row) {
        *a += *x;
    }
}

#[inline]
fn sub(acc: &mut [f64], row: &[f64]) {
    for (a, x) in acc.iter_mut().zip(row) {
        *a -= *x;
    }
}

/// The matrix path: SS_W = Σ_i (1/n_{g(i)}) Σ_{j>i, g(j)=g(i)} d_ij², over the condensed
/// squared distances. Sixteen relabellings share each pass over the matrix; labels are
/// stored point-major so the inner loop is a branch-free select over sixteen lanes.
pub(crate) struct PairSums {
    n: usize,
    d2: Vec<f64>,
    inv: Vec<f64>,
    lab: Vec<u32>,
}

impl PairSums {
    pub(crate) fn new(dm: &DistanceMatrix, grouping: &Grouping) -> PairSums {
        let n = dm.len();
        let d2 = dm.condensed().iter().map(|d| d * d).collect();
        let inv = grouping.sizes.iter().map(|&m| 1.0 / m as f64).collect();
        PairSums { n, d2, inv, lab: vec![0; n * BLOCK] }
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

    /// SS_W for `out.len()` (≤ BLOCK) relabellings.
    pub(crate) fn within(&mut self, labels: &[u32], out: &mut [f64]) {
        let (n, bs) = (self.n, out.len());
        for j in 0..n {
            for b in 0..BLOCK {
                // Unused lanes repeat lane 0; their sums are computed and dropped.
                self.lab[j * BLOCK + b] = labels[(if b < bs { b } else { 0 }) * n + j];
            }
        }
        out.fill(0.0);
        let mut start = 0;
        for i in 0..n {
            let len = n - i - 1;
            let row = &self.d2[start..start + len];
            start += len;
            let li: [u32; BLOCK] = self.lab[i * BLOCK..(i + 1) * BLOCK].try_into().unwrap_or([0; BLOCK]);
            let mut rs = [0.0f64; BLOCK];
            for (&d, lj) in row.iter().zip(self.lab[(i + 1) * BLOCK..].chunks_exact(BLOCK)) {
                for b in 0..BLOCK {
                    rs[b] += if lj[b] == li[b] { d } else { 0.0 };
                }
            }
            for b in 0..bs {
                out[b] += rs[b] * self.inv[li[b] as usize];
            }
        }
    }
}
