//! Built-ins of node-redlock 5's attempt (module `profiles::node_redlock_5`) against
//! node-redlock 4's: a lock returned after its validity is over, and a tie that is never
//! decided.
//!
//! node-redlock 5 counts the validity from `start = Date.now()`, read before the first
//! attempt, and returns the lock without comparing it with the clock; 4 refuses a quorum
//! with no validity left. When the holder's process pauses between sending its requests
//! and reading the answers for longer than the TTL, 5 reports a lock whose keys have
//! expired and which another client holds by then; the code that does not read
//! `lock.expiration` debits the account while the other client does.
//!
//! node-redlock 5 decides an attempt at the first quorum either way: with four servers a 2
//! to 2 split never reaches one, and `acquire` never returns.
//!
//! `using` extends the lock on a timer, which a pause freezes: after a pause past the
//! expiration the overdue extension refuses the expired lock and aborts the routine's
//! signal, which saves the account only if the routine checks it before writing.

use super::kit::{account, account_clients, base, client, node, pause_at};
use super::*;
use serde_json::json;

/// Three nodes, a 10 s TTL: `p1` asks at 0 and pauses 12 s at 1 ms, its answers waiting;
/// `p2` starts at 10.5 s, after the keys expired, and works 5 s; both read and debit the
/// account.
fn pause_during_acquire(version: &str) -> Scenario {
    let nodes = ["redis-1", "redis-2", "redis-3"];
    let protocol = ProtocolSpec::library(
        "node-redlock",
        version,
        json!({ "nodes": nodes, "ttl_ms": 10_000, "retry_ms": [200] }),
    );
    Scenario {
        nodes: nodes.iter().map(|n| node(n)).collect(),
        clients: account_clients(vec![
            client("p1", protocol.clone(), &[1_000], 0),
            client("p2", protocol, &[5_000], 10_500),
        ]),
        network: NetworkSpec {
            delays_ms: vec![1],
            ..NetworkSpec::default()
        },
        faults: pause_at("p1", 12_000, 1),
        account: Some(account(false, false, false)),
        oracles: vec![OracleSpec::MeResource, OracleSpec::MeLock],
        ..base()
    }
}

/// node-redlock 5: the answers read after the pause make a quorum, and the lock is
/// returned with its expiration 2 s past.
pub fn node_redlock_5_pause_during_acquire() -> Scenario {
    Scenario {
        name: "node-redlock-5-pause-during-acquire".into(),
        description: "node-redlock 5 (validity from the first attempt, never checked): a 12 s pause between sending the requests and reading the answers; the quorum read afterwards returns a lock already expired, and its debit lands while the second client holds the lock".into(),
        expect: ExpectedVerdict::Violated {
            oracle: "me-resource".into(),
        },
        ..pause_during_acquire("5.0.0-beta.2")
    }
}

/// node-redlock 4 in the same world: the quorum comes with no validity left, the attempt
/// fails, and the retries find the lock taken.
pub fn node_redlock_4_pause_during_acquire() -> Scenario {
    Scenario {
        name: "node-redlock-4-pause-during-acquire".into(),
        description: "node-redlock 4 in the same world: the quorum read after the pause has no validity left, so the attempt fails; its retries find the lock taken and it gives up without touching the account".into(),
        expect: ExpectedVerdict::Safe,
        ..pause_during_acquire("4.2")
    }
}

/// Two node-redlock 5 clients on four nodes, starting at once; each reaches two of them
/// first (its messages to the other two take 2 ms): the 2 to 2 split is never decided,
/// and once the keys expire the lock is free with both clients still waiting.
pub fn node_redlock_5_tie_never_decided() -> Scenario {
    let nodes = ["redis-1", "redis-2", "redis-3", "redis-4"];
    let protocol = ProtocolSpec::library(
        "node-redlock",
        "5.0.0-beta.2",
        json!({ "nodes": nodes, "ttl_ms": 1_000, "retry_ms": [200] }),
    );
    Scenario {
        name: "node-redlock-5-tie-never-decided".into(),
        description: "node-redlock 5 on four servers: two clients split the votes 2 to 2, neither quorum is reached, and both wait for ever while the lock is free once the keys expire".into(),
        nodes: nodes.iter().map(|n| node(n)).collect(),
        clients: vec![
            client("p1", protocol.clone(), &[100], 0),
            client("p2", protocol, &[100], 0),
        ],
        network: NetworkSpec {
            delays_ms: vec![1],
            links: [("p1", "redis-3"), ("p1", "redis-4"), ("p2", "redis-1"), ("p2", "redis-2")]
                .iter()
                .map(|(client, node)| LinkOverride {
                    between: [client.to_string(), node.to_string()],
                    delays_ms: vec![2],
                    one_way: true,
                })
                .collect(),
            ..NetworkSpec::default()
        },
        oracles: vec![
            OracleSpec::Progress { bound_ms: 2_000 },
            OracleSpec::NoGiveUp,
        ],
        expect: ExpectedVerdict::Violated {
            oracle: "progress".into(),
        },
        ..base()
    }
}

