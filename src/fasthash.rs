//! A fast hash map for grouping in-memory keys (record ids, group keys of borrowed strings).
//!
//! The standard map hashes with SipHash-1-3, which resists collision attacks at a cost of
//! several nanoseconds per short key; evaluating 100,000 records hashes several hundred
//! thousand keys, and there SipHash was a visible part of the time (native and wasm alike).
//! Our maps are built and dropped within one evaluation of the user's own file, so
//! resistance to crafted keys buys nothing here. This is the multiply-rotate hash of the
//! Rust compiler ("FxHash"), eight bytes at a time.
//!
//! Only for lookups: nothing may depend on the iteration order of these maps (it differs from
//! the standard map's, which is random anyway).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`FxHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// A new, empty [`FastMap`].
pub fn map<K, V>() -> FastMap<K, V> {
    FastMap::default()
}

/// A new [`FastMap`] with room for `n` entries.
pub fn map_with_capacity<K, V>(n: usize) -> FastMap<K, V> {
    FastMap::with_capacity_and_hasher(n, BuildHasherDefault::default())
}

/// True when no two of `keys` hash alike, which proves them distinct without comparing any
/// two; false when some do (then they may or may not be equal).
pub fn surely_distinct<'a>(keys: impl Iterator<Item = &'a str>) -> bool {
    let mut hashes: Vec<u64> = keys
        .map(|k| {
            let mut h = FxHasher::default();
            h.write(k.as_bytes());
            h.finish()
        })
        .collect();
    hashes.sort_unstable();
    hashes.windows(2).all(|w| w[0] != w[1])
}

/// Values tallied under keys that mostly repeat from one item to the next, as records do (the
/// instances of one template for one model come together): a key equal to the previous one is
/// found by comparing the two, without hashing it (several strings per key, hashed for every
/// one of 100,000 evaluations, were a visible part of an evaluation in wasm). Entries keep the
/// order in which their keys first came.
#[derive(Debug)]
pub struct Runs<K, V> {
    index: FastMap<K, usize>,
    entries: Vec<(K, V)>,
    last: Option<usize>,
}

impl<K: std::hash::Hash + Eq + Clone, V: Default> Default for Runs<K, V> {
    fn default() -> Self {
        Runs { index: map(), entries: vec![], last: None }
    }
}

impl<K: std::hash::Hash + Eq + Clone, V: Default> Runs<K, V> {
    /// The value under `key`, a default one if the key is new.
    pub fn entry(&mut self, key: K) -> &mut V {
        let i = match self.last {
            Some(i) if self.entries[i].0 == key => i,
            _ => {
                let entries = &mut self.entries;
                let i = *self.index.entry(key.clone()).or_insert_with(|| {
                    entries.push((key, V::default()));
                    entries.len() - 1
                });
                self.last = Some(i);
                i
            }
        };
        &mut self.entries[i].1
    }

    /// The entries, in the order their keys first came.
    pub fn into_entries(self) -> Vec<(K, V)> {
        self.entries
    }
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

#[derive(Debug, Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_find_exactly_the_keys_put_in() {
        let mut m = map();
        for k in ["", "a", "ab", "abcdefgh", "abcdefghi", "bench:en_us/1/0:m00:0", "bench:en_us/1/0:m01:0"] {
            assert!(m.insert(k, k.len()).is_none());
        }
        assert_eq!(m.len(), 7);
        assert_eq!(m.get("abcdefghi"), Some(&9));
        assert_eq!(m.get("abcdefgi"), None);
        assert_eq!(m.get("bench:en_us/1/0:m01:0"), Some(&21));
    }

    #[test]
    fn distinct_keys_are_proved_distinct_and_repeats_never_are() {
        let ids: Vec<String> = (0..10_000).map(|i| format!("run:case-{i}:model:0")).collect();
        assert!(surely_distinct(ids.iter().map(String::as_str)));
        assert!(!surely_distinct(ids.iter().map(String::as_str).chain(["run:case-7:model:0"])));
        assert!(surely_distinct(std::iter::empty()));
    }

    #[test]
    fn runs_tally_under_repeated_and_returning_keys() {
        let mut runs: Runs<&str, u32> = Runs::default();
        for k in ["a", "a", "b", "a", "c", "c", "b"] {
            *runs.entry(k) += 1;
        }
        assert_eq!(runs.into_entries(), vec![("a", 3), ("b", 2), ("c", 2)]);
    }

    #[test]
    fn the_hash_is_the_same_on_every_run() {
        let h = |s: &str| {
            let mut f = FxHasher::default();
            f.write(s.as_bytes());
            f.finish()
        };
        assert_eq!(h("record-1"), h("record-1"));
        assert_ne!(h("record-1"), h("record-2"));
    }
}
