//! The one seeded RNG type, and the stable hash that derives per-item seeds.
//!
//! Every random choice is drawn from ChaCha8 seeded by a hash of (run seed, what is being
//! drawn), so a result never depends on the order in which items are processed, and the
//! same seed gives the same numbers natively and in the browser.

use rand::SeedableRng;
pub use rand::rngs::ChaCha8Rng as Rng;

/// FNV-1a, 64 bit: stable across platforms and Rust versions (std's hashers promise neither).
pub fn stable_hash(parts: &[&[u8]]) -> u64 {
    let mut h = StableHash::new();
    for part in parts {
        h.write(part);
        h.end_part();
    }
    h.finish()
}

/// [`stable_hash`] fed a piece at a time, for bytes that are not in one slice (a file held
/// by JavaScript, copied over in chunks).
#[derive(Debug, Clone, Copy)]
pub struct StableHash(u64);

impl StableHash {
    const PRIME: u64 = 0x0100_0000_01b3;

    pub fn new() -> StableHash {
        StableHash(0xcbf2_9ce4_8422_2325)
    }

    /// More bytes of the current part.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    /// Ends a part with a separator, so that ("ab","c") and ("a","bc") differ.
    pub fn end_part(&mut self) {
        self.0 ^= 0xff;
        self.0 = self.0.wrapping_mul(Self::PRIME);
    }

    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for StableHash {
    fn default() -> Self {
        StableHash::new()
    }
}

/// An RNG for one item of a seeded computation.
pub fn rng_for(seed: u64, parts: &[&[u8]]) -> Rng {
    let mut all: Vec<&[u8]> = Vec::with_capacity(parts.len() + 1);
    let seed_bytes = seed.to_le_bytes();
    all.push(&seed_bytes);
    all.extend_from_slice(parts);
    Rng::seed_from_u64(stable_hash(&all))
}

/// A standard normal draw (Box-Muller on libm, so that it is bit-identical on every target).
pub fn standard_normal(rng: &mut Rng) -> f64 {
    use rand::RngExt;
    let u1: f64 = 1.0 - rng.random::<f64>(); // (0, 1], so ln is finite
    let u2: f64 = rng.random::<f64>();
    libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(std::f64::consts::TAU * u2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn same_seed_same_draws_and_order_independent() {
        let a: Vec<f64> = (0..3).map(|_| rng_for(7, &[b"x"]).random()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(rng_for(7, &[b"x"]).random::<u64>(), rng_for(8, &[b"x"]).random::<u64>());
        assert_ne!(stable_hash(&[b"ab", b"c"]), stable_hash(&[b"a", b"bc"]));
    }

    #[test]
    fn a_part_hashed_in_pieces_hashes_as_one() {
        let text = b"record_id,response\nr1,No\n";
        let mut h = StableHash::new();
        for piece in text.chunks(5) {
            h.write(piece);
        }
        h.end_part();
        assert_eq!(h.finish(), stable_hash(&[text]));
        assert_ne!(h.finish(), stable_hash(&[&text[..7], &text[7..]]));
    }

    #[test]
    fn known_values_pin_the_stream() {
        // If a dependency update changed the hash or the ChaCha8 stream, saved bundles would
        // no longer reproduce; this test says so first.
        assert_eq!(stable_hash(&[b"evenhand"]), PINNED_HASH);
        const PINNED_HASH: u64 = 0xfadc_4d55_9b25_5529;
        const PINNED_DRAW: u64 = 15_456_923_738_915_574_678;
        assert_eq!(rng_for(42, &[b"evenhand"]).random::<u64>(), PINNED_DRAW);
    }
}
