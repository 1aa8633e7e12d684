//! State fingerprints: a fast, stable 128-bit hash in two 64-bit lanes, used for
//! visited-state deduplication.
//!
//! The explorer stores only fingerprints, never states, so a fingerprint must be cheap to
//! compute, identical on every platform and run (no random keys, unlike `std`'s `SipHash`
//! with `RandomState`), and well mixed in all its bits (the visited table indexes by the low
//! bits). `FpHasher` folds each written word into two lanes, each with a multiply-rotate
//! step of its own constants, and finishes each with a finaliser of its own (MurmurHash3's
//! for lane A, SplitMix64's for lane B). Lane A is the 64-bit fingerprint searches use by
//! default; with both lanes (`Options::fingerprint_bits = 128`) two states are merged only
//! when two independent 64-bit hashes both coincide. With 64 bits the chance that two of
//! ten million distinct states collide is about 3 in a million; with 128, about 1e-25.
//!
//! A fingerprint built from *parts* (a process's cached part, a message's body hash, a
//! keyspace's content hash) must take each part whole: a part is a [`Fingerprint`] and is
//! written with [`FpHasher::write_fp`] (or as a `u128`, which is the same), so that lane B
//! of the whole is built from lane B of its parts. A part written as its lane A alone
//! (`finish`, a `u64`) would make lane B collide whenever that part's lane A did, and the
//! 128-bit estimate would no longer bound the search.
//!
//! **Times that move linearly.** A world hashes a process's times relative to `now`, so
//! every tick of true time changes the part of every process that holds a deadline, and
//! recomputing those parts was most of what a time step cost. A time written with
//! [`FpHasher::write_time_left`] or [`FpHasher::write_time_since`] enters lane A linearly:
//! the hasher mixes a tag into its running state and adds `c * value` to a separate sum,
//! with `c` an odd word taken from the running state at that point (so it depends on
//! everything hashed before, never on the value), and the finished lane is the finalised
//! running state plus that sum. While no such time reaches its clamp, moving `now` on by
//! `d` changes the part by exactly `-d * rate` ([`TimeShift`]), so a cached part can be
//! moved instead of recomputed, and is bit for bit the part a recomputation gives. Two
//! parts with the same running state differ by `sum c_i * (v_i - w_i)`, which is zero mod
//! 2^64 for a single differing time only if the times are equal (`c` is odd), and for
//! several with the chance of a random 64-bit hash. Lane B mixes the values as ever (wide
//! parts are never shifted).

use std::hash::{Hash, Hasher};

/// A 128-bit state fingerprint: lane A in the low 64 bits (never zero: zero marks an empty
/// slot in the visited table), lane B in the high 64 bits.
pub type Fingerprint = u128;

/// Lane A of `fp`: the 64-bit fingerprint.
#[inline]
pub fn lane_a(fp: Fingerprint) -> u64 {
    fp as u64
}

/// Lane B of `fp`.
#[inline]
pub fn lane_b(fp: Fingerprint) -> u64 {
    (fp >> 64) as u64
}

/// The fingerprint whose lanes are `a` and `b`.
#[inline]
pub fn from_lanes(a: u64, b: u64) -> Fingerprint {
    (u128::from(b) << 64) | u128::from(a)
}

/// `fp` with its lanes swapped (an involution): ordering by it orders by lane A, then lane
/// B. Choices that compare fingerprints (a symmetry class's representative) use it, so
/// that they are the 64-bit fingerprints' choices wherever lanes A differ.
#[inline]
pub fn lanes_in_order(fp: Fingerprint) -> u128 {
    fp.rotate_left(64)
}

/// A fingerprint kept as two words, for fields of values the search copies and moves on its
/// hot path (a world's process cells, keyspaces, successors): a `u128` field gives its
/// struct 16-byte alignment, and the padding grows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Lanes([u64; 2]);

impl From<Fingerprint> for Lanes {
    #[inline]
    fn from(fp: Fingerprint) -> Lanes {
        Lanes([lane_a(fp), lane_b(fp)])
    }
}

impl From<Lanes> for Fingerprint {
    #[inline]
    fn from(lanes: Lanes) -> Fingerprint {
        from_lanes(lanes.0[0], lanes.0[1])
    }
}

const K: u64 = 0x517C_C1B7_2722_0A95;
const K_B: u64 = 0x9E37_79B9_7F4A_7C15;

