//! State fingerprints: a fast, stable 64-bit hash used for visited-state deduplication.
//!
//! The explorer stores only fingerprints, never states, so a fingerprint must be cheap to
//! compute, identical on every platform and run (no random keys, unlike `std`'s `SipHash`
//! with `RandomState`), and well mixed in all 64 bits (the visited table indexes by the low
//! bits). `FpHasher` folds each written word with a multiply-rotate step and `finish`
//! applies the MurmurHash3 finaliser. With 64-bit fingerprints the chance that two of
//! ten million distinct states collide is about 3 in a million.

use std::hash::{Hash, Hasher};

/// A 64-bit state fingerprint. Never zero (zero marks an empty slot in the visited table).
pub type Fingerprint = u64;

const K: u64 = 0x517C_C1B7_2722_0A95;

/// A deterministic streaming hasher for fingerprints.
#[derive(Clone, Debug, Default)]
pub struct FpHasher {
    h: u64,
}

impl FpHasher {
    pub fn new() -> Self {
        FpHasher {
            h: 0x243F_6A88_85A3_08D3,
        }
    }

    #[inline]
    fn mix(&mut self, word: u64) {
        self.h = (self.h.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FpHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.mix(u64::from_le_bytes(c.try_into().expect("chunk of 8")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(buf) ^ ((rest.len() as u64) << 59));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.mix(i as u64);
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.mix(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.mix(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.mix(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.mix(i as u64);
    }
    #[inline]
    fn write_i64(&mut self, i: i64) {
        self.mix(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        let mut z = self.h;
        z ^= z >> 33;
        z = z.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        z ^= z >> 33;
        z = z.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
        z ^= z >> 33;
        z | ((z == 0) as u64)
    }
}

/// The fingerprint of any hashable value.
#[inline]
pub fn fingerprint_of<T: Hash + ?Sized>(value: &T) -> Fingerprint {
    let mut h = FpHasher::new();
    value.hash(&mut h);
    h.finish()
}

/// Combines a fingerprint with extra per-path data (used for `eventually` obligations).
#[inline]
pub fn combine(fp: Fingerprint, extra: u64) -> Fingerprint {
    let mut h = FpHasher::new();
    h.write_u64(fp);
    h.write_u64(extra);
    h.finish()
}

/// The probability that two of `states` distinct states share a `bits`-bit fingerprint,
/// if fingerprints are uniformly random: the birthday bound `1 - exp(-n(n-1) / 2^(bits+1))`
/// (the estimate Stern and Dill give for hash compaction, and TLC prints). A search that
/// stores fingerprints may have merged two such states, and so missed the successors of
/// one of them; this is the chance of that.
pub fn collision_probability(states: u64, bits: u32) -> f64 {
    let n = states as f64;
    let pairs_over_space = n * (n - 1.0).max(0.0) / 2f64.powi(bits as i32 + 1);
    -(-pairs_over_space).exp_m1()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_pinned_and_never_zero() {
        assert_eq!(fingerprint_of(&(1u8, 2u32, "abc")), PINNED_TUPLE);
        assert_ne!(fingerprint_of(&0u64), 0);
        assert_ne!(fingerprint_of(&(1u8, 2u8)), fingerprint_of(&(2u8, 1u8)));
    }

    #[test]
    fn collision_probability_is_the_birthday_bound() {
        assert_eq!(collision_probability(0, 64), 0.0);
        assert_eq!(collision_probability(1, 64), 0.0);
        // Two states, 2 bits: one pair in 4 values, 1 - e^(-1/4).
        let two = collision_probability(2, 2);
        assert!((two - (1.0 - (-0.25f64).exp())).abs() < 1e-12, "{two}");
        // Small probabilities: about x = n(n-1)/2^65, below it by x^2/2 (relative x/2).
        let n = 69_711_551f64;
        let x = n * (n - 1.0) / 2f64.powi(65);
        let p = collision_probability(69_711_551, 64);
        assert!((p / (x - x * x / 2.0) - 1.0).abs() < 1e-6, "{p} vs {x}");
        assert!(p < x && x - p < x * x, "{p} vs {x}");
        assert!(p > 1e-4 && p < 2e-4, "{p}");
        // Ten million states: about 3 in a million, as the module doc says.
        let ten_million = collision_probability(10_000_000, 64);
        assert!((2.5e-6..3.0e-6).contains(&ten_million), "{ten_million}");
        // Almost certain once n is far beyond 2^(bits/2).
        assert!(collision_probability(1 << 20, 32) > 0.99);
    }

    const PINNED_TUPLE: u64 = 3_440_567_663_519_966_454;
}
