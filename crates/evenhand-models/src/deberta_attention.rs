//! DeBERTa's disentangled self-attention (He et al. 2021, "DeBERTa: decoding-enhanced BERT with
//! disentangled attention", section 3.1), with v2/v3's log-bucketed relative positions.
//!
//! With content queries/keys Q, K (per head, d wide), the relative embeddings' projections
//! Qr = P·W_q + b_q and Kr = P·W_k + b_k (the content projections themselves when keys are
//! shared), the bucketed distance δ(i, j) of token i to token j, the span k and
//! idx(x) = clamp(x + k, 0, 2k - 1), the score of query i for key j is
//!
//!   ( Q_i·K_j  +  Q_i·Kr[idx(δ(i, j))]  (c2p)  +  K_j·Qr[idx(-δ(j, i))]  (p2c) ) / √(d·s)
//!
//! where s = 1 + the number of relative terms. Padding keys get weight 0; so do padding
//! queries' whole rows (XSoftmax), which then only pass their residual on.

use crate::deberta_config::{Config, Relative};
use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{Linear, VarBuilder};

/// The bucket of a relative distance: itself within ±mid (mid = buckets / 2); beyond, mid plus
/// ⌈(mid - 1)·log(|δ|/mid) / log((max_position - 1)/mid)⌉ with δ's sign, so distances up to
/// max_position - 1 fill the remaining mid - 1 buckets per side (farther ones go past them and
/// are clamped to the span's edge later). Computed in f64; the reference computes in f32, which
/// could only differ where the ratio is within rounding of an integer.
pub fn log_bucket(delta: i64, buckets: usize, max_position: usize) -> i64 {
    let mid = (buckets / 2) as i64;
    if delta.abs() <= mid {
        return delta;
    }
    let (m, x) = (mid as f64, delta.unsigned_abs() as f64);
    let log_pos = ((x / m).ln() / ((max_position as f64 - 1.0) / m).ln() * (m - 1.0)).ceil() + m;
    delta.signum() * log_pos as i64
}

/// The relative-position inputs of every layer for a batch of t tokens: the gather indices of
/// the c2p and p2c terms, (batch, heads, t, t), u32.
pub(crate) struct RelativeIndex {
    c2p: Tensor,
    p2c: Tensor,
}

impl RelativeIndex {
    pub(crate) fn new(
        r: &Relative,
        batch: usize,
        heads: usize,
        t: usize,
        device: &Device,
    ) -> candle_core::Result<Self> {
        let span = r.span as i64;
        let delta = |i: usize, j: usize| {
            let d = i as i64 - j as i64;
            r.buckets.map_or(d, |b| log_bucket(d, b, r.max_relative_positions))
        };
        let idx = |x: i64| x.clamp(0, 2 * span - 1) as u32;
        let grid = |f: &dyn Fn(usize, usize) -> u32| -> candle_core::Result<Tensor> {
            let v: Vec<u32> = (0..t * t).map(|n| f(n / t, n % t)).collect();
            Tensor::from_vec(v, (1, 1, t, t), device)?.broadcast_as((batch, heads, t, t))?.contiguous()
        };
        // c2p: query i reads Kr at δ(i, j). p2c is computed key-major, as key a reads Qr at
        // -δ(a, b) for query b, and transposed afterwards.
        Ok(RelativeIndex { c2p: grid(&|i, j| idx(delta(i, j) + span))?, p2c: grid(&|a, b| idx(span - delta(a, b)))? })
    }
}

/// One layer's attention projections, with the relative embeddings' projections precomputed
/// (they depend on weights only), each (1, heads, d, 2k): ready to multiply with Q or K.
pub(crate) struct Attention {
    query: Linear,
    key: Linear,
    value: Linear,
    pos_key_t: Option<Tensor>,
    pos_query_t: Option<Tensor>,
    heads: usize,
    scale: f64,
}

