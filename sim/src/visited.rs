//! The visited set: fingerprints in one flat open-addressing table, 8 bytes a slot (16 for
//! 128-bit fingerprints).
//!
//! Exhaustive search spends most of its memory here, so there is no per-entry heap
//! allocation, no stored state and no parent pointer: a slot is a bare `u64`, lane A of a
//! fingerprint, zero meaning empty. Linear probing keeps lookups in one or two cache lines.
//! The table doubles in place when it is 3/4 full, so it holds between 10.7 and 21.3 bytes
//! per state, with no transient second table. A wide set (128-bit fingerprints) keeps lane
//! B beside lane A in a 16-byte slot (one cache line holds both), compared only when lane A
//! matches, so two fingerprints that share lane A take two slots; a narrow set ignores lane
//! B (it is a set of 64-bit fingerprints).
//!
//! A narrow, exact set asks a small cache of the fingerprints met lately first
//! (`recent.rs`), which answers most repeated lookups without the table's cache miss.
//!
//! With hash compaction (`VisitedSet::compact`), a table of 4-byte slots sized for the
//! states a search plans to store comes first (`compact.rs`), and this table takes only
//! the states beyond the plan, whole.
//!
//! Assertions marked "internal bug" state the table's invariants: a power-of-two size
//! (the mask), and a growth that keeps every fingerprint.

mod compact;
mod recent;

use crate::fingerprint::{from_lanes, lane_a, lane_b, Fingerprint};
pub use compact::Compaction;
use compact::{CompactTable, Probe};
use recent::Recent;

const MIN_CAPACITY: usize = 1 << 10;

/// A set of fingerprints whose lane A is not zero.
#[derive(Clone, Debug)]
pub struct VisitedSet {
    /// The slots: lane A alone in a narrow set, lane A then lane B in a wide one (both
    /// lanes of a slot in one cache line).
    words: Vec<u64>,
    /// Words a slot, as a shift: 0 in a narrow set, 1 in a wide one.
    shift: u32,
    len: usize,
    /// Under hash compaction, the compact table in front of the slots (which then hold
    /// only the states beyond its plan), and the bits a slot's match is left to chance.
    compact: Option<(CompactTable, u32)>,
    /// Lane A of the fingerprints met lately, asked before the table (narrow, exact sets
    /// only): see [`Recent`].
    recent: Recent,
}

impl Default for VisitedSet {
    fn default() -> Self {
        Self::new()
    }
}

impl VisitedSet {
    pub fn new() -> Self {
        Self::with_capacity(MIN_CAPACITY)
    }

    /// A set of 64-bit fingerprints (lane A) that can hold `states` before its first resize.
    pub fn with_capacity(states: usize) -> Self {
        Self::with_capacity_and_width(states, false)
    }

    /// A set that can hold `states` fingerprints before its first resize, of 128 bits when
    /// `wide`, of 64 (lane A) otherwise.
    pub fn with_capacity_and_width(states: usize, wide: bool) -> Self {
        let slots = (states.saturating_mul(4) / 3 + 1)
            .next_power_of_two()
            .max(MIN_CAPACITY);
        assert!(
            slots.is_power_of_two(),
            "internal bug: the table's size must be a power of two (its mask)"
        );
        let shift = u32::from(wide);
        VisitedSet {
            words: vec![0; slots << shift],
            shift,
            len: 0,
            compact: None,
            recent: Recent::new(),
        }
    }

    /// A set under hash compaction: a compact table for `planned` states (see `compact.rs`),
    /// then whole 64-bit fingerprints; `shards`: how many sets a parallel search splits its
    /// states among by the fingerprint's high bits (1 for a set of its own).
    pub fn compact(planned: usize, shards: usize) -> Self {
        let shard_bits = shards.max(1).next_power_of_two().trailing_zeros();
        VisitedSet {
            compact: Some((CompactTable::for_states(planned), 32 - shard_bits)),
            ..Self::with_capacity_and_width(0, false)
        }
    }

