//! Built-ins of node-redlock's own `extend` (module `redlock::extend` of the model): the
//! same pause in the middle of an extension under node-redlock 5, which reports the
//! extension without comparing its expiration with the clock, and under node-redlock 4,
//! which checks it and, the check failed, unlocks every server.
//!
//! The job holds a 10 s lock on three servers, works 1 s, extends and debits. Its process
//! pauses 12 s just after sending the extension: the servers reset the TTL at about 1 s,
//! the keys expire at about 11 s, and a second client takes the lock at 11.5 s and works
//! 5 s. The extension's answers, a quorum of 1s, are read at about 13 s, when the
//! validity it counts (`start + ttl - drift`, about 10.9 s) is over.
//!
//! A third: an extension whose server never answers times out like any other request.

use super::kit::{account, base, client, node, pause_at, stepper};
use super::*;
use serde_json::json;

/// `p1`: acquire, read, work 1 s, extend, debit, release, its process paused 12 s at
/// 1,005 ms (the extension went out at 1,004); `p2` from 11.5 s: 5 s of work.
fn pause_during_extend(version: &str) -> Scenario {
    let nodes = ["redis-1", "redis-2", "redis-3"];
    let protocol = ProtocolSpec::library(
        "node-redlock",
        version,
        json!({ "nodes": nodes, "ttl_ms": 10_000, "retry_ms": [200] }),
    );
    let p1 = stepper(
        "p1",
        protocol.clone(),
        0,
        &[
            "acquire order_lock",
            "read",
            "work 1s",
            "extend order_lock",
            "debit",
            "release order_lock",
        ],
    );
    let mut p2 = client("p2", protocol, &[5_000], 11_500);
    p2.workload.uses_account = true;
    Scenario {
        nodes: nodes.iter().map(|n| node(n)).collect(),
        clients: vec![p1, p2],
        network: NetworkSpec {
            delays_ms: vec![1],
            ..NetworkSpec::default()
        },
        faults: pause_at("p1", 12_000, 1_005),
        account: Some(account(false, false, false)),
        oracles: vec![OracleSpec::MeResource, OracleSpec::MeLock],
        ..base()
    }
}

/// node-redlock 5: the extension is reported with its expiration 2 s past, and the debit
/// lands while the second client holds the lock.
pub fn node_redlock_5_pause_during_extend() -> Scenario {
    Scenario {
        name: "node-redlock-5-pause-during-extend".into(),
        description: "node-redlock 5's extend() (validity from its start, never checked): a 12 s pause between sending the extension and reading its answers; the quorum read afterwards returns a lock already expired, and the debit lands while the second client holds the lock".into(),
        expect: ExpectedVerdict::Violated {
            oracle: "me-resource".into(),
        },
        ..pause_during_extend("5.0.0-beta.2")
    }
}

/// node-redlock 4: the quorum comes with no validity left, the attempt fails, its unlock
/// runs on every server (deleting nothing of the second client's), the retries find the
/// key taken, and the round ends without the debit.
pub fn node_redlock_4_pause_during_extend() -> Scenario {
    Scenario {
        name: "node-redlock-4-pause-during-extend".into(),
        description: "node-redlock 4's extend() in the same world: the quorum read after the pause has no validity left, so the attempt fails and is unlocked everywhere; the retries find the lock taken, extend() rejects, and the round ends without touching the account".into(),
        expect: ExpectedVerdict::Safe,
        ..pause_during_extend("4.2")
    }
}

/// node-redlock 4 with a 2 s request timeout (what ioredis's `commandTimeout` gives) on
/// three servers, one of which answers `p1` only after an hour: the acquire and the
/// extension count the two that answer once the third times out, and the job releases and
/// ends at about 7 s. An extension that waited for every answer without its timeout would
/// hold the job in `extend()` for the hour, past the 60 s bound: a hollow safe.
pub fn node_redlock_4_extend_silent_node() -> Scenario {
    let nodes = ["redis-1", "redis-2", "redis-3"];
    let protocol = ProtocolSpec::library(
        "node-redlock",
        "4.2",
        json!({ "nodes": nodes, "ttl_ms": 10_000, "node_timeout_ms": 2_000 }),
    );
    let p1 = stepper(
        "p1",
        protocol,
        0,
        &[
            "acquire order_lock",
            "work 1s",
            "extend order_lock",
            "release order_lock",
        ],
    );
    Scenario {
        name: "node-redlock-4-extend-silent-node".into(),
        description: "node-redlock 4's extend() with a 2 s request timeout, one of three servers answering only after an hour: the extension times out on it, counts the two others and the job ends".into(),
        nodes: nodes.iter().map(|n| node(n)).collect(),
        clients: vec![p1],
        network: NetworkSpec {
            delays_ms: vec![1],
            links: vec![LinkOverride {
                between: ["redis-3".into(), "p1".into()],
                delays_ms: vec![3_600_000],
                one_way: true,
            }],
            ..NetworkSpec::default()
        },
        oracles: vec![OracleSpec::MeLock, OracleSpec::EveryClientDone],
        explore: ExploreSpec {
            max_virtual_time_ms: Some(60_000),
            ..ExploreSpec::default()
        },
        expect: ExpectedVerdict::Safe,
        ..base()
    }
}

/// Every built-in of this file.
pub fn all() -> Vec<Scenario> {
    vec![
        node_redlock_5_pause_during_extend(),
        node_redlock_4_pause_during_extend(),
        node_redlock_4_extend_silent_node(),
    ]
}
