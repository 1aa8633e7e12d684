//! Slack analysis: how far each command may reach its server off its time before the reply
//! could change, in virtual ms.
//!
//! A command's reply depends on timing only through what is near it on its server: a key's
//! expiry deadline, a fault of the server (pause, resume, crash, restart, clock step), and
//! another client's command to the same server (which could overtake it). Its slack is the
//! distance to the nearest of these. A run whose lateness so far reached a step's slack did
//! not hold that step's timing: a divergence there, or a violation that did not happen, says
//! nothing about Redis, and the verdict is INCONCLUSIVE instead.

use super::plan::{Plan, RealAction};
use crate::oracles::RedisWorld;
use lockcheck_sim::Path;

/// Every planned step's slack: `None` for steps whose outcome does not depend on timing.
pub fn slack(world: &RedisWorld, path: &Path<RedisWorld>, plan: &Plan) -> Vec<Option<u64>> {
    let gaps = deadline_gaps(world, path, plan);
    slack_of(plan, &gaps)
}

/// For each planned step that sends a command: the distance, in the node's wall clock just
/// before the step, from now to every key deadline on the node.
pub fn deadline_gaps(world: &RedisWorld, path: &Path<RedisWorld>, plan: &Plan) -> Vec<Vec<u64>> {
    plan.steps
        .iter()
        .map(|s| match s.action {
            RealAction::Send { node, .. } => {
                let state = &path.states[s.step - 1];
                let p = plan.node_processes[node];
                let now_ms = world.local_now(state, p).wall_ms;
                let Some(n) = state.procs[p].actor_state().and_then(|s| s.as_redis()) else {
                    return Vec::new();
                };
                n.keyspace
                    .entries()
                    .filter_map(|(_, e)| e.deadline_ms)
                    .map(|d| d.abs_diff(now_ms))
                    .collect()
            }
            _ => Vec::new(),
        })
        .collect()
}

/// The slack of every planned step from the deadline gaps of its sends (see the module doc).
pub fn slack_of(plan: &Plan, gaps: &[Vec<u64>]) -> Vec<Option<u64>> {
    plan.steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let RealAction::Send { client, node, .. } = s.action else {
                return None;
            };
            let near = plan.steps.iter().enumerate().filter(|&(j, o)| {
                j != i
                    && match o.action {
                        RealAction::Send {
                            client: c, node: n, ..
                        } => n == node && c != client,
                        RealAction::Pause { node: n }
                        | RealAction::Resume { node: n }
                        | RealAction::Crash { node: n }
                        | RealAction::Restart { node: n }
                        | RealAction::ClockStep { node: n, .. } => n == node,
                        _ => false,
                    }
            });
            near.map(|(_, o)| o.at_ms.abs_diff(s.at_ms))
                .chain(gaps[i].iter().copied())
                .min()
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
    use crate::reproduce::plan::PlannedStep;

    fn at(at_ms: u64, action: RealAction) -> PlannedStep {
        PlannedStep {
            step: 1,
            label: String::new(),
            at_ms,
            action,
        }
    }

    fn send(client: usize, node: usize) -> RealAction {
        RealAction::Send {
            client,
            node,
            id: 0,
            argv: Vec::new(),
        }
    }

    fn plan_of(steps: Vec<PlannedStep>) -> Plan {
        Plan {
            steps,
            nodes: Vec::new(),
            node_processes: Vec::new(),
            steps_clocks: false,
        }
    }

    #[test]
    fn a_send_is_as_slack_as_its_nearest_deadline_fault_or_rival_send() {
        let plan = plan_of(vec![
            at(1_000, send(5, 0)),
            at(1_004, send(6, 0)),
            at(1_010, send(5, 0)),
            at(9_000, RealAction::Pause { node: 0 }),
            at(9_300, send(5, 1)),
            at(9_500, RealAction::Note),
        ]);
        let gaps = vec![vec![40], vec![], vec![3_000], vec![], vec![], vec![]];
        let slack = slack_of(&plan, &gaps);
        assert_eq!(
            slack[0],
            Some(4),
            "client 6's command 4 ms later could overtake it"
        );
        assert_eq!(slack[1], Some(4));
        assert_eq!(
            slack[2],
            Some(6),
            "its own client's command cannot overtake it"
        );
        assert_eq!(slack[3], None, "a fault has no reply");
        assert_eq!(slack[4], None, "nothing near on node 1");
        assert_eq!(slack[5], None);
    }

    #[test]
    fn timing_holds_while_the_worst_lateness_stays_below_the_slack() {
        assert!(held(None, 5_000.0));
        assert!(held(Some(25), 24.9));
        assert!(!held(Some(25), 25.0));
        assert!(!held(Some(0), 0.01));
    }
}
