//! Built-ins of Redisson as deployed with replicas behind Sentinel: the `WAIT` after each lock
//! script, `checkLockSyncedSlaves`, and `replica-priority` choosing which replica Sentinel
//! promotes.
//!
//! Every world: a master `redis-1` with its replicas under one Sentinel (pings every second,
//! `down-after-milliseconds` 5 s); two Redisson 3.17 clients with the watchdog, found through
//! Sentinel; client-1 holds the lock for 15 s from the start, client-2 asks at 10 s. A
//! partition, at any moment, cuts the master and client-1 off from everyone else.

use super::kit::{base, client, node, old_master_cut_off};
use super::*;

/// Redisson's `lock()` on `redis-1` through `sentinel` (none: the first), with this
/// `checkLockSyncedSlaves`.
pub(crate) fn through_sentinel(
    sentinel: Option<&str>,
    check_lock_synced_slaves: bool,
) -> ProtocolSpec {
    let mut protocol = ProtocolSpec::redisson_lock("redis-1");
    if let ProtocolSpec::Redisson { servers, .. } = &mut protocol {
        *servers = ServersSpec {
            mode: ServersMode::Sentinel,
            sentinel: sentinel.map(String::from),
            check_lock_synced_slaves,
            ..ServersSpec::default()
        };
    }
    protocol
}

/// A replica of `redis-1`.
pub(crate) fn replica(name: &str) -> NodeSpec {
    NodeSpec {
        replica_of: Some("redis-1".into()),
        ..node(name)
    }
}

/// The world of this file with `replicas` and the clients' `checkLockSyncedSlaves`.
fn sentinel_world(
    name: &str,
    description: &str,
    replicas: Vec<NodeSpec>,
    check_lock_synced_slaves: bool,
) -> Scenario {
    let protocol = through_sentinel(None, check_lock_synced_slaves);
    let mut side_b: Vec<&str> = replicas.iter().map(|r| r.name.as_str()).collect();
    side_b.extend(["sentinel", "client-2"]);
    let faults = old_master_cut_off(&["redis-1", "client-1"], &side_b);
    Scenario {
        name: name.into(),
        description: description.into(),
        nodes: std::iter::once(node("redis-1"))
            .chain(replicas.iter().cloned())
            .collect(),
        sentinel: Some(SentinelSpec::one("redis-1", 1_000, 5_000)),
        clients: vec![
            client("client-1", protocol.clone(), &[15_000], 0),
            client("client-2", protocol, &[1_000], 10_000),
        ],
        faults,
        oracles: vec![OracleSpec::MeLock, OracleSpec::EveryClientDone],
        expect: ExpectedVerdict::Safe,
        ..base()
    }
}

/// With `checkLockSyncedSlaves = false` the `WAIT` that counted no replica is ignored: the
/// lock granted just before the partition was never replicated, Sentinel promotes the
/// replica, and client-2 takes the lock there while client-1 still works.
pub fn redisson_unchecked_sync_loses_lock() -> Scenario {
    Scenario {
        expect: ExpectedVerdict::Violated {
            oracle: "me-lock".into(),
        },
        ..sentinel_world(
            "redisson-unchecked-sync-loses-lock",
            "Redisson behind Sentinel with checkLockSyncedSlaves = false: the WAIT counts no replica, the grant stands, the failover loses it and client-2 acquires on the promoted replica",
            vec![replica("redis-2")],
            false,
        )
    }
}

/// Redisson's default: a grant whose `WAIT` counted no replica fails with "None of slaves
/// were synced", so client-1 never believes a lock the failover can lose; a grant that was
/// synced is on the replica Sentinel promotes.
pub fn redisson_synced_replica_keeps_lock() -> Scenario {
    sentinel_world(
        "redisson-synced-replica-keeps-lock",
        "Redisson behind Sentinel as it ships: a grant no replica acknowledged fails (None of slaves were synced), a synced one survives the failover; no two holders",
        vec![replica("redis-2")],
        true,
    )
}

/// Two replicas, redis-3 behind a 2 s link from the master: the `WAIT 2 1000` counts one,
/// which Redisson accepts. With equal priorities Sentinel promotes redis-2, which has the
/// lock.
pub fn redisson_one_of_two_synced() -> Scenario {
    let mut s = sentinel_world(
        "redisson-one-of-two-synced",
        "Redisson with two replicas, one 2 s away: WAIT 2 counts one and Redisson accepts it; Sentinel promotes the synced replica (highest offset) and the lock survives",
        vec![replica("redis-2"), replica("redis-3")],
        true,
    );
    s.network.links.push(LinkOverride {
        between: ["redis-1".into(), "redis-3".into()],
        delays_ms: vec![2_000],
        one_way: true,
    });
    s
}

/// The same with `replica-priority 10` on the far replica: Sentinel promotes it before the
/// synced one, whatever its offset, and the lock one `WAIT` counted is gone.
pub fn redisson_priority_promotes_unsynced() -> Scenario {
    let mut s = redisson_one_of_two_synced();
    s.name = "redisson-priority-promotes-unsynced".into();
    s.description = "the same with replica-priority 10 on the far replica: Sentinel promotes it over the synced one and client-2 acquires a lock WAIT had counted as replicated".into();
    s.nodes[2].replica_priority = 10;
    s.expect = ExpectedVerdict::Violated {
        oracle: "me-lock".into(),
    };
    s
}

/// Every built-in of this file.
pub fn all() -> Vec<Scenario> {
    vec![
        redisson_unchecked_sync_loses_lock(),
        redisson_synced_replica_keeps_lock(),
        redisson_one_of_two_synced(),
        redisson_priority_promotes_unsynced(),
    ]
}
