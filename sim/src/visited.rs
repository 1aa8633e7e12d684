//! The visited set: fingerprints in one flat open-addressing table, 8 bytes a slot.
//!
//! Exhaustive search spends most of its memory here, so there is no per-entry heap
//! allocation, no stored state and no parent pointer: a slot is a bare `u64` fingerprint,
//! zero meaning empty. Linear probing keeps lookups in one or two cache lines. The table
//! doubles in place when it is 3/4 full, so it holds between 10.7 and 21.3 bytes per state,
//! with no transient second table.
//!
//! Assertions marked "internal bug" state the table's invariants: a power-of-two size
//! (the mask), and a growth that keeps every fingerprint.

use crate::fingerprint::Fingerprint;

const MIN_CAPACITY: usize = 1 << 10;

/// A set of non-zero fingerprints.
#[derive(Clone, Debug)]
pub struct VisitedSet {
    slots: Vec<u64>,
    len: usize,
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

    /// A set that can hold `states` fingerprints before its first resize.
    pub fn with_capacity(states: usize) -> Self {
        let slots = (states.saturating_mul(4) / 3 + 1)
            .next_power_of_two()
            .max(MIN_CAPACITY);
        assert!(
            slots.is_power_of_two(),
            "internal bug: the table's size must be a power of two (its mask)"
        );
        VisitedSet {
            slots: vec![0; slots],
            len: 0,
        }
    }

    /// Number of fingerprints stored.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no fingerprint is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held by the table.
    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<u64>()
    }

    /// Bytes the table would hold right after inserting `extra` more fingerprints (a resize
    /// doubles the table in place).
    pub fn bytes_after_growth(&self, extra: usize) -> usize {
        if (self.len + extra) * 4 > self.slots.len() * 3 {
            self.bytes() * 2
        } else {
            self.bytes()
        }
    }

    /// Inserts `fp`; returns true if it was not there before.
    #[inline]
    pub fn insert(&mut self, fp: Fingerprint) -> bool {
        debug_assert_ne!(fp, 0, "fingerprint 0 is reserved for empty slots");
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = (fp as usize) & mask;
        loop {
            let slot = self.slots[i];
            if slot == fp {
                return false;
            }
            if slot == 0 {
                self.slots[i] = fp;
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
        let slot: *const u64 = &self.slots[(fp as usize) & (self.slots.len() - 1)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `_mm_prefetch` only needs SSE, which every x86_64 CPU has (it is in the
        // target's baseline features), and a prefetch is a hint that never faults and never
        // changes memory; `slot` points into the table anyway.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                slot.cast::<i8>(),
            );
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// Whether `fp` is in the set.
    pub fn contains(&self, fp: Fingerprint) -> bool {
        let mask = self.slots.len() - 1;
        let mut i = (fp as usize) & mask;
        loop {
            match self.slots[i] {
                0 => return false,
                s if s == fp => return true,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Every fingerprint stored, in table order.
    pub fn iter(&self) -> impl Iterator<Item = Fingerprint> + '_ {
        self.slots.iter().copied().filter(|&s| s != 0)
    }

    /// Removes everything, keeping the allocation.
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = 0);
        self.len = 0;
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
    /// aside and inserted once all others are in place.
    fn grow(&mut self) {
        let old = self.slots.len();
        let new = old * 2;
        self.slots.resize(new, 0);
        let mask = new - 1;
        let gap = self.slots[..old]
            .iter()
            .position(|&fp| fp == 0)
            .expect("the table is never full");
        let mut wrapped = Vec::new();
        let mut moved = 0;
        for i in (gap + 1..old).chain(0..gap) {
            let fp = std::mem::take(&mut self.slots[i]);
            if fp == 0 {
                continue;
            }
            moved += 1;
            let mut j = (fp as usize) & mask;
            loop {
                if self.slots[j] == 0 {
                    self.slots[j] = fp;
                    break;
                }
                j += 1;
                if j == new {
                    wrapped.push(fp);
                    break;
                }
            }
        }
        for fp in wrapped {
            let mut j = (fp as usize) & mask;
            while self.slots[j] != 0 {
                j = (j + 1) & mask;
            }
            self.slots[j] = fp;
        }
        assert_eq!(
            moved, self.len,
            "internal bug: growing the visited set met another number of fingerprints than it holds"
        );
    }
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
        let mut set = VisitedSet::new();
        let mut inserted = Vec::new();
        for fp in fps {
            let slots = set.slots.len();
            assert!(set.insert(fp));
            inserted.push(fp);
            if set.slots.len() != slots {
                assert_eq!(set.len(), inserted.len());
                for &fp in &inserted {
                    assert!(
                        set.contains(fp),
                        "{fp:#x} lost when growing to {slots} slots"
                    );
                    assert!(!set.insert(fp));
                }
                assert_eq!(
                    set.slots.iter().filter(|&&s| s != 0).count(),
                    inserted.len()
                );
            }
        }
        for &fp in &inserted {
            assert!(set.contains(fp));
        }
        assert_eq!(set.len(), inserted.len());
    }

    #[test]
    fn growing_in_place_keeps_every_fingerprint_of_random_keys() {
        fill_and_check((0..20_000u64).map(|i| fingerprint_of(&i)));
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
        fill_and_check((1..3_000u64).flat_map(|i| [(i << 32) | 0xFFFF_FFFF, fingerprint_of(&i)]));
    }
}
