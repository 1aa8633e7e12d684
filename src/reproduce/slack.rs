//! Slack analysis: how far each command may reach its server off its time before the reply
//! could change, in virtual ms.
//!
//! The replayer keeps the plan's order on each server (it settles a server before acting on
//! it, see `conns.rs`), so what can still change a reply is time itself: a key's expiry
//! deadline near the instant a command runs, or the instant a paused server resumes and
//! runs what queued up. A step's slack is the distance from its instant to the nearest
//! deadline on its server. A run whose lateness so far reached a step's slack did not hold
//! that step's timing: a divergence there, or a violation that did not happen, says nothing
//! about Redis, and the verdict is INCONCLUSIVE instead.

use super::plan::{Plan, RealAction};
use crate::oracles::RedisWorld;
use lockcheck_sim::Path;

/// Every planned step's slack: `None` for steps whose outcome does not depend on timing.
pub fn slack(world: &RedisWorld, path: &Path<RedisWorld>, plan: &Plan) -> Vec<Option<u64>> {
    let gaps = deadline_gaps(world, path, plan);
    slack_of(&gaps)
}

/// For each planned step that runs commands on a server (a command, a resume): the
/// distances, in the server's wall clock at that instant, to every key deadline on it.
pub fn deadline_gaps(world: &RedisWorld, path: &Path<RedisWorld>, plan: &Plan) -> Vec<Vec<u64>> {
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
                .map(|d| d.abs_diff(now_ms))
                .collect()
        })
        .collect()
}

/// The slack of every planned step from its deadline gaps: the nearest, or `None` when no
/// deadline is near (or the step runs no command).
pub fn slack_of(gaps: &[Vec<u64>]) -> Vec<Option<u64>> {
    gaps.iter().map(|g| g.iter().copied().min()).collect()
}

/// Whether the run held step `i`'s timing: every step up to it ran less late than its slack.
pub fn held(slack_ms: Option<u64>, worst_late_ms: f64) -> bool {
    slack_ms.is_none_or(|s| worst_late_ms < s as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_is_as_slack_as_its_nearest_deadline() {
        let gaps = vec![vec![40, 3_000, 7], vec![], vec![0]];
        assert_eq!(slack_of(&gaps), vec![Some(7), None, Some(0)]);
    }

    #[test]
    fn timing_holds_while_the_worst_lateness_stays_below_the_slack() {
        assert!(held(None, 5_000.0));
        assert!(held(Some(25), 24.9));
        assert!(!held(Some(25), 25.0));
        assert!(!held(Some(0), 0.01));
    }
}
