//! The built-in scenarios, by stable name: the seed incidents and the classic
//! counterexamples, each with the verdict it is expected to get.

pub use super::builtin_disk::*;
pub use super::builtin_redisson::*;
pub use super::builtin_redlock::*;
pub use super::builtin_redlock_baseline::*;
pub use super::builtin_schedules::{
    seed_003_dense_gc, seed_003_dense_gc_back_to_back, seed_003_dense_gc_spaced,
};
use super::*;

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
        redlock_slow_acquisition(),
        redlock_split_vote(),
        seed_000_redlock_long_job(),
        seed_000_redlock_partition_checked(),
        redlock_watchdog_counts_extensions(),
        redlock_baseline_safe(),
        redlock_pause_and_clock_step(),
        seed_003_on_3_44(),
        redisson_gc_past_lease_defended(),
        redisson_late_unlock(),
        aof_stall_power_loss(),
        aof_power_loss_noticed(),
    ]
    .into_iter()
    .chain(super::builtin_detector::all())
    .chain(super::builtin_workloads::all())
    .chain(super::builtin_progress::all())
    .chain(super::builtin_retries::all())
    .chain(super::builtin_schedules::all())
    .chain(super::builtin_seed_003_questions::all())
    .chain(super::builtin_replicas::all())
    .chain(super::builtin_redisson_replicas::all())
    .chain(super::builtin_sentinels::all())
    .chain(super::builtin_profiles::all())
    .chain(super::builtin_node_redlock_5::all())
    .chain(super::builtin_node_redlock_extend::all())
    .chain(super::builtin_redisson_fair::all())
    .chain(super::builtin_steps::all())
    .collect()
}

/// The built-in scenario called `name`.
pub fn by_name(name: &str) -> Option<Scenario> {
    all().into_iter().find(|s| s.name == name)
}

/// A scenario with nothing in it but what every scenario shares: no Sentinel, account, token
/// service or detection, the default network, no faults, default exploration bounds. Each
/// built-in fills in its own fields with `..base()`.
pub(crate) fn base() -> Scenario {
    Scenario {
        name: String::new(),
        description: String::new(),
        nodes: Vec::new(),
        sentinel: None,
        clients: Vec::new(),
        account: None,
        token_service: false,
        detection: None,
        network: NetworkSpec::default(),
        faults: FaultsSpec::default(),
        explore: ExploreSpec::default(),
        oracles: vec![OracleSpec::MeLock],
        expect: Expected::Safe,
    }
}

/// The default exploration bounds with `count` random walks: for scenarios with few choices,
/// where thousands of walks would repeat the same few runs.
pub(crate) fn walks(count: u64) -> ExploreSpec {
    ExploreSpec {
        random_seeds: count,
        ..ExploreSpec::default()
    }
}

/// The protected account with a balance of 100 and the given defences.
pub(crate) fn account(fencing: bool, unique_biz_id: bool, conditional_debit: bool) -> AccountSpec {
    AccountSpec {
        initial_balance: 100,
        fencing,
        unique_biz_id,
        conditional_debit,
    }
}

pub(crate) fn node(name: &str) -> NodeSpec {
    NodeSpec {
        name: name.into(),
        replica_of: None,
        persistence: PersistenceDe::None,
        clock: ClockSpecDe::default(),
        min_replicas_to_write: 0,
        repl_ack_every_ms: None,
        min_replicas_max_lag_ms: super::default_max_lag_ms(),
        replica_priority: super::default_replica_priority(),
    }
}

pub(crate) fn single_node(node: &str, ttl_ms: u64) -> ProtocolSpec {
    ProtocolSpec::SingleNode {
        node: node.into(),
        ttl_ms,
        release: Release::OwnerChecked,
        retry_ms: vec![2_000],
        acquire_timeout_ms: None,
        give_up_check: GiveUpCheck::AtDeadline,
        max_attempts: None,
        request_timeout_ms: Some(2_000),
        fencing_counter: None,
        via_sentinel: false,
    }
}

