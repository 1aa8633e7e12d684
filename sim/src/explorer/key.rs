//! The key under which the explorer deduplicates a state: the model's fingerprint (or its
//! symmetry class's), folded with the path's open obligations and, under a virtual-time
//! bound, the time left, and cut to lane A unless the search compares 128 bits
//! (`explorer::width`). One definition for the sequential and the parallel search.

use crate::checker::Checker;
use crate::fingerprint::{combine, lane_a, Fingerprint};
use crate::model::Model;
use crate::Options;

/// What a search's keys depend on besides the state: which reductions change the model's
/// fingerprint, and the virtual-time bound. A copy of the options' part that any thread may
/// hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct KeyMode {
    symmetry: bool,
    dead_values: bool,
    bound_ms: Option<u64>,
    wide: bool,
}

impl KeyMode {
    /// The mode of a search whose options say which reductions run (as decided).
    pub(super) fn of(options: &Options) -> Self {
        Self::with(
            options.reductions.symmetry,
            options.reductions.dead_values,
            options,
        )
    }

    /// The mode of a search under `options`, with symmetry and the value abstraction as
    /// given (decided for the search, whatever the options asked).
    pub(super) fn with(symmetry: bool, dead_values: bool, options: &Options) -> Self {
        KeyMode {
            symmetry,
            dead_values,
            bound_ms: options.max_virtual_time_ms,
            wide: options.wide_fingerprints,
        }
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
            (true, true) => model.canonical_live_fingerprint(state).0,
            (true, false) => model.canonical_fingerprint(state).0,
            (false, true) => model.live_fingerprint(state),
            (false, false) => model.fingerprint(state),
        };
        dedup_key::<M>(model_fp, obligations, vt, self.bound_ms, self.wide)
    }
}

/// The deduplication key of a state whose model fingerprint is `model_fp`, reached with
/// `obligations` at `vt`, under the virtual-time bound `bound_ms` (if any): both lanes when
/// `wide`, lane A alone otherwise.
#[inline]
pub(super) fn dedup_key<M: Model>(
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
