//! One-way PERMANOVA (Anderson 2001) with its PERMDISP companion, in resumable chunks.
//!
//! **Statistic.** With N points in g groups of sizes n_k and distances d_ij:
//! SS_T = (1/N) Σ_{i<j} d_ij², SS_W = Σ_k (1/n_k) Σ_{i<j both in k} d_ij², SS_B = SS_T − SS_W,
//! pseudo-F = (SS_B/(g − 1)) / (SS_W/(N − g)), R² = SS_B/SS_T. This is scikit-bio's
//! `permanova` statistic (docs/statistics.md).
//!
//! **Two paths, one statistic.** For Euclidean and chord distances on vectors ("fast"), the
//! data are centred on their grand mean (for accuracy) and SS_T = Σ_i ‖x_i‖²,
//! SS_B = Σ_k ‖S_k‖²/n_k with S_k the sum of group k's vectors: O(N·p) per permutation and
//! no N×N matrix. The largest group's sum is the total minus the others, so two groups need
//! one sum; a block of permutations' sums is one matrix product (`permanova_kernel`).
//! Otherwise ("matrix") the squared distances are computed once (condensed upper
//! triangle) and SS_W is summed per permutation, sixteen permutations per pass.
//!
//! **Threads and workers.** [`PermanovaJob::count`] counts the exceedances of any range of
//! permutations without changing the job; [`PermanovaJob::absorb`] adds a range's counts,
//! refusing ranges outside the job or already counted; `advance` is the two in turn.
//! Natively, a range's blocks run on all of rayon's threads (`RAYON_NUM_THREADS` sets how
//! many); in wasm one after another, and the page gets its parallelism from several Web
//! Workers instead (www/permanova-pool.js): each builds the same job, counts its share of the
//! range, and one absorbs every share. Not wasm threads: they need a SharedArrayBuffer, which
//! browsers grant only to cross-origin isolated pages (COOP/COEP headers), and a static host
//! cannot promise those. Each permutation's F is computed the same way in any block, on any
//! thread or worker, and only the counts k are summed, so the result has the same bits for
//! every split.
//!
//! **Permutations.** P relabellings of the points; permutation k (0-based) is
//! `permutation::relabel(seed, b"permanova", k)`: Fisher–Yates on a fresh copy of the
//! observed labels, driven by ChaCha8 seeded from (seed, "permanova", k). Group sizes are
//! kept. Chunks, blocks and targets do not change any permutation's F (bit for bit).
//!
//! **p-value.** p = (k + 1)/(P + 1), k = #{F_perm ≥ F}. Tie rule: F_perm counts when
//! F_perm ≥ F·(1 − 1e-12) (F ≥ 0), because a relabelling that gives the same partition
//! (e.g. two equal groups swapped) reaches the same F through different rounding.
//! scikit-bio compares exactly; the two differ only on such ties.
//!
//! **Non-finite values.** F is +∞ when SS_W = 0 < SS_B; JSON writes it as null.

use super::distance::{Distance, DistanceMatrix, normalised};
use super::multivariate::{Grouping, MultivariateError, Result, Vectors, check_permutations};
use super::permanova_kernel::{BLOCK, GroupSums, PairSums};
use super::permdisp::{self, Center, Permdisp};
use super::permutation::relabel;
use serde::{Deserialize, Serialize};

/// Relative tolerance of the tie rule (see the module docs).
pub const TIE_TOLERANCE: f64 = 1e-12;

