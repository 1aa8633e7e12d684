//! The Redis node actor in small worlds: replication with absolute deadlines, replicas that
//! hide but keep expired keys, failover losing unreplicated writes, persistence across
//! crashes, `WAIT`, `min-replicas-to-write`, pub/sub and stalls.

mod world;

use lockcheck_model::node::{Persistence, RedisNode};
use lockcheck_model::process::Process;
use lockcheck_model::redis::{LockScript, Reply};
use lockcheck_model::scripted::ScriptedStep;
use lockcheck_model::sentinel::{Sentinel, DEFAULT_PRIORITY};
use lockcheck_sim::world::{ClockSpec, CrashKind, FaultEnvelope, PartitionFault};
use lockcheck_sim::{explore, BreadthFirst, Options, Outcome, Property};
use lockcheck_sim::{Limits, Stop};
use world::*;

const MASTER: usize = 0;
const REPLICA: usize = 1;

fn master() -> Process {
    Process::Redis(RedisNode::master())
}

fn replica() -> Process {
    Process::Redis(RedisNode::replica_of(MASTER))
}

#[test]
fn a_replica_receives_a_lock_as_an_absolute_deadline_and_hides_it_once_expired() {
    let client = 2;
    let w = world(vec![
        ("master", master()),
        ("replica", replica()),
        (
            "client",
            scripted(vec![
                step(10, MASTER, &["SET", "lock", "tok", "PX", "100"]),
                step(40, REPLICA, &["GET", "lock"]),
                step(0, REPLICA, &["PTTL", "lock"]),
                step(100, REPLICA, &["GET", "lock"]),
            ]),
        ),
    ]);
    let end = run(&w, &[], 500);
    let s = end.last_state();
    assert_eq!(reply(s, client, 0), Some(Reply::ok()));
    assert_eq!(reply(s, client, 1), Some(bulk("tok")));
    // Set at 11 ms on the master: deadline 111; read at 51 ms on the replica.
    assert_eq!(reply(s, client, 2), Some(Reply::Integer(60)));
    assert_eq!(reply(s, client, 3), Some(Reply::nil()));
    let copy = node(s, REPLICA)
        .keyspace
        .entries()
        .next()
        .map(|(k, e)| (k.to_vec(), e.deadline_ms));
    assert_eq!(
        copy,
        Some((b"lock".to_vec(), Some(111))),
        "kept, with the master's deadline"
    );
}

#[test]
fn a_replica_whose_clock_runs_ahead_hides_the_lock_earlier() {
    let client = 2;
    let w = world_with_clocks(vec![
        ("master", master(), ClockSpec::default()),
        ("replica", replica(), ClockSpec::new(70, 0)),
        (
            "client",
            scripted(vec![
                step(10, MASTER, &["SET", "lock", "tok", "PX", "100"]),
                step(40, REPLICA, &["GET", "lock"]),
                step(0, MASTER, &["GET", "lock"]),
            ]),
            ClockSpec::default(),
        ),
    ]);
    let s = run(&w, &[], 500).last_state().clone();
    assert_eq!(
        reply(&s, client, 1),
        Some(Reply::nil()),
        "replica wall 121 > 111"
    );
    assert_eq!(
        reply(&s, client, 2),
        Some(bulk("tok")),
        "master wall 51 < 111"
    );
}

#[test]
fn a_master_that_finds_a_key_expired_deletes_it_on_its_replicas_too() {
    let client = 2;
    let w = world(vec![
        ("master", master()),
        ("replica", replica()),
        (
            "client",
            scripted(vec![
                step(10, MASTER, &["SET", "lock", "tok", "PX", "100"]),
                step(200, MASTER, &["GET", "lock"]),
            ]),
        ),
    ]);
    let end = run(&w, &[], 500);
    let before = state_at(&end, 150);
    assert_eq!(node(before, REPLICA).keyspace.stored_len(), 1);
    let s = end.last_state();
    assert_eq!(reply(s, client, 1), Some(Reply::nil()));
    assert_eq!(
        node(s, REPLICA).keyspace.stored_len(),
        0,
        "the master's DEL arrived"
    );
}

