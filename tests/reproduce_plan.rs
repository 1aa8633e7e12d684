//! The planner and slack analysis of `reproduce` on built-in counterexamples, without Redis:
//! which steps become real actions, when a node fault ends, what is refused, and how much
//! slack a command has against the deadlines near it.

use lockcheck::reproduce::plan::{plan, Plan, RealAction};
use lockcheck::reproduce::slack::slack;
use lockcheck::scenario::builtin;
use lockcheck::testing;

fn planned(name: &str) -> (Result<Plan, String>, Vec<Option<u64>>) {
    let checked = testing::check(&builtin::by_name(name).expect("a built-in"));
    let world = &checked.checked.world;
    let (_, path) = checked
        .checked
        .report
        .first_violation()
        .expect("a violating built-in");
    match plan(world, path) {
        Ok(mut p) => {
            let s = slack(world, path, &mut p, 1.0);
            (Ok(p), s)
        }
        Err(u) => (Err(u.to_string()), Vec::new()),
    }
}

fn count(p: &Plan, f: impl Fn(&RealAction) -> bool) -> usize {
    p.steps.iter().filter(|s| f(&s.action)).count()
}

#[test]
fn a_client_pause_is_a_note_and_every_command_has_its_reply() {
    let (p, slack) = planned("kleppmann-pause-past-lease");
    let p = p.unwrap();
    assert_eq!(p.nodes.len(), 1);
    assert!(!p.steps_clocks);
    let sends = count(&p, |a| matches!(a, RealAction::Send { .. }));
    let expects = count(&p, |a| matches!(a, RealAction::Expect { .. }));
    assert_eq!(
        (sends, expects),
        (8, 8),
        "client-1's SET NX, client-2's six, its release"
    );
    assert_eq!(count(&p, |a| matches!(a, RealAction::Pause { .. })), 0);
    let pause = p
        .steps
        .iter()
        .find(|s| s.label.starts_with("pause client-1"))
        .unwrap();
    assert_eq!(pause.action, RealAction::Note);
    // The retry at 8,109 ms finds the lock held until 10,001 ms: 1,892 ms of slack; the
    // one at 10,111 ms finds it gone 110 ms before.
    let slack_at = |t: u64| {
        let i = p
            .steps
            .iter()
            .position(|s| s.at_ms == t && matches!(s.action, RealAction::Send { .. }))
            .unwrap();
        slack[i]
    };
    assert_eq!(slack_at(8_109), Some(1_892));
    assert_eq!(slack_at(10_111), Some(110));
}

#[test]
fn a_retry_the_instant_a_lock_expires_is_stretched_past_it() {
    // seed-003's instance-b retries 2 ms after the watchdog-less lock expires.
    let (p, slack) = planned("seed-003-incident");
    let p = p.unwrap();
    let i = p
        .steps
        .iter()
        .position(|s| s.stretch_ms > 0)
        .expect("a stretched step");
    assert!(
        p.steps[i].label.contains("redisson-acquire"),
        "{}",
        p.steps[i].label
    );
    assert_eq!(slack[i], Some(20), "moved to 20 ms past the deadline");
    assert!(p.steps[i..]
        .iter()
        .all(|s| s.stretch_ms >= p.steps[i].stretch_ms));
}

#[test]
fn a_crash_is_followed_by_its_restart_at_the_model_s_time() {
    let (p, _) = planned("restart-without-persistence");
    let p = p.unwrap();
    let crash = p
        .steps
        .iter()
        .find(|s| matches!(s.action, RealAction::Crash { .. }))
        .unwrap();
    let restart = p
        .steps
        .iter()
        .find(|s| matches!(s.action, RealAction::Restart { .. }))
        .unwrap();
    assert_eq!(restart.at_ms, crash.at_ms + 1_000);
    assert_eq!(
        restart.step, crash.step,
        "the restart belongs to the crash's step"
    );
}

