//! One post-layer-norm transformer layer (BERT's and XLM-R's) over flat row-major float32
//! buffers: the matrix products go straight to `gemm` with strides (query, key and value land
//! side by side in one buffer, each head's attention reads its columns in place, no transposes
//! or copies), and every elementwise step is one fused pass per row ([`crate::fused`]).
//! In the page the products run on our own kernel instead ([`crate::matmul`]).
//! The weights stay in the candle tensors they were loaded into and are borrowed, not copied,
//! so a model's memory does not double while it loads.
//!
//! a = LN(h + W_o · softmax(QKᵀ/√d + mask) V + b_o); h' = LN(a + W_2 · act(W_1 · a + b_1) + b_2).
//!
//! Work is split over rayon's threads: each projection by equal blocks of rows, the attention
//! by (text, head), the elementwise passes by rows; every gemm call itself runs on one thread.
//! In wasm there is one thread and the same code runs in order.

use crate::fused::{self, Activation, Norm};
use crate::matmul::Strided;
use candle_core::{CpuStorage, DType, Storage, StorageRef, Tensor};
use rayon::prelude::*;

/// A dense layer's tensors as published: weight (out, in), bias (out).
pub struct Dense {
    pub weight: Tensor,
    pub bias: Tensor,
}

pub struct Layer {
    pub query: Dense,
    pub key: Dense,
    pub value: Dense,
    pub attention_out: Dense,
    pub attention_norm: Norm,
    pub intermediate: Dense,
    pub output: Dense,
    pub output_norm: Norm,
}

/// What one forward pass works on: `batch` texts of `tokens` each (padded), and per text the
/// mask as an additive bias (0 for a token, −1e9 for padding) and how many leading positions
/// can be keys at all (up to its last real token: the trailing padding is skipped outright).
pub struct Batch {
    pub batch: usize,
    pub tokens: usize,
    pub hidden: usize,
    pub heads: usize,
    pub mask_bias: Vec<f32>,
    pub keys: Vec<usize>,
    /// Whether a text has padding before its last token (only then is its mask added).
    pub holes: Vec<bool>,
}

impl Batch {
    pub fn new(mask: &[Vec<u32>], hidden: usize, heads: usize) -> Batch {
        let tokens = mask.first().map_or(0, Vec::len);
        let mask_bias = mask.iter().flatten().map(|&m| if m == 0 { -1e9 } else { 0.0 }).collect();
        // A row with no token at all attends to everything (uniformly), as the bias alone would.
        let keys: Vec<usize> =
            mask.iter().map(|row| row.iter().rposition(|&m| m != 0).map_or(tokens, |last| last + 1)).collect();
        let holes = mask.iter().zip(&keys).map(|(row, &k)| row[..k].contains(&0)).collect();
        Batch { batch: mask.len(), tokens, hidden, heads, mask_bias, keys, holes }
    }

    fn rows(&self) -> usize {
        self.batch * self.tokens
    }
}

/// Buffers for a forward pass, reused by every layer and kept between passes: fresh ones
/// each batch cost page faults and zeroing (with candle's fresh tensors, about 5% of an
/// embedding's profile). gemm overwrites what it writes, so nothing needs clearing.
#[derive(Default)]
pub struct Scratch {
    qkv: Vec<f32>,
    context: Vec<f32>,
    attended: Vec<f32>,
    inner: Vec<f32>,
}

impl Scratch {
    /// Sizes the buffers for `b` (capacity is kept, so a smaller batch allocates nothing).
    pub fn fit(&mut self, b: &Batch, intermediate: usize) {
        let rows = b.rows();
        self.qkv.resize(rows * 3 * b.hidden, 0.0);
        self.context.resize(rows * b.hidden, 0.0);
        self.attended.resize(rows * b.hidden, 0.0);
        self.inner.resize(rows * intermediate, 0.0);
    }
}

/// A float32 CPU tensor's values, borrowed for as long as this lives.
struct View<'a>(StorageRef<'a>, usize, usize);

impl<'a> View<'a> {
    fn of(t: &'a Tensor) -> candle_core::Result<View<'a>> {
        let (storage, layout) = t.storage_and_layout();
        let Some((start, end)) = layout.contiguous_offsets() else {
            candle_core::bail!("a weight tensor is not contiguous");
        };
        if !matches!(&*storage, Storage::Cpu(CpuStorage::F32(_))) {
            candle_core::bail!("a weight tensor is not float32 on the CPU ({:?})", t.dtype());
        }
        Ok(View(storage, start, end))
    }

    fn get(&self) -> &[f32] {
        match &*self.0 {
            Storage::Cpu(CpuStorage::F32(v)) => &v[self.1..self.2],
            _ => &[],
        }
    }
}

/// A dense layer's weight and bias, borrowed, with its shape.
struct DenseView<'a> {
    weight: View<'a>,
    bias: View<'a>,
    inputs: usize,
    outputs: usize,
}