    /// A set for a search: compact for `planned` states under hash compaction (`shards` as
    /// for [`VisitedSet::compact`]), otherwise sized for `expected` fingerprints of 128
    /// bits when `wide`.
    pub fn for_search(expected: usize, wide: bool, planned: Option<usize>, shards: usize) -> Self {
        match planned {
            Some(planned) => Self::compact(planned, shards),
            None => Self::with_capacity_and_width(expected, wide),
        }
    }

    /// What hash compaction did in this set, if it is compact.
    pub fn compaction(&self) -> Option<Compaction> {
        self.compact.as_ref().map(|(table, match_bits)| Compaction {
            planned_states: table.room() as u64,
            slots: table.slots() as u64,
            stored: table.len() as u64,
            stored_whole: self.len as u64,
            comparisons: table.comparisons(),
            match_bits: *match_bits,
        })
    }

    /// Whether the set tells fingerprints apart by both lanes.
    pub fn is_wide(&self) -> bool {
        self.shift == 1
    }

    /// Number of fingerprints stored.
    pub fn len(&self) -> usize {
        self.len + self.compact.as_ref().map_or(0, |(t, _)| t.len())
    }

    /// Whether no fingerprint is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of slots.
    fn capacity(&self) -> usize {
        self.words.len() >> self.shift
    }

    /// Lane A of slot `i` (zero: empty).
    #[inline]
    fn a(&self, i: usize) -> u64 {
        self.words[i << self.shift]
    }

    /// Whether slot `i` holds lanes `a` and `b` (lane A alone in a narrow set).
    #[inline]
    fn holds(&self, i: usize, a: u64, b: u64) -> bool {
        let at = i << self.shift;
        self.words[at] == a && (self.shift == 0 || self.words[at + 1] == b)
    }

    /// Bytes held by the tables.
    pub fn bytes(&self) -> usize {
        self.words.len() * std::mem::size_of::<u64>()
            + self.compact.as_ref().map_or(0, |(t, _)| t.bytes())
    }

    /// Bytes the tables would hold right after inserting `extra` more fingerprints (a
    /// resize doubles the whole fingerprints' table in place; a compact table keeps its
    /// size, and what it has no room for goes whole).
    pub fn bytes_after_growth(&self, extra: usize) -> usize {
        let room = self.compact.as_ref().map_or(0, |(t, _)| t.room() - t.len());
        let whole = extra.saturating_sub(room);
        if whole > 0 && (self.len + whole) * 4 > self.capacity() * 3 {
            self.bytes() + self.words.len() * std::mem::size_of::<u64>()
        } else {
            self.bytes()
        }
    }

    /// Inserts `fp`; returns true if it was not there before (under hash compaction: if
    /// no state stored before had the same 32 bits in its probe run, see `compact.rs`).
    #[inline]
    pub fn insert(&mut self, fp: Fingerprint) -> bool {
        let Some((table, _)) = &self.compact else {
            if self.shift == 0 {
                return self.insert_narrow(lane_a(fp));
            }
            return self.insert_whole(fp);
        };
        let a = lane_a(fp);
        let Probe::Vacant { slot, compared } = table.probe(a) else {
            return false;
        };
        if self.contains_whole(fp) {
            return false;
        }
        match &mut self.compact {
            Some((table, _)) if table.has_room() => {
                table.put(slot, compared, a);
                true
            }
            _ => self.insert_whole(fp),
        }
    }

    /// Inserts lane A `a` into a narrow, exact set, asking [`Recent`] first; returns true if
    /// it was not there.
    #[inline]
    fn insert_narrow(&mut self, a: u64) -> bool {
        if self.recent.holds(a) {
            return false;
        }
        self.recent.note(a);
        self.insert_whole(from_lanes(a, 0))
    }

    /// Inserts `fp` into the table of whole fingerprints; returns true if it was not there.
    #[inline]
    fn insert_whole(&mut self, fp: Fingerprint) -> bool {
        let (a, b) = (lane_a(fp), lane_b(fp));
        debug_assert_ne!(a, 0, "lane A 0 is reserved for empty slots");
        if (self.len + 1) * 4 > self.capacity() * 3 {
            self.grow();
        }
        let mask = self.capacity() - 1;
        let mut i = (a as usize) & mask;
        loop {
            if self.holds(i, a, b) {
                return false;
            }
            if self.a(i) == 0 {
                self.put(i, a, b);
                self.len += 1;
                return true;
            }
            i = (i + 1) & mask;
        }
    }

