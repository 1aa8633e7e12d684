//! Symmetry reduction in the explorer: whether it runs, and what it merged.
//!
//! The model finds its interchangeable processes and computes canonical fingerprints
//! ([`Model::symmetry`], [`Model::canonical_fingerprint`]; for worlds, `world::symmetry`,
//! whose module doc states the soundness rule). The explorer only deduplicates by the
//! canonical fingerprint; it stores, expands and logs the actual successor states, so every
//! path it reports is a path of the full model. With partial-order reduction the cycle
//! proviso asks about canonical fingerprints too: it then runs on the quotient graph, whose
//! states are bisimilar to the ones they stand for, and the persistent sets are computed on
//! the actual states, which are states of the full model; so the argument of
//! `explorer::reduction` applies to the quotient unchanged.
//!
//! Under symmetry the explorer also keeps the plain fingerprints of the states it met, so a
//! report can say how many distinct states the stored representatives stood for.

use super::{Options, Search};
use crate::frontier::Frontier;
use crate::model::Model;
use std::fmt;

/// Whether a search used symmetry reduction, or why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Symmetry {
    /// Used, over the interchangeable processes described.
    On(String),
    /// Not asked for.
    Off,
    /// Asked for, but not applicable (the reason).
    Unavailable(String),
}

impl Symmetry {
    /// Decides for a search of `model` with `frontier`.
    pub(crate) fn decide<M: Model, F: Frontier<M>>(
        model: &M,
        reductions: &super::Reductions,
        frontier: &F,
    ) -> Self {
        if !reductions.symmetry {
            return Symmetry::Off;
        }
        if !frontier.prunes_visited() {
            return Symmetry::Unavailable("random walks and replay follow every action".into());
        }
        match model.symmetry() {
            Ok(groups) => Symmetry::On(groups),
            Err(why) => Symmetry::Unavailable(why),
        }
    }

    pub fn is_on(&self) -> bool {
        matches!(self, Symmetry::On(_))
    }
}

impl fmt::Display for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Symmetry::On(groups) => write!(f, "on: {groups}"),
            Symmetry::Off => f.write_str("off"),
            Symmetry::Unavailable(why) => write!(f, "not applicable: {why}"),
        }
    }
}

impl<M: Model> Search<'_, M> {
    /// Under symmetry reduction, records `state`'s own fingerprint among the states met.
    pub(super) fn note_met(
        &mut self,
        state: &M::State,
        obligations: &Option<Box<[u64]>>,
        vt: u64,
        options: &Options,
    ) {
        let Some(met) = self.met.as_mut() else {
            return;
        };
        let own = Self::key(self.model.fingerprint(state), obligations, vt, options);
        met.insert(own);
        self.stats.symmetric_states_met = met.len() as u64;
    }
}