impl Dense {
    fn view(&self) -> candle_core::Result<DenseView<'_>> {
        let (outputs, inputs) = self.weight.dims2()?;
        if self.bias.dims1()? != outputs || self.weight.dtype() != DType::F32 {
            candle_core::bail!("a dense layer's bias does not match its weight");
        }
        Ok(DenseView { weight: View::of(&self.weight)?, bias: View::of(&self.bias)?, inputs, outputs })
    }
}

/// A raw pointer the attention's tasks write through: each (text, head) owns a disjoint block.
#[derive(Clone, Copy)]
struct Out(*mut f32);
unsafe impl Send for Out {}
unsafe impl Sync for Out {}
impl Out {
    fn at(self, offset: usize) -> *mut f32 {
        self.0.wrapping_add(offset)
    }
}

/// y[:, at..at + outputs] = x · Wᵀ for `rows` rows of x (width `inputs`), y rows `y_width` wide.
/// Each thread takes an equal block of rows through a one-thread product, packing W once.
/// MiniLM on 300 texts, 2 cores, 2 runs each: gemm splitting each product itself 7.54 and
/// 7.97 s, blocks of 512 rows 7.32 and 6.86 s (each block packs W again), one block per thread
/// 6.87 and 7.04 s: faster than gemm's split, no slower than smaller blocks, and the simplest.
fn project(rows: usize, x: &[f32], w: &DenseView, y: &mut [f32], y_width: usize, at: usize) {
    let (k, n) = (w.inputs, w.outputs);
    assert!(x.len() >= rows * k && w.weight.get().len() == n * k && at + n <= y_width && y.len() >= rows * y_width);
    let block = rows.div_ceil(rayon::current_num_threads()).max(1);
    let (x, y) = (&x[..rows * k], &mut y[..rows * y_width]);
    y.par_chunks_mut(block * y_width).zip(x.par_chunks(block * k)).for_each(|(y, x)| {
        // Safety: x holds x.len() / k whole rows of k, y as many rows of y_width, and W n·k
        // (asserted above), which bounds every element the product touches.
        unsafe { product(x.len() / k, x, w, y, y_width, at) };
    });
}

/// The product itself, on one thread.
unsafe fn product(rows: usize, x: &[f32], w: &DenseView, y: &mut [f32], y_width: usize, at: usize) {
    let (k, n) = (w.inputs, w.outputs);
    // W is read as its transpose: column j of Wᵀ is row j of W.
    let (x, wt) = (Strided::rows(x.as_ptr(), k), Strided { at: w.weight.get().as_ptr(), row: 1, col: k as isize });
    // Safety (the caller's): x's rows·k, W's n·k, y's rows·y_width from `at`.
    unsafe { matmul([rows, n, k], y.as_mut_ptr().add(at), y_width, x, wt, 1.0) };
}

/// dst (m × n, row-major, rows `dst_width` apart) = scale · lhs (m × k) · rhs (k × n), on one
/// thread: gemm natively (its AVX2 or AVX-512 kernels), our own kernel in the page
/// ([`crate::matmul`]: 1.2x to 1.45x gemm's WebAssembly kernel, 1.35x to 1.7x with relaxed SIMD).
/// Safety: every element of the three matrices must lie in memory the caller owns, dst's
/// exclusively.
unsafe fn matmul(shape: [usize; 3], dst: *mut f32, dst_width: usize, lhs: Strided, rhs: Strided, scale: f32) {
    #[cfg(target_arch = "wasm32")]
    unsafe {
        crate::matmul::product(shape, dst, dst_width, lhs, rhs, scale)
    };
    #[cfg(not(target_arch = "wasm32"))]
    unsafe {
        crate::matmul::gemm_product(shape, dst, dst_width, lhs, rhs, scale)
    };
}

/// `f(row index, row)` over the rows of a buffer `width` wide, in blocks across the threads.
fn each_row(buf: &mut [f32], width: usize, f: impl Fn(usize, &mut [f32]) + Sync) {
    const BLOCK: usize = 16;
    buf.par_chunks_mut(width * BLOCK).enumerate().for_each(|(block, rows)| {
        for (i, row) in rows.chunks_mut(width).enumerate() {
            f(block * BLOCK + i, row);
        }
    });
}

