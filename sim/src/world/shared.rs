//! Copy-on-write process states with a cached fingerprint part.
//!
//! The idea: a step of a world changes one process (the one whose handler runs), sometimes
//! two, yet the explorer computes every successor of a state as a full copy and most of them
//! are duplicates thrown away at once. [`Shared`] keeps a process's state behind an [`Arc`],
//! so that copying a world state copies pointers; the first write through
//! [`DerefMut`](std::ops::DerefMut) clones that one process ([`Arc::make_mut`]) and leaves the
//! others shared with the parent state.
//!
//! It also carries the process's part of the fingerprint, next to the pointer: computed
//! once, and reused by every successor that shares the process at the same time. Why the
//! cache is always exact:
//! - the part is a function of the process's state, its (fixed) actor and clock, and the
//!   world's `now` alone (see `ProcState::hash_relative`); the cache is stored with the `now`
//!   it was computed at and is used at that same `now`, or at a later one it is moved to
//!   exactly (below);
//! - every way to change the process's state goes through `DerefMut`, which drops the cache
//!   (whether or not the `Arc` was shared);
//! - a state of one world is only fingerprinted by that world, so actor and clock are the
//!   same whenever a cached part is read.
//!
//! A part computed at one `now` serves a later one too, when the hasher said how it moves
//! with time ([`TimeShift`], see `fingerprint`): the cell keeps the rate and the instant up
//! to which the move is exact, and [`Shared::refresh_hash`] moves the part there instead of
//! computing it again. That is what a time step costs: before, it recomputed the part of
//! every process holding a deadline. [`verify_time_shifts`] makes every move check itself
//! against a recomputation (for tests).
//!
//! (A second copy of the cache inside the shared allocation, serving every state that holds
//! the process, was measured: it saved as much hashing as its lock and its extra memory
//! traffic cost, so it is not kept.)
//!
//! Equality, hashing and `Debug` see the process's state only, never the cache, so a world
//! state compares, hashes and prints as it did with the state held inline.

use crate::fingerprint::{from_lanes, lane_a, lane_b, Fingerprint, Lanes, TimeShift};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Whether a part moved with time is checked against a recomputation.
static VERIFY_TIME_SHIFTS: AtomicBool = AtomicBool::new(false);

/// Parts moved with time and found equal to a recomputation, while verifying.
static TIME_SHIFTS_VERIFIED: AtomicU64 = AtomicU64::new(0);

/// Makes every fingerprint part moved with time (in every world of this process) compare
/// itself with the part computed afresh, and panic, naming both, if they differ: how tests
/// show that the actors write their times as they declare (`Actor::time_linear_hash`).
pub fn verify_time_shifts(on: bool) {
    VERIFY_TIME_SHIFTS.store(on, Ordering::Relaxed);
}

/// How many moved parts were checked (and found right) since this process started.
pub fn time_shifts_verified() -> u64 {
    TIME_SHIFTS_VERIFIED.load(Ordering::Relaxed)
}

/// A copy-on-write value with a cached hash tied to the world time it was computed at.
pub struct Shared<P> {
    inner: Arc<P>,
    /// The `now_ms` the cached part was computed at, [`NONE`] when there is none (a
    /// sentinel rather than an `Option`, and [`Lanes`] rather than a `u128`, keep the cell
    /// at 32 bytes: it is copied with every state).
    cached_at: u64,
    /// The value's fingerprint part at `cached_at`.
    cached: Lanes,
    /// How lane A of the part moves with time ([`TimeShift::rate`]).
    rate: u64,
    /// The first instant the part cannot be moved to (the horizon, from the instant it was
    /// computed at).
    movable_until_ms: u64,
}

/// `cached_at` of a cell with no cached part (no world reaches that instant: instants
/// saturate at `MAX_INSTANT_MS`).
const NONE: u64 = u64::MAX;

impl<P> Shared<P> {
    pub fn new(value: P) -> Self {
        Shared {
            inner: Arc::new(value),
            cached_at: NONE,
            cached: Lanes::default(),
            rate: 0,
            movable_until_ms: 0,
        }
    }

    /// The cached hash, if it was computed at `now_ms` and nothing was written since.
    #[inline]
    pub fn cached_hash(&self, now_ms: u64) -> Option<Fingerprint> {
        (self.cached_at == now_ms && now_ms != NONE).then(|| self.cached.into())
    }

    /// Makes the cached hash the one at `now_ms`: kept if it is that, moved there if it was
    /// computed earlier and moves that far, computed with `hash` otherwise; and keeps it
    /// (until the next write).
    #[inline]
    pub fn refresh_hash(&mut self, now_ms: u64, hash: impl FnOnce(&P) -> (Fingerprint, TimeShift)) {
        if self.cached_at == now_ms && now_ms != NONE {
            return;
        }
        if self.cached_at < now_ms && now_ms < self.movable_until_ms {
            let part: Fingerprint = self.cached.into();
            let shift = TimeShift {
                rate: self.rate,
                horizon_ms: self.movable_until_ms - self.cached_at,
            };
            let a = shift
                .shifted(lane_a(part), now_ms - self.cached_at)
                .expect("before the horizon");
            let moved = from_lanes(a, lane_b(part));
            if VERIFY_TIME_SHIFTS.load(Ordering::Relaxed) {
                let (fresh, _) = hash(&self.inner);
                assert_eq!(
                    moved, fresh,
                    "a fingerprint part moved from {} ms to {now_ms} ms differs from the one \
                     computed there: an actor writes a time without `write_time_left` or \
                     `write_time_since`",
                    self.cached_at
                );
                TIME_SHIFTS_VERIFIED.fetch_add(1, Ordering::Relaxed);
            }
            self.cached = moved.into();
            self.cached_at = now_ms;
            return;
        }
        let (part, shift) = hash(&self.inner);
        self.cached = part.into();
        self.cached_at = now_ms;
        self.rate = shift.rate;
        self.movable_until_ms = now_ms.saturating_add(shift.horizon_ms);
    }