/// `using` on three nodes, a 5 s lock extended 500 ms before its expiry: `p1` works 12 s
/// and pauses 6 s at 5 s, just after its first extension (valid until about 9.45 s); `p2`
/// asks from 8 s on, every 200 ms, and works 3 s; both read and debit the account, and the
/// account is the question (`me-resource`). `checks_signal`: `p1`'s routine checks
/// `signal.aborted` before it writes. `belief`: what the business code believes (the
/// profile's `until_aborted` unless given).
pub(super) fn using_pause(checks_signal: bool, belief: Option<&str>) -> Scenario {
    let nodes = ["redis-1", "redis-2", "redis-3"];
    let mut table =
        json!({ "nodes": nodes, "ttl_ms": 5_000, "retry_ms": [200], "auto_extension": {} });
    if let Some(belief) = belief {
        table["belief"] = json!(belief);
    }
    let protocol = ProtocolSpec::library("node-redlock", "5.0.0-beta.2", table);
    let mut p1 = client("p1", protocol.clone(), &[12_000], 0);
    p1.workload.checks_stop_event = checks_signal;
    Scenario {
        faults: pause_at("p1", 6_000, 5_000),
        clients: account_clients(vec![p1, client("p2", protocol, &[3_000], 8_000)]),
        oracles: vec![OracleSpec::MeResource],
        ..pause_during_acquire("5.0.0-beta.2")
    }
}

/// The routine ignores the signal: it writes after the lock was lost.
pub fn node_redlock_5_using_pause_unchecked() -> Scenario {
    Scenario {
        name: "node-redlock-5-using-pause-unchecked".into(),
        description: "node-redlock 5's using(): a 6 s pause freezes the extension timer past the expiry; the overdue extension aborts the signal, the routine does not check it and debits while the second client holds the lock".into(),
        expect: ExpectedVerdict::Violated {
            oracle: "me-resource".into(),
        },
        ..using_pause(false, None)
    }
}

/// The routine checks the signal before it writes.
pub fn node_redlock_5_using_pause_checked() -> Scenario {
    Scenario {
        name: "node-redlock-5-using-pause-checked".into(),
        description: "the same with the routine checking signal.aborted before it writes: the abort comes when the pause ends, before the write, and the account is safe (the lock still breaks)".into(),
        expect: ExpectedVerdict::Safe,
        ..using_pause(true, None)
    }
}

/// The checked routine's world asking about the lock (`me-lock`): the routine sees only its
/// signal, so it believes it holds the lock through the pause, until the overdue extension
/// aborts the signal at its end, while `p2` has held it since about 10 s.
pub fn node_redlock_5_using_believes_through_pause() -> Scenario {
    Scenario {
        name: "node-redlock-5-using-believes-through-pause".into(),
        description: "node-redlock 5's using(): the routine sees only its abort signal, so through a 6 s pause it believes it holds the lock, which expired during the pause and the second client took; the signal aborts only when the pause ends".into(),
        oracles: vec![OracleSpec::MeLock],
        expect: ExpectedVerdict::Violated {
            oracle: "me-lock".into(),
        },
        ..using_pause(true, None)
    }
}

/// The same world judged by the lock's expiration, as a caller of `acquire()` who holds the
/// `Lock` may: its belief ends during the pause, before `p2` takes the lock.
pub fn node_redlock_5_using_validity_belief() -> Scenario {
    Scenario {
        name: "node-redlock-5-using-validity-belief".into(),
        description: "the same pause judged by the lock's expiration (belief = validity, what acquire()'s caller can read): the belief ends during the pause, before the second client takes the lock".into(),
        oracles: vec![OracleSpec::MeLock],
        expect: ExpectedVerdict::Safe,
        ..using_pause(true, Some("validity"))
    }
}

/// Every built-in of this file.
pub fn all() -> Vec<Scenario> {
    vec![
        node_redlock_5_pause_during_acquire(),
        node_redlock_4_pause_during_acquire(),
        node_redlock_5_tie_never_decided(),
        node_redlock_5_using_pause_unchecked(),
        node_redlock_5_using_pause_checked(),
        node_redlock_5_using_believes_through_pause(),
        node_redlock_5_using_validity_belief(),
    ]
}
