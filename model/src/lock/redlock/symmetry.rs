//! Redlock's nodes asked at once are interchangeable, for symmetry reduction: where a
//! renaming of processes sends each node position, the engine's state with its slots moved
//! along, and what the state holds about one node (to sort interchangeable nodes by).
//!
//! Why it is sound: nothing the engine does depends on the order of the nodes it asks at
//! once. Their requests go out in one step to different links, an answer is told apart by
//! its sender, and their tries time out together, in one event (`SweepTimeout`, module
//! `timeouts`); nothing in a message or timer names a node's position. So renaming such
//! nodes and permuting the slots with them maps every run to a run.

use super::{Redlock, RedlockState};
use lockcheck_sim::world::{ProcessId, Renaming};
use lockcheck_sim::FpHasher;

impl Redlock {
    /// Where renaming processes by `r` sends each node position, when that is a symmetry
    /// of this protocol: `r` maps the node set onto itself and moves none of the nodes asked
    /// one after another (their order is the protocol's). Nodes asked at once are
    /// interchangeable: nothing the engine does depends on their order, since their requests
    /// go out in one step, their answers are told apart by sender and their tries time out
    /// together (`SweepTimeout`). `None` when `r` is no symmetry of it.
    pub fn renamed_positions(&self, r: &Renaming) -> Option<Vec<usize>> {
        (0..self.nodes.len())
            .map(|i| self.renamed_position(r, i))
            .collect()
    }

    /// Where renaming by `r` sends node position `i` ([`Redlock::renamed_positions`]).
    fn renamed_position(&self, r: &Renaming, i: usize) -> Option<usize> {
        let sequential = self.sequential();
        let to = self.nodes.iter().position(|&m| m == r.of(self.nodes[i]))?;
        (i >= sequential && to >= sequential || to == i).then_some(to)
    }

    /// Whether renaming by `r` changes `state` ([`Redlock::permute_nodes`] by
    /// [`Redlock::renamed_positions`]): `r` is a symmetry of this protocol, a sweep is under
    /// way, and some node's slot moves onto a slot that holds something else. Allocates
    /// nothing, and looks only at the nodes `r` moves: a node it keeps keeps its position
    /// (the nodes are distinct), which is always a symmetry and moves no slot.
    pub(crate) fn moved_by(&self, state: &RedlockState, r: &Renaming) -> bool {
        let Some(sweep) = state.phase.sweep() else {
            return false;
        };
        let mut moves = false;
        for (i, &node) in self.nodes.iter().enumerate() {
            if r.of(node) == node {
                continue;
            }
            match self.renamed_position(r, i) {
                None => return false,
                Some(j) => moves |= sweep.slots[i] != sweep.slots[j],
            }
        }
        moves
    }

    /// `state` with the node in position `i` moved to position `to[i]`
    /// ([`Redlock::renamed_positions`]).
    pub fn permute_nodes(&self, state: &mut RedlockState, to: &[usize]) {
        if let Some(sweep) = state.phase.sweep_mut() {
            sweep.permute(to);
        }
    }

    /// Feeds the slot of node `node` in the sweep under way (if `node` is one of this
    /// protocol's and a sweep is under way) into `h`, its deadline relative to `mono_now_ms`:
    /// what the engine's state holds about one node, which moves with the node when nodes
    /// are renamed.
    pub fn hash_knowledge_of(
        &self,
        state: &RedlockState,
        node: ProcessId,
        mono_now_ms: i64,
        h: &mut FpHasher,
    ) {
        let Some(position) = self.nodes.iter().position(|&n| n == node) else {
            return;
        };
        if let Some(sweep) = state.phase.sweep() {
            sweep.hash_slot(position, mono_now_ms, h);
        }
    }
}
