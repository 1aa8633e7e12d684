//! Built-in scenarios of Redisson's RLock: seed 003's incident, its defence, and the GC
//! without the stall.

use super::builtin::{account, base, client, node};
use super::*;

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
        clients: vec![instance("instance-a", 0), instance("instance-b", 100)],
        account: Some(account(false, false, false)),
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
        oracles: vec![
            OracleSpec::MeResource,
            OracleSpec::RenewalFailed,
            OracleSpec::PauseWhileHolding,
        ],
        expect: Expected::Violated {
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
