//! The encoder's elementwise steps, each fused into one pass over a row: bias + GELU, bias +
//! residual + layer norm, and the attention's softmax. Written as plain loops over slices so the
//! compiler vectorises them (natively and in wasm's simd128), with `exp` and `erf` as
//! polynomials rather than libm's one-element-at-a-time calls, which took a fifth of an
//! embedding's time on candle's graph (docs/performance.md, "A quiet run").
//!
//! Accuracy (checked in the tests below against f64 over a dense grid): `exp` within 2e-7
//! relative, `erf` within 4e-7 absolute; both a few units in float32's last place, far inside
//! the forward-pass tests' 1e-5 of the float64 references.

/// Defines a row kernel twice, for any CPU and (on x86-64) with AVX2, and picks one at run
/// time: the body is `inline(always)` in both, so the AVX2 copy's loops go eight floats wide
/// whatever the optimiser decides about inlining elsewhere (the portable build targets SSE2,
/// four wide; wasm compiles the body once, for simd128). No FMA: `mul_add` without it is a
/// slow library call, and a fused build that the optimiser failed to inline would be one.
macro_rules! kernel {
    ($(#[$doc:meta])* pub fn $name:ident($($arg:ident: $ty:ty),*) $body:block) => {
        $(#[$doc])*
        pub fn $name($($arg: $ty),*) {
            #[inline(always)]
            fn body($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn avx2($($arg: $ty),*) {
                    body($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // Safety: the CPU was just found to have AVX2.
                    return unsafe { avx2($($arg),*) };
                }
            }
            body($($arg),*)
        }
    };
}

const LOG2_E: f32 = std::f32::consts::LOG2_E;
// ln 2 split in two (Cody and Waite): the high part has trailing zero bits, so n · LN2_HI is
// exact for the |n| <= 126 used here and the reduction loses nothing.
const LN2_HI: f32 = 0.693_145_75;
const LN2_LO: f32 = 1.428_606_8e-6;
// Adding and subtracting 1.5 · 2^23 rounds a float of magnitude < 2^22 to the nearest integer.
const ROUND: f32 = 12_582_912.0;

/// e^x for x <= 88 (clamped there), and 0 below −87, where e^x falls under float32's smallest
/// normal: a masked softmax term comes out exactly 0.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    let tiny = x < -87.0;
    let x = at_most(at_least(x, -87.0), 88.0);
    // x = n ln 2 + r with |r| <= ln 2 / 2, e^x = 2^n e^r.
    let n = (x * LOG2_E + ROUND) - ROUND;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    // Taylor to r^7: the remainder r^8/8! is under 5e-9 for |r| <= 0.35.
    let mut p = 1.0 / 5040.0;
    for c in [1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0] {
        p = p * r + c;
    }
    let y = p * f32::from_bits(((n as i32 + 127) as u32) << 23);
    if tiny { 0.0 } else { y }
}

/// The error function as x·P(x²)/Q(x²) on |x| <= 4 (P of degree 6, Q of degree 5, Q(0) = 1),
/// a rational approximation we fitted by iteratively reweighted least squares against
/// scipy's float64 erf on 20,000 points of [0, 4]. Its own error is under 5e-9; evaluated in
/// float32 the result is within 4e-7 of erf (checked below), about five units in the last
/// place at 1, which is where GELU's 1 + erf(x/√2) uses it. No exponential: cheaper than
/// Abramowitz and Stegun's 7.1.26, and more accurate in float32 (6e-7).
#[inline(always)]
pub fn erf(x: f32) -> f32 {
    const P: [f32; 7] = [
        std::f32::consts::FRAC_2_SQRT_PI,
        0.185_145_14,
        0.054_306_015,
        0.003_846_896,
        3.794_243_4e-4,
        4.680_651_7e-6,
        -1.317_381_2e-8,
    ];
    const Q: [f32; 6] = [1.0, 0.497_414_02, 0.113_931_6, 0.015_455_906, 0.001_306_784_3, 6.307_373e-5];
    // Beyond 4, 1 - erf(x) < 2e-8 is below float32's resolution at 1.
    let a = at_most(x.abs(), 4.0);
    let z = a * a;
    let p = P[..6].iter().rev().fold(P[6], |acc, &c| acc * z + c);
    let q = Q[..5].iter().rev().fold(Q[5], |acc, &c| acc * z + c);
    at_most(a * p / q, 1.0).copysign(x)
}

// f32's min, max and clamp are calls to libm's fminf and fmaxf in WebAssembly (their NaN rule is
// not the instruction's), and a call in a row loop stops it from vectorising: with them the GELU
// pass took 452 ms of 100 texts' embedding in wasm, without 175 ms (node --cpu-prof). A
// comparison is a select.

/// The smaller of x and bound (x if it is NaN).
#[inline(always)]
fn at_most(x: f32, bound: f32) -> f32 {
    if x > bound { bound } else { x }
}

/// The larger of x and bound (x if it is NaN).
#[inline(always)]
fn at_least(x: f32, bound: f32) -> f32 {
    if x < bound { bound } else { x }
}

/// Σ f(x) over a slice in eight running sums (a float sum taken in order does not vectorise:
/// its additions may not be reordered; eight lanes are the order these sums are defined by).
#[inline(always)]
fn sum_by(xs: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    let mut lanes = [0.0f32; 8];
    let chunks = xs.chunks_exact(8);
    let tail: f32 = chunks.remainder().iter().map(|&x| f(x)).sum();
    for chunk in chunks {
        for (l, &x) in lanes.iter_mut().zip(chunk) {
            *l += f(x);
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// The largest element, in eight running maxima (as [`sum_by`]).
#[inline(always)]
fn max(xs: &[f32]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 8];
    let chunks = xs.chunks_exact(8);
    let tail = chunks.remainder().iter().fold(f32::NEG_INFINITY, |a, &b| at_least(a, b));
    for chunk in chunks {
        for (l, &x) in lanes.iter_mut().zip(chunk) {
            *l = if x > *l { x } else { *l };
        }
    }
    lanes.iter().fold(tail, |a, &b| at_least(a, b))
}

/// A nonlinearity config.json names (`hidden_act`; DeBERTa's `pooler_hidden_act` too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activation {
    /// "gelu": the exact x·Φ(x), as Hugging Face's BERT uses.
    GeluErf,
    /// "gelu_new" / "gelu_pytorch_tanh" / "gelu_fast": the tanh approximation.
    GeluTanh,
    Relu,
    Tanh,
}

impl Activation {
    pub fn of(name: &str) -> Result<Activation, String> {
        match name {
            "gelu" => Ok(Activation::GeluErf),
            "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast" => Ok(Activation::GeluTanh),
            "relu" => Ok(Activation::Relu),
            "tanh" => Ok(Activation::Tanh),
            other => Err(format!("{other:?} is not one of gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, relu, tanh")),
        }
    }

    /// The same on a candle tensor (DeBERTa's layers and the heads, which stay on candle).
    pub fn apply(self, x: &candle_core::Tensor) -> candle_core::Result<candle_core::Tensor> {
        match self {
            Activation::GeluErf => x.gelu_erf(),
            Activation::GeluTanh => x.gelu(),
            Activation::Relu => x.relu(),
            Activation::Tanh => x.tanh(),
        }
    }
}

/// tanh(u) = 1 − 2 / (e^(2u) + 1), which stays finite as e^(2u) saturates.
#[inline(always)]
fn tanh(u: f32) -> f32 {
    1.0 - 2.0 / (exp(2.0 * u) + 1.0)
}

kernel! {
    /// row = act(row + bias), in place.
    pub fn bias_act(act: Activation, row: &mut [f32], bias: &[f32]) {
        match act {
            Activation::GeluErf => {
                for (x, b) in row.iter_mut().zip(bias) {
                    let v = *x + b;
                    *x = 0.5 * v * (1.0 + erf(v * std::f32::consts::FRAC_1_SQRT_2));
                }
            }
            Activation::GeluTanh => {
                const C: f32 = 0.797_884_6; // √(2/π)
                for (x, b) in row.iter_mut().zip(bias) {
                    let v = *x + b;
                    *x = 0.5 * v * (1.0 + tanh(C * (v + 0.044_715 * v * v * v)));
                }
            }
            Activation::Tanh => {
                for (x, b) in row.iter_mut().zip(bias) {
                    *x = tanh(*x + b);
                }
            }
            Activation::Relu => {
                for (x, b) in row.iter_mut().zip(bias) {
                    *x = at_least(*x + b, 0.0);
                }
            }
        }
    }
}

/// A layer norm's parameters: out = (x − mean) / √(var + eps) · weight + bias.
pub struct Norm {
    pub weight: Vec<f32>,
    pub bias: Vec<f32>,
    pub eps: f32,
}

kernel! {
    /// row = LN(row + bias + residual), in place (the post-layer-norm transformer's "add and
    /// norm" after a dense layer).
    pub fn add_norm(norm: &Norm, row: &mut [f32], bias: &[f32], residual: &[f32]) {
        for ((x, b), r) in row.iter_mut().zip(bias).zip(residual) {
            *x += b + r;
        }
        normalise(norm, row);
    }
}

kernel! {
    /// row = LN(row), in place.
    pub fn layer_norm(norm: &Norm, row: &mut [f32]) {
        normalise(norm, row);
    }
}

/// Two passes: the mean first, then the variance around it (float32 sums of squares minus the
/// square of the sum would cancel).
#[inline(always)]
fn normalise(norm: &Norm, row: &mut [f32]) {
    let n = row.len() as f32;
    let mean = sum_by(row, |x| x) / n;
    let var = sum_by(row, |x| (x - mean) * (x - mean)) / n;
    let scale = 1.0 / (var + norm.eps).sqrt();
    for ((x, w), b) in row.iter_mut().zip(&norm.weight).zip(&norm.bias) {
        *x = (*x - mean) * scale * w + b;
    }
}

kernel! {
    /// row = softmax(row + mask), in place; `mask` is 0 for a token and a large negative
    /// number for padding, whose weight then comes out exactly 0. A shorter mask covers the
    /// row's first elements (an empty one: no mask).
    pub fn softmax(row: &mut [f32], mask: &[f32]) {
        for (x, m) in row.iter_mut().zip(mask) {
            *x += m;
        }
        let max = max(row);
        for x in row.iter_mut() {
            *x = exp(*x - max);
        }
        let scale = 1.0 / sum_by(row, |x| x);
        for x in row.iter_mut() {
            *x *= scale;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// -range..range in `steps` points.
    fn grid(range: f64, steps: usize) -> impl Iterator<Item = f64> {
        (0..=steps).map(move |i| -range + 2.0 * range * i as f64 / steps as f64)
    }

    #[test]
    fn exp_is_within_two_parts_in_ten_million() {
        {
            let worst = grid(87.0, 400_000)
                .map(|x| {
                    let (ours, truth) = (exp(x as f32) as f64, (x as f32 as f64).exp());
                    ((ours - truth) / truth).abs()
                })
                .fold(0.0, f64::max);
            assert!(worst < 2e-7, "relative error {worst:e}");
            assert!(exp(-87.5) == 0.0 && exp(-87.0) > 0.0 && exp(1000.0) == exp(88.0));
            assert_eq!(exp(0.0), 1.0);
        }
    }

    #[test]
    fn erf_is_within_four_parts_in_ten_million() {
        // libm's erf in f64 is the reference.
        {
            let worst = grid(6.0, 200_000)
                .map(|x| {
                    let x32 = x as f32;
                    (erf(x32) as f64 - libm_erf(x32 as f64)).abs()
                })
                .fold(0.0, f64::max);
            assert!(worst < 4e-7, "absolute error {worst:e}");
            assert_eq!(erf(0.0), 0.0);
            assert_eq!(erf(-9.0), -1.0);
        }
    }

    /// erf in f64 by its Taylor series (|x| < 3) and continued fraction for erfc (beyond),
    /// both converged far past f32's resolution.
    fn libm_erf(x: f64) -> f64 {
        let a = x.abs();
        let y = if a < 3.0 {
            let (mut term, mut sum, mut k) = (a, a, 0.0);
            while term.abs() > 1e-17 * sum.abs() {
                k += 1.0;
                term *= -a * a / k;
                sum += term / (2.0 * k + 1.0);
            }
            2.0 / std::f64::consts::PI.sqrt() * sum
        } else {
            // erfc(a) = e^(−a²)/√π · 1/(a + 1/2/(a + 1/(a + 3/2/(a + ...)))) (Lentz not needed:
            // 60 terms from the tail converge for a >= 3).
            let mut f = a;
            for k in (1..60).rev() {
                f = a + (k as f64 / 2.0) / f;
            }
            1.0 - (-a * a).exp() / std::f64::consts::PI.sqrt() / f
        };
        y.copysign(x)
    }

    #[test]
    fn gelu_tanh_saturates_without_nan() {
        let mut row = [-100.0, 0.0, 100.0];
        bias_act(Activation::GeluTanh, &mut row, &[0.0; 3]);
        assert_eq!(row, [-0.0, 0.0, 100.0]);
    }

    #[test]
    fn tanh_is_within_float32_rounding_and_saturates() {
        let xs: Vec<f32> = grid(20.0, 40_000).map(|x| x as f32).collect();
        let mut row = xs.clone();
        bias_act(Activation::Tanh, &mut row, &vec![0.0; xs.len()]);
        let worst = xs.iter().zip(&row).map(|(&x, &y)| (y as f64 - (x as f64).tanh()).abs()).fold(0.0, f64::max);
        assert!(worst < 3e-7, "absolute error {worst:e}");
        assert_eq!((row[0], row[xs.len() - 1]), (-1.0, 1.0));
    }

    #[test]
    fn layer_norm_and_softmax_match_their_definitions() {
        let norm = Norm { weight: vec![2.0, 2.0, 2.0, 2.0], bias: vec![1.0; 4], eps: 0.0 };
        let mut row = [1.0, 2.0, 3.0, 4.0];
        add_norm(&norm, &mut row, &[0.0; 4], &[0.0; 4]);
        // mean 2.5, variance 1.25.
        let want = [1.0, 2.0, 3.0, 4.0].map(|x: f32| (x - 2.5) / 1.25f32.sqrt() * 2.0 + 1.0);
        assert!(row.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6), "{row:?} vs {want:?}");
        let mut p = [1.0, 2.0, 3.0];
        softmax(&mut p, &[0.0, 0.0, -1e9]);
        let z = 1f32.exp() + 2f32.exp();
        assert!((p[0] - 1f32.exp() / z).abs() < 1e-7 && (p[1] - 2f32.exp() / z).abs() < 1e-7, "{p:?}");
        assert_eq!(p[2], 0.0);
    }
}
