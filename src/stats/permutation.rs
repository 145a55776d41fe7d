//! Seeded relabellings for permutation tests.
//!
//! Permutation number `k` (0-based) of a test named `what` draws from its own stream,
//! `rng_for(seed, &[what, k as u64 little-endian])` (ChaCha8), and shuffles a fresh copy of
//! the observed labels with Fisher–Yates: for i from n−1 down to 1, swap position i with a
//! position drawn uniformly from 0..=i. The uniform draw is Lemire's multiply-and-reject on
//! 32-bit outputs, written out here so that no library update can change it. Because each
//! permutation depends only on (seed, k), running them in chunks, in blocks or in another
//! order gives the same relabellings.

use crate::rng::{Rng, rng_for};
use rand::Rng as _;

/// A uniform integer in 0..n (n ≥ 1), unbiased.
fn below(rng: &mut Rng, n: u32) -> u32 {
    let mut m = u64::from(rng.next_u32()) * u64::from(n);
    if (m as u32) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u32) < threshold {
            m = u64::from(rng.next_u32()) * u64::from(n);
        }
    }
    (m >> 32) as u32
}

/// Writes permutation `k` of `labels` into `out` (same length).
pub fn relabel(seed: u64, what: &[u8], k: usize, labels: &[u32], out: &mut [u32]) {
    out.copy_from_slice(labels);
    let mut rng = rng_for(seed, &[what, &(k as u64).to_le_bytes()]);
    for i in (1..out.len()).rev() {
        let j = below(&mut rng, (i + 1) as u32) as usize;
        out.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_reproducible_and_keep_the_counts() {
        let labels = [0, 0, 0, 1, 1, 2, 2, 2];
        let (mut a, mut b) = ([0u32; 8], [0u32; 8]);
        relabel(7, b"t", 3, &labels, &mut a);
        relabel(7, b"t", 3, &labels, &mut b);
        assert_eq!(a, b);
        let mut sorted = a;
        sorted.sort();
        assert_eq!(sorted, labels);
        relabel(7, b"t", 4, &labels, &mut b);
        assert_ne!(a, b);
    }

    #[test]
    fn all_orderings_of_three_are_about_equally_likely() {
        let mut counts = std::collections::HashMap::new();
        let mut out = [0u32; 3];
        for k in 0..6000 {
            relabel(1, b"u", k, &[0, 1, 2], &mut out);
            *counts.entry(out).or_insert(0) += 1;
        }
        assert_eq!(counts.len(), 6);
        // 1000 expected each; sd ≈ 29, so 150 is over 5 sd.
        assert!(counts.values().all(|&c| (850..1150).contains(&c)), "{counts:?}");
    }
}
