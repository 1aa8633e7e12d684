//! Built-ins of redis-py's default `timeout=None`: a lock whose key never expires.
//!
//! `Redis.lock(name)` without a `timeout` acquires with `SET name token NX` and no expiry.
//! If the holder's process dies before it releases, nothing ever deletes the key: every
//! other client retries every 100 ms for ever. With `timeout=10` the key expires 10 s after
//! the grant and the next retry takes the lock.

use super::kit::{base, client, crash_for_good, node};
use super::*;
use serde_json::json;

/// Two redis-py 8.2 clients of one node, `client-1` first (5 s of work), `client-2` from
/// 100 ms; `client-1`'s process may die for good. The lock must be free again within 10.6 s
/// of the holder's death (the TTL, a retry, and the messages' delays).
fn holder_dies(name: &str, description: &str, timeout_ms: Option<u64>) -> Scenario {
    let mut overrides = json!({ "node": "redis" });
    if let Some(ms) = timeout_ms {
        overrides["ttl_ms"] = json!(ms);
    }
    let protocol = ProtocolSpec::library("redis-py", "8.2", overrides);
    Scenario {
        name: name.into(),
        description: description.into(),
        nodes: vec![node("redis")],
        clients: vec![
            client("client-1", protocol.clone(), &[5_000], 0),
            client("client-2", protocol, &[1_000], 100),
        ],
        faults: crash_for_good("client-1"),
        oracles: vec![
            OracleSpec::MeLock,
            OracleSpec::Liveness { bound_ms: 10_600 },
            OracleSpec::HolderCrashed,
        ],
        ..base()
    }
}

/// No `timeout`: the dead holder's key stays, and `client-2` never gets the lock.
pub fn redis_py_no_timeout_holder_dies() -> Scenario {
    Scenario {
        expect: ExpectedVerdict::Violated {
            oracle: "liveness".into(),
        },
        ..holder_dies(
            "redis-py-no-timeout-holder-dies",
            "redis-py's default timeout=None: SET NX with no expiry; the holder's process dies and the key stays for good, so the other client retries for ever",
            None,
        )
    }
}

/// `timeout=10`: the dead holder's key expires, and `client-2` takes the lock.
pub fn redis_py_timeout_holder_dies() -> Scenario {
    Scenario {
        expect: ExpectedVerdict::Safe,
        ..holder_dies(
            "redis-py-timeout-holder-dies",
            "redis-py with timeout=10: the holder's process dies, its key expires 10 s after the grant, and the other client's next retry takes the lock",
            Some(10_000),
        )
    }
}

pub fn all() -> Vec<Scenario> {
    vec![
        redis_py_no_timeout_holder_dies(),
        redis_py_timeout_holder_dies(),
    ]
}
