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
    /// The shards of the visited set (one per thread).
    pub shards: usize,
}

/// A successor computed in phase 1: small, since a batch writes and reads many of them.
pub(super) struct Cand<S> {
    pub state: S,
    pub fp: Fingerprint,
    pub vt: u64,
    pub choice: u32,
    pub obligations: Option<Box<[u64]>>,
    /// What few candidates have: boxed, so that the others need one word for it.
    rare: Option<Box<Rare>>,
}

/// The parts of a candidate only some have.
struct Rare {
    /// Under symmetry, the key of the state itself (not its representative).
    own_fp: Fingerprint,
    /// Hits found moving the obligations on (properties undecided when the batch began).
    hits: Vec<(usize, Hit)>,
}

impl<S> Cand<S> {
    /// Under symmetry, the key of the state itself (not its representative); else 0.
    pub fn own_fp(&self) -> Fingerprint {
        self.rare.as_ref().map_or(0, |r| r.own_fp)
    }

    /// Hits found moving the obligations on.
    pub fn hits(&self) -> &[(usize, Hit)] {
        self.rare.as_ref().map_or(&[], |r| &r.hits)
    }
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
    /// Per shard of the visited set, the keys of its candidates with their indices, in
    /// order: what phase 2 reads, compact and without the candidates of other shards.
    pub by_shard: Vec<Vec<(Fingerprint, u32)>>,
    /// Whether a candidate or a terminal parent has a hit to record.
    pub hits: bool,
}

impl<S> Default for Chunk<S> {
    fn default() -> Self {
        Chunk {
            fates: Vec::new(),
            cands: Vec::new(),
            new: Vec::new(),
            by_shard: Vec::new(),
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
        by_shard,
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
    by_shard.resize_with(keys.shards, Vec::new);
    by_shard.iter_mut().for_each(Vec::clear);
    for (i, cand) in cands.iter().enumerate() {
        by_shard[shard_of(cand.fp, keys.shards)].push((cand.fp, i as u32));
    }
    *hits = cands.iter().any(|c| !c.hits().is_empty())
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
    let rare = (keys.symmetry || !hits.is_empty()).then(|| Box::new(Rare { own_fp, hits }));
    Cand {
        state,
        fp,
        vt,
        choice: u32::try_from(choice).expect("fewer than 2^32 enabled actions"),
        obligations,
        rare,
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
                    checker.evaluate(model, &chunk.cands[at as usize].state, &mut hits);
                }
            }
        }
    }
    !hits.is_empty()
}
