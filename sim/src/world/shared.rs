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
//!   it was computed at and is used only at that same `now`;
//! - every way to change the process's state goes through `DerefMut`, which drops the cache
//!   (whether or not the `Arc` was shared);
//! - a state of one world is only fingerprinted by that world, so actor and clock are the
//!   same whenever a cached part is read.
//!
//! (A second copy of the cache inside the shared allocation, serving every state that holds
//! the process, was measured: it saved as much hashing as its lock and its extra memory
//! traffic cost, so it is not kept.)
//!
//! Equality, hashing and `Debug` see the process's state only, never the cache, so a world
//! state compares, hashes and prints as it did with the state held inline.

use crate::fingerprint::{Fingerprint, Lanes};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// A copy-on-write value with a cached hash tied to the world time it was computed at.
pub struct Shared<P> {
    inner: Arc<P>,
    /// The `now_ms` the cached part was computed at, [`NONE`] when there is none (a
    /// sentinel rather than an `Option`, and [`Lanes`] rather than a `u128`, keep the cell
    /// at 32 bytes: it is copied with every state).
    cached_at: u64,
    /// The value's fingerprint part at `cached_at`.
    cached: Lanes,
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
        }
    }

    /// The cached hash, if it was computed at `now_ms` and nothing was written since.
    #[inline]
    pub fn cached_hash(&self, now_ms: u64) -> Option<Fingerprint> {
        (self.cached_at == now_ms && now_ms != NONE).then(|| self.cached.into())
    }

    /// Computes the hash at `now_ms` with `hash` unless it is cached, and keeps it (until the
    /// next write).
    #[inline]
    pub fn refresh_hash(&mut self, now_ms: u64, hash: impl FnOnce(&P) -> Fingerprint) {
        if self.cached_hash(now_ms).is_none() {
            self.cached = hash(&self.inner).into();
            self.cached_at = now_ms;
        }
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
        a.refresh_hash(10, |_| 77);
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
        a.refresh_hash(20, |v| u128::from(*v) + 100);
        a.refresh_hash(20, |_| panic!("computed again"));
        assert_eq!(a.cached_hash(20), Some(103));
        a.refresh_hash(21, |v| u128::from(*v));
        assert_eq!((a.cached_hash(20), a.cached_hash(21)), (None, Some(3)));
    }

    #[test]
    fn equality_hashing_and_debug_ignore_the_cache() {
        let mut a: Shared<u32> = Shared::new(5u32);
        let b: Shared<u32> = Shared::new(5u32);
        a.refresh_hash(1, |_| 2);
        assert_eq!(a, b);
        assert_eq!(
            crate::fingerprint::fingerprint_of(&a),
            crate::fingerprint::fingerprint_of(&5u32)
        );
        assert_eq!(format!("{a:?}"), "5");
    }
}
