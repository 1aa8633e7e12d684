//! Whether swapping two interchangeable processes leaves a state exactly as it is, decided
//! by comparing the state's pieces rather than by hashing the swapped state.
//!
//! The idea: symmetry reduction tries every order of members whose sort keys tie, and
//! members tie most often because they are in the same state and nothing tells them apart
//! (two Redlock nodes holding the same key, asked the same thing at the same instant). Then
//! the swap maps the state to itself and every order gives the same candidate, so the tie
//! need not be tried at all. The check is exact, not a hash comparison: the two members'
//! states are equal and neither names a renamed process, no other process's state changes
//! under the swap, the messages in flight are the same once renamed, and the members'
//! fault logs are equal. When it cannot say so (messages or timers still waiting for a
//! choice, members configured differently), it answers no and the candidates are tried.

use super::actor::{Actor, ProcessId};
use super::network::InFlight;
use super::shared::Shared;
use super::state::StateOf;
use super::symmetry::{Renaming, SymmetryGroups};
use super::World;
use std::sync::Arc;

impl<A: Actor> World<A> {
    /// Whether swapping `a` and `b` (members of one of `sym`'s groups) gives `state` back,
    /// piece by piece; `false` when that cannot be told this way.
    pub fn swap_fixes(
        &self,
        state: &StateOf<A>,
        sym: &SymmetryGroups,
        a: ProcessId,
        b: ProcessId,
    ) -> bool {
        if !sym.configured_alike(a, b)
            || !state.unrouted.is_empty()
            || !state.undecided_timers.is_empty()
        {
            return false;
        }
        let (pa, pb) = (&state.procs[a], &state.procs[b]);
        let logs = &state.fault_times.per_process;
        if !((Shared::ptr_eq(pa, pb) || **pa == **pb) && logs.get(a) == logs.get(b)) {
            return false;
        }
        let swap = Renaming::swap(state.procs.len(), a, b);
        (0..state.procs.len()).all(|p| self.rename_proc(&state.procs[p], p, &swap).is_none())
            && self.in_flight_fixed_by(state, &swap, a, b)
    }

    /// [`World::swap_fixes`], answered from `asked` when the pair was asked about before
    /// (one canonicalisation asks about a tied pair when it sorts and again when it tries
    /// the ties), and remembered there otherwise.
    pub(super) fn swap_fixes_asked(
        &self,
        state: &StateOf<A>,
        sym: &SymmetryGroups,
        (a, b): (ProcessId, ProcessId),
        asked: &mut super::canonical::SwapsAsked,
    ) -> bool {
        if let Some(&(_, fixes)) = asked.iter().find(|(pair, _)| *pair == (a, b)) {
            return fixes;
        }
        let fixes = self.swap_fixes(state, sym, a, b);
        asked.push(((a, b), fixes));
        fixes
    }

    /// Whether the messages in flight, renamed by `swap` (of `a` and `b`) and grouped by
    /// link again, are the same messages in the same order.
    fn in_flight_fixed_by(
        &self,
        state: &StateOf<A>,
        swap: &Renaming,
        a: ProcessId,
        b: ProcessId,
    ) -> bool {
        let touches = |m: &InFlight<A::Msg>| m.from == a || m.from == b || m.to == a || m.to == b;
        if !state.in_flight.iter().any(touches) {
            return true;
        }
        let mut renamed: Vec<_> = state
            .in_flight
            .iter()
            .map(|m| (swap.of(m.from), swap.of(m.to), m))
            .collect();
        renamed.sort_by_key(|&(from, to, _)| (from, to));
        renamed
            .iter()
            .zip(&state.in_flight)
            .all(|(&(from, to, m), kept)| {
                from == kept.from
                    && to == kept.to
                    && m.due_ms == kept.due_ms
                    && (Arc::ptr_eq(&m.msg, &kept.msg) || m.msg == kept.msg)
                    && self.actors[m.to].rename_msg(&m.msg, swap).is_none()
            })
    }
}
