//! The visited set: fingerprints in one flat open-addressing table, 8 bytes a slot.
//!
//! Exhaustive search spends most of its memory here, so there is no per-entry heap
//! allocation, no stored state and no parent pointer: a slot is a bare `u64` fingerprint,
//! zero meaning empty. Linear probing keeps lookups in one or two cache lines. The table
//! doubles when it is 3/4 full, so it holds between 10.7 and 21.3 bytes per state.

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
        VisitedSet {
            slots: vec![0; slots],
            len: 0,
        }
    }

    /// Number of fingerprints stored.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held by the table.
    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<u64>()
    }

    /// Bytes the table would hold right after inserting `extra` more fingerprints
    /// (counting the transient old-plus-new peak of a resize).
    pub fn bytes_after_growth(&self, extra: usize) -> usize {
        if (self.len + extra) * 4 > self.slots.len() * 3 {
            self.bytes() * 3
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

    /// Removes everything, keeping the allocation.
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = 0);
        self.len = 0;
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        self.slots = vec![0; old.len() * 2];
        let mask = self.slots.len() - 1;
        for fp in old.into_iter().filter(|&fp| fp != 0) {
            let mut i = (fp as usize) & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = fp;
        }
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
}