    /// Drops the cached hash without touching the value (for a value moved to a place where
    /// it hashes differently).
    #[inline]
    pub fn forget_hash(&mut self) {
        self.cached_at = NONE;
    }

    /// Whether `a` and `b` are the same allocation (a successor still shares the process).
    pub fn ptr_eq(a: &Self, b: &Self) -> bool {
        Arc::ptr_eq(&a.inner, &b.inner)
    }
}

impl<P> Deref for Shared<P> {
    type Target = P;
    #[inline]
    fn deref(&self) -> &P {
        &self.inner
    }
}

impl<P: Clone> DerefMut for Shared<P> {
    /// Clones the value first if another state shares it, and forgets the cached hash.
    #[inline]
    fn deref_mut(&mut self) -> &mut P {
        self.cached_at = NONE;
        Arc::make_mut(&mut self.inner)
    }
}

impl<P> Clone for Shared<P> {
    #[inline]
    fn clone(&self) -> Self {
        Shared {
            inner: Arc::clone(&self.inner),
            cached_at: self.cached_at,
            cached: self.cached,
            rate: self.rate,
            movable_until_ms: self.movable_until_ms,
        }
    }
}

impl<P: PartialEq> PartialEq for Shared<P> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner) || **self == **other
    }
}

impl<P: Eq> Eq for Shared<P> {}

impl<P: Hash> Hash for Shared<P> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl<P: fmt::Debug> fmt::Debug for Shared<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_copies_only_a_shared_value_and_always_drops_the_cache() {
        let mut a: Shared<Vec<i32>> = Shared::new(vec![1, 2]);
        a.refresh_hash(10, |_| (77, TimeShift::NONE));
        let mut b = a.clone();
        assert!(Shared::ptr_eq(&a, &b));
        assert_eq!(b.cached_hash(10), Some(77));
        assert_eq!(b.cached_hash(11), None);
        b.push(3);
        assert!(!Shared::ptr_eq(&a, &b));
        assert_eq!(*a, vec![1, 2]);
        assert_eq!(*b, vec![1, 2, 3]);
        assert_eq!(a.cached_hash(10), Some(77));
        assert_eq!(b.cached_hash(10), None);
        // Unshared: written in place, and the cache still goes.
        drop(b);
        let before = Arc::as_ptr(&a.inner);
        a.push(4);
        assert_eq!(Arc::as_ptr(&a.inner), before);
        assert_eq!(a.cached_hash(10), None);
    }

    #[test]
    fn a_cached_hash_is_kept_for_its_time_only() {
        let mut a: Shared<u8> = Shared::new(3);
        a.refresh_hash(20, |v| (u128::from(*v) + 100, TimeShift::NONE));
        a.refresh_hash(20, |_| panic!("computed again"));
        assert_eq!(a.cached_hash(20), Some(103));
        a.refresh_hash(21, |v| (u128::from(*v), TimeShift::NONE));
        assert_eq!((a.cached_hash(20), a.cached_hash(21)), (None, Some(3)));
    }

    #[test]
    fn a_part_that_moves_with_time_is_moved_up_to_its_horizon_only() {
        // A part of lane A 1000 that falls by 3 a ms for less than 5 ms, lane B 9.
        let shift = TimeShift {
            rate: 3,
            horizon_ms: 5,
        };
        let mut a: Shared<u8> = Shared::new(0);
        a.refresh_hash(10, |_| (from_lanes(1000, 9), shift));
        a.refresh_hash(12, |_| panic!("computed again"));
        assert_eq!(a.cached_hash(12), Some(from_lanes(994, 9)));
        a.refresh_hash(14, |_| panic!("computed again"));
        assert_eq!(a.cached_hash(14), Some(from_lanes(988, 9)));
        // 15 is 5 ms from where it was computed: computed again, with a horizon of its own.
        a.refresh_hash(15, |_| (from_lanes(7, 9), shift));
        assert_eq!(a.cached_hash(15), Some(from_lanes(7, 9)));
        a.refresh_hash(19, |_| panic!("computed again"));
        assert_eq!(
            a.cached_hash(19),
            Some(from_lanes(7u64.wrapping_sub(12), 9))
        );
        // A write drops it; a part that does not move is computed at every instant.
        *a = 1;
        a.refresh_hash(20, |_| (5, TimeShift::NONE));
        a.refresh_hash(21, |_| (6, TimeShift::NONE));
        assert_eq!(a.cached_hash(21), Some(6));
    }

    #[test]
    fn equality_hashing_and_debug_ignore_the_cache() {
        let mut a: Shared<u32> = Shared::new(5u32);
        let b: Shared<u32> = Shared::new(5u32);
        a.refresh_hash(1, |_| (2, TimeShift::NONE));
        assert_eq!(a, b);
        assert_eq!(
            crate::fingerprint::fingerprint_of(&a),
            crate::fingerprint::fingerprint_of(&5u32)
        );
        assert_eq!(format!("{a:?}"), "5");
    }
}
