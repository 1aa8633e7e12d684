//! One batch of the parallel search: phase 1 (each thread computes the successors of a
//! contiguous chunk of the batch, with their deduplication keys) and phase 2 (each thread
//! inserts the keys of its shard of the visited set in batch order). See `parallel`.

use crate::branching::Tally;
use crate::checker::{Checker, Hit};
use crate::explorer::key::dedup_key;
use crate::fingerprint::{lane_a, Fingerprint};
use crate::frontier::Pending;
use crate::model::Model;
use crate::visited::VisitedSet;
use std::sync::atomic::{AtomicBool, Ordering};

/// Parents expanded by one thread per batch.
pub(super) const CHUNK_PARENTS: usize = 4096;

/// What bounds a state's expansion and its key: the parts of `Options` threads read.
#[derive(Clone, Copy)]
pub(super) struct Keys {
    pub symmetry: bool,
    pub max_depth: Option<u32>,
    pub max_virtual_time_ms: Option<u64>,
    /// Whether keys keep both lanes (`Options::wide_fingerprints`, as decided).
    pub wide: bool,
}

/// A successor computed in phase 1.
pub(super) struct Cand<S> {
    pub state: S,
    pub vt: u64,
    pub fp: Fingerprint,
    /// Under symmetry, the key of the state itself (not its representative).
    pub own_fp: Fingerprint,
    pub choice: usize,
    pub obligations: Option<Box<[u64]>>,
    /// Hits found moving the obligations on (properties undecided when the batch began).
    pub hits: Vec<(usize, Hit)>,
}

/// What became of one parent in phase 1.
pub(super) enum Fate {
    CutByDepth,
    CutByTime,
    /// No enabled action; `hits`: open obligations make it a violation.
    Terminal {
        hits: bool,
    },
    /// Expanded: its successors end before this index of the chunk's candidates.
    Expanded {
        end: usize,
        tally: Tally,
    },
}

/// One thread's share of a batch, after phase 1. Its buffers are reused batch after batch.
pub(super) struct Chunk<S> {
    pub fates: Vec<Fate>,
    pub cands: Vec<Cand<S>>,
    /// Phase 2's answer per candidate: new to the visited set.
    pub new: Vec<AtomicBool>,
    /// Whether a candidate or a terminal parent has a hit to record.
    pub hits: bool,
}

impl<S> Default for Chunk<S> {
    fn default() -> Self {
        Chunk {
            fates: Vec::new(),
            cands: Vec::new(),
            new: Vec::new(),
            hits: false,
        }
    }
}

/// Phase 1: the successors of `entries`, with their keys, into `chunk`.
pub(super) fn expand_chunk<M: Model>(
    model: &M,
    checker: &Checker<M>,
    keys: Keys,
    entries: &[Pending<M::State>],
    chunk: &mut Chunk<M::State>,
) {
    let Chunk {
        fates,
        cands,
        new,
        hits,
    } = chunk;
    fates.clear();
    cands.clear();
    let mut enabled = Vec::new();
    let mut terminal_hits = Vec::new();
    for entry in entries {
        let vt = model.virtual_time_ms(&entry.state);
        if keys.max_depth.is_some_and(|d| entry.depth >= d) {
            fates.push(Fate::CutByDepth);
            continue;
        }
        if keys.max_virtual_time_ms.is_some_and(|t| vt > t) {
            fates.push(Fate::CutByTime);
            continue;
        }
        enabled.clear();
        model.actions(&entry.state, &mut enabled);
        if enabled.is_empty() {
            checker.at_terminal(&entry.obligations, &mut terminal_hits);
            fates.push(Fate::Terminal {
                hits: !terminal_hits.is_empty(),
            });
            terminal_hits.clear();
            continue;
        }
        let mut tally = Tally::default();
        for (choice, action) in enabled.iter().enumerate() {
            let kind = model.choice_kind(action);
            tally.offer(kind);
            tally.expand(kind);
            let Some(state) = model.next_state(&entry.state, action) else {
                continue;
            };
            cands.push(candidate(model, checker, keys, entry, state, choice));
        }
        fates.push(Fate::Expanded {
            end: cands.len(),
            tally,
        });
    }
    new.clear();
    new.extend(cands.iter().map(|_| AtomicBool::new(false)));
    *hits = cands.iter().any(|c| !c.hits.is_empty())
        || fates
            .iter()
            .any(|f| matches!(f, Fate::Terminal { hits: true }));
}

/// The successor `state` of `entry` under its `choice`-th action, with its keys.
pub(super) fn candidate<M: Model>(
    model: &M,
    checker: &Checker<M>,
    keys: Keys,
    entry: &Pending<M::State>,
    state: M::State,
    choice: usize,
) -> Cand<M::State> {
    let vt = model.virtual_time_ms(&state);
    let mut obligations = entry.obligations.clone();
    let mut hits = Vec::new();
    checker.update_obligations(model, &state, vt, &mut obligations, &mut hits);
    let key = |fp| dedup_key::<M>(fp, &obligations, vt, keys.max_virtual_time_ms, keys.wide);
    let (fp, own_fp) = if keys.symmetry {
        let canonical = model.canonical_fingerprint(&state).0;
        (key(canonical), key(model.fingerprint(&state)))
    } else {
        (key(model.fingerprint(&state)), 0)
    };
    Cand {
        state,
        vt,
        fp,
        own_fp,
        choice,
        obligations,
        hits,
    }
}

/// The shard of `fp` among `shards`: by its high bits (the tables index by the low ones).
#[inline]
pub(super) fn shard_of(fp: Fingerprint, shards: usize) -> usize {
    ((u128::from(lane_a(fp)) * shards as u128) >> 64) as usize
}

/// Phase 2 for shard `index`: inserts the batch's fingerprints of the shard in batch order,
/// marks the new ones, and evaluates the properties on them; returns whether one of them
/// has a hit to record.
pub(super) fn dedup_shard<M: Model>(
    model: &M,
    checker: &Checker<M>,
    shard: &mut VisitedSet,
    (index, shards): (usize, usize),
    chunks: &[Chunk<M::State>],
) -> bool {
    const AHEAD: usize = 8;
    let mine: Vec<(&AtomicBool, &Cand<M::State>)> = chunks
        .iter()
        .flat_map(|c| c.new.iter().zip(&c.cands))
        .filter(|(_, cand)| shard_of(cand.fp, shards) == index)
        .collect();
    let mut hits = Vec::new();
    for (i, &(new, cand)) in mine.iter().enumerate() {
        if let Some(&(_, ahead)) = mine.get(i + AHEAD) {
            shard.prefetch(ahead.fp);
        }
        if shard.insert(cand.fp) {
            new.store(true, Ordering::Relaxed);
            if hits.is_empty() {
                checker.evaluate(model, &cand.state, &mut hits);
            }
        }
    }
    !hits.is_empty()
}