    /// Hints that `fp` will be inserted or looked up soon: starts loading its slot into the
    /// cache. The table is far larger than the caches in big searches, so a lookup is
    /// usually a cache miss; prefetching the slots of several successors lets those misses
    /// overlap. It has no observable effect.
    #[inline]
    pub fn prefetch(&self, fp: Fingerprint) {
        if let Some((table, _)) = &self.compact {
            table.prefetch(lane_a(fp));
            return;
        }
        if self.shift == 0 && self.recent.holds(lane_a(fp)) {
            return;
        }
        let i = (lane_a(fp) as usize) & (self.capacity() - 1);
        prefetch_slot(&self.words[i << self.shift]);
    }

    /// Whether `fp` is in the set (under hash compaction: whether a state with the same 32
    /// bits is in its probe run, or `fp` is among the whole fingerprints).
    pub fn contains(&self, fp: Fingerprint) -> bool {
        if let Some((table, _)) = &self.compact {
            if let Probe::Found = table.probe(lane_a(fp)) {
                return true;
            }
        }
        self.contains_whole(fp)
    }

    /// Whether `fp` is in the table of whole fingerprints.
    fn contains_whole(&self, fp: Fingerprint) -> bool {
        if self.len == 0 {
            return false;
        }
        let (a, b) = (lane_a(fp), lane_b(fp));
        let mask = self.capacity() - 1;
        let mut i = (a as usize) & mask;
        loop {
            if self.holds(i, a, b) {
                return true;
            }
            if self.a(i) == 0 {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    /// Every fingerprint stored, in table order (lane A alone in a narrow set). A compact
    /// set keeps no fingerprints it could give back, and must not be asked.
    pub fn iter(&self) -> impl Iterator<Item = Fingerprint> + '_ {
        assert!(
            self.compact.is_none(),
            "internal bug: a compact visited set cannot list its fingerprints"
        );
        let wide = self.is_wide();
        self.words
            .chunks_exact(1 << self.shift)
            .filter(|slot| slot[0] != 0)
            .map(move |slot| from_lanes(slot[0], if wide { slot[1] } else { 0 }))
    }

    /// Removes everything, keeping the allocation.
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|s| *s = 0);
        self.recent.clear();
        self.len = 0;
        if let Some((table, _)) = &mut self.compact {
            table.clear();
        }
    }

    /// Doubles the table in place, so that a resize needs no second table beside the first
    /// (an old-plus-new copy would raise the peak memory of a large search by half).
    ///
    /// The allocation is extended (which for a large table remaps pages rather than copying
    /// them) and every fingerprint is taken out and re-inserted under the doubled mask. The
    /// order keeps linear probing sound: old slots are visited cluster by cluster, starting
    /// just after an empty slot `gap`, so a fingerprint whose new home is in the lower half
    /// lands between its home and its old slot (all already re-inserted), and one whose new
    /// home is in the upper half probes only among re-inserted fingerprints. The rare probe
    /// that would run off the end of the table and wrap into slots not yet re-inserted is set
    /// aside and inserted once all others are in place. A wide slot's two words keep their
    /// places, since slot `i` starts at word `2i` at every size.
    fn grow(&mut self) {
        let old = self.capacity();
        let new = old * 2;
        self.words.resize(new << self.shift, 0);
        let mask = new - 1;
        let gap = (0..old)
            .find(|&i| self.a(i) == 0)
            .expect("the table is never full");
        let mut wrapped = Vec::new();
        let mut moved = 0;
        for i in (gap + 1..old).chain(0..gap) {
            let (a, b) = self.take(i);
            if a == 0 {
                continue;
            }
            moved += 1;
            let mut j = (a as usize) & mask;
            loop {
                if self.a(j) == 0 {
                    self.put(j, a, b);
                    break;
                }
                j += 1;
                if j == new {
                    wrapped.push((a, b));
                    break;
                }
            }
        }
        for (a, b) in wrapped {
            let mut j = (a as usize) & mask;
            while self.a(j) != 0 {
                j = (j + 1) & mask;
            }
            self.put(j, a, b);
        }
        assert_eq!(
            moved, self.len,
            "internal bug: growing the visited set met another number of fingerprints than it holds"
        );
    }

