//! A search's visited set, split into shards by the keys' high bits: one shard per thread
//! of the batch engine (each thread inserts its shard's keys), one for every other engine.
//! A key falls in one shard whatever the number of shards, so a key is new to the split set
//! exactly when it would be new to one whole set.

use crate::fingerprint::{lane_a, Fingerprint};
use crate::visited::{Compaction, VisitedSet};

/// The visited set, in shards.
pub(super) struct Shards {
    sets: Vec<VisitedSet>,
}

impl Shards {
    /// `shards` empty shards (at least one), together sized for `expected` states, with
    /// 128-bit keys when `wide` and, under hash compaction, a compact table for `compact`
    /// states in each.
    pub(super) fn new(shards: usize, expected: usize, wide: bool, compact: Option<usize>) -> Self {
        let shards = shards.max(1);
        let per_shard = expected / shards;
        Shards {
            sets: (0..shards)
                .map(|_| VisitedSet::for_search(per_shard, wide, compact, shards))
                .collect(),
        }
    }

    /// The shard that holds `fp`.
    #[inline]
    pub(super) fn shard_of(&self, fp: Fingerprint) -> usize {
        shard_of(fp, self.sets.len())
    }

    /// Inserts `fp`; whether it was new.
    #[inline]
    pub(super) fn insert(&mut self, fp: Fingerprint) -> bool {
        let shard = self.shard_of(fp);
        self.sets[shard].insert(fp)
    }

    /// Starts loading `fp`'s slot into the cache.
    #[inline]
    pub(super) fn prefetch(&self, fp: Fingerprint) {
        self.sets[self.shard_of(fp)].prefetch(fp);
    }

    /// The keys held, in all shards.
    pub(super) fn len(&self) -> usize {
        self.sets.iter().map(VisitedSet::len).sum()
    }

    /// The bytes the shards take now, and once each has taken `extra` more keys.
    pub(super) fn bytes_now_and_after(&self, extra: usize) -> (usize, usize) {
        let now = self.sets.iter().map(VisitedSet::bytes).sum();
        let after = self.sets.iter().map(|s| s.bytes_after_growth(extra)).sum();
        (now, after)
    }

    /// What hash compaction did, over all shards.
    pub(super) fn compaction(&self) -> Option<Compaction> {
        (self.sets.iter())
            .filter_map(VisitedSet::compaction)
            .reduce(Compaction::plus)
    }

    /// The shards, for the batch engine's threads.
    pub(super) fn sets_mut(&mut self) -> &mut [VisitedSet] {
        &mut self.sets
    }

    /// The one set of a search that ran unsharded (the walks merge such sets).
    pub(super) fn into_single(mut self) -> VisitedSet {
        assert_eq!(
            self.sets.len(),
            1,
            "internal bug: a sharded visited set taken whole"
        );
        self.sets.pop().expect("one shard")
    }
}

/// The shard of `fp` among `shards`: by its high bits (the tables index by the low ones).
#[inline]
pub(super) fn shard_of(fp: Fingerprint, shards: usize) -> usize {
    ((u128::from(lane_a(fp)) * shards as u128) >> 64) as usize
}
