//! Built-ins of Redisson's own re-sends: a call that gets no answer within `timeout` (3 s)
//! writes its script again `retryInterval` (1.5 s) later, so the script can run twice.
//!
//! Client `a` (Redisson 3.17, `lock()` with the watchdog) sends its acquire at 0 ms; the
//! node stalls from 1 ms (a pause) and works through its buffer when it resumes. Client `b`
//! asks for the lock from 6 s.
//!
//! - A 5 s stall: `a`'s acquire times out at 3 s and is written again at 4.5 s; at 5 s the
//!   node runs both. The first takes the lock (count 1), the second is the re-entrant
//!   acquire of the same owner (count 2). `a` works 1 s and unlocks once: the count drops to
//!   1, nothing is published, the watchdog stops, and the lock stays `a`'s until its 30 s
//!   lease runs out: `b` waits about 29 s (`no-starvation` violated).
//! - A 2 s stall: the answer comes within the timeout, the script runs once, `b` takes the
//!   lock at once (safe).

use super::kit::{base, client, node, pause_at};
use super::*;
use serde_json::json;

/// `a` and `b` on Redisson 3.17's profile; the node stalls for `stall_ms` from 1 ms.
fn stalled_node(name: &str, description: &str, stall_ms: u64) -> Scenario {
    let protocol = ProtocolSpec::library("redisson", "3.17", json!({ "node": "redis" }));
    Scenario {
        name: name.into(),
        description: description.into(),
        nodes: vec![node("redis")],
        clients: vec![
            client("a", protocol.clone(), &[1_000], 0),
            client("b", protocol, &[100], 6_000),
        ],
        faults: pause_at("redis", stall_ms, 1),
        oracles: vec![
            OracleSpec::MeLock,
            OracleSpec::NoStarvation { bound_ms: 10_000 },
        ],
        ..base()
    }
}

/// The 5 s stall: the acquire runs twice and one unlock leaves it held.
pub fn redisson_resent_acquire_counts_twice() -> Scenario {
    Scenario {
        expect: ExpectedVerdict::Violated {
            oracle: "no-starvation".into(),
        },
        ..stalled_node(
            "redisson-resent-acquire-counts-twice",
            "Redisson 3.17 writes an acquire again 1.5 s after its 3 s timeout; the stalled node runs it twice, the re-entrant script counts the hold twice, one unlock leaves the lock held until its 30 s lease ends, and the other client waits",
            5_000,
        )
    }
}

/// The 2 s stall: answered within the timeout, written once.
pub fn redisson_stall_within_timeout() -> Scenario {
    Scenario {
        expect: ExpectedVerdict::Safe,
        ..stalled_node(
            "redisson-stall-within-timeout",
            "the same with a 2 s stall: the acquire is answered within the 3 s timeout, runs once, and the unlock frees the lock for the other client",
            2_000,
        )
    }
}

pub fn all() -> Vec<Scenario> {
    vec![
        redisson_resent_acquire_counts_twice(),
        redisson_stall_within_timeout(),
    ]
}