    /// Empties slot `i`, giving its lanes (lane B zero in a narrow set).
    #[inline]
    fn take(&mut self, i: usize) -> (u64, u64) {
        let at = i << self.shift;
        let a = std::mem::take(&mut self.words[at]);
        let b = if self.shift == 1 {
            std::mem::take(&mut self.words[at + 1])
        } else {
            0
        };
        (a, b)
    }

    /// Fills the empty slot `j` with lanes `a` and `b` (lane A alone in a narrow set).
    #[inline]
    fn put(&mut self, j: usize, a: u64, b: u64) {
        let at = j << self.shift;
        self.words[at] = a;
        if self.shift == 1 {
            self.words[at + 1] = b;
        }
    }
}

/// Starts loading the cache line of `slot` (a hint with no observable effect).
#[inline]
pub(crate) fn prefetch_slot<T>(slot: &T) {
    let slot: *const T = slot;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` only needs SSE, which every x86_64 CPU has (it is in the
    // target's baseline features), and a prefetch is a hint that never faults and never
    // changes memory; `slot` points into a table anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(slot.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::fingerprint_of;

    #[test]
    fn insert_reports_new_and_survives_growth() {
        let mut set = VisitedSet::new();
        for i in 0..10_000u64 {
            assert!(set.insert(fingerprint_of(&i)));
        }
        for i in 0..10_000u64 {
            assert!(!set.insert(fingerprint_of(&i)), "{i} inserted twice");
            assert!(set.contains(fingerprint_of(&i)));
        }
        assert!(!set.contains(fingerprint_of(&10_001u64)));
        assert_eq!(set.len(), 10_000);
        assert!(set.bytes() <= 10_000 * 22);
    }

    /// Inserts `fps` one by one, checking after each growth that everything inserted so far
    /// is still found and nothing else is.
    fn fill_and_check(fps: impl Iterator<Item = u64>) {
        fill_and_check_set(fps.map(Fingerprint::from), VisitedSet::new());
    }

    fn fill_and_check_set(fps: impl Iterator<Item = Fingerprint>, mut set: VisitedSet) {
        let mut inserted = Vec::new();
        for fp in fps {
            let slots = set.capacity();
            assert!(set.insert(fp));
            inserted.push(fp);
            if set.capacity() != slots {
                assert_eq!(set.len(), inserted.len());
                for &fp in &inserted {
                    assert!(
                        set.contains(fp),
                        "{fp:#x} lost when growing to {slots} slots"
                    );
                    assert!(!set.insert(fp));
                }
                assert_eq!(set.iter().count(), inserted.len());
            }
        }
        for &fp in &inserted {
            assert!(set.contains(fp));
        }
        assert_eq!(set.len(), inserted.len());
    }

    #[test]
    fn recent_fingerprints_answer_exactly_as_the_table_would() {
        // Keys met again at every distance, many of them sharing a slot of the cache (the
        // same bits 40..50), some differing only in their lowest bits, and a clear in the
        // middle: every answer is the reference's.
        let key = |i: u64| match i % 4 {
            0 => lane_a(fingerprint_of(&i)),
            1 => (i << 50) | (7 << 40) | 1,
            2 => (5 << 40) | (i % 1000 + 1),
            _ => (i % 97 + 1) * 0x1_0000_0001,
        };
        let mut set = VisitedSet::new();
        let mut reference = std::collections::BTreeSet::new();
        let mut state = 1u64;
        for step in 0..60_000u64 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let back = (state >> 33) % 64;
            let fp = Fingerprint::from(key(step.saturating_sub(back * back) % 20_000));
            assert_eq!(set.insert(fp), reference.insert(fp), "step {step}");
            if step == 30_000 {
                set.clear();
                reference.clear();
            }
        }
        assert_eq!(set.len(), reference.len());
        assert!(
            !Recent::new().holds(0),
            "an empty slot holds no fingerprint"
        );
    }

    #[test]
    fn growing_in_place_keeps_every_fingerprint_of_random_keys() {
        fill_and_check((0..20_000u64).map(|i| lane_a(fingerprint_of(&i))));
    }

    #[test]
    fn growing_in_place_keeps_long_clusters_and_clusters_that_wrap_around() {
        // Consecutive homes: one long cluster per table size.
        fill_and_check(1..6_000u64);
        // Homes crowded at the top of every table size, so clusters wrap around the end.
        fill_and_check((1..6_000u64).map(|i| u64::MAX - i));
        // The same low bits with varying high bits: clusters that split when growing.
        fill_and_check((1..6_000u64).map(|i| (i << 40) | 0x3FF));
        fill_and_check((1..6_000u64).map(|i| (i.reverse_bits()) | 0xFFF0));
        // Many homes on the very last slot, mixed with others: probes run off the end.
        fill_and_check(
            (1..3_000u64).flat_map(|i| [(i << 32) | 0xFFFF_FFFF, lane_a(fingerprint_of(&i))]),
        );
    }

    #[test]
    fn a_wide_set_tells_apart_what_shares_lane_a_and_a_narrow_set_does_not() {
        // Every lane A four times, with four lanes B: crowded clusters of equal lane A.
        let fps = || (1..3_000u64).flat_map(|a| (0..4u64).map(move |b| from_lanes(a, b * 977)));
        fill_and_check_set(fps(), VisitedSet::with_capacity_and_width(8, true));
        let wide_random = (0..20_000u64).map(|i| fingerprint_of(&i));
        fill_and_check_set(wide_random, VisitedSet::with_capacity_and_width(8, true));

        let mut narrow = VisitedSet::new();
        let new: usize = fps().map(|fp| narrow.insert(fp) as usize).sum();
        assert_eq!((new, narrow.len()), (2_999, 2_999));
        assert!(
            narrow.contains(from_lanes(5, 12345)),
            "a narrow set reads lane A alone"
        );

        let mut wide = VisitedSet::with_capacity_and_width(8, true);
        let new: usize = fps().map(|fp| wide.insert(fp) as usize).sum();
        assert_eq!((new, wide.len()), (4 * 2_999, 4 * 2_999));
        assert!(!wide.contains(from_lanes(5, 12345)));
        assert!(wide.contains(from_lanes(5, 3 * 977)));
        assert_eq!(
            wide.bytes(),
            2 * narrow.bytes() * wide.capacity() / narrow.capacity()
        );
        let mut back: Vec<Fingerprint> = wide.iter().collect();
        back.sort_unstable();
        let mut all: Vec<Fingerprint> = fps().collect();
        all.sort_unstable();
        assert_eq!(back, all);
    }

    #[test]
    fn a_compact_set_keeps_whole_fingerprints_beyond_its_plan() {
        let mut set = VisitedSet::compact(100, 1);
        let fps: Vec<Fingerprint> = (0..5_000u64).map(|i| fingerprint_of(&i)).collect();
        let new = fps.iter().filter(|&&fp| set.insert(fp)).count();
        assert_eq!((new, set.len()), (5_000, 5_000));
        assert!(fps.iter().all(|&fp| set.contains(fp) && !set.insert(fp)));
        assert!(!set.contains(fingerprint_of(&5_001u64)));
        let c = set.compaction().expect("compact");
        assert_eq!(
            (c.planned_states, c.stored, c.stored_whole),
            (100, 100, 4_900)
        );
        assert_eq!((c.slots, c.match_bits), (126, 32));
        assert!(c.comparisons > 0);
        assert_eq!(c.omission_bound(), c.comparisons as f64 / 2f64.powi(32));
        let sharded = VisitedSet::compact(100, 3).compaction().unwrap();
        assert_eq!(sharded.match_bits, 30);
        assert!(VisitedSet::new().compaction().is_none());
    }
}
