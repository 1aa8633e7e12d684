//! The fingerprint of a state renamed by an automorphism, computed without building the
//! renamed state: what symmetry reduction pays for each candidate representative.
//!
//! The idea: a fingerprint is the processes' parts in process order, then the network and
//! the faults (`WorldState::hash_relative`, `World::hash_fault_timing`). Renaming moves
//! each process's state to its new place; a state that names none of the renamed
//! processes keeps its part (cached when the two places are configured alike), so only the
//! states that do name them (a Redlock client's per-node slots, say) are renamed and
//! hashed again. The messages in flight are taken in the renamed state's order (grouped by
//! renamed link, send order within a link) and hashed from their kept body hashes unless
//! their body names a renamed process.
//!
//! [`World::renamed_fingerprint`] equals the fingerprint of [`World::rename`]'s state, plain
//! or without dead values, by construction (each piece is what that state's fingerprint reads) and by test
//! (`tests/renamed_fingerprint.rs` compares them on every built-in with symmetry).

use super::actor::Actor;
use super::network::Unrouted;
use super::state::{Flight, FlightBody, Life, StateOf, UndecidedTimer};
use super::symmetry::{Renaming, SymmetryGroups};
use super::World;
use crate::fingerprint::{Fingerprint, FpHasher};
use std::sync::Arc;

impl<A: Actor> World<A> {
    /// The fingerprint of `state` renamed by `r` (an automorphism: a product of permutations
    /// of `sym`'s groups), the one without the values processes declare dead when
    /// `without_dead`: `fingerprint(&self.rename(state, r, sym))` without building that state.
    pub fn renamed_fingerprint(
        &self,
        state: &StateOf<A>,
        r: &Renaming,
        sym: &SymmetryGroups,
        without_dead: bool,
    ) -> Fingerprint {
        let n = state.procs.len();
        let now = state.now_ms;
        let mut from = vec![0; n];
        for p in 0..n {
            from[r.of(p)] = p;
        }
        let mut h = FpHasher::of_width(self.wide);
        for (new, &old) in from.iter().enumerate() {
            let kept = &state.procs[old];
            let renamed = self.rename_proc(kept, old, r);
            let proc = renamed.as_ref().unwrap_or(kept);
            let dead = without_dead
                && matches!(&proc.life, Life::Up(s) if self.actors[new].has_dead_values(s));
            let part = if dead {
                self.live_part(proc, new, now)
            } else if renamed.is_none() && sym.configured_alike(old, new) {
                kept.cached_hash(now).unwrap_or_else(|| {
                    kept.hash_relative(
                        &self.actors[new],
                        &self.clocks[new],
                        self.resume_order,
                        now,
                        self.wide,
                    )
                })
            } else {
                proc.hash_relative(
                    &self.actors[new],
                    &self.clocks[new],
                    self.resume_order,
                    now,
                    self.wide,
                )
            };
            h.write_fp(part);
        }
        self.hash_renamed_rest(state, r, &mut h);
        let per_process = &state.fault_times.per_process;
        let logs = (0..per_process.len()).map(|new| &per_process[from[new]]);
        self.hash_fault_timing_with(state, logs, &mut h);
        h.finish_wide()
    }

    /// The network part of the fingerprint of `state` renamed by `r`: messages grouped by
    /// renamed link, send order within a link, as the world and [`World::rename`] keep them.
    fn hash_renamed_rest(&self, state: &StateOf<A>, r: &Renaming, h: &mut FpHasher) {
        let mut in_flight: Vec<_> = state
            .in_flight
            .iter()
            .map(|m| {
                let renamed = self.actors[m.to].rename_msg(&m.msg, r);
                (r.of(m.from), r.of(m.to), m, renamed)
            })
            .collect();
        in_flight.sort_by_key(|&(from, to, ..)| (from, to));
        let flights = in_flight.iter().map(|(from, to, m, renamed)| Flight {
            from: *from,
            to: *to,
            due_ms: m.due_ms,
            body: renamed
                .as_ref()
                .map_or(FlightBody::Kept(m), FlightBody::Renamed),
        });
        let unrouted = self.renamed_unrouted(state, r);
        let undecided = self.renamed_undecided_timers(state, r);
        state.hash_rest_with(h, flights, &unrouted, &undecided);
    }

    /// The messages still waiting for their delay, renamed by `r` and grouped by link.
    pub(super) fn renamed_unrouted(
        &self,
        state: &StateOf<A>,
        r: &Renaming,
    ) -> Vec<Unrouted<A::Msg>> {
        let mut unrouted: Vec<_> = state
            .unrouted
            .iter()
            .map(|m| {
                let mut m2 = m.clone();
                (m2.from, m2.to) = (r.of(m.from), r.of(m.to));
                if let Some(msg) = self.actors[m.to].rename_msg(&m.msg, r) {
                    m2.msg = Arc::new(msg);
                }
                m2
            })
            .collect();
        // Grouped by link, send order within a link (see `canonical.rs`).
        unrouted.sort_by_key(|m| (m.from, m.to));
        unrouted
    }

    /// The timers still waiting for their duration, renamed by `r`.
    pub(super) fn renamed_undecided_timers(
        &self,
        state: &StateOf<A>,
        r: &Renaming,
    ) -> Vec<UndecidedTimer<A::Timer>> {
        state
            .undecided_timers
            .iter()
            .map(|t| UndecidedTimer {
                process: r.of(t.process),
                timer: self.actors[t.process]
                    .rename_timer(&t.timer, r)
                    .unwrap_or_else(|| t.timer.clone()),
                after_ms: t.after_ms.clone(),
            })
            .collect()
    }
}