/// Master, replica, Sentinel and a client that stays with the master when the others split.
fn failover_world(client_steps: Vec<ScriptedStep>) -> RedisWorld {
    let split =
        PartitionFault::two_way("master|rest", &[MASTER, 3], &[REPLICA, 2], vec![Some(300)]);
    world(vec![
        ("master", master()),
        ("replica", replica()),
        (
            "sentinel",
            Process::Sentinel(Sentinel::new(vec![MASTER, REPLICA], MASTER, 10, 50)),
        ),
        ("client", scripted(client_steps)),
    ])
    .with_faults(FaultEnvelope::none().partition(split, 1))
}

#[test]
fn a_write_cut_off_from_the_replica_is_lost_when_the_replica_is_promoted() {
    let client = 3;
    let w = failover_world(vec![
        step(5, MASTER, &["SET", "k1", "v1"]),
        step(25, MASTER, &["SET", "k2", "v2"]),
        step(100, MASTER, &["SET", "k3", "v3"]),
    ]);
    let end = run(&w, &[(20, "partition master|rest for 300 ms")], 600);
    let during = state_at(&end, 200);
    assert_eq!(
        reply(during, client, 1),
        Some(Reply::ok()),
        "acknowledged by the old master"
    );
    assert_eq!(
        reply(during, client, 2),
        Some(Reply::ok()),
        "the old master keeps accepting writes"
    );
    assert!(
        node(during, REPLICA).is_master(),
        "promoted after down-after"
    );
    let promoted = &node(during, REPLICA).keyspace;
    assert!(promoted.peek(b"k1", 200).is_some());
    assert!(
        promoted.peek(b"k2", 200).is_none(),
        "the write it never received is lost"
    );
    // After the partition heals, the old master learns of the new one and resynchronises.
    let healed = end.last_state();
    assert!(!node(healed, MASTER).is_master());
    assert!(node(healed, MASTER).keyspace.peek(b"k2", 600).is_none());
    assert!(node(healed, MASTER).keyspace.peek(b"k1", 600).is_some());
}

/// A client writes a lock (11 ms), `late` (511 ms) and `fresh` (1101 ms); the node fsyncs
/// every second under AOF everysec; the crash happens at `crash_at_ms` (an event point: 510
/// or 1200), restarts 300 ms later, and the client reads everything back at 1600 ms.
fn after_crash(persistence: Persistence, kind: &str, crash_at_ms: u64) -> [Option<Reply>; 4] {
    let client = scripted(vec![
        step(10, MASTER, &["SET", "lock", "tok", "PX", "5000"]),
        step(500, MASTER, &["SET", "late", "x"]),
        step(590, MASTER, &["SET", "fresh", "y"]),
        step(100, MASTER, &["GET", "fresh"]),
        step(400, MASTER, &["GET", "lock"]),
        step(0, MASTER, &["PTTL", "lock"]),
        step(0, MASTER, &["GET", "late"]),
        step(0, MASTER, &["GET", "fresh"]),
    ]);
    let kinds = [CrashKind::Process, CrashKind::PowerLoss];
    let w = world(vec![
        (
            "master",
            Process::Redis(RedisNode::master().with_persistence(persistence)),
        ),
        ("client", client),
    ])
    .with_faults(FaultEnvelope::none().crash(MASTER, &kinds, &[Some(300)], 1));
    let crash = format!("crash master{kind}, restart after 300 ms");
    let s = run(&w, &[(crash_at_ms, &crash)], 2_000)
        .last_state()
        .clone();
    [4, 5, 6, 7].map(|i| reply(&s, 1, i))
}

const NIL: Option<Reply> = Some(Reply::Bulk(None));