pub(crate) fn client(
    name: &str,
    protocol: ProtocolSpec,
    work_ms: &[u64],
    start_after_ms: u64,
) -> ClientSpec {
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
            on_fail: Default::default(),
            steps: Vec::new(),
            round_steps: Vec::new(),
        },
        token_service_fencing: false,
        clock: ClockSpecDe::default(),
        owner: None,
    }
}

pub(crate) fn pause(process: &str, durations_ms: &[u64], max: u32) -> FaultsSpec {
    FaultsSpec {
        pauses: vec![PauseSpec {
            process: process.into(),
            durations_ms: durations_ms.to_vec(),
            when: Default::default(),
        }],
        max_pauses: max,
        ..FaultsSpec::default()
    }
}

/// A client named `name` running one round of `steps` (workload steps as written in a
/// scenario file), starting after `start_after_ms`.
pub(crate) fn stepper(
    name: &str,
    protocol: ProtocolSpec,
    start_after_ms: u64,
    steps: &[&str],
) -> ClientSpec {
    let mut c = client(name, protocol, &[], start_after_ms);
    c.workload.locks.clear();
    c.workload.steps = steps.iter().map(|s| s.to_string()).collect();
    c
}

/// One pause of `process` for `duration_ms`, exactly `at_ms` into the run.
pub(crate) fn pause_at(process: &str, duration_ms: u64, at_ms: u64) -> FaultsSpec {
    let mut faults = pause(process, &[duration_ms], 1);
    faults.pauses[0].when = FaultWhen {
        at_ms: Some(at_ms),
        ..FaultWhen::default()
    };
    faults
}

/// One process crash of `process`, which never restarts.
pub(crate) fn crash_for_good(process: &str) -> FaultsSpec {
    FaultsSpec {
        crashes: vec![CrashSpec {
            process: process.into(),
            power_loss: false,
            restart_after_ms: vec![None],
            when: Default::default(),
        }],
        max_crashes: 1,
        ..FaultsSpec::default()
    }
}

/// One partition `old-master` cutting `side_a` off from `side_b`, at any moment, for good.
pub(crate) fn old_master_cut_off(side_a: &[&str], side_b: &[&str]) -> FaultsSpec {
    let names = |side: &[&str]| side.iter().map(|p| p.to_string()).collect();
    FaultsSpec {
        partitions: vec![PartitionSpec {
            name: "old-master".into(),
            side_a: names(side_a),
            side_b: names(side_b),
            one_way: false,
            durations_ms: vec![None],
            when: Default::default(),
        }],
        max_partitions: 1,
        ..FaultsSpec::default()
    }
}

pub(crate) fn account_clients(mut clients: Vec<ClientSpec>) -> Vec<ClientSpec> {
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
        expect: Expected::Violated {
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
        expect: Expected::Violated {
            oracle: "me-resource".into(),
        },
        ..base()
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
            retry_ms: vec![2_000],
            acquire_timeout_ms: None,
            give_up_check: GiveUpCheck::AtDeadline,
            max_attempts: None,
            request_timeout_ms: Some(2_000),
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
        clients: vec![fenced("client-1", 0), fenced("client-2", 100)],
        account: Some(account(true, false, false)),
        faults: pause("client-1", &[15_000], 1),
        oracles: vec![
            OracleSpec::MeResource,
            OracleSpec::LockOverlap,
            OracleSpec::PauseWhileHolding,
        ],
        expect: Expected::Safe,
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
        expect: Expected::Safe,
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
        expect: Expected::Violated {
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
    s.expect = Expected::Safe;
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
        expect: Expected::Violated {
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
            retry_ms: vec![2_000],
            acquire_timeout_ms: None,
            give_up_check: GiveUpCheck::AtDeadline,
            max_attempts: None,
            request_timeout_ms: Some(1_000),
            fencing_counter: None,
            via_sentinel: true,
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
        expect: Expected::Violated {
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
        if let ProtocolSpec::SingleNode {
            fencing_counter, ..
        } = &mut c.protocol
        {
            *fencing_counter = Some("order_lock:token".into());
        }
        c.workload.uses_account = true;
        c.workload.work_ms = vec![10_000];
    }
    s.account = Some(account(true, false, false));
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
