//! A counterexample stops at the first instant of two holders, which would draw the overlap
//! as a line. To show how long it lasts, the run is continued past the violation in the
//! model's own order (the first enabled action that is not a fault, as the shrinker and
//! scripted runs do) until the two holders are gone, the run ends, or a step budget is spent.

use crate::oracles::{self, RedisWorld};
use lockcheck_sim::{Model, Path, Step};

/// Steps a continuation may take at most (a lock that is never released keeps the
/// overlap open; the chart then shows it open up to this point).
pub(crate) const MAX_CONTINUATION_STEPS: usize = 2_000;

/// `path` continued past its last state while two clients hold the same lock: the first
/// `path.steps.len()` steps are `path`'s own. A path whose last state has no two holders is
/// returned unchanged.
pub fn continued(world: &RedisWorld, path: Path<RedisWorld>) -> Path<RedisWorld> {
    let mut path = path;
    let mut enabled = Vec::new();
    for _ in 0..MAX_CONTINUATION_STEPS {
        let state = path.last_state();
        if !oracles::two_holders(world, state) {
            break;
        }
        enabled.clear();
        world.actions(state, &mut enabled);
        let Some(action) = enabled.iter().find(|a| !world.is_fault(a)).cloned() else {
            break;
        };
        let Some(next) = world.next_state(state, &action) else {
            break;
        };
        let label = world.label(state, &action);
        path.steps.push(Step { action, label });
        path.states.push(next);
    }
    path
}
