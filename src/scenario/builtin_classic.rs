//! The first built-ins: the seed incidents on one node and the classic counterexamples
//! (a pause past the lease, fencing, crashes, late unlocks, restarts, failover).

use super::kit::{
    account, account_clients, base, client, crash_for_good, fenced, node, old_master_cut_off,
    pause, single_node,
};
use super::*;

/// Seed 000, part 1: one Redis node, `SET NX EX 30`, a GC pause longer than the TTL plus
/// network jitter.
pub fn seed_000_single_node() -> Scenario {
    Scenario {
        name: "seed-000-single-node".into(),
        description: "single-node SET NX lock (TTL 30 s) under a 35 s GC pause and 1-20 ms network jitter: two holders".into(),
        nodes: vec![node("redis")],
        clients: vec![
            client("service-a", single_node("redis", 30_000), &[5_000], 0),
            client("service-b", single_node("redis", 30_000), &[5_000], 100),
        ],
        network: NetworkSpec {
            delays_ms: vec![1, 20],
            ..NetworkSpec::default()
        },
        faults: pause("service-a", &[35_000], 1),
        oracles: vec![OracleSpec::MeLock, OracleSpec::PauseWhileHolding],
        expect: ExpectedVerdict::Violated {
            oracle: "me-lock".into(),
        },
        ..base()
    }
}

/// Kleppmann's first counterexample: a client pauses past its lease while holding, another
/// takes the lock, and the first one's write (read before the pause) loses the second's.
pub fn kleppmann_pause_past_lease() -> Scenario {
    Scenario {
        name: "kleppmann-pause-past-lease".into(),
        description: "a holder pauses past its 10 s lease; its stale read-modify-write loses the next holder's update".into(),
        nodes: vec![node("redis")],
        clients: account_clients(vec![
            client("client-1", single_node("redis", 10_000), &[1_000], 0),
            client("client-2", single_node("redis", 10_000), &[1_000], 100),
        ]),
        account: Some(account(false, false, false)),
        faults: pause("client-1", &[15_000], 1),
        oracles: vec![OracleSpec::MeResource, OracleSpec::PauseWhileHolding],
        expect: ExpectedVerdict::Violated {
            oracle: "me-resource".into(),
        },
        ..base()
    }
}

/// The same pause, with fencing tokens from a counter the lock script increments and an
/// account that refuses old tokens: the lock is broken, the data is not.
pub fn fencing_prevents_damage() -> Scenario {
    let fenced = |name: &str, start| {
        let protocol = fenced(single_node("redis", 10_000), "order_lock:token");
        let mut c = client(name, protocol, &[1_000], start);
        c.workload.uses_account = true;
        c
    };
    Scenario {
        name: "fencing-prevents-damage".into(),
        description: "the pause past the lease again, with fencing tokens checked by the account: two holders, no damage".into(),
        nodes: vec![node("redis")],
        clients: vec![fenced("client-1", 0), fenced("client-2", 100)],
        account: Some(account(true, false, false)),
        faults: pause("client-1", &[15_000], 1),
        oracles: vec![
            OracleSpec::MeResource,
            OracleSpec::LockOverlap,
            OracleSpec::PauseWhileHolding,
        ],
        expect: ExpectedVerdict::Safe,
        ..base()
    }
}

/// A holder crashes: its lock must become acquirable within the TTL (plus a retry).
pub fn single_node_holder_crash() -> Scenario {
    Scenario {
        name: "single-node-holder-crash".into(),
        description: "a holder crashes for good: the lock expires and becomes acquirable within TTL + one retry".into(),
        nodes: vec![node("redis")],
        clients: vec![
            client("client-1", single_node("redis", 10_000), &[5_000], 0),
            client("client-2", single_node("redis", 10_000), &[5_000], 100),
        ],
        faults: crash_for_good("client-1"),
        oracles: vec![
            OracleSpec::MeLock,
            OracleSpec::Liveness { bound_ms: 10_600 },
            OracleSpec::HolderCrashed,
        ],
        expect: ExpectedVerdict::Safe,
        ..base()
    }
}