impl Attention {
    /// `rel`: the (layer-normed) relative embeddings, (2k, hidden), when relative attention is on.
    pub(crate) fn load(c: &Config, rel: Option<&Tensor>, vb: VarBuilder) -> candle_core::Result<Attention> {
        let h = c.hidden_size;
        let query = candle_nn::linear(h, h, vb.pp("query_proj"))?;
        let key = candle_nn::linear(h, h, vb.pp("key_proj"))?;
        let value = candle_nn::linear(h, h, vb.pp("value_proj"))?;
        let heads = c.num_attention_heads;
        // (2k, hidden) -> (1, heads, d, 2k)
        let project = |l: &Linear, rel: &Tensor| -> candle_core::Result<Tensor> {
            let (rows, _) = rel.dims2()?;
            l.forward(rel)?.reshape((rows, heads, h / heads))?.permute((1, 2, 0))?.contiguous()?.unsqueeze(0)
        };
        let (mut pos_key_t, mut pos_query_t) = (None, None);
        if let Some(rel) = rel {
            if c.c2p {
                let own = if c.share_att_key { None } else { Some(candle_nn::linear(h, h, vb.pp("pos_key_proj"))?) };
                pos_key_t = Some(project(own.as_ref().unwrap_or(&key), rel)?);
            }
            if c.p2c {
                let own = if c.share_att_key { None } else { Some(candle_nn::linear(h, h, vb.pp("pos_query_proj"))?) };
                pos_query_t = Some(project(own.as_ref().unwrap_or(&query), rel)?);
            }
        }
        let scale = ((c.head_size() * c.scale_factor()) as f64).sqrt();
        Ok(Attention { query, key, value, pos_key_t, pos_query_t, heads, scale })
    }

    /// The attention's context vectors, (batch, t, hidden), before the output projection.
    /// `key_bias` (batch, 1, 1, t) is 0 for tokens and -1e9 for padding; `query_mask`
    /// (batch, 1, t, 1) is 1 for tokens and 0 for padding.
    pub(crate) fn forward(
        &self,
        x: &Tensor,
        rel: Option<&RelativeIndex>,
        key_bias: &Tensor,
        query_mask: &Tensor,
    ) -> candle_core::Result<Tensor> {
        let (b, t, hidden) = x.dims3()?;
        let d = hidden / self.heads;
        let split = |y: Tensor| y.reshape((b, t, self.heads, d))?.transpose(1, 2)?.contiguous();
        let q = split(self.query.forward(x)?)?;
        let k = split(self.key.forward(x)?)?;
        let v = split(self.value.forward(x)?)?;
        let mut scores = q.matmul(&k.t()?)?;
        if let Some(rel) = rel {
            if let Some(pk) = &self.pos_key_t {
                scores = (scores + q.broadcast_matmul(pk)?.gather(&rel.c2p, 3)?)?;
            }
            if let Some(pq) = &self.pos_query_t {
                scores = (scores + k.broadcast_matmul(pq)?.gather(&rel.p2c, 3)?.transpose(2, 3)?)?;
            }
        }
        let scores = (scores / self.scale)?.broadcast_add(key_bias)?;
        let weights = candle_nn::ops::softmax_last_dim(&scores)?.broadcast_mul(query_mask)?;
        weights.matmul(&v)?.transpose(1, 2)?.contiguous()?.reshape((b, t, hidden))
    }
}

/// The additive key bias and the query mask `forward` takes, from rows of 1 (token) / 0 (pad).
pub(crate) fn masks(mask: &[Vec<u32>], t: usize, device: &Device) -> candle_core::Result<(Tensor, Tensor)> {
    let b = mask.len();
    let m = Tensor::from_vec(mask.concat(), (b, t), device)?.to_dtype(DType::F32)?;
    let key_bias = ((&m - 1.0)? * 1e9)?.reshape((b, 1, 1, t))?;
    Ok((key_bias, m.reshape((b, 1, t, 1))?))
}

#[cfg(test)]
mod tests {
    use super::log_bucket;

    #[test]
    fn log_buckets_keep_near_distances_and_compress_far_ones_symmetrically() {
        // mDeBERTa-v3: 256 buckets, 512 positions. Within ±128 a distance is its own bucket.
        for d in -128..=128 {
            assert_eq!(log_bucket(d, 256, 512), d);
        }
        // Beyond, monotone, odd, and the farthest distance (511) lands in the last bucket, 255.
        let mut last = 128;
        for d in 129..600 {
            let b = log_bucket(d, 256, 512);
            assert!(b >= last, "{d}: {b} < {last}");
            assert_eq!(log_bucket(-d, 256, 512), -b);
            last = b;
        }
        assert_eq!(log_bucket(511, 256, 512), 255);
        assert_eq!(log_bucket(129, 256, 512), 129);
        // Small: 8 buckets (mid 4), 16 positions: 7 -> 4 + ceil(3·ln(1.75)/ln(3.75)) = 4 + ceil(1.27).
        assert_eq!(log_bucket(5, 8, 16), 5);
        assert_eq!(log_bucket(7, 8, 16), 6);
        assert_eq!(log_bucket(15, 8, 16), 7);
        assert_eq!(log_bucket(-30, 8, 16), -4 - (3.0 * (7.5f64).ln() / (3.75f64).ln()).ceil() as i64);
    }
}
