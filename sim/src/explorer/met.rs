//! Symmetry and the dead-values reduction in the explorer: keys that merge states, and the
//! count of the distinct states met that the stored ones stand for.
//!
//! The model finds its interchangeable processes and computes canonical fingerprints
//! ([`Model::symmetry`], [`Model::canonical_fingerprint`]; for worlds, `world::symmetry`,
//! whose module doc states the soundness rule), and fingerprints that leave out the values
//! its processes declare dead ([`Model::fingerprint_without_dead_values`]; for worlds,
//! `world::dead_values`, whose module doc states why that is sound). The explorer only
//! deduplicates by such keys (`explorer::key`); it stores, expands and logs the actual
//! states, so every path it reports is a path of the full model. With partial-order
//! reduction the cycle proviso asks about these keys too: it then runs on the quotient by
//! a bisimulation, whose states stand for the ones they merge, and the persistent sets are
//! computed on actual states of the full model; so the argument of `explorer::reduction`
//! applies to the quotient unchanged.
//!
//! To say how many distinct states the stored ones stood for, the search keeps the plain
//! keys of the states it met: under symmetry every state's; under the dead-values
//! reduction alone only those holding dead values, since a state without any is stored by
//! its plain key and stands for itself.
//!
//! [`Model::symmetry`]: crate::Model::symmetry
//! [`Model::canonical_fingerprint`]: crate::Model::canonical_fingerprint
//! [`Model::fingerprint_without_dead_values`]: crate::Model::fingerprint_without_dead_values

use crate::fingerprint::Fingerprint;
use crate::plan::Plan;
use crate::stats::Stats;
use crate::visited::VisitedSet;

/// The distinct states a search met, where its keys merge some.
pub(super) struct Met {
    /// Under symmetry: the plain key of every state met.
    symmetric: Option<VisitedSet>,
    /// Under the dead-values reduction alone: the plain keys of the states met that hold
    /// dead values, and how many of those were stored.
    dead: Option<(VisitedSet, u64)>,
}

impl Met {
    /// Nothing met yet, for a search that runs `plan`.
    pub(super) fn new(plan: &Plan, expected_states: usize, wide: bool) -> Self {
        let symmetry = plan.symmetry.is_on();
        let dead_alone = plan.dead_values.is_on() && !symmetry;
        Met {
            symmetric: symmetry.then(|| VisitedSet::with_capacity_and_width(expected_states, wide)),
            dead: dead_alone.then(|| (VisitedSet::with_capacity_and_width(0, wide), 0)),
        }
    }

    /// Whether the search counts nothing here (neither reduction runs).
    pub(super) fn counts_nothing(&self) -> bool {
        self.symmetric.is_none() && self.dead.is_none()
    }

    /// Notes a state met whose own key is `own_key` (where it is counted) and that was
    /// stored when `new`.
    #[inline]
    pub(super) fn note(&mut self, own_key: Option<Fingerprint>, new: bool, stats: &mut Stats) {
        let Some(own) = own_key else {
            return;
        };
        if let Some(met) = self.symmetric.as_mut() {
            met.insert(own);
            stats.symmetric_states_met = met.len() as u64;
        } else if let Some((met, stored)) = self.dead.as_mut() {
            *stored += u64::from(new);
            met.insert(own);
        }
    }

    /// Its tables.
    pub(super) fn tables(&self) -> impl Iterator<Item = &VisitedSet> {
        (self.symmetric.iter()).chain(self.dead.iter().map(|(met, _)| met))
    }

    /// Fills in `stats.dead_values_states_met` at the end of a search that ran `plan`: the
    /// distinct states met, where the stored ones without dead values stand for themselves.
    pub(super) fn finish(&self, plan: &Plan, stats: &mut Stats) {
        if !plan.dead_values.is_on() {
            return;
        }
        stats.dead_values_states_met = match &self.dead {
            None => stats.symmetric_states_met,
            Some((met, stored)) => {
                stats.unique_states - stored.min(&stats.unique_states) + met.len() as u64
            }
        };
    }
}
