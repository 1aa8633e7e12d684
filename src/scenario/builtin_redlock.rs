//! Built-in scenarios of Redlock: seed 000's 5-node Redlock with its watchdog under its four
//! boundary conditions, Kleppmann's clock jump, and clock drift within and beyond the factor.

use super::builtin::{account, base, client, node, pause};
use super::*;
use lockcheck_model::lock::redlock::{Dispatch, RenewCount};

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
        clients: vec![p1, p2],
        account: Some(account(false, false, false)),
        network: NetworkSpec {
            links,
            ..NetworkSpec::default()
        },
        faults,
        oracles: vec![OracleSpec::MeLock, OracleSpec::MeResource],
        expect: Expected::Violated {
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
