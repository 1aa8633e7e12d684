//! Our own small pseudo-random number generator, so that a seed keeps its meaning forever.
//!
//! A seed is part of a replay token: `(scenario, seed)` must name the same run after any
//! dependency upgrade. We therefore do not borrow a generator from a crate whose algorithm may
//! change; we use xoshiro256** (Blackman and Vigna), seeded through SplitMix64, and a test pins
//! its first outputs for a few seeds.

/// xoshiro256** seeded by SplitMix64. Deterministic across platforms and builds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Prng {
    s: [u64; 4],
}

impl Prng {
    /// A generator whose whole output stream is determined by `seed`.
    pub fn from_seed(seed: u64) -> Self {
        let mut sm = seed;
        let mut next = || {
            sm = sm.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = sm;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let s = [next(), next(), next(), next()];
        debug_assert!(s != [0; 4], "xoshiro state must not be all zero");
        Prng { s }
    }

    /// The next 64 uniformly distributed bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform integer in `0..n` (Lemire's multiply-and-reject, no modulo bias).
    ///
    /// # Panics
    /// If `n == 0`: there is nothing to choose from, which is a caller bug.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(
            n > 0,
            "Prng::below(0): empty range (internal bug in the caller)"
        );
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = (self.next_u64() as u128) * (n as u128);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }

    /// A uniform index into a slice of length `len`.
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// True with probability `numerator / denominator`.
    pub fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        assert!(denominator > 0 && numerator <= denominator);
        self.below(denominator) < numerator
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// These numbers are the meaning of a seed. If this test fails, every stored seed and
    /// trace changed meaning: do not update the numbers, restore the generator.
    #[test]
    fn first_outputs_are_pinned() {
        let mut p = Prng::from_seed(0);
        let got: Vec<u64> = (0..4).map(|_| p.next_u64()).collect();
        assert_eq!(got, PINNED_SEED_0);
        let mut p = Prng::from_seed(42);
        let got: Vec<u64> = (0..4).map(|_| p.next_u64()).collect();
        assert_eq!(got, PINNED_SEED_42);
    }

    #[test]
    fn below_is_pinned_and_in_range() {
        let mut p = Prng::from_seed(7);
        let got: Vec<u64> = (0..8).map(|_| p.below(10)).collect();
        assert_eq!(got, PINNED_BELOW_10_SEED_7);
        let mut p = Prng::from_seed(9);
        for n in 1..200 {
            assert!(p.below(n) < n);
        }
    }

    #[test]
    fn below_is_roughly_uniform() {
        let mut p = Prng::from_seed(1);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[p.index(6)] += 1;
        }
        for c in counts {
            assert!((9_500..10_500).contains(&c), "counts {counts:?}");
        }
    }

    const PINNED_SEED_0: [u64; 4] = [
        0x99ec_5f36_cb75_f2b4,
        0xbf6e_1f78_4956_452a,
        0x1a5f_849d_4933_e6e0,
        0x6aa5_94f1_262d_2d2c,
    ];
    const PINNED_SEED_42: [u64; 4] = [
        0x1578_0b2e_0c2e_c716,
        0x6104_d986_6d11_3a7e,
        0xae17_5332_39e4_99a1,
        0xecb8_ad47_03b3_60a1,
    ];
    // Computed by an independent implementation of xoshiro256** and Lemire's method.
    const PINNED_BELOW_10_SEED_7: [u64; 8] = [7, 2, 8, 9, 9, 8, 0, 1];
}
