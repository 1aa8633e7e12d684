//! Dead values: values a process declares dead leave the fingerprint.
//!
//! An actor may declare that its state holds values that can no longer matter
//! ([`Actor::has_dead_values`]) and hash only the rest
//! ([`Actor::hash_state_without_dead_values`]): a finished client's bookkeeping of requests
//! it will never send again, say. The fingerprint without dead values of a world state
//! hashes such processes that way and every other part as [`Model::fingerprint`] does; a
//! state with nothing dead has its plain fingerprint.
//!
//! Why it is sound: two world states with the same fingerprint without dead values differ
//! (up to hash collisions, as any fingerprint) only in values some running process declared
//! dead. The declaration says that such states react to every event with the same effects
//! and go to states that again differ only in dead values, and that no property reads those
//! values; time, timers, the network and faults are hashed in full. So the relation "equal
//! fingerprint without dead values" is a bisimulation that every property respects: both
//! states have the same enabled actions (by label), the same successors up to the relation,
//! and the same property values along them, which is what deduplication needs. The
//! explorer stores and expands the actual states, so every path it reports is a path of the
//! full model. Symmetry composes: canonical candidates are hashed by their fingerprint
//! without dead values ([`World::canonical_fingerprint_by`]), and each is still the state
//! under an automorphism.

use super::actor::{Actor, ProcessId};
use super::state::{Life, ProcOf, StateOf};
use super::World;
use crate::fingerprint::{Fingerprint, FpHasher};

impl<A: Actor> World<A> {
    /// Whether process `p` is running and declares dead values in `state`.
    fn has_dead_values(&self, state: &StateOf<A>, p: usize) -> bool {
        match &state.procs[p].life {
            Life::Up(s) => self.actors[p].has_dead_values(s),
            Life::Down { .. } => false,
        }
    }

    /// Whether some process of `state` declares dead values.
    pub fn any_dead_values(&self, state: &StateOf<A>) -> bool {
        (0..state.procs.len()).any(|p| self.has_dead_values(state, p))
    }

    /// The fingerprint of `state` without the values its processes declare dead (its plain
    /// fingerprint when none does).
    pub fn fingerprint_without_dead_values(&self, state: &StateOf<A>) -> Fingerprint {
        if !self.any_dead_values(state) {
            return crate::model::Model::fingerprint(self, state);
        }
        let now = state.now_ms;
        let mut h = FpHasher::of_width(self.wide);
        for (i, p) in state.procs.iter().enumerate() {
            let part = if self.has_dead_values(state, i) {
                self.live_part(p, i, now)
            } else {
                p.cached_hash(now).unwrap_or_else(|| {
                    p.hash_relative(
                        &self.actors[i],
                        &self.clocks[i],
                        self.resume_order,
                        now,
                        self.wide,
                    )
                })
            };
            h.write_fp(part);
        }
        state.hash_rest(&mut h);
        self.hash_fault_timing(state, &mut h);
        h.finish_wide()
    }

    /// The fingerprint part of `proc`, played by process `i`'s actor and clock at `now`,
    /// without the values the actor declares dead.
    pub(super) fn live_part(&self, proc: &ProcOf<A>, i: ProcessId, now: u64) -> Fingerprint {
        let actor = &self.actors[i];
        let linear = actor.time_linear_hash();
        let (clock, resume) = (&self.clocks[i], self.resume_order);
        proc.hash_relative_by(clock, resume, now, self.wide, linear, |s, local, h| {
            actor.hash_state_without_dead_values(s, local, h)
        })
        .0
    }
}