fn got(s: &str) -> Option<Reply> {
    Some(bulk(s))
}

#[test]
fn aof_always_keeps_an_acknowledged_lock_with_its_deadline_across_a_power_loss() {
    let [lock, pttl, late, fresh] = after_crash(Persistence::AofAlways, " with power loss", 1_200);
    assert_eq!((lock, late, fresh), (got("tok"), got("x"), got("y")));
    // Set at 11 ms with PX 5000, read at 1601 ms: time counted while the node was down.
    assert_eq!(pttl, Some(Reply::Integer(5_011 - 1_601)));
}

#[test]
fn without_persistence_a_restarted_node_is_empty() {
    let [lock, pttl, late, _] = after_crash(Persistence::None, "", 1_200);
    assert_eq!((lock, late), (NIL, NIL));
    assert_eq!(pttl, Some(Reply::Integer(-2)));
}

#[test]
fn aof_everysec_keeps_writes_after_a_process_crash_and_loses_the_last_second_on_power_loss() {
    let [lock, _, late, fresh] = after_crash(Persistence::AofEverySec, "", 1_200);
    assert_eq!(
        (lock, late, fresh),
        (got("tok"), got("x"), got("y")),
        "the OS had them"
    );
    let [lock, _, late, fresh] = after_crash(Persistence::AofEverySec, " with power loss", 1_200);
    assert_eq!((lock, late), (got("tok"), got("x")), "fsynced at 1000 ms");
    assert_eq!(fresh, NIL, "written at 1101 ms, after the last fsync");
    let [lock, ..] = after_crash(Persistence::AofEverySec, " with power loss", 510);
    assert_eq!(lock, NIL, "never fsynced");
    let [lock, ..] = after_crash(Persistence::AofEverySec, "", 510);
    assert_eq!(lock, got("tok"));
}

#[test]
fn wait_counts_acknowledging_replicas_and_times_out_under_a_partition() {
    let client = 2;
    let steps = vec![
        step(10, MASTER, &["SET", "k", "v"]),
        step(0, MASTER, &["WAIT", "1", "100"]),
    ];
    let w = world(vec![
        ("master", master()),
        ("replica", replica()),
        ("client", scripted(steps)),
    ]);
    let s = run(&w, &[], 500).last_state().clone();
    assert_eq!(reply(&s, client, 1), Some(Reply::Integer(1)));
    let cut = PartitionFault::two_way("m|r", &[MASTER], &[REPLICA], vec![None]);
    let w = w.with_faults(FaultEnvelope::none().partition(cut, 1));
    let end = run(&w, &[(5, "partition m|r for good")], 500);
    let s = end.last_state();
    assert_eq!(reply(s, client, 1), Some(Reply::Integer(0)));
    let answered_at = end
        .states
        .iter()
        .find(|st| reply(st, client, 1).is_some())
        .map(|st| st.now_ms);
    assert_eq!(
        answered_at,
        Some(112),
        "sent at 10, arrives 11, times out 100 ms later"
    );
}

#[test]
fn min_replicas_to_write_refuses_writes_once_the_replica_lags() {
    let client = 2;
    let mut strict = RedisNode::master();
    strict.min_replicas_to_write = 1;
    strict.min_replicas_max_lag_ms = 1_000;
    let mut acking = RedisNode::replica_of(MASTER);
    acking.repl_ack_every_ms = Some(500);
    let cut = PartitionFault::two_way("m|r", &[MASTER], &[REPLICA], vec![None]);
    let w = world(vec![
        ("master", Process::Redis(strict)),
        ("replica", Process::Redis(acking)),
        (
            "client",
            scripted(vec![
                step(100, MASTER, &["SET", "a", "1"]),
                step(2_000, MASTER, &["SET", "b", "2"]),
                step(0, MASTER, &["GET", "a"]),
            ]),
        ),
    ])
    .with_faults(FaultEnvelope::none().partition(cut, 1));
    let s = run(&w, &[(200, "partition m|r for good")], 3_000)
        .last_state()
        .clone();
    assert_eq!(reply(&s, client, 0), Some(Reply::ok()));
    assert_eq!(
        reply(&s, client, 1),
        Some(Reply::Error(
            "NOREPLICAS Not enough good replicas to write.".into()
        ))
    );
    assert_eq!(reply(&s, client, 2), Some(bulk("1")), "reads still work");
}

