//! The key under which the explorer deduplicates a state: the model's fingerprint (or its
//! symmetry class's), folded with the path's open obligations and, under a virtual-time
//! bound, the time left. One definition for the sequential and the parallel search.

use crate::checker::Checker;
use crate::fingerprint::{combine, Fingerprint};
use crate::model::Model;

/// The deduplication key of a state whose model fingerprint is `model_fp`, reached with
/// `obligations` at `vt`, under the virtual-time bound `bound_ms` (if any).
#[inline]
pub(super) fn dedup_key<M: Model>(
    model_fp: Fingerprint,
    obligations: &Option<Box<[u64]>>,
    vt: u64,
    bound_ms: Option<u64>,
) -> Fingerprint {
    let mut fp = Checker::<M>::fold(model_fp, obligations, vt);
    if let Some(bound) = bound_ms {
        // Under a time bound, the same state with more time left has more future.
        fp = combine(fp, bound.saturating_sub(vt));
    }
    // Zero marks an empty slot of the visited set; a model's own fingerprint may be zero.
    fp.max(1)
}
