//! Phase 3 of a batch with nothing to record: when no state of the batch violates or
//! witnesses a property and the state limit is not reached within it, admitting the new
//! states in queue order means only numbering them in that order. Each chunk's new states
//! take the path-log nodes after those of the chunks before it (a prefix sum of the counts
//! phase 2 found), so the chunks are admitted on their own threads and give the path log,
//! the queue and the statistics that the sequential walk gives.

use super::batch::{Chunk, Fate};
use crate::branching::Branching;
use crate::frontier::Pending;
use std::sync::atomic::Ordering;

/// What admitting one chunk gave: its statistics (its new entries went to a buffer).
#[derive(Default)]
pub(super) struct Admitted {
    pub expanded_states: u64,
    pub transitions: u64,
    pub cut_off_states: u64,
    pub cut_by_depth: bool,
    pub cut_by_time: bool,
    pub max_depth: u32,
    pub max_virtual_time_ms: u64,
    pub branching: Branching,
}

/// How many of the chunk's candidates phase 2 found new.
pub(super) fn new_count<S>(chunk: &Chunk<S>) -> usize {
    chunk
        .new
        .iter()
        .filter(|n| n.load(Ordering::Relaxed))
        .count()
}

/// Where one chunk's new states go: path-log nodes from `first_node` on, whose parent and
/// choice slots are given, and entries appended to `entries`.
pub(super) struct Slots<'a, S> {
    pub first_node: u32,
    pub log_parents: &'a mut [u32],
    pub log_choices: &'a mut [u16],
    pub entries: &'a mut Vec<Pending<S>>,
}

/// Admits the new states of `chunk` (whose parents are `parents`) into `slots`, emptying
/// the chunk.
pub(super) fn admit_chunk<S>(
    chunk: &mut Chunk<S>,
    parents: &[Pending<S>],
    slots: Slots<'_, S>,
) -> Admitted {
    let Slots {
        first_node,
        log_parents,
        log_choices,
        entries,
    } = slots;
    // Pushed to a vector of this thread's own: the chunks' vectors lie side by side in one
    // array, and every push writes a length into a cache line the other threads write too.
    let mut own = std::mem::take(entries);
    own.clear();
    let mut out = Admitted {
        expanded_states: parents.len() as u64,
        transitions: chunk.cands.len() as u64,
        ..Admitted::default()
    };
    let mut cands = chunk.cands.drain(..).zip(chunk.new.drain(..));
    let mut taken = 0;
    let mut node = first_node;
    for (fate, parent) in chunk.fates.drain(..).zip(parents) {
        let end = match fate {
            Fate::CutByDepth | Fate::CutByTime => {
                out.cut_by_depth |= matches!(fate, Fate::CutByDepth);
                out.cut_by_time |= matches!(fate, Fate::CutByTime);
                out.cut_off_states += 1;
                continue;
            }
            Fate::Terminal { .. } => continue,
            Fate::Expanded { end, tally } => {
                out.branching.add(&tally);
                end
            }
        };
        for (cand, new) in cands.by_ref().take(end - taken) {
            if !new.into_inner() {
                continue;
            }
            let slot = (node - first_node) as usize;
            log_parents[slot] = parent.node;
            log_choices[slot] = u16::try_from(cand.choice).expect(
                "a state has more than 65,535 enabled actions; the path log stores choices as u16",
            );
            let depth = parent.depth + 1;
            out.max_depth = out.max_depth.max(depth);
            out.max_virtual_time_ms = out.max_virtual_time_ms.max(cand.vt);
            own.push(Pending {
                state: cand.state,
                node,
                depth,
                obligations: cand.obligations,
            });
            node += 1;
        }
        taken = end;
    }
    *entries = own;
    assert_eq!(
        entries.len(),
        log_parents.len(),
        "internal bug: a chunk admitted another number of new states than phase 2 found"
    );
    out
}
