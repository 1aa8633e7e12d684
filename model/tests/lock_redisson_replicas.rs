//! Redisson's `WAIT` after each lock script, on a master with one replica: when the grant is
//! believed, what "None of slaves were synced" does in each generation, and how long the
//! batch is waited for.
//!
//! Unless a test says otherwise: links of 1 ms, `lock()` with a 3 s watchdog lease, a 100 ms
//! request timeout, the default 1 s `slavesSyncTimeout`, work 500 ms, client `a` at 0 ms.

mod world;

use lockcheck_model::lock::redisson::{NoneSynced, Redisson, ReplicaSync, Servers};
use lockcheck_model::msg::{ClientTimer, LockTimer, Timer};
use lockcheck_model::node::RedisNode;
use lockcheck_model::process::Process;
use lockcheck_sim::world::{FaultEnvelope, LinkSpec, Network, PartitionFault, ProcessId};
use lockcheck_sim::{explore, BreadthFirst, Options, Outcome, Path, Property};
use lockcheck_sim::{Limits, Stop};
use world::*;

const MASTER: ProcessId = 0;
const REPLICA: ProcessId = 1;
const A: ProcessId = 2;
const KEY: &[u8] = b"lock";

fn synced(sync: ReplicaSync) -> Redisson {
    Redisson::lock(MASTER)
        .with_watchdog_timeout_ms(3_000)
        .with_request_timeout_ms(100)
        .with_servers(Servers::MasterSlave { sync })
}

fn client(engine: Redisson) -> Process {
    redisson_client(engine, KEY, "uuid-a", 0, 500)
}

/// A master, its replica (the master's link to it takes `replication_ms`) and client `a`;
/// the master and the replica may be cut apart for good once.
fn replicated(engine: Redisson, replication_ms: u64) -> RedisWorld {
    let cut = PartitionFault::two_way("m|r", &[MASTER, A], &[REPLICA], vec![None]);
    world(vec![
        ("master", Process::Redis(RedisNode::master())),
        ("replica", Process::Redis(RedisNode::replica_of(MASTER))),
        ("a", client(engine)),
    ])
    .with_network(Network::uniform(LinkSpec::fixed(1)).with_link(
        MASTER,
        REPLICA,
        LinkSpec::fixed(replication_ms),
    ))
    .with_faults(FaultEnvelope::none().partition(cut, 1))
}

fn believes(w: &RedisWorld, s: &State) -> bool {
    let (Process::Client(config), Some(state)) = (
        &w.processes[A].actor,
        s.actor(A).and_then(|a| a.as_client()),
    ) else {
        return false;
    };
    !config.believed_locks(state, w.local_now(s, A)).is_empty()
}

fn holds_key(s: &State, node_id: ProcessId) -> bool {
    s.actor(node_id)
        .and_then(|a| a.as_redis())
        .is_some_and(|n| n.keyspace.peek(KEY, s.now_ms as i64).is_some())
}

fn acquired_at(w: &RedisWorld, path: &Path<RedisWorld>) -> Option<u64> {
    path.states
        .iter()
        .find(|s| believes(w, s))
        .map(|s| s.now_ms)
}

fn gave_up(s: &State) -> u32 {
    s.actor(A).and_then(|a| a.as_client()).unwrap().gave_up
}

#[test]
fn the_grant_is_believed_only_once_the_replica_acknowledged_it() {
    // The replica is 50 ms away: the script runs at 1 ms and answers at 2 ms, the replica
    // applies it at 51 ms, its acknowledgement reaches the master at 52 ms and the WAIT's
    // answer the client at 53 ms.
    let w = replicated(synced(ReplicaSync::new(1)), 50);
    let path = run(&w, &[], 1_000);
    assert_eq!(acquired_at(&w, &path), Some(53));
    // Exhaustively, with the cut anywhere: whenever `a` believes, the replica has the lock.
    let w = w.with_property(Property::always("replica-has-it", |w, s: &State| {
        !believes(w, s) || holds_key(s, REPLICA)
    }));
    let options = Options {
        stop: Stop::Never,
        limits: Limits::states(200_000),
        ..Options::default()
    };
    let report = explore(&w, &mut BreadthFirst::default(), options);
    assert_eq!(report.outcome, Outcome::Complete, "{report}");
    assert!(report.first_violation().is_none(), "{report}");
}

#[test]
fn none_synced_fails_the_acquire_and_leaves_or_unlocks_the_lock_by_generation() {
    // The WAIT times out at 1 s. 3.17 gives up at once and leaves the lock on the master;
    // 3.20 runs the unlock script first, itself followed by a WAIT that times out too.
    let generations = [
        (NoneSynced::Fail, 1_000, true),
        (NoneSynced::UnlockAndFail, 2_000, false),
    ];
    for (none_synced, over_after_ms, left_on_master) in generations {
        let sync = ReplicaSync {
            none_synced,
            ..ReplicaSync::new(1)
        };
        let w = replicated(synced(sync), 1);
        let path = run(&w, &[(0, "partition m|r for good")], 3_000);
        assert_eq!(acquired_at(&w, &path), None, "{none_synced:?}");
        let over = path.states.iter().find(|s| gave_up(s) == 1).unwrap();
        let window = over_after_ms..over_after_ms + 10;
        assert!(
            window.contains(&over.now_ms),
            "{none_synced:?}: {}",
            over.now_ms
        );
        assert_eq!(holds_key(over, MASTER), left_on_master, "{none_synced:?}");
        assert!(!holds_key(over, REPLICA));
    }
}

#[test]
fn unchecked_sync_believes_a_grant_no_replica_has() {
    let sync = ReplicaSync {
        check_synced: false,
        ..ReplicaSync::new(1)
    };
    let w = replicated(synced(sync), 1);
    let path = run(&w, &[(0, "partition m|r for good")], 3_000);
    // Believed once the WAIT gave up (1 s), although only the master has it.
    let at = acquired_at(&w, &path).expect("acquired");
    assert!((1_000..1_010).contains(&at), "{at}");
    let s = state_at(&path, at);
    assert!(holds_key(s, MASTER) && !holds_key(s, REPLICA));
}

#[test]
fn a_synced_batch_is_waited_for_the_request_timeout_plus_the_sync_timeout() {
    // Request timeout 100 ms, WAIT 1 s: the batch's answer at about 1 s is still waited for.
    let sync = ReplicaSync {
        check_synced: false,
        ..ReplicaSync::new(1)
    };
    let w = replicated(synced(sync), 1);
    let path = run(&w, &[(0, "partition m|r for good")], 3_000);
    assert!(acquired_at(&w, &path).is_some());
    // The batch went out at 0 ms; its timeout is due at 100 + 1,000 ms.
    let timeouts: Vec<u64> = state_at(&path, 1).procs[A]
        .timers
        .iter()
        .filter(|t| {
            matches!(
                t.timer,
                Timer::Client(ClientTimer::Lock {
                    timer: LockTimer::RequestTimeout(_),
                    ..
                })
            )
        })
        .map(|t| t.due_ms)
        .collect();
    assert_eq!(timeouts, vec![1_100]);
}