#[test]
fn a_redisson_release_publishes_the_unlock_to_subscribers() {
    let (holder, waiter) = (1, 2);
    let acquire = LockScript::RedissonAcquire {
        key: b"lock".to_vec(),
        field: b"uuid:1".to_vec(),
        lease_ms: 30_000,
    };
    let release = LockScript::RedissonRelease {
        key: b"lock".to_vec(),
        channel: b"redisson_lock__channel:{lock}".to_vec(),
        field: b"uuid:1".to_vec(),
        lease_ms: 30_000,
    };
    let script = |after_ms, s: LockScript| {
        ScriptedStep::command(after_ms, MASTER, lockcheck_model::redis::Command::Script(s))
    };
    let w = world(vec![
        ("master", master()),
        (
            "holder",
            scripted(vec![script(5, acquire), script(20, release)]),
        ),
        (
            "waiter",
            scripted(vec![step(
                1,
                MASTER,
                &["SUBSCRIBE", "redisson_lock__channel:{lock}"],
            )]),
        ),
    ]);
    let s = run(&w, &[], 200).last_state().clone();
    assert_eq!(reply(&s, holder, 0), Some(Reply::nil()), "acquired");
    assert_eq!(
        reply(&s, holder, 1),
        Some(Reply::Integer(1)),
        "released and deleted"
    );
    let published = &s.actor(waiter).unwrap().as_scripted().unwrap().published;
    assert_eq!(published.len(), 1);
    assert_eq!(published[0].0, b"redisson_lock__channel:{lock}".to_vec());
}

#[test]
fn a_stalled_node_answers_nothing_until_the_stall_ends() {
    let client = 1;
    let w = world(vec![
        ("master", master()),
        (
            "client",
            scripted(vec![step(10, MASTER, &["SET", "k", "v"])]),
        ),
    ])
    .with_faults(FaultEnvelope::none().pause(MASTER, &[200], 1));
    // The stall begins at 10 ms, just before the request is sent (arriving at 11 ms).
    let end = run(&w, &[(10, "pause master for 200 ms")], 500);
    let answered_at = end
        .states
        .iter()
        .find(|st| reply(st, client, 0).is_some())
        .map(|st| st.now_ms);
    assert_eq!(
        answered_at,
        Some(211),
        "served when the stall ends at 210, answer 1 ms later"
    );
}

#[test]
fn exhaustive_search_of_a_world_with_sentinel_is_finite_and_finds_the_lost_write() {
    let w = failover_world(vec![
        step(5, MASTER, &["SET", "k1", "v1"]),
        step(25, MASTER, &["SET", "k2", "v2"]),
    ])
    .with_property(Property::sometimes(
        "acknowledged-write-lost",
        |_, s: &State| {
            reply(s, 3, 1) == Some(Reply::ok())
                && s.actor(REPLICA)
                    .and_then(|p| p.as_redis())
                    .is_some_and(|n| {
                        n.is_master() && n.keyspace.peek(b"k2", s.now_ms as i64).is_none()
                    })
        },
    ));
    let options = Options {
        stop: Stop::Never,
        limits: Limits::states(2_000_000),
        ..Options::default()
    };
    let report = explore(&w, &mut BreadthFirst::default(), options);
    assert_eq!(report.outcome, Outcome::Complete, "{report}");
    assert!(report.hollow().is_empty(), "{report}");
    assert!(report.stats.unique_states > 1_000, "{report}");
}

