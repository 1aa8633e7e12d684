//! Hash compaction: a visited table of 4-byte slots, sized once for the states a search
//! plans to store.
//!
//! The idea (Wolper and Leroy's hash compaction, as Spin's `-DHC4` does it): a state's
//! 64-bit fingerprint picks its home slot with its low 32 bits, and the slot keeps only its
//! high 32 bits. A lookup probes linearly from the home and compares the high bits of every
//! occupied slot it passes; two states whose fingerprints differ can still agree on those 32
//! bits, and then the second is taken for the first and never explored (an *omission*). Each
//! comparison of a new state's bits with another state's slot matches by chance with
//! probability 2^-32 (2^-(32-b) when the set is one of the shards of a parallel search that
//! splits states by `b` high bits of the fingerprint), so the table counts the comparisons
//! made by lookups that found their state new: that count times the chance is the expected
//! number of omissions, an upper bound on the probability of any (the union bound), printed
//! with the verdict.
//!
//! The high bits are all a slot keeps, so the table cannot be resized (a larger table would
//! need the low bits again to find each state's new home): it is sized once, for `planned`
//! states at a load of at most [`MAX_LOAD`], and the visited set's own table, behind it, stores the whole
//! fingerprints of the states beyond that (`VisitedSet`). The home is the low 32 bits scaled
//! to the table's size (Lemire's multiply-shift), so the size need not be a power of two and
//! the table holds `planned / MAX_LOAD` slots, 5 bytes a planned state.

/// The most of its slots the table fills; the states beyond go whole into the table
/// behind it. A lookup of a new state at this load probes about 13 slots (Knuth's
/// `(1 + 1/(1-a)^2) / 2` for linear probing), about one cache line.
pub const MAX_LOAD: f64 = 0.8;

/// What hash compaction did in one or more visited sets: the figures behind its omission
/// estimate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Compaction {
    /// States the compact tables were sized for.
    pub planned_states: u64,
    /// Their 4-byte slots.
    pub slots: u64,
    /// States stored in them.
    pub stored: u64,
    /// States beyond the plan, stored whole (64-bit fingerprints).
    pub stored_whole: u64,
    /// Slots compared by lookups that found their state new.
    pub comparisons: u64,
    /// Bits a comparison matches by chance: 32, less the high bits that split a parallel
    /// search's states among its shards (the smallest over the sets summed).
    pub match_bits: u32,
}

impl Compaction {
    /// The figures of `self` and `other` together.
    pub fn plus(self, other: Compaction) -> Compaction {
        Compaction {
            planned_states: self.planned_states + other.planned_states,
            slots: self.slots + other.slots,
            stored: self.stored + other.stored,
            stored_whole: self.stored_whole + other.stored_whole,
            comparisons: self.comparisons + other.comparisons,
            match_bits: self.match_bits.min(other.match_bits),
        }
    }

    /// The expected number of states taken for another one they are not, which bounds
    /// the probability that any was (the union bound): every comparison matches by chance
    /// with probability 2^-match_bits.
    pub fn omission_bound(&self) -> f64 {
        self.comparisons as f64 / 2f64.powi(self.match_bits as i32)
    }
}

/// Slots of 32 high bits of a 64-bit fingerprint, zero meaning empty.
#[derive(Clone, Debug)]
pub struct CompactTable {
    slots: Vec<u32>,
    len: usize,
    /// States the table takes before the table behind it stores whole fingerprints.
    room: usize,
    /// Occupied slots compared by the lookups that found their state new.
    comparisons: u64,
}

/// Where a lookup ended.
pub enum Probe {
    /// A slot with the same high bits.
    Found,
    /// The empty slot at this index, after this many comparisons.
    Vacant { slot: usize, compared: u64 },
}

impl CompactTable {
    /// A table for `planned` states (at least a few, so that it is never full).
    pub fn for_states(planned: usize) -> Self {
        let room = planned.max(16);
        let slots = (room as f64 / MAX_LOAD).ceil() as usize + 1;
        assert!(
            slots < (1usize << 32),
            "internal bug: a compact table has at most 2^32 slots (its home is 32 bits scaled)"
        );
        CompactTable {
            slots: vec![0; slots],
            len: 0,
            room,
            comparisons: 0,
        }
    }

    /// The 32 bits a slot keeps of lane A `a` (never zero: 0 and 1 both keep 1).
    #[inline]
    fn kept(a: u64) -> u32 {
        ((a >> 32) as u32).max(1)
    }

