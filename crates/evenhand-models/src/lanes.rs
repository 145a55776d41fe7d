//! Four float32 lanes: WebAssembly's `v128` in the page, a plain array elsewhere (where it only
//! serves the tests of the code built on it; native products go through gemm's kernels).

#[cfg(target_arch = "wasm32")]
mod imp {
    use core::arch::wasm32::*;

    #[derive(Clone, Copy)]
    pub struct F4(v128);

    impl F4 {
        #[inline(always)]
        pub fn zero() -> F4 {
            F4(f32x4_splat(0.0))
        }
        #[inline(always)]
        pub fn splat(v: f32) -> F4 {
            F4(f32x4_splat(v))
        }
        /// Safety: four floats from `at` must be readable.
        #[inline(always)]
        pub unsafe fn load(at: *const f32) -> F4 {
            F4(unsafe { v128_load(at as *const v128) })
        }
        #[inline(always)]
        pub fn add(self, o: F4) -> F4 {
            F4(f32x4_add(self.0, o.0))
        }
        #[inline(always)]
        pub fn mul(self, o: F4) -> F4 {
            F4(f32x4_mul(self.0, o.0))
        }
        /// self + a · b, in one fused instruction where the module is built with relaxed SIMD
        /// (feature `relaxed-simd`; the engine may still round twice, as relaxed allows).
        /// Only a function compiled with the same feature inlines it (see `matmul::Tile::run`).
        #[cfg(feature = "relaxed-simd")]
        #[target_feature(enable = "relaxed-simd")]
        #[inline]
        pub fn mul_add(self, a: F4, b: F4) -> F4 {
            F4(f32x4_relaxed_madd(a.0, b.0, self.0))
        }
        /// self + a · b, rounded twice.
        #[cfg(not(feature = "relaxed-simd"))]
        #[inline(always)]
        pub fn mul_add(self, a: F4, b: F4) -> F4 {
            self.add(a.mul(b))
        }
        #[inline(always)]
        pub fn store(self, out: &mut [f32]) {
            assert!(out.len() >= 4);
            // Safety: out holds four floats (asserted); v128 stores need no alignment.
            unsafe { v128_store(out.as_mut_ptr() as *mut v128, self.0) }
        }
        /// Rows as columns: lane i of out[j] is lane j of rows[i] (eight shuffles).
        #[inline(always)]
        pub fn transpose([a, b, c, d]: [F4; 4]) -> [F4; 4] {
            let (ab_lo, ab_hi) = (i32x4_shuffle::<0, 4, 1, 5>(a.0, b.0), i32x4_shuffle::<2, 6, 3, 7>(a.0, b.0));
            let (cd_lo, cd_hi) = (i32x4_shuffle::<0, 4, 1, 5>(c.0, d.0), i32x4_shuffle::<2, 6, 3, 7>(c.0, d.0));
            [
                F4(i32x4_shuffle::<0, 1, 4, 5>(ab_lo, cd_lo)),
                F4(i32x4_shuffle::<2, 3, 6, 7>(ab_lo, cd_lo)),
                F4(i32x4_shuffle::<0, 1, 4, 5>(ab_hi, cd_hi)),
                F4(i32x4_shuffle::<2, 3, 6, 7>(ab_hi, cd_hi)),
            ]
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    #[derive(Clone, Copy)]
    pub struct F4([f32; 4]);

    impl F4 {
        #[inline(always)]
        pub fn zero() -> F4 {
            F4([0.0; 4])
        }
        #[inline(always)]
        pub fn splat(v: f32) -> F4 {
            F4([v; 4])
        }
        /// Safety: four floats from `at` must be readable.
        #[inline(always)]
        pub unsafe fn load(at: *const f32) -> F4 {
            F4(unsafe { at.cast::<[f32; 4]>().read_unaligned() })
        }
        #[inline(always)]
        pub fn add(self, o: F4) -> F4 {
            F4(std::array::from_fn(|i| self.0[i] + o.0[i]))
        }
        #[inline(always)]
        pub fn mul(self, o: F4) -> F4 {
            F4(std::array::from_fn(|i| self.0[i] * o.0[i]))
        }
        /// self + a · b.
        #[inline(always)]
        pub fn mul_add(self, a: F4, b: F4) -> F4 {
            self.add(a.mul(b))
        }
        #[inline(always)]
        pub fn store(self, out: &mut [f32]) {
            out[..4].copy_from_slice(&self.0);
        }
        /// Rows as columns: lane i of out[j] is lane j of rows[i].
        #[inline(always)]
        pub fn transpose(rows: [F4; 4]) -> [F4; 4] {
            std::array::from_fn(|j| F4(std::array::from_fn(|i| rows[i].0[j])))
        }
    }
}

pub use imp::F4;