#[test]
fn a_forward_clock_step_on_the_node_expires_a_lock_at_once() {
    let client = 1;
    let w = world(vec![
        ("master", master()),
        (
            "client",
            scripted(vec![
                step(10, MASTER, &["SET", "lock", "tok", "PX", "10000"]),
                step(90, MASTER, &["GET", "lock"]),
            ]),
        ),
    ])
    .with_faults(FaultEnvelope::none().clock_step(MASTER, &[15_000], 1));
    let calm = run(&w, &[], 500).last_state().clone();
    assert_eq!(reply(&calm, client, 1), Some(bulk("tok")));
    let stepped = run(&w, &[(50, "step clock of master by +15000 ms")], 500)
        .last_state()
        .clone();
    assert_eq!(
        reply(&stepped, client, 1),
        Some(Reply::nil()),
        "100 ms in, 10 s lock gone"
    );
}

#[test]
fn sentinel_promotes_the_most_up_to_date_reachable_replica() {
    let s = stale_and_fresh_failover([DEFAULT_PRIORITY; 3]);
    let (stale, fresh) = (1, 2);
    assert!(
        node(&s, fresh).is_master(),
        "the replica that has both writes"
    );
    assert!(!node(&s, stale).is_master());
    let sentinel = s.actor(3).and_then(|p| p.as_sentinel()).unwrap();
    assert_eq!((sentinel.master, sentinel.failovers), (fresh, 1));
    assert!(node(&s, fresh).keyspace.peek(b"b", 300).is_some());
}

#[test]
fn replica_priority_comes_before_the_offset_and_zero_is_never_promoted() {
    let stale = 1;
    // A lower priority wins over a higher offset: the stale replica, without the second write.
    let s = stale_and_fresh_failover([DEFAULT_PRIORITY, 10, DEFAULT_PRIORITY]);
    assert!(node(&s, stale).is_master());
    assert!(node(&s, stale).keyspace.peek(b"b", 300).is_none());
    // Priority 0 on the fresh one: the stale one, although its priority is the higher.
    let s = stale_and_fresh_failover([DEFAULT_PRIORITY, 200, 0]);
    assert!(node(&s, stale).is_master());
    // Priority 0 on both: no failover at all.
    let s = stale_and_fresh_failover([DEFAULT_PRIORITY, 0, 0]);
    let sentinel = s.actor(3).and_then(|p| p.as_sentinel()).unwrap();
    assert_eq!((sentinel.master, sentinel.failovers), (MASTER, 0));
}

/// A master and two replicas under Sentinel, with these `replica-priority` values; the
/// stale replica is cut off from the master before the second of two writes, then the
/// master crashes for good. The state at 300 ms.
fn stale_and_fresh_failover(priorities: [u32; 3]) -> State {
    let (stale, fresh) = (1, 2);
    // The stale replica is cut off from the master before the second write.
    let lag = PartitionFault::two_way("master|stale", &[MASTER], &[stale], vec![None]);
    let crash = [CrashKind::Process];
    let w = world(vec![
        ("master", master()),
        ("stale", replica()),
        ("fresh", replica()),
        (
            "sentinel",
            Process::Sentinel(Sentinel {
                priorities: priorities.to_vec(),
                ..Sentinel::new(vec![MASTER, stale, fresh], MASTER, 10, 50)
            }),
        ),
        (
            "client",
            scripted(vec![
                step(5, MASTER, &["SET", "a", "1"]),
                step(20, MASTER, &["SET", "b", "2"]),
            ]),
        ),
    ])
    .with_faults(
        FaultEnvelope::none()
            .partition(lag, 1)
            .crash(MASTER, &crash, &[None], 1),
    );
    run(
        &w,
        &[
            (20, "partition master|stale for good"),
            (40, "crash master, no restart"),
        ],
        300,
    )
    .last_state()
    .clone()
}