    /// The home slot of lane A `a`: its low 32 bits scaled to the table's size.
    #[inline]
    fn home(&self, a: u64) -> usize {
        ((u64::from(a as u32) * self.slots.len() as u64) >> 32) as usize
    }

    /// Looks lane A `a` up.
    #[inline]
    pub fn probe(&self, a: u64) -> Probe {
        let kept = Self::kept(a);
        let mut i = self.home(a);
        let mut compared = 0;
        loop {
            match self.slots[i] {
                0 => return Probe::Vacant { slot: i, compared },
                s if s == kept => return Probe::Found,
                _ => compared += 1,
            }
            i += 1;
            if i == self.slots.len() {
                i = 0;
            }
        }
    }

    /// Whether the table takes another state.
    pub fn has_room(&self) -> bool {
        self.len < self.room
    }

    /// Stores lane A `a` in the vacant `slot` its lookup found after `compared` comparisons.
    #[inline]
    pub fn put(&mut self, slot: usize, compared: u64, a: u64) {
        debug_assert!(self.has_room() && self.slots[slot] == 0);
        self.slots[slot] = Self::kept(a);
        self.len += 1;
        self.comparisons += compared;
    }

    /// Starts loading the home slot of lane A `a` into the cache (no observable effect).
    #[inline]
    pub fn prefetch(&self, a: u64) {
        crate::visited::prefetch_slot(&self.slots[self.home(a)]);
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    pub fn room(&self) -> usize {
        self.room
    }

    pub fn comparisons(&self) -> u64 {
        self.comparisons
    }

    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<u32>()
    }

    /// Empties the table, keeping its size and allocation.
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = 0);
        self.len = 0;
        self.comparisons = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_found_by_its_high_bits_from_its_home() {
        let mut t = CompactTable::for_states(100);
        assert_eq!(t.slots(), 126);
        let a = 0xDEAD_BEEF_0000_0001;
        let Probe::Vacant { slot, compared } = t.probe(a) else {
            panic!("empty table")
        };
        assert_eq!((slot, compared), (t.home(a), 0));
        t.put(slot, compared, a);
        assert!(matches!(t.probe(a), Probe::Found));
        // The same high bits from another home are not found from that home...
        let elsewhere = 0xDEAD_BEEF_8000_0000;
        assert_ne!(t.home(elsewhere), t.home(a));
        assert!(matches!(t.probe(elsewhere), Probe::Vacant { .. }));
        // ...but the same high bits in the probe run from the same home are (an omission).
        let neighbour = 0xDEAD_BEEF_0000_0002;
        assert_eq!(t.home(neighbour), t.home(a));
        assert!(matches!(t.probe(neighbour), Probe::Found));
        // Other high bits from the same home probe past the slot: one comparison.
        let other = 0x1234_5678_0000_0001;
        let Probe::Vacant { slot, compared } = t.probe(other) else {
            panic!("other high bits")
        };
        assert_eq!((slot, compared), (t.home(a) + 1, 1));
        t.put(slot, compared, other);
        assert_eq!((t.len(), t.comparisons()), (2, 1));
    }

    #[test]
    fn probes_wrap_around_the_end_and_zero_high_bits_are_kept() {
        let mut t = CompactTable::for_states(16);
        let last = u64::from(u32::MAX);
        assert_eq!(t.home(last), t.slots() - 1);
        for high in 1..=3u64 {
            let a = (high << 32) | last;
            let Probe::Vacant { slot, compared } = t.probe(a) else {
                panic!("{high} is new")
            };
            t.put(slot, compared, a);
        }
        assert_eq!(t.slots[..2], [2, 3]);
        assert!(matches!(t.probe((3 << 32) | last), Probe::Found));
        // High bits 0 are kept as 1: a state with high bits 1 from the same home is taken
        // for it.
        let zero = 5;
        let Probe::Vacant { slot, compared } = t.probe(zero) else {
            panic!("new")
        };
        t.put(slot, compared, zero);
        assert!(matches!(t.probe((1 << 32) | 5), Probe::Found));
    }

    #[test]
    fn a_table_is_sized_for_its_planned_states_at_most_four_fifths_full() {
        let t = CompactTable::for_states(1_000_000);
        assert_eq!(t.room(), 1_000_000);
        assert_eq!(t.slots(), 1_250_001);
        assert_eq!(t.bytes(), 5_000_004);
    }
}