/// A deterministic streaming hasher for fingerprints, in two lanes (lane A alone when made
/// with [`FpHasher::of_width`]`(false)`).
#[derive(Clone, Debug)]
pub struct FpHasher {
    h: u64,
    b: u64,
    wide: bool,
    /// The sum of `c * value` over the times written linearly (lane A).
    linear: u64,
    /// How the finished lane A falls per ms of true time: the sum of the `c` of times
    /// counting down, less those of times counting up.
    rate: u64,
    /// True time (ms) the linear times may move on by and stay linear (strictly less).
    horizon_ms: u64,
}

/// How a fingerprint part moves with true time: `d` ms later, for `d < horizon_ms`, its
/// lane A is `lane_a - d * rate` (see the module doc); beyond, or with a horizon of 0, it
/// must be computed again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeShift {
    pub rate: u64,
    pub horizon_ms: u64,
}

impl TimeShift {
    /// A part that must be computed again whenever `now` moves.
    pub const NONE: TimeShift = TimeShift {
        rate: 0,
        horizon_ms: 0,
    };

    /// Lane A of the part `d_ms` later, if the part moves that far.
    #[inline]
    pub fn shifted(self, lane_a: u64, d_ms: u64) -> Option<u64> {
        (d_ms < self.horizon_ms).then(|| lane_a.wrapping_sub(d_ms.wrapping_mul(self.rate)))
    }
}

/// Mixed before a time written linearly, and before one at its clamp.
const TIME_DOWN_TAG: u64 = 0x7d1e_a5e5_0000_0001;
const TIME_UP_TAG: u64 = 0x7d1e_a5e5_0000_0002;
const TIME_CLAMPED_TAG: u64 = 0x7d1e_a5e5_0000_0003;
/// Mixed instead of a far time in shape mode (see `census`).
#[cfg(feature = "census")]
const TIME_FAR_TAG: u64 = 0x7d1e_a5e5_0000_0004;

impl Default for FpHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl FpHasher {
    /// A hasher of both lanes.
    pub fn new() -> Self {
        Self::of_width(true)
    }

    /// A hasher of both lanes when `wide`, of lane A alone otherwise: for fingerprints that
    /// only 64-bit searches read, lane B stays at its start, which saves half the hashing.
    pub fn of_width(wide: bool) -> Self {
        FpHasher {
            h: 0x243F_6A88_85A3_08D3,
            b: 0x1319_8A2E_0370_7344,
            wide,
            linear: 0,
            rate: 0,
            horizon_ms: u64::MAX,
        }
    }

    /// Feeds a time counting down, `left_ms` until some deadline, clamped below at
    /// `floor_ms` (the value hashed is `left_ms.max(floor_ms)`): linearly while above the
    /// clamp (see the module doc).
    #[inline]
    pub fn write_time_left(&mut self, left_ms: i64, floor_ms: i64) {
        let room_ms = left_ms as i128 - floor_ms as i128;
        self.write_time(TIME_DOWN_TAG, left_ms, floor_ms, room_ms);
    }

    /// Feeds a time counting up, `elapsed_ms` since some event, clamped above at
    /// `ceiling_ms` (the value hashed is `elapsed_ms.min(ceiling_ms)`): linearly while below
    /// the clamp.
    #[inline]
    pub fn write_time_since(&mut self, elapsed_ms: i64, ceiling_ms: i64) {
        let room_ms = ceiling_ms as i128 - elapsed_ms as i128;
        self.write_time(TIME_UP_TAG, elapsed_ms, ceiling_ms, room_ms);
    }

    /// Says that what was hashed depends on true time otherwise than through the two
    /// writes above: the part cannot be moved with time.
    #[inline]
    pub fn time_dependent(&mut self) {
        self.horizon_ms = 0;
    }

    /// A time `value_ms` that moves with true time in the direction `tag` says, `room_ms`
    /// from its clamp `clamp_ms`: linearly while it has room (the sum takes `c * value`, the
    /// rate `c` with the sign of its direction, the horizon the room), the clamp otherwise.
    #[inline]
    fn write_time(&mut self, tag: u64, value_ms: i64, clamp_ms: i64, room_ms: i128) {
        #[cfg(feature = "census")]
        if let Some(mode) = crate::census::shape_mode() {
            if crate::census::is_far(mode, room_ms) {
                self.time_dependent();
                self.mix(TIME_FAR_TAG);
                return;
            }
        }
        if room_ms <= 0 {
            self.mix(TIME_CLAMPED_TAG);
            self.mix(clamp_ms as u64);
            return;
        }
        self.mix_lanes(tag, tag ^ value_ms as u64);
        let c = self.h | 1;
        self.linear = self.linear.wrapping_add(c.wrapping_mul(value_ms as u64));
        self.rate = if tag == TIME_UP_TAG {
            self.rate.wrapping_sub(c)
        } else {
            self.rate.wrapping_add(c)
        };
        self.horizon_ms = self.horizon_ms.min(room_ms.min(u64::MAX as i128) as u64);
    }