#[test]
fn a_node_clock_step_is_planned_and_needs_the_clock_library() {
    let (p, _) = planned("kleppmann-clock-jump");
    let p = p.unwrap();
    assert!(p.steps_clocks);
    let steps: Vec<_> = p
        .steps
        .iter()
        .filter_map(|s| match s.action {
            RealAction::ClockStep { node, delta_ms } => {
                Some((p.nodes[node].name.clone(), delta_ms))
            }
            _ => None,
        })
        .collect();
    assert_eq!(steps.len(), 1, "{steps:?}");
    assert!(steps[0].1 > 0);
}

#[test]
fn a_node_pause_ends_with_a_resume() {
    let (p, _) = planned("seed-000-redlock-process-pause");
    let p = p.unwrap();
    let pauses = count(&p, |a| matches!(a, RealAction::Pause { .. }));
    let resumes = count(&p, |a| matches!(a, RealAction::Resume { .. }));
    assert_eq!(pauses, resumes);
    let times: Vec<u64> = p.steps.iter().map(|s| s.at_ms).collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "the plan runs forward in time"
    );
}

#[test]
fn a_replica_replicates_through_a_proxy_that_a_partition_cuts() {
    let (p, _) = planned("min-replicas-lag-refuses-writes");
    let p = p.unwrap();
    let names: Vec<&str> = p.nodes.iter().map(|n| n.name.as_str()).collect();
    let (m, r) = (
        names.iter().position(|&n| n == "m").unwrap(),
        names.iter().position(|&n| n == "r").unwrap(),
    );
    assert_eq!(p.nodes[r].replica_of, Some(m));
    assert_eq!(
        (
            p.nodes[m].min_replicas_to_write,
            p.nodes[m].min_replicas_max_lag_s
        ),
        (1, 2)
    );
    let cuts: Vec<_> = p
        .steps
        .iter()
        .filter_map(|s| match &s.action {
            RealAction::Cut { links } => Some((s.at_ms, links.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(cuts.len(), 1, "{cuts:?}");
    assert!(
        cuts[0].1.contains(&(m, r)) || cuts[0].1.contains(&(r, m)),
        "{cuts:?}"
    );
}

#[test]
fn a_sentinel_is_asked_where_the_model_s_client_asks_and_its_link_is_cut() {
    let (p, _) = planned("failover-loses-lock");
    let p = p.unwrap();
    assert_eq!(p.sentinels.len(), 1);
    let sentinel = p.nodes.len();
    let master = p.sentinels[0].master;
    assert_eq!(p.nodes[master].name, "redis-1");
    assert_eq!(p.sentinels[0].replicas, 1);
    let asks = count(&p, |a| matches!(a, RealAction::AskMaster { .. }));
    let answers: Vec<usize> = p
        .steps
        .iter()
        .filter_map(|s| match s.action {
            RealAction::ExpectMaster { master, .. } => Some(master),
            _ => None,
        })
        .collect();
    assert_eq!(asks, answers.len());
    assert_eq!(
        p.nodes[*answers.last().unwrap()].name,
        "redis-2",
        "the failover's answer"
    );
    let cut = p
        .steps
        .iter()
        .find_map(|s| match &s.action {
            RealAction::Cut { links } => Some(links.clone()),
            _ => None,
        })
        .unwrap();
    assert!(
        cut.contains(&(master, sentinel)) || cut.contains(&(sentinel, master)),
        "{cut:?}"
    );
}

#[test]
fn several_sentinels_slow_replication_and_disk_faults_are_refused_with_the_reason() {
    let (p, _) = planned("sentinel-majority-fails-over");
    let why = p.unwrap_err();
    assert!(why.contains("several Sentinels"), "{why}");
    let (p, _) = planned("redisson-priority-promotes-unsynced");
    let why = p.unwrap_err();
    assert!(
        why.contains("redis-1 -> redis-3 is slower than the rest"),
        "{why}"
    );
    let (p, _) = planned("aof-stall-power-loss");
    let why = p.unwrap_err();
    assert!(
        why.contains("disk stall") && why.contains("a fault of the node itself"),
        "{why}"
    );
}