/// A holder is cut off from the node for good: the lock must still become acquirable.
pub fn single_node_holder_partitioned() -> Scenario {
    let mut s = single_node_holder_crash();
    s.name = "single-node-holder-partitioned".into();
    s.description = "a holder is partitioned from the node for good: the lock expires and becomes acquirable within TTL + one retry".into();
    s.faults = FaultsSpec {
        partitions: vec![PartitionSpec {
            name: "holder-cut-off".into(),
            side_a: vec!["client-1".into()],
            side_b: vec!["redis".into()],
            one_way: false,
            durations_ms: vec![None],
            when: Default::default(),
        }],
        max_partitions: 1,
        ..FaultsSpec::default()
    };
    s.oracles = vec![
        OracleSpec::Liveness { bound_ms: 10_600 },
        OracleSpec::HolderCrashed,
    ];
    s
}

/// Three clients; a message from client-1 to the node may take 12 s, so its unlock can
/// arrive after its TTL, when client-2 holds the lock (and client-3 is waiting).
fn late_unlock(name: &str, description: &str, release: Release) -> Scenario {
    // Client-1 waits 15 s for an answer (longer than its slow path), so a slow request is
    // not retried over and over.
    let with = |name: &str, work_ms: u64, start| {
        let mut protocol = single_node("redis", 10_000);
        if let ProtocolSpec::SingleNode {
            release: r,
            request_timeout_ms,
            ..
        } = &mut protocol
        {
            *r = release;
            if name == "client-1" {
                *request_timeout_ms = Some(15_000);
            }
        }
        client(name, protocol, &[work_ms], start)
    };
    Scenario {
        name: name.into(),
        description: description.into(),
        expect: ExpectedVerdict::Violated {
            oracle: "me-lock".into(),
        },
        ..late_unlock_world(with)
    }
}

/// The late-unlock world for clients made by `client(name, work_ms, start_after_ms)`: one
/// node, client-1 (5 s of work), client-2 (9 s, from 100 ms) and client-3 (1 s, from 200 ms),
/// client-1's messages to the node taking 1 ms or 12 s, and mutual exclusion checked.
pub(crate) fn late_unlock_world(client: impl Fn(&str, u64, u64) -> ClientSpec) -> Scenario {
    Scenario {
        nodes: vec![node("redis")],
        clients: vec![
            client("client-1", 5_000, 0),
            client("client-2", 9_000, 100),
            client("client-3", 1_000, 200),
        ],
        network: NetworkSpec {
            links: vec![LinkOverride {
                between: ["client-1".into(), "redis".into()],
                delays_ms: vec![1, 12_000],
                one_way: true,
            }],
            ..NetworkSpec::default()
        },
        oracles: vec![OracleSpec::MeLock],
        ..base()
    }
}

/// The plain-`DEL` release bug: a late unlock deletes the next holder's lock.
pub fn plain_del_late_unlock() -> Scenario {
    late_unlock(
        "single-node-plain-del-late-unlock",
        "release with a plain DEL: client-1's unlock arrives 12 s late and deletes client-2's lock; client-3 acquires while client-2 holds",
        Release::PlainDel,
    )
}

/// The same late unlock with the owner-checked release: it deletes nothing. Safe.
pub fn owner_checked_late_unlock() -> Scenario {
    let mut s = late_unlock(
        "single-node-owner-checked-late-unlock",
        "the same late unlock with the owner-checked release script: it finds another owner and deletes nothing",
        Release::OwnerChecked,
    );
    s.expect = ExpectedVerdict::Safe;
    s
}

fn crashing_node(restart_after_ms: u64) -> FaultsSpec {
    FaultsSpec {
        crashes: vec![CrashSpec {
            process: "redis".into(),
            power_loss: false,
            restart_after_ms: vec![Some(restart_after_ms)],
            when: Default::default(),
        }],
        max_crashes: 1,
        ..FaultsSpec::default()
    }
}