/// What to test: vectors under a distance, or an uploaded matrix.
#[derive(Debug, Clone, Copy)]
pub enum Input<'a> {
    Vectors(&'a Vectors, Distance),
    Matrix(&'a DistanceMatrix),
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    pub permutations: usize,
    pub seed: u64,
    /// PERMDISP's centre: centroid (default) or spatial median.
    pub permdisp: Center,
}

impl Default for Options {
    fn default() -> Options {
        Options { permutations: 999, seed: 1, permdisp: Center::Centroid }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupSize {
    pub name: String,
    pub size: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Permanova {
    pub test: &'static str,
    pub n: usize,
    pub groups: Vec<GroupSize>,
    /// euclidean, chord, cosine, cosine-similarity-bug, or "matrix" for an uploaded one.
    pub distance: &'static str,
    /// Set when the distance is the MSQAD bug.
    pub warning: Option<&'static str>,
    /// "fast" (group sums of vectors) or "matrix".
    pub path: &'static str,
    pub f: f64,
    pub ss_total: f64,
    pub ss_within: f64,
    pub ss_between: f64,
    pub r_squared: f64,
    pub p: f64,
    /// k in p = (k + 1)/(P + 1).
    pub exceedances: usize,
    pub permutations: usize,
    pub seed: u64,
    pub tie_tolerance: f64,
    pub permdisp: Permdisp,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
}

/// How many of permutations `first..end` reached the observed F, of PERMANOVA and of
/// PERMDISP ([`PermanovaJob::count`]); what a worker hands back for [`PermanovaJob::absorb`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    pub first: usize,
    pub end: usize,
    pub permanova: usize,
    pub permdisp: usize,
}

enum Kernel {
    Fast(GroupSums),
    Matrix(PairSums),
}

/// A PERMANOVA + PERMDISP run that advances a chunk of permutations at a time (for progress
/// and cancel); the result is the same however it is chunked.
pub struct PermanovaJob {
    kernel: Kernel,
    grouping: Grouping,
    distance: Option<Distance>,
    options: Options,
    ss_t: f64,
    ss_b: f64,
    ss_w: f64,
    f: f64,
    /// The permutation ranges absorbed so far: sorted, disjoint, adjacent ones merged.
    counted: Vec<(usize, usize)>,
    exceed: usize,
    z: Vec<f64>,
    negative_squared: usize,
    median_iterations: Option<usize>,
    disp_f: f64,
    disp_exceed: usize,
}

fn pseudo_f(ss_b: f64, ss_w: f64, n: usize, g: usize) -> f64 {
    if ss_w <= 0.0 {
        return if ss_b > 0.0 { f64::INFINITY } else { f64::NAN };
    }
    (ss_b / (g - 1) as f64) / (ss_w / (n - g) as f64)
}

/// Whether a permuted statistic counts towards k (see the tie rule).
pub fn at_least(perm: f64, observed: f64) -> bool {
    if observed.is_nan() || perm.is_nan() {
        return false;
    }
    perm >= observed || (observed.is_finite() && perm >= observed - TIE_TOLERANCE * observed.abs())
}

impl PermanovaJob {
    /// Checks the input, computes the observed statistics and prepares the kernel.
    pub fn new<S: AsRef<str>>(input: Input<'_>, groups: &[S], options: Options) -> Result<PermanovaJob> {
        check_permutations(options.permutations)?;
        let n = match input {
            Input::Vectors(v, _) => v.len(),
            Input::Matrix(m) => m.len(),
        };
        let grouping = Grouping::new(groups, n)?;
        let median = options.permdisp == Center::Median;
        let (kernel, distance, z, negative_squared, median_iterations) = match input {
            Input::Vectors(v, d) if d.is_euclidean() => {
                let unit;
                let x = if d == Distance::Chord {
                    unit = normalised(v, d)?;
                    &unit
                } else {
                    v
                };
                let (z, steps) = if median {
                    let (z, steps) = permdisp::distances_to_medians(x, &grouping);
                    (z, Some(steps))
                } else {
                    (permdisp::distances_to_centroids(x, &grouping), None)
                };
                (Kernel::Fast(GroupSums::new(x, &column_means(x), &grouping)), Some(d), z, 0, steps)
            }
            Input::Vectors(v, d) => {
                let dm = DistanceMatrix::from_vectors(v, d)?;
                let (z, neg, steps) = matrix_dispersions(&dm, &grouping, median);
                (Kernel::Matrix(PairSums::new(&dm, &grouping)), Some(d), z, neg, steps)
            }
            Input::Matrix(dm) => {
                let (z, neg, steps) = matrix_dispersions(dm, &grouping, median);
                (Kernel::Matrix(PairSums::new(dm, &grouping)), None, z, neg, steps)
            }
        };
        let ss_t = match &kernel {
            Kernel::Fast(k) => k.total_ss(),
            Kernel::Matrix(k) => k.total_ss(),
        };
        // Not finite: squares of values near 1e154 or beyond overflowed (NaN once inf − inf met);
        // every statistic after this would be null or meaningless, so refuse here.
        if !ss_t.is_finite() {
            return Err(MultivariateError::Overflow);
        }
        if ss_t <= 0.0 {
            return Err(MultivariateError::NoVariation);
        }
        let mut job = PermanovaJob {
            kernel,
            distance,
            options,
            ss_t,
            ss_b: 0.0,
            ss_w: 0.0,
            f: 0.0,
            counted: vec![],
            exceed: 0,
            z,
            negative_squared,
            median_iterations,
            disp_f: 0.0,
            disp_exceed: 0,
            grouping,
        };
        let (f, ss_b, ss_w) = job.statistics(&job.grouping.of, 1);
        (job.f, job.ss_b, job.ss_w) = (f[0], ss_b[0], ss_w[0]);
        let mut sums = vec![0.0; job.grouping.count()];
        job.disp_f = permdisp::anova_f(&job.z, &job.grouping.of, &job.grouping.sizes, &mut sums);
        Ok(job)
    }

    /// F, SS_B and SS_W of the `bs` relabellings in `labels` (perm-major), each computed the
    /// way its path computes it best.
    fn statistics(&self, labels: &[u32], bs: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let (n, g) = (self.grouping.of.len(), self.grouping.count());
        let (mut between, mut within) = (vec![0.0; bs], vec![0.0; bs]);
        match &self.kernel {
            Kernel::Fast(k) => {
                k.between(labels, &mut between);
                within.iter_mut().zip(&between).for_each(|(w, b)| *w = self.ss_t - b);
            }
            Kernel::Matrix(k) => {
                k.within(labels, &mut within);
                between.iter_mut().zip(&within).for_each(|(b, w)| *b = self.ss_t - w);
            }
        }
        let f = between.iter().zip(&within).map(|(&b, &w)| pseudo_f(b, w, n, g)).collect();
        (f, between, within)
    }

    /// Runs permutations `first..first + bs` of both tests; returns how many reached the
    /// observed F of PERMANOVA and of PERMDISP.
    fn run_block(&self, first: usize, bs: usize) -> (usize, usize) {
        let n = self.grouping.of.len();
        let mut labels = vec![0u32; bs * n];
        let mut scratch = vec![0u32; n];
        let mut sums = vec![0.0; self.grouping.count()];
        let mut disp_hits = 0;
        for (b, out) in labels.chunks_exact_mut(n).enumerate() {
            let k = first + b;
            relabel(self.options.seed, b"permanova", k, &self.grouping.of, out);
            relabel(self.options.seed, b"permdisp", k, &self.grouping.of, &mut scratch);
            let f = permdisp::anova_f(&self.z, &scratch, &self.grouping.sizes, &mut sums);
            disp_hits += usize::from(at_least(f, self.disp_f));
        }
        let (f, _, _) = self.statistics(&labels, bs);
        (f.iter().filter(|&&f| at_least(f, self.f)).count(), disp_hits)
    }

    /// Floating-point operations of the vector path's matrix product per permutation (for
    /// the benchmark's GFLOP/s); None on the matrix path.
    pub fn flops_per_permutation(&self) -> Option<f64> {
        match &self.kernel {
            Kernel::Fast(k) => Some(k.flops_per_permutation()),
            Kernel::Matrix(_) => None,
        }
    }

    pub fn progress(&self) -> Progress {
        Progress { done: self.counted.iter().map(|(a, b)| b - a).sum(), total: self.options.permutations }
    }

    /// Counts permutations `first..end` (blocks of [`BLOCK`], on rayon's threads natively)
    /// without changing the job: any split of 0..P, counted anywhere, sums to the same k.
    pub fn count(&self, first: usize, end: usize) -> Result<Counts> {
        let total = self.options.permutations;
        if first > end || end > total {
            return Err(MultivariateError::OutsideJob { first, end, total });
        }
        let starts: Vec<usize> = (first..end).step_by(BLOCK).collect();
        let run = |&start: &usize| self.run_block(start, BLOCK.min(end - start));
        #[cfg(not(target_arch = "wasm32"))]
        let blocks: Vec<(usize, usize)> = {
            use rayon::prelude::*;
            starts.par_iter().map(run).collect()
        };
        // No threads in the page's wasm (no shared memory without cross-origin isolation).
        #[cfg(target_arch = "wasm32")]
        let blocks: Vec<(usize, usize)> = starts.iter().map(run).collect();
        let (permanova, permdisp) = blocks.iter().fold((0, 0), |(a, b), &(x, y)| (a + x, b + y));
        Ok(Counts { first, end, permanova, permdisp })
    }

    /// Adds the counts of a range of permutations. A range outside 0..P, one that overlaps a
    /// range already absorbed, or more exceedances than the range has permutations is
    /// refused, and the job is left as it was.
    pub fn absorb(&mut self, c: Counts) -> Result<Progress> {
        let (first, end, total) = (c.first, c.end, self.options.permutations);
        if first > end || end > total {
            return Err(MultivariateError::OutsideJob { first, end, total });
        }
        if c.permanova.max(c.permdisp) > end - first {
            return Err(MultivariateError::TooManyExceedances { first, end, found: c.permanova.max(c.permdisp) });
        }
        if first < end {
            let at = self.counted.partition_point(|&(_, b)| b <= first);
            if let Some(&(a, b)) = self.counted.get(at).filter(|&&(a, _)| a < end) {
                return Err(MultivariateError::Overlap { first, end, counted_first: a, counted_end: b });
            }
            self.counted.insert(at, (first, end));
            // Merge with the neighbours it touches, so a finished job holds exactly [(0, P)].
            if at + 1 < self.counted.len() && self.counted[at + 1].0 == end {
                self.counted[at].1 = self.counted.remove(at + 1).1;
            }
            if at > 0 && self.counted[at - 1].1 == first {
                self.counted[at - 1].1 = self.counted.remove(at).1;
            }
        }
        self.exceed += c.permanova;
        self.disp_exceed += c.permdisp;
        Ok(self.progress())
    }

    /// Runs up to `count` more permutations (PERMANOVA and PERMDISP each), from the first
    /// one not yet counted.
    pub fn advance(&mut self, count: usize) -> Progress {
        let total = self.options.permutations;
        let (first, limit) = match self.counted.first() {
            Some(&(0, b)) => (b, self.counted.get(1).map_or(total, |r| r.0)),
            Some(&(a, _)) => (0, a),
            None => (0, total),
        };
        let end = first.saturating_add(count).min(limit);
        // Neither call can fail: first..end lies within 0..P and outside every counted range.
        if let Ok(c) = self.count(first, end) {
            let _ = self.absorb(c);
        }
        self.progress()
    }

    /// The report, once every permutation has run.
    pub fn result(&self) -> Result<Permanova> {
        let p_total = self.options.permutations;
        if self.counted != [(0, p_total)] {
            return Err(MultivariateError::Unfinished { done: self.progress().done, total: p_total });
        }
        let (n, g) = (self.grouping.of.len(), self.grouping.count());
        let p = |k: usize| (k + 1) as f64 / (p_total + 1) as f64;
        let median = self.options.permdisp == Center::Median;
        let (test_path, mode) = match (&self.kernel, median) {
            (Kernel::Fast(_), false) => ("fast", "centroid, full space (vectors)"),
            (Kernel::Fast(_), true) => ("fast", "median, full space (vectors)"),
            (Kernel::Matrix(_), false) => ("matrix", "centroid, full space (principal coordinates, all axes)"),
            (Kernel::Matrix(_), true) => ("matrix", "median, full space (principal coordinates, all axes)"),
        };
        let ss_b = self.ss_b;
        Ok(Permanova {
            test: "PERMANOVA",
            n,
            groups: self
                .grouping
                .names
                .iter()
                .zip(&self.grouping.sizes)
                .map(|(name, &size)| GroupSize { name: name.clone(), size })
                .collect(),
            distance: self.distance.map_or("matrix", Distance::name),
            warning: self.distance.and_then(Distance::warning),
            path: test_path,
            f: self.f,
            ss_total: self.ss_t,
            ss_within: self.ss_w,
            ss_between: ss_b,
            r_squared: ss_b / self.ss_t,
            p: p(self.exceed),
            exceedances: self.exceed,
            permutations: p_total,
            seed: self.options.seed,
            tie_tolerance: TIE_TOLERANCE,
            permdisp: Permdisp {
                test: "PERMDISP",
                center: self.options.permdisp.name(),
                mode,
                median_iterations: self.median_iterations,
                median_tolerance: median.then_some(permdisp::MEDIAN_TOLERANCE),
                f: self.disp_f,
                p: p(self.disp_exceed),
                exceedances: self.disp_exceed,
                p_parametric: super::fdist::sf(self.disp_f, (g - 1) as f64, (n - g) as f64),
                mean_distance: permdisp::group_means(&self.z, &self.grouping),
                negative_squared: self.negative_squared,
            },
        })
    }
}

/// PERMANOVA and PERMDISP in one call.
pub fn permanova<S: AsRef<str>>(input: Input<'_>, groups: &[S], options: Options) -> Result<Permanova> {
    let mut job = PermanovaJob::new(input, groups, options)?;
    job.advance(options.permutations);
    job.result()
}

/// z, negative squared distances and median steps for a distance matrix.
fn matrix_dispersions(dm: &DistanceMatrix, grouping: &Grouping, median: bool) -> (Vec<f64>, usize, Option<usize>) {
    if median {
        let (z, steps, neg) = permdisp::distances_to_medians_matrix(dm, grouping);
        (z, neg, Some(steps))
    } else {
        let (z, neg) = permdisp::distances_to_centroids_matrix(dm, grouping);
        (z, neg, None)
    }
}

/// The column means (summed in row order).
fn column_means(x: &Vectors) -> Vec<f64> {
    let mut mean = vec![0.0; x.dim()];
    for row in x.rows() {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += v;
        }
    }
    mean.iter_mut().for_each(|m| *m /= x.len() as f64);
    mean
}
