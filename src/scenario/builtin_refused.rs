//! Built-ins of a crashed node that refuses at once, against one that never answers.
//!
//! A crashed Redis process's host resets its connections and refuses new ones, so a client
//! learns of the crash one message delay later; a machine that lost its power answers
//! nothing, and the client waits out its own timeout. Seed 000's Redlock asks its three
//! nodes one after another, 2 s per node, and keeps the lock only if the attempt took less
//! than the TTL (1.5 s here). `redis-1`, the first asked, crashes for good at 0 ms, as the
//! one client starts (before or after its first request is on its way: either way it
//! reaches no process):
//!
//! - process crash: `redis-1` refuses at once, the other two grant, the attempt takes a few
//!   ms and holds (safe);
//! - power loss: every attempt waits 2 s on `redis-1`, more than the TTL, so none can hold:
//!   the client gives up at its 10 s acquire timeout (`no-give-up` violated);
//! - node-redlock 4.2 on a process crash: ioredis queues the refused command while it
//!   reconnects (`on_refused = "wait"`), and an attempt waits for every server without a
//!   timeout, so the lock is never taken though two of three servers are up
//!   (`progress` violated).

use super::kit::{base, client, node};
use super::*;
use serde_json::json;

const NODES: [&str; 3] = ["redis-1", "redis-2", "redis-3"];

/// One client of `protocol` from 0 ms (100 ms of work), `redis-1` crashing for good at
/// 0 ms (a power loss when `power_loss`).
fn first_node_down(
    name: &str,
    description: &str,
    protocol: ProtocolSpec,
    power_loss: bool,
) -> Scenario {
    Scenario {
        name: name.into(),
        description: description.into(),
        nodes: NODES.iter().map(|n| node(n)).collect(),
        clients: vec![client("client-1", protocol, &[100], 0)],
        faults: FaultsSpec {
            crashes: vec![CrashSpec {
                process: NODES[0].into(),
                power_loss,
                restart_after_ms: vec![None],
                when: FaultWhen {
                    at_ms: Some(0),
                    ..FaultWhen::default()
                },
            }],
            max_crashes: 1,
            ..FaultsSpec::default()
        },
        ..base()
    }
}

/// Seed 000's Redlock over the three nodes with a 1.5 s TTL and no watchdog.
fn seed_redlock() -> ProtocolSpec {
    let mut protocol =
        ProtocolSpec::seed_000_redlock(NODES.iter().map(|n| n.to_string()).collect());
    if let ProtocolSpec::Redlock {
        ttl_ms, watchdog, ..
    } = &mut protocol
    {
        *ttl_ms = 1_500;
        *watchdog = None;
    }
    protocol
}

/// The process crash: `redis-1` refuses, the attempt holds on the other two.
pub fn redlock_crashed_node_refuses() -> Scenario {
    Scenario {
        oracles: vec![OracleSpec::MeLock, OracleSpec::NoGiveUp],
        expect: ExpectedVerdict::Safe,
        ..first_node_down(
            "redlock-crashed-node-refuses",
            "seed 000's sequential Redlock (TTL 1.5 s, 2 s per node): the first node's process crashes and its host refuses at once, so the attempt moves on and holds on the other two",
            seed_redlock(),
            false,
        )
    }
}

/// The power loss: `redis-1` never answers, every attempt outlasts the TTL.
pub fn redlock_powered_off_node_silent() -> Scenario {
    Scenario {
        oracles: vec![OracleSpec::MeLock, OracleSpec::NoGiveUp],
        expect: ExpectedVerdict::Violated {
            oracle: "no-give-up".into(),
        },
        ..first_node_down(
            "redlock-powered-off-node-silent",
            "the same Redlock when the first node's machine loses power: nothing answers, each attempt waits 2 s for it, longer than the 1.5 s TTL, and the client gives up at 10 s",
            seed_redlock(),
            true,
        )
    }
}

/// node-redlock 4.2 on the process crash: the refused command waits in ioredis's queue.
pub fn node_redlock_crashed_server_queued() -> Scenario {
    let protocol = ProtocolSpec::library(
        "node-redlock",
        "4.2",
        json!({ "nodes": NODES, "ttl_ms": 1_500 }),
    );
    Scenario {
        oracles: vec![
            OracleSpec::MeLock,
            OracleSpec::Progress { bound_ms: 5_000 },
        ],
        expect: ExpectedVerdict::Violated {
            oracle: "progress".into(),
        },
        ..first_node_down(
            "node-redlock-crashed-server-queued",
            "node-redlock 4.2 over three servers, the first one's process crashed: ioredis queues the refused command while it reconnects and the attempt waits for every server, so the lock is never taken though two servers are up",
            protocol,
            false,
        )
    }
}

pub fn all() -> Vec<Scenario> {
    vec![
        redlock_crashed_node_refuses(),
        redlock_powered_off_node_silent(),
        node_redlock_crashed_server_queued(),
    ]
}
