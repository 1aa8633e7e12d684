//! Phase 3 of a batch with nothing to record: when no state of the batch violates or
//! witnesses a property and the state limit is not reached within it, admitting the new
//! states in queue order comes down to numbering them in that order ([`place`]). Each
//! chunk's new states take the path-log nodes after those of the chunks before it (a
//! prefix sum of the counts phase 2 found), so the chunks are numbered on their own threads
//! and give the path log, the queue and the statistics that admitting them one by one
//! gives.

use super::super::admit::{count_expansion, place};
use super::super::search::Cuts;
use super::chunk::Chunk;
use crate::coverage::FaultCoverage;
use crate::frontier::Pending;
use crate::stats::Stats;

/// What numbering one chunk counted (its new entries went to a buffer).
#[derive(Default)]
pub(in crate::explorer) struct Numbered {
    pub stats: Stats,
    pub cuts: Cuts,
    /// The fault rules the chunk's expansions used, when the search keeps coverage.
    pub coverage: Option<FaultCoverage>,
}

/// Where one chunk's new states go: path-log nodes from `first_node` on, whose parent and
/// choice slots are given, and entries appended to `entries`.
pub(in crate::explorer) struct Slots<'a, S> {
    first_node: u32,
    log_parents: &'a mut [u32],
    log_choices: &'a mut [u16],
    entries: &'a mut Vec<Pending<S>>,
}

impl<'a, S> Slots<'a, S> {
    pub fn new(
        first_node: u32,
        log_parents: &'a mut [u32],
        log_choices: &'a mut [u16],
        entries: &'a mut Vec<Pending<S>>,
    ) -> Self {
        Slots {
            first_node,
            log_parents,
            log_choices,
            entries,
        }
    }
}

/// Numbers the new states of `chunk` (whose parents are `parents`) into `slots`, emptying
/// the chunk; the fault rules its expansions used are kept when the search keeps
/// `coverage` (which is not changed: the caller merges them in).
pub(in crate::explorer) fn number_chunk<S>(
    chunk: &mut Chunk<S>,
    parents: &[Pending<S>],
    slots: Slots<'_, S>,
    coverage: Option<&FaultCoverage>,
) -> Numbered {
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
    let mut out = Numbered {
        coverage: coverage.map(FaultCoverage::empty_like),
        ..Numbered::default()
    };
    let mut successors = chunk.successors.drain(..).zip(chunk.new.drain(..));
    let mut taken = 0;
    let mut node = first_node;
    assert_eq!(
        chunk.expansions.len(),
        parents.len(),
        "internal bug: a chunk has another number of expansions than parents"
    );
    for ((expanded, end), parent) in chunk.expansions.drain(..).zip(parents) {
        count_expansion(&mut out.stats, &mut out.cuts, &expanded);
        if let (Some(coverage), Some(used)) = (&mut out.coverage, &expanded.used) {
            coverage.note(used);
        }
        for (next, new) in successors.by_ref().take(end - taken) {
            out.stats.transitions += 1;
            if !new.into_inner() {
                continue;
            }
            let slot = (node - first_node) as usize;
            log_parents[slot] = parent.node;
            log_choices[slot] = u16::try_from(next.choice).expect(
                "a state has more than 65,535 enabled actions; the path log stores choices as u16",
            );
            own.push(place(&mut out.stats, Some(parent), next, node));
            node += 1;
        }
        taken = end;
    }
    *entries = own;
    assert_eq!(
        entries.len(),
        log_parents.len(),
        "internal bug: a chunk numbered another number of new states than phase 2 found"
    );
    out
}
