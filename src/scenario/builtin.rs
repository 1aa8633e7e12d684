//! The built-in scenarios, by stable name: the seed incidents and the classic
//! counterexamples, each with the verdict it is expected to get.

use super::*;
use lockcheck_model::lock::redlock::{Dispatch, RenewCount};

/// Every built-in scenario.
pub fn all() -> Vec<Scenario> {
    vec![
        seed_000_single_node(),
        kleppmann_pause_past_lease(),
        fencing_prevents_damage(),
        single_node_holder_crash(),
        single_node_holder_partitioned(),
        plain_del_late_unlock(),
        owner_checked_late_unlock(),
        restart_without_persistence(),
        delayed_restart(),
        failover_loses_lock(),
        failover_rolls_back_fencing_counter(),
        failover_fencing_from_token_service(),
        seed_003_incident(),
        seed_003_defended(),
        seed_003_without_stall(),
        seed_000_redlock_process_pause(),
        seed_000_redlock_partition(),
        seed_000_redlock_majority_failure(),
        seed_000_redlock_clock_drift(),
        kleppmann_clock_jump(),
        redlock_bounded_drift_safe(),
        redlock_drift_beyond_factor(),
    ]
    .into_iter()
    .chain(super::builtin_detector::all())
    .collect()
}

/// The built-in scenario called `name`.
pub fn by_name(name: &str) -> Option<Scenario> {
    all().into_iter().find(|s| s.name == name)
}

fn node(name: &str) -> NodeSpec {
    NodeSpec {
        name: name.into(),
        replica_of: None,
        persistence: PersistenceDe::None,
        clock: ClockSpecDe::default(),
        min_replicas_to_write: 0,
        repl_ack_every_ms: None,
    }
}

fn single_node(node: &str, ttl_ms: u64) -> ProtocolSpec {
    ProtocolSpec::SingleNode {
        node: node.into(),
        ttl_ms,
        release: Release::OwnerChecked,
        retry_ms: 2_000,
        acquire_timeout_ms: None,
        request_timeout_ms: 2_000,
        fencing_counter: None,
        via_sentinel: false,
    }
}

fn client(name: &str, protocol: ProtocolSpec, work_ms: &[u64], start_after_ms: u64) -> ClientSpec {
    ClientSpec {
        name: name.into(),
        protocol,
        workload: WorkloadSpec {
            locks: vec!["order_lock".into()],
            rounds: 1,
            start_after_ms,
            work_ms: work_ms.to_vec(),
            uses_account: false,
            amount: 10,
            checks_stop_event: false,
        },
        token_service_fencing: false,
        clock: ClockSpecDe::default(),
    }
}

fn pause(process: &str, durations_ms: &[u64], max: u32) -> FaultsSpec {
    FaultsSpec {
        pauses: vec![PauseSpec {
            process: process.into(),
            durations_ms: durations_ms.to_vec(),
        }],
        max_pauses: max,
        ..FaultsSpec::default()
    }
}

fn account_clients(mut clients: Vec<ClientSpec>) -> Vec<ClientSpec> {
    for c in &mut clients {
        c.workload.uses_account = true;
    }
    clients
}

/// Seed 000, part 1: one Redis node, `SET NX EX 30`, a GC pause longer than the TTL plus
/// network jitter.
pub fn seed_000_single_node() -> Scenario {
    Scenario {
        name: "seed-000-single-node".into(),
        description: "single-node SET NX lock (TTL 30 s) under a 35 s GC pause and 1-20 ms network jitter: two holders".into(),
        nodes: vec![node("redis")],
        sentinel: None,
        clients: vec![
            client("service-a", single_node("redis", 30_000), &[5_000], 0),
            client("service-b", single_node("redis", 30_000), &[5_000], 100),
        ],
        account: None,
        token_service: false,
        detection: None,
        network: NetworkSpec {
            delays_ms: vec![1, 20],
            ..NetworkSpec::default()
        },
        faults: pause("service-a", &[35_000], 1),
        explore: ExploreSpec::default(),
        oracles: vec![OracleSpec::MeLock, OracleSpec::PauseWhileHolding],
        expect: Expected::Violated {
            oracle: "me-lock".into(),
        },
    }
}

