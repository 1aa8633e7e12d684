//! Built-in scenarios of Redisson's RLock: seed 003's incident, its defence, the GC without
//! the stall and the same incident on 3.44; a GC longer than the lease; a late unlock.

use super::kit::{account, base, client, node, walks};
use super::*;

/// Redisson's `lock()` as it ships (the 3.17 generation).
fn redisson_3_17(node: &str) -> ProtocolSpec {
    ProtocolSpec::redisson_lock(node)
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
        clients: vec![instance("instance-a", 0), instance("instance-b", 100)],
        account: Some(account(false, false, false)),
        faults: FaultsSpec {
            pauses: vec![
                PauseSpec {
                    process: "redis".into(),
                    durations_ms: vec![200],
                    when: Default::default(),
                },
                PauseSpec {
                    process: "instance-a".into(),
                    durations_ms: vec![2_900],
                    when: Default::default(),
                },
            ],
            max_pauses: 2,
            ..FaultsSpec::default()
        },
        oracles: vec![
            OracleSpec::MeResource,
            OracleSpec::RenewalFailed,
            OracleSpec::PauseWhileHolding,
        ],
        expect: ExpectedVerdict::Violated {
            oracle: "me-resource".into(),
        },
        ..base()
    }
}

/// Seed 003's defence: a unique index on the business id and a conditional debit
/// (`balance >= amount`). The lock still breaks; the money does not move twice.
pub fn seed_003_defended() -> Scenario {
    let mut s = seed_003_incident();
    s.name = "seed-003-defended".into();
    s.description = "the same incident with a unique business id and a conditional debit: the lock breaks, no duplicate debit".into();
    s.account = Some(account(false, true, true));
    s.oracles.push(OracleSpec::LockOverlap);
    s.expect = ExpectedVerdict::Safe;
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
    s.expect = ExpectedVerdict::Safe;
    s
}

/// Seed 003's incident on Redisson 3.44: the renewal that times out is tried again at the
/// next tick (10 s later), well within the 30 s lease. No duplicate debit.
pub fn seed_003_on_3_44() -> Scenario {
    let mut s = seed_003_incident();
    s.name = "seed-003-on-redisson-3-44".into();
    s.description = "the seed-003 stall and GC on Redisson 3.44: the failed renewal is retried at the next tick, the lease never runs out, no duplicate debit".into();
    for c in &mut s.clients {
        if let ProtocolSpec::Redisson { generation, .. } = &mut c.protocol {
            *generation = Generation::From3_44;
        }
    }
    s.expect = ExpectedVerdict::Safe;
    s
}

/// A Full GC of 35 s, longer than the 30 s lease, freezes instance-a and its watchdog while it
/// holds the lock: the lease runs out and instance-b takes the lock for its 60 s job. When
/// instance-a resumes, its renewal finds its field gone (0) and the watchdog stops, but
/// instance-a still believes it holds the lock (Redisson has no validity): two holders. The
/// requests time out only after 60 s, so the renewal's answer (not a timeout) is what fails
/// it. With a unique business id and a conditional debit the account takes no damage.
pub fn redisson_gc_past_lease_defended() -> Scenario {
    let instance = |name: &str, work_ms: u64, start| {
        let mut protocol = redisson_3_17("redis");
        if let ProtocolSpec::Redisson {
            request_timeout_ms, ..
        } = &mut protocol
        {
            *request_timeout_ms = 60_000;
        }
        let mut c = client(name, protocol, &[work_ms], start);
        c.workload.uses_account = true;
        c
    };
    Scenario {
        name: "redisson-gc-past-lease-defended".into(),
        description: "a 35 s GC outlasts the 30 s Redisson lease: the renewal after it finds another owner and fails, the lock breaks, the defended account takes no damage".into(),
        nodes: vec![node("redis")],
        clients: vec![instance("instance-a", 15_000, 0), instance("instance-b", 60_000, 100)],
        account: Some(account(false, true, true)),
        faults: super::kit::pause("instance-a", &[35_000], 1),
        oracles: vec![
            OracleSpec::MeResource,
            OracleSpec::RenewalFailed,
            OracleSpec::LockOverlap,
        ],
        expect: ExpectedVerdict::Safe,
        explore: walks(200),
        ..base()
    }
}

/// Three Redisson clients with an explicit 10 s lease (no watchdog); client-1's messages to
/// the node may take 12 s, so its unlock can arrive after its lease ran out, while client-2
/// holds the lock and client-3 waits. The release script finds client-1's field gone and
/// deletes nothing. Safe.
pub fn redisson_late_unlock() -> Scenario {
    let leased = |name: &str, work_ms: u64, start| {
        let protocol = ProtocolSpec::Redisson {
            node: "redis".into(),
            lease_ms: Some(10_000),
            watchdog_timeout_ms: 30_000,
            wait_ms: None,
            generation: Generation::UpTo3_43,
            request_timeout_ms: 3_000,
            servers: Default::default(),
            fair: None,
            retry_attempts: 0,
            retry_interval_ms: 1_500,
        };
        client(name, protocol, &[work_ms], start)
    };
    Scenario {
        name: "redisson-late-unlock".into(),
        description: "Redisson with a 10 s lease: client-1's unlock arrives 12 s late, while client-2 holds the lock; the release script checks the owner and deletes nothing".into(),
        expect: ExpectedVerdict::Safe,
        explore: walks(100),
        ..super::builtin_classic::late_unlock_world(leased)
    }
}