    /// The finished part with how it moves with time (never, for a wide part: lane B
    /// mixes its times).
    #[inline]
    pub fn finish_part(&self) -> (Fingerprint, TimeShift) {
        let shift = if self.wide {
            TimeShift::NONE
        } else {
            TimeShift {
                rate: self.rate,
                horizon_ms: self.horizon_ms,
            }
        };
        (
            from_lanes(
                finalise_a(self.h).wrapping_add(self.linear),
                finalise_b(self.b),
            ),
            shift,
        )
    }

    /// Whether this hasher computes lane B (a part hashed for it must be made alike:
    /// `FpHasher::of_width(h.is_wide())`).
    pub fn is_wide(&self) -> bool {
        self.wide
    }

    /// Feeds `word` to both lanes.
    #[inline]
    fn mix(&mut self, word: u64) {
        self.mix_lanes(word, word);
    }

    /// Feeds `a` to lane A and `b` to lane B.
    #[inline]
    fn mix_lanes(&mut self, a: u64, b: u64) {
        self.h = (self.h.rotate_left(5) ^ a).wrapping_mul(K);
        if self.wide {
            self.b = (self.b.rotate_left(29) ^ b).wrapping_mul(K_B);
        }
    }

    /// Feeds a part of a fingerprint whole: its lane A to lane A, its lane B to lane B.
    #[inline]
    pub fn write_fp(&mut self, part: Fingerprint) {
        self.mix_lanes(lane_a(part), lane_b(part));
    }

    /// Both lanes, finished: the 128-bit fingerprint ([`Hasher::finish`] is its lane A).
    #[inline]
    pub fn finish_wide(&self) -> Fingerprint {
        from_lanes(self.finish(), finalise_b(self.b))
    }
}

/// Lane A's finaliser (MurmurHash3's).
#[inline]
fn finalise_a(mut z: u64) -> u64 {
    z ^= z >> 33;
    z = z.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    z ^= z >> 33;
    z = z.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    z ^ (z >> 33)
}