/// Kleppmann's first counterexample: a client pauses past its lease while holding, another
/// takes the lock, and the first one's write (read before the pause) loses the second's.
pub fn kleppmann_pause_past_lease() -> Scenario {
    Scenario {
        name: "kleppmann-pause-past-lease".into(),
        description: "a holder pauses past its 10 s lease; its stale read-modify-write loses the next holder's update".into(),
        nodes: vec![node("redis")],
        sentinel: None,
        clients: account_clients(vec![
            client("client-1", single_node("redis", 10_000), &[1_000], 0),
            client("client-2", single_node("redis", 10_000), &[1_000], 100),
        ]),
        account: Some(AccountSpec {
            initial_balance: 100,
            fencing: false,
            unique_biz_id: false,
            conditional_debit: false,
        }),
        token_service: false,
        detection: None,
        network: NetworkSpec::default(),
        faults: pause("client-1", &[15_000], 1),
        explore: ExploreSpec::default(),
        oracles: vec![OracleSpec::MeResource, OracleSpec::PauseWhileHolding],
        expect: Expected::Violated {
            oracle: "me-resource".into(),
        },
    }
}

/// The same pause, with fencing tokens from a counter the lock script increments and an
/// account that refuses old tokens: the lock is broken, the data is not.
pub fn fencing_prevents_damage() -> Scenario {
    let fenced = |name: &str, start| {
        let protocol = ProtocolSpec::SingleNode {
            node: "redis".into(),
            ttl_ms: 10_000,
            release: Release::OwnerChecked,
            retry_ms: 2_000,
            acquire_timeout_ms: None,
            request_timeout_ms: 2_000,
            fencing_counter: Some("order_lock:token".into()),
            via_sentinel: false,
        };
        let mut c = client(name, protocol, &[1_000], start);
        c.workload.uses_account = true;
        c
    };
    Scenario {
        name: "fencing-prevents-damage".into(),
        description: "the pause past the lease again, with fencing tokens checked by the account: two holders, no damage".into(),
        nodes: vec![node("redis")],
        sentinel: None,
        clients: vec![fenced("client-1", 0), fenced("client-2", 100)],
        account: Some(AccountSpec {
            initial_balance: 100,
            fencing: true,
            unique_biz_id: false,
            conditional_debit: false,
        }),
        token_service: false,
        detection: None,
        network: NetworkSpec::default(),
        faults: pause("client-1", &[15_000], 1),
        explore: ExploreSpec::default(),
        oracles: vec![
            OracleSpec::MeResource,
            OracleSpec::LockOverlap,
            OracleSpec::PauseWhileHolding,
        ],
        expect: Expected::Safe,
    }
}

/// A holder crashes: its lock must become acquirable within the TTL (plus a retry).
pub fn single_node_holder_crash() -> Scenario {
    Scenario {
        name: "single-node-holder-crash".into(),
        description: "a holder crashes for good: the lock expires and becomes acquirable within TTL + one retry".into(),
        nodes: vec![node("redis")],
        sentinel: None,
        clients: vec![
            client("client-1", single_node("redis", 10_000), &[5_000], 0),
            client("client-2", single_node("redis", 10_000), &[5_000], 100),
        ],
        account: None,
        token_service: false,
        detection: None,
        network: NetworkSpec::default(),
        faults: FaultsSpec {
            crashes: vec![CrashSpec {
                process: "client-1".into(),
                power_loss: false,
                restart_after_ms: vec![None],
            }],
            max_crashes: 1,
            ..FaultsSpec::default()
        },
        explore: ExploreSpec::default(),
        oracles: vec![
            OracleSpec::MeLock,
            OracleSpec::Liveness { bound_ms: 10_600 },
            OracleSpec::HolderCrashed,
        ],
        expect: Expected::Safe,
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
                *request_timeout_ms = 15_000;
            }
        }
        client(name, protocol, &[work_ms], start)
    };
    Scenario {
        name: name.into(),
        description: description.into(),
        nodes: vec![node("redis")],
        sentinel: None,
        clients: vec![
            with("client-1", 5_000, 0),
            with("client-2", 9_000, 100),
            with("client-3", 1_000, 200),
        ],
        account: None,
        token_service: false,
        detection: None,
        network: NetworkSpec {
            links: vec![LinkOverride {
                between: ["client-1".into(), "redis".into()],
                delays_ms: vec![1, 12_000],
                one_way: true,
            }],
            ..NetworkSpec::default()
        },
        faults: FaultsSpec::default(),
        explore: ExploreSpec::default(),
        oracles: vec![OracleSpec::MeLock],
        expect: Expected::Violated {
            oracle: "me-lock".into(),
        },
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
    s.expect = Expected::Safe;
    s
}