impl Layer {
    /// h = the layer applied to h, (batch · tokens, hidden) row-major, in place.
    pub fn forward(&self, b: &Batch, h: &mut [f32], s: &mut Scratch, act: Activation) -> candle_core::Result<()> {
        let (rows, hd) = (b.rows(), b.hidden);
        let (q, k, v) = (self.query.view()?, self.key.view()?, self.value.view()?);
        for (i, w) in [&q, &k, &v].into_iter().enumerate() {
            project(rows, h, w, &mut s.qkv, 3 * hd, i * hd);
        }
        let (bq, bk, bv) = (q.bias.get(), k.bias.get(), v.bias.get());
        each_row(&mut s.qkv, 3 * hd, |_, row| {
            for (part, bias) in row.chunks_mut(hd).zip([bq, bk, bv]) {
                part.iter_mut().zip(bias).for_each(|(x, b)| *x += b);
            }
        });
        attention(b, &s.qkv, &mut s.context);

        let o = self.attention_out.view()?;
        project(rows, &s.context, &o, &mut s.attended, hd, 0);
        let (residual, bias): (&[f32], _) = (h, o.bias.get());
        each_row(&mut s.attended, hd, |r, row| {
            fused::add_norm(&self.attention_norm, row, bias, &residual[r * hd..(r + 1) * hd]);
        });

        let inter = self.intermediate.view()?;
        project(rows, &s.attended, &inter, &mut s.inner, inter.outputs, 0);
        let bias = inter.bias.get();
        each_row(&mut s.inner, inter.outputs, |_, row| fused::bias_act(act, row, bias));

        let out = self.output.view()?;
        project(rows, &s.inner, &out, h, hd, 0);
        let (attended, bias) = (&s.attended, out.bias.get());
        each_row(h, hd, |r, row| fused::add_norm(&self.output_norm, row, bias, &attended[r * hd..(r + 1) * hd]));
        Ok(())
    }
}

/// context = softmax(QKᵀ/√d + mask) V per text and head, Q, K and V read in place from the
/// (rows, 3 · hidden) buffer, each head's result written into its columns of `context`.
fn attention(b: &Batch, qkv: &[f32], context: &mut [f32]) {
    let (t, hd, heads) = (b.tokens, b.hidden, b.heads);
    let d = hd / heads;
    let scale = 1.0 / (d as f32).sqrt();
    assert!(qkv.len() >= b.rows() * 3 * hd && context.len() >= b.rows() * hd);
    let out = Out(context.as_mut_ptr());
    (0..b.batch * heads).into_par_iter().for_each_init(Vec::new, |scores: &mut Vec<f32>, task| {
        let (text, head) = (task / heads, task % heads);
        let keys = b.keys[text];
        if keys == 0 {
            return;
        }
        // A text's mask is all zeros up to its last token unless it has holes: then no pass.
        let mask = if b.holes[text] { &b.mask_bias[text * t..text * t + keys] } else { &[] };
        let base = text * t * 3 * hd + head * d;
        // Score rows padded to a multiple of eight, the padding at −1e9 (weights of exactly 0):
        // the softmax's passes go eight lanes at a time, and a ragged tail ran element by
        // element (with the mask skipped too, the attention's own time in wasm went from 368
        // to 333 ms of 200 texts' embedding: node --cpu-prof, one run each).
        let width = keys.next_multiple_of(8);
        scores.resize(t * width, 0.0);
        scores.chunks_mut(width).for_each(|row| row[keys..].fill(-1e9));
        // Safety: Q, K and V of this text and head lie within the asserted qkv (rows of 3·hd,
        // keys <= t); scores is t·width; this task alone writes its t × d block of context.
        let q = Strided::rows(qkv[base..].as_ptr(), 3 * hd);
        // Kᵀ (d × keys): its column j is key j's row.
        let kt = Strided { at: qkv[base + hd..].as_ptr(), row: 1, col: 3 * hd as isize };
        let v = Strided::rows(qkv[base + 2 * hd..].as_ptr(), 3 * hd);
        // scores (t × keys) = scale · Q (t × d) · Kᵀ (d × keys).
        unsafe { matmul([t, keys, d], scores.as_mut_ptr(), width, q, kt, scale) };
        scores.chunks_mut(width).for_each(|row| fused::softmax(row, mask));
        // context (t × d) = weights (t × keys) · V (keys × d).
        let weights = Strided::rows(scores.as_ptr(), width);
        unsafe { matmul([t, d, keys], out.at(text * t * hd + head * d), hd, weights, v, 1.0) };
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_end_at_each_texts_last_token_and_padding_is_a_large_negative_bias() {
        let b = super::Batch::new(&[vec![1, 1, 1, 0], vec![1, 0, 1, 0], vec![0, 0, 0, 0]], 8, 2);
        assert_eq!((b.batch, b.tokens), (3, 4));
        // A hole inside a text stays a key, masked by its bias; a text with no token attends
        // to every position, as the bias alone would make it.
        assert_eq!(b.keys, [3, 3, 4]);
        assert_eq!(b.holes, [false, true, true]);
        assert_eq!(&b.mask_bias[4..8], &[0.0, -1e9, 0.0, -1e9]);
    }
}