/// The Redis node restarts empty (no persistence) while a holder works: two holders.
pub fn restart_without_persistence() -> Scenario {
    Scenario {
        name: "restart-without-persistence".into(),
        description: "the lock's only node crashes and restarts at once without persistence: the lock is forgotten, two holders".into(),
        nodes: vec![node("redis")],
        clients: vec![
            client("client-1", single_node("redis", 10_000), &[5_000], 0),
            client("client-2", single_node("redis", 10_000), &[5_000], 100),
        ],
        faults: crashing_node(1_000),
        oracles: vec![OracleSpec::MeLock],
        expect: ExpectedVerdict::Violated {
            oracle: "me-lock".into(),
        },
        ..base()
    }
}

/// The same crash, but the node stays down longer than the TTL (Redis's advice): safe.
pub fn delayed_restart() -> Scenario {
    Scenario {
        name: "delayed-restart".into(),
        description:
            "the same crash with the restart delayed beyond the TTL (15 s > 10 s): no two holders"
                .into(),
        faults: crashing_node(15_000),
        expect: ExpectedVerdict::Safe,
        ..restart_without_persistence()
    }
}

/// A master and a replica under Sentinel; the master is cut off from everyone but the first
/// holder, right after granting the lock and before replicating it.
fn failover_world(name: &str, description: &str) -> Scenario {
    let mut replica = node("redis-2");
    replica.replica_of = Some("redis-1".into());
    let via_sentinel = |name: &str, start| {
        let protocol = ProtocolSpec::SingleNode {
            node: "redis-1".into(),
            ttl_ms: Some(30_000),
            release: Release::OwnerChecked,
            retry_ms: vec![2_000],
            acquire_timeout_ms: None,
            give_up_check: GiveUpCheck::AtDeadline,
            max_attempts: None,
            request_timeout_ms: Some(1_000),
            fencing_counter: None,
            via_sentinel: true,
            thread_local: true,
            on_refused: Default::default(),
        };
        client(name, protocol, &[20_000], start)
    };
    Scenario {
        name: name.into(),
        description: description.into(),
        nodes: vec![node("redis-1"), replica],
        sentinel: Some(SentinelSpec::one("redis-1", 1_000, 5_000)),
        clients: vec![via_sentinel("client-1", 0), via_sentinel("client-2", 100)],
        faults: old_master_cut_off(
            &["redis-1", "client-1"],
            &["redis-2", "sentinel", "client-2"],
        ),
        oracles: vec![OracleSpec::MeLock],
        expect: ExpectedVerdict::Violated {
            oracle: "me-lock".into(),
        },
        ..base()
    }
}

/// Failover loses a lock that was never replicated: Sentinel promotes the replica and a
/// second client acquires there while the first still works.
pub fn failover_loses_lock() -> Scenario {
    failover_world(
        "failover-loses-lock",
        "the master grants the lock, is cut off before replicating it, and Sentinel promotes the replica: two holders",
    )
}

/// Fencing tokens from `INCR` on the master: the counter's increment is lost in the failover
/// too, the new holder gets the same token again, and the account accepts both writes.
pub fn failover_rolls_back_fencing_counter() -> Scenario {
    let mut s = failover_world(
        "failover-rolls-back-fencing-counter",
        "fencing tokens from a counter on the master: the failover rolls the counter back, the account takes a stale write",
    );
    for c in &mut s.clients {
        c.protocol = fenced(c.protocol.clone(), "order_lock:token");
        c.workload.uses_account = true;
        c.workload.work_ms = vec![10_000];
    }
    s.account = Some(account(true, false, false));
    s.oracles = vec![OracleSpec::MeResource, OracleSpec::LockOverlap];
    s.expect = ExpectedVerdict::Violated {
        oracle: "me-resource".into(),
    };
    s
}

/// The same failover with tokens from a linearizable counter outside Redis: the stale
/// holder's write is refused.
pub fn failover_fencing_from_token_service() -> Scenario {
    let mut s = failover_rolls_back_fencing_counter();
    s.name = "failover-fencing-from-token-service".into();
    s.description =
        "the same failover, fencing tokens from a linearizable service outside Redis: no damage"
            .into();
    s.token_service = true;
    for c in &mut s.clients {
        if let ProtocolSpec::SingleNode {
            fencing_counter, ..
        } = &mut c.protocol
        {
            *fencing_counter = None;
        }
        c.token_service_fencing = true;
    }
    s.expect = ExpectedVerdict::Safe;
    s
}
