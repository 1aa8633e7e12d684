//! One chunk of a batch: phase 1 (its thread expands a contiguous run of the batch's
//! parents with the core's expansion, and lists their successors' keys by shard) and phase
//! 2 (each thread inserts the batch's keys of its shard of the visited set in batch order).
//! See `explorer::batches`.

use super::super::expand::{Expanded, Fate, Prep, Scratch, Successor};
use super::super::store::shard_of;
use crate::checker::{Checker, Hit};
use crate::fingerprint::Fingerprint;
use crate::frontier::Pending;
use crate::model::Model;
use crate::visited::VisitedSet;
use std::sync::atomic::{AtomicBool, Ordering};

/// One thread's share of a batch, after phase 1. Its buffers are reused batch after batch.
pub(in crate::explorer) struct Chunk<S> {
    /// Per parent, in order: its expansion, and where its successors end in `successors`.
    pub expansions: Vec<(Expanded, usize)>,
    pub successors: Vec<Successor<S>>,
    /// Phase 2's answer per successor: new to the visited set.
    pub new: Vec<AtomicBool>,
    /// Per shard of the visited set, the keys of its successors with their indices, in
    /// order: what phase 2 reads, compact and without the successors of other shards.
    pub by_shard: Vec<Vec<(Fingerprint, u32)>>,
    /// Hits of terminal parents with open obligations (not yet filtered by the verdicts).
    pub terminal_hits: Vec<(usize, Hit)>,
}

impl<S> Default for Chunk<S> {
    fn default() -> Self {
        Chunk {
            expansions: Vec::new(),
            successors: Vec::new(),
            new: Vec::new(),
            by_shard: Vec::new(),
            terminal_hits: Vec::new(),
        }
    }
}

impl<S> Chunk<S> {
    /// How many of the chunk's successors phase 2 found new.
    pub fn new_count(&self) -> usize {
        let new = self.new.iter().filter(|n| n.load(Ordering::Relaxed));
        new.count()
    }

    /// Whether admitting the chunk has a hit to record for a property still undecided: an
    /// obligation's deadline passed on the way to a successor, or a terminal parent left
    /// one open.
    pub fn has_hits<M: Model<State = S>>(&self, checker: &Checker<M>) -> bool {
        let undecided = |&(i, _): &(usize, Hit)| checker.undecided(i);
        self.terminal_hits.iter().any(undecided)
            || (self.successors.iter()).any(|s| s.hits().iter().any(undecided))
    }
}

/// Phase 1: the expansions of `entries` into `chunk`, their successors' keys listed by
/// shard among `shards`.
pub(in crate::explorer) fn expand_chunk<M: Model>(
    prep: &Prep<'_, M>,
    shards: usize,
    entries: &[Pending<M::State>],
    chunk: &mut Chunk<M::State>,
) {
    let Chunk {
        expansions,
        successors,
        new,
        by_shard,
        terminal_hits,
    } = chunk;
    expansions.clear();
    successors.clear();
    terminal_hits.clear();
    let mut scratch = Scratch::default();
    for entry in entries {
        let expanded = prep.expand_all_watched(entry, &mut scratch, successors);
        if expanded.fate == Fate::Terminal {
            (prep.obligations).at_terminal(&entry.obligations, terminal_hits);
        }
        expansions.push((expanded, successors.len()));
    }
    new.clear();
    new.extend(successors.iter().map(|_| AtomicBool::new(false)));
    by_shard.resize_with(shards, Vec::new);
    by_shard.iter_mut().for_each(Vec::clear);
    for (i, next) in successors.iter().enumerate() {
        let key = Fingerprint::from(next.key);
        by_shard[shard_of(key, shards)].push((key, i as u32));
    }
    // Every successor's key is in exactly one shard's list, so phase 2 inserts each once.
    debug_assert_eq!(
        by_shard.iter().map(Vec::len).sum::<usize>(),
        successors.len(),
        "internal bug: a key listed in no shard or in two"
    );
}

/// Phase 2 for shard `index`: inserts the batch's keys of the shard in batch order, marks
/// the new ones, and evaluates the properties on them; returns whether one of them has a
/// hit to record.
pub(in crate::explorer) fn dedup_shard<M: Model>(
    model: &M,
    checker: &Checker<M>,
    shard: &mut VisitedSet,
    index: usize,
    chunks: &[Chunk<M::State>],
) -> bool {
    const AHEAD: usize = 8;
    let mut hits = Vec::new();
    for chunk in chunks {
        let mine = &chunk.by_shard[index];
        for (i, &(fp, at)) in mine.iter().enumerate() {
            if let Some(&(ahead, _)) = mine.get(i + AHEAD) {
                shard.prefetch(ahead);
            }
            if shard.insert(fp) {
                chunk.new[at as usize].store(true, Ordering::Relaxed);
                if hits.is_empty() {
                    checker.evaluate(model, &chunk.successors[at as usize].state, &mut hits);
                }
            }
        }
    }
    !hits.is_empty()
}
