//! The key under which the explorer deduplicates a state: the model's fingerprint (or its
//! symmetry class's, or the one without dead values), folded with the path's open
//! obligations and, under a virtual-time bound, the time left, and cut to lane A unless the
//! search compares 128 bits (`plan::Width`). One definition for every engine.

use crate::checker::Checker;
use crate::fingerprint::{combine, lane_a, Fingerprint};
use crate::model::Model;
use crate::options::Options;
use crate::plan::Plan;

/// What a search's keys depend on besides the state: which reductions change the model's
/// fingerprint, the virtual-time bound and the width compared. A copy of the plan's and
/// the options' part that any thread may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct KeyMode {
    symmetry: bool,
    dead_values: bool,
    bound_ms: Option<u64>,
    wide: bool,
}

impl KeyMode {
    /// The mode of a search that runs `plan` under `options`.
    pub(super) fn of(plan: &Plan, options: &Options) -> Self {
        KeyMode {
            symmetry: plan.symmetry.is_on(),
            dead_values: plan.dead_values.is_on(),
            bound_ms: options.limits.max_virtual_time_ms,
            wide: plan.width.is_wide(),
        }
    }

    /// The virtual-time bound past which states are not expanded.
    pub(super) fn bound_ms(self) -> Option<u64> {
        self.bound_ms
    }

    /// The key of `state` itself, where the search counts the distinct states it met: under
    /// symmetry every state's (its key is its class's), under the dead-values reduction alone
    /// that of a state holding dead values (a state without any is its own key).
    #[inline]
    pub(super) fn own_key<M: Model>(
        self,
        model: &M,
        state: &M::State,
        obligations: &Option<Box<[u64]>>,
        vt: u64,
    ) -> Option<Fingerprint> {
        let counts = self.symmetry || (self.dead_values && model.has_dead_values(state));
        counts.then(|| {
            dedup_key::<M>(
                model.fingerprint(state),
                obligations,
                vt,
                self.bound_ms,
                self.wide,
            )
        })
    }

    /// The key under which `state`, reached with `obligations` at `vt`, is deduplicated.
    #[inline]
    pub(super) fn key<M: Model>(
        self,
        model: &M,
        state: &M::State,
        obligations: &Option<Box<[u64]>>,
        vt: u64,
    ) -> Fingerprint {
        let model_fp = match (self.symmetry, self.dead_values) {
            (true, true) => model.canonical_fingerprint_without_dead_values(state).0,
            (true, false) => model.canonical_fingerprint(state).0,
            (false, true) => model.fingerprint_without_dead_values(state),
            (false, false) => model.fingerprint(state),
        };
        dedup_key::<M>(model_fp, obligations, vt, self.bound_ms, self.wide)
    }
}

/// The deduplication key of a state whose model fingerprint is `model_fp`, reached with
/// `obligations` at `vt`, under the virtual-time bound `bound_ms` (if any): both lanes when
/// `wide`, lane A alone otherwise.
#[inline(always)]
fn dedup_key<M: Model>(
    model_fp: Fingerprint,
    obligations: &Option<Box<[u64]>>,
    vt: u64,
    bound_ms: Option<u64>,
    wide: bool,
) -> Fingerprint {
    let mut fp = Checker::<M>::fold(model_fp, obligations, vt);
    if let Some(bound) = bound_ms {
        // Under a time bound, the same state with more time left has more future.
        fp = combine(fp, bound.saturating_sub(vt));
    }
    if !wide {
        fp = Fingerprint::from(lane_a(fp));
    }
    // A lane A of zero marks an empty slot of the visited set; a model's own fingerprint
    // may have one.
    fp | Fingerprint::from(lane_a(fp) == 0)
}
