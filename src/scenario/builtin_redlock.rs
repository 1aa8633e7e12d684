//! Built-in scenarios of Redlock: seed 000's 5-node Redlock with its watchdog under its four
//! boundary conditions, Kleppmann's clock jump, and clock drift within and beyond the factor.

use super::kit::{account, base, client, node, pause, walks};
use super::*;
use lockcheck_model::lock::redlock::{
    AttemptRules, Dispatch, DriftRounding, ExtendRules, RenewCount,
};

pub(super) const REDLOCK_NODES: [&str; 5] = ["redis-1", "redis-2", "redis-3", "redis-4", "redis-5"];

/// Seed 000's Redlock with its watchdog as written.
fn seed_redlock() -> ProtocolSpec {
    ProtocolSpec::seed_000_redlock(REDLOCK_NODES.iter().map(|n| n.to_string()).collect())
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
        clients: vec![p1, p2],
        account: Some(account(false, false, false)),
        network: NetworkSpec {
            links,
            ..NetworkSpec::default()
        },
        faults,
        oracles: vec![OracleSpec::MeLock, OracleSpec::MeResource],
        expect: ExpectedVerdict::Violated {
            oracle: "me-lock".into(),
        },
        ..base()
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
            when: Default::default(),
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
    s.expect = ExpectedVerdict::Violated {
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
            when: Default::default(),
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
        when: Default::default(),
    }];
    faults.max_partitions = 1;
    faults.clock_steps = vec![ClockStepSpec {
        process: "redis-3".into(),
        deltas_ms: vec![30_000],
        when: Default::default(),
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
    s.expect = ExpectedVerdict::Safe;
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

/// Redlock without a watchdog on the five nodes, asked one after another, with the given TTL
/// and retry delay, and no acquire timeout.
pub(super) fn plain_redlock(ttl_ms: u64, retry_ms: u64) -> ProtocolSpec {
    ProtocolSpec::Redlock {
        nodes: REDLOCK_NODES.iter().map(|n| n.to_string()).collect(),
        ttl_ms,
        drift_ppm: 10_000,
        drift_extra_ms: 2,
        drift_rounding: DriftRounding::Up,
        clock: ClockKind::Monotonic,
        dispatch: Dispatch::Sequential,
        attempt: AttemptRules::SEED,
        node_timeout_ms: Some(2_000),
        retry_ms: vec![retry_ms],
        acquire_timeout_ms: None,
        max_attempts: None,
        auto_extension: None,
        belief: Default::default(),
        extend: ExtendRules::REDSYNC,
        on_refused: Default::default(),
        watchdog: None,
    }
}

/// Acquiring takes two thirds of the TTL: P1's two remote nodes are 100 ms away, so its
/// sequential attempt (TTL 600 ms) ends 406 ms after T1 with a validity of 600 - 406 - 8 =
/// 186 ms. It believes until T1 + 592 ms, before its first three keys expire (from T1 + 602
/// ms); P2, 1 ms from every node and retrying every 50 ms, can only get in after that. Safe;
/// a validity that forgot the elapsed time would last until T1 + 998 ms.
pub fn redlock_slow_acquisition() -> Scenario {
    let links = ["redis-4", "redis-5"]
        .iter()
        .map(|remote| LinkOverride {
            between: ["p1".into(), remote.to_string()],
            delays_ms: vec![100],
            one_way: false,
        })
        .collect();
    Scenario {
        name: "redlock-slow-acquisition".into(),
        description: "Redlock (TTL 600 ms) whose holder needs 406 ms to ask its five nodes: the validity left after that time ends before its first keys expire, no two holders".into(),
        nodes: REDLOCK_NODES.iter().map(|n| node(n)).collect(),
        clients: vec![
            client("p1", plain_redlock(600, 50), &[2_000], 0),
            client("p2", plain_redlock(600, 50), &[100], 300),
        ],
        network: NetworkSpec {
            links,
            ..NetworkSpec::default()
        },
        explore: walks(100),
        ..base()
    }
}

/// Two clients ask all three nodes of a Redlock at once and at the same time: whatever order
/// the nodes see them in, exactly one gets a majority (the other deletes its minority and
/// tries again). Safe; a quorum of N/2 would let a 1-2 split give two holders.
pub fn redlock_split_vote() -> Scenario {
    let racing = |name: &str| {
        let mut protocol = plain_redlock(10_000, 200);
        if let ProtocolSpec::Redlock {
            dispatch, nodes, ..
        } = &mut protocol
        {
            *dispatch = Dispatch::Multiplexed;
            nodes.truncate(3);
        }
        client(name, protocol, &[1_000], 0)
    };
    Scenario {
        name: "redlock-split-vote".into(),
        description: "two clients ask all three Redlock nodes at the same instant: every split of the votes leaves exactly one holder".into(),
        nodes: REDLOCK_NODES[..3].iter().map(|n| node(n)).collect(),
        clients: vec![racing("p1"), racing("p2")],
        explore: walks(100),
        ..base()
    }
}

/// Seed 000's Redlock and watchdog with no fault: P1's 40 s job outlasts the 30 s TTL, the
/// watchdog renews every 30 % of the validity, and P2 (trying from 25 s to 35 s) never gets
/// the lock. Safe, for the lock and the account.
pub fn seed_000_redlock_long_job() -> Scenario {
    let mut s = seed_000_redlock(
        "seed-000-redlock-long-job",
        "seed 000's Redlock and watchdog without faults: the watchdog keeps the lock through a 40 s job, P2 never holds it meanwhile",
        FaultsSpec::default(),
    );
    s.explore = walks(100);
    s.expect = ExpectedVerdict::Safe;
    s
}

/// Seed 000's partition again, with business code that checks the stop event: the failed
/// renewal round (15 s of timeouts) sets it before the keys expire, and P1 skips its debit.
pub fn seed_000_redlock_partition_checked() -> Scenario {
    let mut s = seed_000_redlock_partition();
    s.name = "seed-000-redlock-partition-checked".into();
    s.description = "seed 000's partitioned holder with business code that checks the stop event: the watchdog sets it before the keys expire, no duplicate debit".into();
    s.clients[0].workload.checks_stop_event = true;
    s.explore = walks(200);
    s.expect = ExpectedVerdict::Safe;
    s
}

/// Redlock on three nodes (TTL 3 s, node timeout 1 s, retry every 400 ms) with seed 000's
/// watchdog counting a node as renewed only when the script really extended the key; P1's
/// third node is 300 ms away, so each of its attempts and renewal rounds takes 604 ms. P1
/// holds for a 6 s job and pauses 3.5 s, longer than the TTL; P2 wants the lock from 2.5 s
/// for 2 s. A round's validity counts from its start (T1 + 2968 ms), before the round's
/// first two keys expire (T1 + 3004 ms); after the pause the renewals find the keys gone or
/// P2's (0), the round fails and sets the stop event. No two holders.
pub fn redlock_watchdog_counts_extensions() -> Scenario {
    let protocol = ProtocolSpec::Redlock {
        nodes: REDLOCK_NODES[..3].iter().map(|n| n.to_string()).collect(),
        ttl_ms: 3_000,
        drift_ppm: 10_000,
        drift_extra_ms: 2,
        drift_rounding: DriftRounding::Up,
        clock: ClockKind::Monotonic,
        dispatch: Dispatch::Sequential,
        attempt: AttemptRules::SEED,
        node_timeout_ms: Some(1_000),
        retry_ms: vec![400],
        acquire_timeout_ms: None,
        max_attempts: None,
        auto_extension: None,
        belief: Default::default(),
        extend: ExtendRules::REDSYNC,
        on_refused: Default::default(),
        watchdog: Some(WatchdogSpec {
            interval_permille: 300,
            tries: 3,
            timeout_ms: 1_000,
            counts: RenewCount::Extended,
        }),
    };
    Scenario {
        name: "redlock-watchdog-counts-extensions".into(),
        description: "Redlock's watchdog counting only real extensions, renewal rounds taking 604 ms: the validity counts from a round's start, and after a pause longer than the TTL the round fails; no two holders".into(),
        nodes: REDLOCK_NODES[..3].iter().map(|n| node(n)).collect(),
        clients: vec![
            client("p1", protocol.clone(), &[6_000], 0),
            client("p2", protocol, &[2_000], 2_500),
        ],
        network: NetworkSpec {
            links: vec![LinkOverride {
                between: ["p1".into(), "redis-3".into()],
                delays_ms: vec![300],
                one_way: false,
            }],
            ..NetworkSpec::default()
        },
        faults: pause("p1", &[3_500], 1),
        oracles: vec![OracleSpec::MeLock, OracleSpec::PauseWhileHolding],
        explore: walks(200),
        ..base()
    }
}
