//! Built-ins of client-library profiles: the same question asked of two libraries whose
//! code answers it differently.
//!
//! node-redlock 4 measures a lock's validity on `Date.now()`, the wall clock; redsync 4 on
//! Go's monotonic reading. When the holder's wall clock steps back (an NTP step) while it
//! holds the lock, node-redlock's holder believes its lock for as long again after the keys
//! expired, and a second client takes it meanwhile; redsync's holder stops believing it
//! in time.

use super::kit::{base, client, node};
use super::*;
use serde_json::json;

/// Three nodes, two clients of `library` at `version` with a 10 s TTL: `p1` acquires at 0
/// and works 15 s; `p2` starts at 9 s, retrying every 200 ms (the libraries draw a random
/// delay; one value keeps the search small, and `p2`'s delay does not decide the race). Once
/// `p1` holds the lock its wall clock may step back 8 s.
fn wall_clock_step(library: &str, version: &str) -> Scenario {
    let nodes = ["redis-1", "redis-2", "redis-3"];
    let protocol = |retry_ms: Option<u64>| {
        let mut overrides = json!({ "nodes": nodes, "ttl_ms": 10_000 });
        if let Some(ms) = retry_ms {
            overrides["retry_ms"] = json!([ms]);
        }
        ProtocolSpec::library(library, version, overrides)
    };
    Scenario {
        nodes: nodes.iter().map(|n| node(n)).collect(),
        clients: vec![
            client("p1", protocol(None), &[15_000], 0),
            client("p2", protocol(Some(200)), &[1_000], 9_000),
        ],
        network: NetworkSpec {
            delays_ms: vec![1],
            ..NetworkSpec::default()
        },
        faults: FaultsSpec {
            clock_steps: vec![ClockStepSpec {
                process: "p1".into(),
                deltas_ms: vec![-8_000],
                when: FaultWhen {
                    after: Some("p1 acquires".into()),
                    ..FaultWhen::default()
                },
            }],
            max_clock_steps: 1,
            ..FaultsSpec::default()
        },
        oracles: vec![OracleSpec::MeLock, OracleSpec::EveryClientDone],
        ..base()
    }
}

/// node-redlock 4: the holder's validity is on its wall clock, which steps back 8 s; it
/// believes the lock until 18 s, and `p2` holds it from 10 s.
pub fn node_redlock_wall_clock_step() -> Scenario {
    Scenario {
        name: "node-redlock-wall-clock-step".into(),
        description: "node-redlock 4 (validity on Date.now()): the holder's wall clock steps back 8 s while it holds a 10 s lock; it believes the lock 8 s past the keys' expiry and the second client takes it meanwhile".into(),
        expect: ExpectedVerdict::Violated {
            oracle: "me-lock".into(),
        },
        ..wall_clock_step("node-redlock", "4.2")
    }
}

/// redsync 4 in the same world: the validity is on the monotonic clock, which a wall-clock
/// step does not move; the holder stops believing the lock before its keys expire.
pub fn redsync_wall_clock_step() -> Scenario {
    Scenario {
        name: "redsync-wall-clock-step".into(),
        description: "redsync 4 in the same world (validity on Go's monotonic clock): the wall-clock step does not move it, the holder stops believing the lock before its keys expire; one holder at a time, both finish".into(),
        expect: ExpectedVerdict::Safe,
        ..wall_clock_step("redsync", "4.17")
    }
}

/// Every built-in of this file.
pub fn all() -> Vec<Scenario> {
    vec![node_redlock_wall_clock_step(), redsync_wall_clock_step()]
}