/// Lane B's finaliser (SplitMix64's).
#[inline]
fn finalise_b(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
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
    /// A `u128` is taken as a [`Fingerprint`] part ([`FpHasher::write_fp`]): the only
    /// 128-bit values the models hash are fingerprints.
    #[inline]
    fn write_u128(&mut self, i: u128) {
        self.write_fp(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.mix(i as u64);
    }
    #[inline]
    fn write_i64(&mut self, i: i64) {
        self.mix(i as u64);
    }
    /// Lane A, finished: the 64-bit fingerprint (never zero).
    #[inline]
    fn finish(&self) -> u64 {
        let z = finalise_a(self.h).wrapping_add(self.linear);
        z | ((z == 0) as u64)
    }
}

/// The fingerprint of any hashable value.
#[inline]
pub fn fingerprint_of<T: Hash + ?Sized>(value: &T) -> Fingerprint {
    let mut h = FpHasher::new();
    value.hash(&mut h);
    h.finish_wide()
}

/// Combines a fingerprint with extra per-path data (used for `eventually` obligations).
#[inline]
pub fn combine(fp: Fingerprint, extra: u64) -> Fingerprint {
    let mut h = FpHasher::new();
    h.write_fp(fp);
    h.write_u64(extra);
    h.finish_wide()
}

/// Combines a fingerprint with another fingerprint `part`, lane by lane (used for the open
/// deadlines of bounded-liveness obligations, hashed on their own).
#[inline]
pub fn combine_parts(fp: Fingerprint, part: Fingerprint) -> Fingerprint {
    let mut h = FpHasher::new();
    h.write_fp(fp);
    h.write_fp(part);
    h.finish_wide()
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
        // Lane A is the 64-bit fingerprint searches used before lane B existed.
        assert_eq!(lane_a(fingerprint_of(&(1u8, 2u32, "abc"))), PINNED_TUPLE);
        assert_eq!(lane_b(fingerprint_of(&(1u8, 2u32, "abc"))), PINNED_TUPLE_B);
        assert_ne!(lane_a(fingerprint_of(&0u64)), 0);
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

    #[test]
    fn a_part_is_taken_whole_lane_by_lane() {
        let whole = |part: Fingerprint| {
            let mut h = FpHasher::new();
            h.write_u64(7);
            h.write_fp(part);
            h
        };
        // Parts that agree in lane A only: the same 64-bit fingerprint, other 128-bit ones.
        let (one, other) = (whole(from_lanes(5, 1)), whole(from_lanes(5, 2)));
        assert_eq!(one.finish(), other.finish());
        assert_ne!(one.finish_wide(), other.finish_wide());
        assert_eq!(lane_a(one.finish_wide()), one.finish());
        // Parts that agree in lane B only: other lanes A.
        assert_ne!(
            whole(from_lanes(5, 1)).finish(),
            whole(from_lanes(6, 1)).finish()
        );
        // A part written as a u128 is a part.
        let mut as_u128 = FpHasher::new();
        7u64.hash(&mut as_u128);
        from_lanes(5, 1).hash(&mut as_u128);
        assert_eq!(as_u128.finish_wide(), one.finish_wide());
    }

    #[test]
    fn the_lanes_are_different_hashes() {
        // Over many small inputs, neither lane is a function of the other.
        let mut pairs: Vec<(u64, u64)> = (0u64..20_000)
            .map(|i| {
                let fp = fingerprint_of(&(i, i % 7));
                (lane_a(fp), lane_b(fp))
            })
            .collect();
        assert!(pairs.iter().all(|&(a, b)| a != b));
        pairs.sort_unstable();
        pairs.dedup_by_key(|p| p.0);
        assert_eq!(pairs.len(), 20_000, "lane A collided on small inputs");
        let mut b: Vec<u64> = pairs.iter().map(|p| p.1).collect();
        b.sort_unstable();
        b.dedup();
        assert_eq!(b.len(), 20_000, "lane B collided on small inputs");
    }

    /// A part of a few times hashed at now + d, against the part hashed at now moved by d.
    #[test]
    fn a_part_moved_with_time_is_the_part_hashed_later_until_a_time_reaches_its_clamp() {
        // A deadline 30 ms away (floor -1), 5 ms since an event (ceiling 12), a constant.
        let part_at = |d: i64| {
            let mut h = FpHasher::of_width(false);
            h.write_u64(7);
            h.write_time_left(30 - d, -1);
            h.write_time_since(5 + d, 12);
            h.write_u64(9);
            h.finish_part()
        };
        let (first, shift) = part_at(0);
        assert_eq!(
            shift.horizon_ms, 7,
            "the elapsed time reaches its ceiling first"
        );
        for d in 1..7 {
            let (later, _) = part_at(d as i64);
            assert_eq!(
                shift.shifted(lane_a(first), d),
                Some(lane_a(later)),
                "{d} ms"
            );
            assert_ne!(later, first);
        }
        assert_eq!(shift.shifted(lane_a(first), 7), None);
        // At the clamp, values beyond it are one value, which no longer moves with time
        // (the other time still does).
        let clamped = |left: i64| {
            let mut h = FpHasher::of_width(false);
            h.write_time_left(left, -1);
            h.finish_part()
        };
        assert_eq!(clamped(-1), clamped(-40));
        assert_ne!(clamped(0), clamped(-1));
        assert_eq!(clamped(-3).1.horizon_ms, u64::MAX);
        assert_eq!(clamped(4).1.horizon_ms, 5);
        // Marked dependent, or wide: never moved.
        let mut h = FpHasher::of_width(false);
        h.write_time_left(100, 0);
        h.time_dependent();
        assert_eq!(h.finish_part().1.horizon_ms, 0);
        let mut wide = FpHasher::of_width(true);
        wide.write_time_left(100, 0);
        assert_eq!(wide.finish_part().1, TimeShift::NONE);
    }

    /// Different times in the same places give different parts, in both lanes.
    #[test]
    fn linear_times_keep_parts_apart() {
        let mut parts: Vec<Fingerprint> = (0i64..60)
            .flat_map(|a| (0i64..60).map(move |b| (a, b)))
            .map(|(a, b)| {
                let mut h = FpHasher::new();
                h.write_time_left(a, 0);
                h.write_time_since(b, 1_000);
                h.finish_part().0
            })
            .collect();
        parts.sort_unstable();
        parts.dedup();
        assert_eq!(parts.len(), 3_600);
        let mut lanes: Vec<u64> = parts.iter().map(|&p| lane_a(p)).collect();
        lanes.sort_unstable();
        lanes.dedup();
        assert_eq!(lanes.len(), 3_600, "lane A alone collided");
    }

    const PINNED_TUPLE: u64 = 3_440_567_663_519_966_454;
    const PINNED_TUPLE_B: u64 = 9_380_963_782_331_896_150;
}