fn crashing_node(restart_after_ms: u64) -> FaultsSpec {
    FaultsSpec {
        crashes: vec![CrashSpec {
            process: "redis".into(),
            power_loss: false,
            restart_after_ms: vec![Some(restart_after_ms)],
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
        sentinel: None,
        clients: vec![
            client("client-1", single_node("redis", 10_000), &[5_000], 0),
            client("client-2", single_node("redis", 10_000), &[5_000], 100),
        ],
        account: None,
        token_service: false,
        detection: None,
        network: NetworkSpec::default(),
        faults: crashing_node(1_000),
        explore: ExploreSpec::default(),
        oracles: vec![OracleSpec::MeLock],
        expect: Expected::Violated {
            oracle: "me-lock".into(),
        },
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
        expect: Expected::Safe,
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
            ttl_ms: 30_000,
            release: Release::OwnerChecked,
            retry_ms: 2_000,
            acquire_timeout_ms: None,
            request_timeout_ms: 1_000,
            fencing_counter: None,
            via_sentinel: true,
        };
        client(name, protocol, &[20_000], start)
    };
    Scenario {
        name: name.into(),
        description: description.into(),
        nodes: vec![node("redis-1"), replica],
        sentinel: Some(SentinelSpec {
            master: "redis-1".into(),
            ping_every_ms: 1_000,
            down_after_ms: 5_000,
        }),
        clients: vec![via_sentinel("client-1", 0), via_sentinel("client-2", 100)],
        account: None,
        token_service: false,
        detection: None,
        network: NetworkSpec::default(),
        faults: FaultsSpec {
            partitions: vec![PartitionSpec {
                name: "old-master".into(),
                side_a: vec!["redis-1".into(), "client-1".into()],
                side_b: vec!["redis-2".into(), "sentinel".into(), "client-2".into()],
                one_way: false,
                durations_ms: vec![None],
            }],
            max_partitions: 1,
            ..FaultsSpec::default()
        },
        explore: ExploreSpec::default(),
        oracles: vec![OracleSpec::MeLock],
        expect: Expected::Violated {
            oracle: "me-lock".into(),
        },
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
        if let ProtocolSpec::SingleNode {
            fencing_counter, ..
        } = &mut c.protocol
        {
            *fencing_counter = Some("order_lock:token".into());
        }
        c.workload.uses_account = true;
        c.workload.work_ms = vec![10_000];
    }
    s.account = Some(AccountSpec {
        initial_balance: 100,
        fencing: true,
        unique_biz_id: false,
        conditional_debit: false,
    });
    s.oracles = vec![OracleSpec::MeResource, OracleSpec::LockOverlap];
    s.expect = Expected::Violated {
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
    s.expect = Expected::Safe;
    s
}

fn redisson_3_17(node: &str) -> ProtocolSpec {
    ProtocolSpec::Redisson {
        node: node.into(),
        lease_ms: None,
        watchdog_timeout_ms: 30_000,
        wait_ms: None,
        generation: lockcheck_model::lock::redisson::Generation::UpTo3_43,
        request_timeout_ms: 3_000,
    }
}

/// Seed 003: Redisson 3.17.7's `lock()` with its watchdog (lease 30 s, renewed every 10 s on
/// the JVM's timer thread). A Full GC of 2.9 s alone cannot fail a renewal (the answer comes
/// back in 2 ms and is read before the 3 s command timeout); but a 200 ms Redis stall holds
/// the answer back, the GC begins as it arrives, and on resume the timeout fires first:
/// 3.17 stops renewing for good, the lease runs out while the debit job is still working,
/// and the other instance debits the same business operation again.
pub fn seed_003_incident() -> Scenario {
    let instance = |name: &str, start| {
        let mut c = client(name, redisson_3_17("redis"), &[42_000], start);
        c.workload.locks = vec!["account:lock:10086".into()];
        c.workload.uses_account = true;
        c
    };
    Scenario {
        name: "seed-003-incident".into(),
        description: "Redisson 3.17 watchdog: a 200 ms Redis stall and a 2.9 s Full GC turn one renewal into a timeout, renewal stops for good, the same debit is applied twice".into(),
        nodes: vec![node("redis")],
        sentinel: None,
        clients: vec![instance("instance-a", 0), instance("instance-b", 100)],
        account: Some(AccountSpec {
            initial_balance: 100,
            fencing: false,
            unique_biz_id: false,
            conditional_debit: false,
        }),
        token_service: false,
        detection: None,
        network: NetworkSpec::default(),
        faults: FaultsSpec {
            pauses: vec![
                PauseSpec {
                    process: "redis".into(),
                    durations_ms: vec![200],
                },
                PauseSpec {
                    process: "instance-a".into(),
                    durations_ms: vec![2_900],
                },
            ],
            max_pauses: 2,
            ..FaultsSpec::default()
        },
        explore: ExploreSpec::default(),
        oracles: vec![
            OracleSpec::MeResource,
            OracleSpec::RenewalFailed,
            OracleSpec::PauseWhileHolding,
        ],
        expect: Expected::Violated {
            oracle: "me-resource".into(),
        },
    }
}

/// Seed 003's defence: a unique index on the business id and a conditional debit
/// (`balance >= amount`). The lock still breaks; the money does not move twice.
pub fn seed_003_defended() -> Scenario {
    let mut s = seed_003_incident();
    s.name = "seed-003-defended".into();
    s.description = "the same incident with a unique business id and a conditional debit: the lock breaks, no duplicate debit".into();
    s.account = Some(AccountSpec {
        initial_balance: 100,
        fencing: false,
        unique_biz_id: true,
        conditional_debit: true,
    });
    s.oracles.push(OracleSpec::LockOverlap);
    s.expect = Expected::Safe;
    s
}

/// The seed-003 incident without the Redis stall: the Full GC alone never fails a renewal.
pub fn seed_003_without_stall() -> Scenario {
    let mut s = seed_003_incident();
    s.name = "seed-003-gc-without-stall".into();
    s.description = "the seed-003 GC pause without the Redis stall: every renewal is answered in time, no duplicate debit".into();
    s.faults.pauses.retain(|p| p.process != "redis");
    s.faults.max_pauses = 1;
    s.oracles = vec![OracleSpec::MeResource, OracleSpec::PauseWhileHolding];
    s.expect = Expected::Safe;
    s
}

const REDLOCK_NODES: [&str; 5] = ["redis-1", "redis-2", "redis-3", "redis-4", "redis-5"];

/// Seed 000's Redlock with its watchdog as written.
fn seed_redlock() -> ProtocolSpec {
    ProtocolSpec::Redlock {
        nodes: REDLOCK_NODES.iter().map(|n| n.to_string()).collect(),
        ttl_ms: 30_000,
        drift_ppm: 10_000,
        clock: ClockKind::Monotonic,
        dispatch: Dispatch::Sequential,
        node_timeout_ms: 2_000,
        retry_ms: vec![500],
        acquire_timeout_ms: Some(10_000),
        watchdog: Some(WatchdogSpec {
            interval_permille: 300,
            tries: 3,
            timeout_ms: 1_000,
            counts: RenewCount::AnyAnswer,
        }),
    }
}

/// Seed 000's topology: five masters, three local, two remote at about 30 ms; P1 holds for
/// a long job, P2 tries when P1's lease could have run out.
fn seed_000_redlock(name: &str, description: &str, faults: FaultsSpec) -> Scenario {
    let links = ["redis-4", "redis-5"]
        .iter()
        .flat_map(|remote| {
            ["p1", "p2"].iter().map(move |c| LinkOverride {
                between: [c.to_string(), remote.to_string()],
                delays_ms: vec![30],
                one_way: false,
            })
        })
        .collect();
    let mut p1 = client("p1", seed_redlock(), &[40_000], 0);
    let mut p2 = client("p2", seed_redlock(), &[1_000], 25_000);
    for c in [&mut p1, &mut p2] {
        c.workload.uses_account = true;
    }
    Scenario {
        name: name.into(),
        description: description.into(),
        nodes: REDLOCK_NODES.iter().map(|n| node(n)).collect(),
        sentinel: None,
        clients: vec![p1, p2],
        account: Some(AccountSpec {
            initial_balance: 100,
            fencing: false,
            unique_biz_id: false,
            conditional_debit: false,
        }),
        token_service: false,
        detection: None,
        network: NetworkSpec {
            links,
            ..NetworkSpec::default()
        },
        faults,
        explore: ExploreSpec::default(),
        oracles: vec![OracleSpec::MeLock, OracleSpec::MeResource],
        expect: Expected::Violated {
            oracle: "me-lock".into(),
        },
    }
}

/// Seed 000's "process pause" boundary: a 35 s GC freezes P1 and its watchdog; the keys
/// expire, P2 acquires, and when P1 resumes its watchdog counts the renewals that answered 0
/// (the keys are gone) as successes and extends P1's belief: two holders.
pub fn seed_000_redlock_process_pause() -> Scenario {
    let mut s = seed_000_redlock(
        "seed-000-redlock-process-pause",
        "seed 000's 5-node Redlock and watchdog; a 35 s GC pause of the holder: the watchdog, counting any answer, re-extends a lost lock",
        pause("p1", &[35_000], 1),
    );
    s.clients[1].workload.work_ms = vec![10_000];
    s.oracles.push(OracleSpec::PauseWhileHolding);
    s
}

/// Seed 000's "network partition" boundary: P1 is cut off from every node while it holds;
/// its renewals time out, the watchdog sets the stop event that the business code never
/// checks, and P1's late debit duplicates P2's.
pub fn seed_000_redlock_partition() -> Scenario {
    let faults = FaultsSpec {
        partitions: vec![PartitionSpec {
            name: "p1-cut-off".into(),
            side_a: vec!["p1".into()],
            side_b: REDLOCK_NODES.iter().map(|n| n.to_string()).collect(),
            one_way: false,
            durations_ms: vec![None],
        }],
        max_partitions: 1,
        ..FaultsSpec::default()
    };
    let mut s = seed_000_redlock(
        "seed-000-redlock-partition",
        "seed 000's Redlock and watchdog; the holder is partitioned from all nodes: renewals fail, the unchecked stop event lets it debit twice",
        faults,
    );
    s.oracles = vec![OracleSpec::MeResource, OracleSpec::RenewalFailed];
    s.expect = Expected::Violated {
        oracle: "me-resource".into(),
    };
    s
}

/// Seed 000's "majority failure" boundary: three of the five nodes crash and restart at
/// once without persistence; the lock is forgotten by a majority and P2 acquires.
pub fn seed_000_redlock_majority_failure() -> Scenario {
    let crashes = REDLOCK_NODES[..3]
        .iter()
        .map(|n| CrashSpec {
            process: n.to_string(),
            power_loss: false,
            restart_after_ms: vec![Some(1_000)],
        })
        .collect();
    let faults = FaultsSpec {
        crashes,
        max_crashes: 3,
        ..FaultsSpec::default()
    };
    seed_000_redlock(
        "seed-000-redlock-majority-failure",
        "seed 000's Redlock; three of five nodes restart without persistence: the majority forgets the lock, two holders",
        faults,
    )
}

/// P1 acquires with a bare quorum (redis-4 and redis-5 unreachable from it for a while) and
/// the clock of redis-3, one of its three nodes, jumps forward by a TTL.
fn bare_quorum_and_clock_jump(faults: &mut FaultsSpec) {
    faults.partitions = vec![PartitionSpec {
        name: "p1-remote".into(),
        side_a: vec!["p1".into()],
        side_b: vec!["redis-4".into(), "redis-5".into()],
        one_way: false,
        durations_ms: vec![Some(5_000)],
    }];
    faults.max_partitions = 1;
    faults.clock_steps = vec![ClockStepSpec {
        process: "redis-3".into(),
        deltas_ms: vec![30_000],
    }];
    faults.max_clock_steps = 1;
}

/// Seed 000's "clock drift" boundary, as a forward clock jump on one node.
pub fn seed_000_redlock_clock_drift() -> Scenario {
    let mut faults = FaultsSpec::default();
    bare_quorum_and_clock_jump(&mut faults);
    let mut s = seed_000_redlock(
        "seed-000-redlock-clock-drift",
        "seed 000's Redlock; P1 holds a bare quorum and one of its nodes' clocks jumps 30 s: P2 acquires on that node and the two P1 missed",
        faults,
    );
    s.clients[1].workload.start_after_ms = 6_000;
    s
}

/// Kleppmann's second counterexample on Redlock as the Redis documentation specifies it
/// (all nodes at once, random retry, no watchdog).
pub fn kleppmann_clock_jump() -> Scenario {
    let mut s = seed_000_redlock_clock_drift();
    s.name = "kleppmann-clock-jump".into();
    s.description = "Redlock as documented (multiplexed, random retry): a clock jump on one of a bare quorum's nodes gives two holders".into();
    for c in &mut s.clients {
        if let ProtocolSpec::Redlock {
            dispatch,
            retry_ms,
            watchdog,
            ..
        } = &mut c.protocol
        {
            *dispatch = Dispatch::Multiplexed;
            *retry_ms = vec![200, 400];
            *watchdog = None;
        }
        c.workload.uses_account = false;
    }
    s.clients[0].workload.work_ms = vec![20_000];
    s.account = None;
    s.oracles = vec![OracleSpec::MeLock];
    s
}

/// Redlock without faults, clocks within the drift factor: P1's job outlasts its validity,
/// so its belief ends by its own (slow) clock before the keys expire on the (fast) nodes.
fn drifting_redlock(name: &str, description: &str, client_ppm: i64, node_ppm: i64) -> Scenario {
    let mut s = seed_000_redlock(name, description, FaultsSpec::default());
    for c in &mut s.clients {
        if let ProtocolSpec::Redlock { watchdog, .. } = &mut c.protocol {
            *watchdog = None;
        }
        c.workload.uses_account = false;
    }
    s.account = None;
    s.clients[0].clock.drift_ppm = client_ppm;
    for n in &mut s.nodes {
        n.clock.drift_ppm = node_ppm;
    }
    s.oracles = vec![OracleSpec::MeLock];
    s
}

/// Client 0.5 % slow, nodes 0.4 % fast: 0.9 % within the 1 % drift factor. Safe.
pub fn redlock_bounded_drift_safe() -> Scenario {
    let mut s = drifting_redlock(
        "redlock-bounded-drift-safe",
        "Redlock with no faults, client clock 0.5 % slow and node clocks 0.4 % fast (within the 1 % drift factor): safe",
        -5_000,
        4_000,
    );
    s.expect = Expected::Safe;
    s
}

/// Client 5 % slow: far beyond the drift factor, its belief outlives the keys by about 1.5 s,
/// longer than the rival's retry period. Two holders.
pub fn redlock_drift_beyond_factor() -> Scenario {
    drifting_redlock(
        "redlock-drift-beyond-factor",
        "Redlock with no faults but a client clock 5 % slow (beyond the 1 % drift factor): its validity outlives the keys",
        -50_000,
        0,
    )
}
