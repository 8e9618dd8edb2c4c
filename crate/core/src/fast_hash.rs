//! A fast hasher for the maps built on every extraction (keys are node indices and short
//! strings). std's SipHash resists chosen-key flooding at several times the cost; here the
//! seed is drawn per map from std's `RandomState`, so a page cannot pre-compute collisions.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};

/// Multiply-rotate hashing in the style of rustc's FxHasher, started from a random seed.
pub struct FastHasher(u64);

const K: u64 = 0xf135_7aea_2e62_a9c5;

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let mut tail = 0u64;
        for (i, b) in chunks.remainder().iter().enumerate() {
            tail |= (*b as u64) << (8 * i);
        }
        self.write_u64(tail ^ bytes.len() as u64);
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(n as u64);
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(26) ^ n).wrapping_mul(K);
    }
    fn finish(&self) -> u64 {
        // Spread the high bits, which the multiply mixes best, into the low ones the table uses.
        self.0 ^ (self.0 >> 29)
    }
}

#[derive(Clone)]
pub struct FastState(u64);

impl Default for FastState {
    fn default() -> Self {
        FastState(RandomState::new().hash_one(0x5167_6874u64))
    }
}

impl BuildHasher for FastState {
    type Hasher = FastHasher;
    fn build_hasher(&self) -> FastHasher {
        FastHasher(self.0)
    }
}

pub type FastMap<K, V> = HashMap<K, V, FastState>;
pub type FastSet<K> = HashSet<K, FastState>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_keep_every_key_apart() {
        let mut map: FastMap<(Option<u32>, String), u32> = FastMap::default();
        for i in 0..10_000u32 {
            map.insert((Some(i % 97), format!("k{i}")), i);
        }
        assert_eq!(map.len(), 10_000);
        assert_eq!(map.get(&(Some(5), "k5".to_string())), Some(&5));
        assert_eq!(map.get(&(Some(6), "k5".to_string())), None);
    }

    #[test]
    fn equal_lengths_with_different_tails_differ() {
        let state = FastState::default();
        assert_ne!(state.hash_one("ab"), state.hash_one("ba"));
        assert_ne!(state.hash_one(""), state.hash_one("\0"));
    }
}
