//! Slack analysis: how far each command may reach its server off its time before the reply
//! could change, in virtual ms.
//!
//! The replayer keeps the plan's order on each server (it settles a server before acting on
//! it, see `conns.rs`), so what can still change a reply is time itself: a key's expiry
//! deadline near the instant a command runs, or the instant a paused server resumes and
//! runs what queued up. A step's slack is the distance from its instant to the nearest
//! deadline on its server (after `stretch.rs` moved the steps that came too close after
//! one). A run whose lateness so far reached a step's slack did not hold
//! that step's timing: a divergence there, or a violation that did not happen, says nothing
//! about Redis, and the verdict is INCONCLUSIVE instead.

use super::plan::{Plan, RealAction};
use crate::oracles::RedisWorld;
use lockcheck_sim::Path;

/// Every planned step's slack on the stretched schedule (see `stretch.rs`, which moves
/// `plan`'s steps): `None` for steps whose outcome does not depend on timing.
pub fn slack(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    plan: &mut Plan,
    speed: f64,
) -> Vec<Option<u64>> {
    let gaps = deadline_gaps(world, path, plan);
    let shifts = super::stretch::stretch(&gaps, super::stretch::target_ms(speed));
    for (step, shift) in plan.steps.iter_mut().zip(&shifts.by_step_ms) {
        step.stretch_ms = *shift;
    }
    shifts.slack_ms
}

/// A key deadline a step sees on its server: which (node, deadline in the node's wall
/// clock), and how far it is from the step's instant (negative: already passed).
pub type Gap = ((usize, i64), i64);

/// For each planned step that runs commands on a server (a command, a resume): every key
/// deadline on it, with its distance in the server's wall clock at that instant.
pub fn deadline_gaps(world: &RedisWorld, path: &Path<RedisWorld>, plan: &Plan) -> Vec<Vec<Gap>> {
    plan.steps
        .iter()
        .map(|s| {
            let state = match s.action {
                RealAction::Send { node, .. } => (&path.states[s.step - 1], node),
                RealAction::Resume { node } => {
                    let upto = path.states.partition_point(|st| st.now_ms <= s.at_ms);
                    (&path.states[upto.saturating_sub(1)], node)
                }
                _ => return Vec::new(),
            };
            let (state, node) = state;
            let p = plan.node_processes[node];
            let now_ms = world.local_now(state, p).wall_ms + (s.at_ms - state.now_ms) as i64;
            let Some(n) = state.procs[p].actor_state().and_then(|s| s.as_redis()) else {
                return Vec::new();
            };
            n.keyspace
                .entries()
                .filter_map(|(_, e)| e.deadline_ms)
                .map(|d| ((node, d), d - now_ms))
                .collect()
        })
        .collect()
}

/// Whether the run held step `i`'s timing: every step up to it ran less late than its slack.
pub fn held(slack_ms: Option<u64>, worst_late_ms: f64) -> bool {
    slack_ms.is_none_or(|s| worst_late_ms < s as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_holds_while_the_worst_lateness_stays_below_the_slack() {
        assert!(held(None, 5_000.0));
        assert!(held(Some(25), 24.9));
        assert!(!held(Some(25), 25.0));
        assert!(!held(Some(0), 0.01));
    }
}
