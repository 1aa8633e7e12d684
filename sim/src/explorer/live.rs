//! The value abstraction in the explorer: whether it runs.
//!
//! The model computes live fingerprints, which leave out the values its processes declare
//! dead ([`Model::live_fingerprint`]; for worlds, `world::live`, whose module doc states why
//! that is sound). The explorer only deduplicates by them; it stores, expands and logs the
//! actual states, so every path it reports is a path of the full model, and the cycle
//! proviso of partial-order reduction then works on the quotient by a bisimulation, as it
//! does under symmetry.
//!
//! To say how many distinct states the stored ones stood for, it keeps the plain
//! fingerprints of the states met that hold dead values only: a state without any is
//! deduplicated by its plain fingerprint, so it stands for itself. (Under symmetry the
//! symmetry's record of every state met gives the count of both together.)
//!
//! [`Model::live_fingerprint`]: crate::model::Model::live_fingerprint

use super::{Options, Search};
use crate::frontier::Frontier;
use crate::model::Model;
use std::fmt;

/// Whether a search used the value abstraction, or why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeadValues {
    /// Used.
    On,
    /// Not asked for.
    Off,
    /// Asked for, but not applicable (the reason).
    Unavailable(String),
}

impl DeadValues {
    /// Decides for a search with `frontier`.
    pub(crate) fn decide<M: Model, F: Frontier<M>>(
        reductions: &super::Reductions,
        frontier: &F,
    ) -> Self {
        if !reductions.dead_values {
            return DeadValues::Off;
        }
        if !frontier.prunes_visited() {
            return DeadValues::Unavailable("random walks and replay follow every action".into());
        }
        DeadValues::On
    }

    pub fn is_on(&self) -> bool {
        *self == DeadValues::On
    }
}

impl fmt::Display for DeadValues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeadValues::On => f.write_str("on"),
            DeadValues::Off => f.write_str("off"),
            DeadValues::Unavailable(why) => write!(f, "not applicable: {why}"),
        }
    }
}

impl<M: Model> Search<'_, M> {
    /// Under the value abstraction alone, records a met state that holds dead values (its
    /// key was computed last, so whether it will be stored is known now).
    pub(super) fn note_dead(
        &mut self,
        state: &M::State,
        obligations: &Option<Box<[u64]>>,
        vt: u64,
        options: &Options,
    ) {
        if self.symmetry.is_on() || !self.dead_values.is_on() || !self.model.has_dead_values(state)
        {
            return;
        }
        if !self.visited.contains(self.last_fp) {
            self.dead_stored += 1;
        }
        let own = Self::key(self.model.fingerprint(state), obligations, vt, options);
        self.dead_met.insert(own);
    }

    /// The distinct states met: the stored ones without dead values stand for themselves.
    pub(super) fn count_live_states_met(&mut self) {
        if !self.dead_values.is_on() {
            return;
        }
        self.stats.live_states_met = if self.symmetry.is_on() {
            self.stats.symmetric_states_met
        } else {
            self.stats.unique_states - self.dead_stored.min(self.stats.unique_states)
                + self.dead_met.len() as u64
        };
    }
}
