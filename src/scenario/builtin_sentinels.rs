//! Built-ins of several Sentinels that vote: a failover needs `quorum` of them to see the
//! master down and a majority to elect a leader, so Sentinels cut off in a minority cannot
//! promote the replica, and a majority can, while a minority still names the old master to
//! the clients that reach it.
//!
//! Every world: a master `redis-1` with one replica, three Sentinels (quorum 2; pings every
//! second, `down-after-milliseconds` 5 s), two Redisson 3.17 clients with the watchdog and
//! `checkLockSyncedSlaves = false` (a grant no replica acknowledged stands); client-1 asks
//! sentinel-1 and holds the lock for 15 s from the start, client-2 asks sentinel-3 and asks
//! at 10 s. A partition, at any moment, cuts the master, client-1 and some Sentinels off.

use super::builtin_redisson_replicas::{replica, through_sentinel};
use super::kit::{base, client, node, old_master_cut_off};
use super::*;

/// The world of this file, the partition putting `with_master` Sentinels beside the master.
fn three_sentinels(name: &str, description: &str, with_master: &[&str]) -> Scenario {
    let sentinels = SentinelSpec {
        count: 3,
        quorum: Some(2),
        ..SentinelSpec::one("redis-1", 1_000, 5_000)
    };
    let names = sentinels.names();
    let mut side_a = vec!["redis-1", "client-1"];
    side_a.extend(with_master);
    let mut side_b = vec!["redis-2", "client-2"];
    side_b.extend(
        names
            .iter()
            .map(String::as_str)
            .filter(|s| !with_master.contains(s)),
    );
    let faults = old_master_cut_off(&side_a, &side_b);
    Scenario {
        name: name.into(),
        description: description.into(),
        nodes: vec![node("redis-1"), replica("redis-2")],
        sentinel: Some(sentinels),
        clients: vec![
            client(
                "client-1",
                through_sentinel(Some("sentinel-1"), false),
                &[15_000],
                0,
            ),
            client(
                "client-2",
                through_sentinel(Some("sentinel-3"), false),
                &[1_000],
                10_000,
            ),
        ],
        faults,
        oracles: vec![OracleSpec::MeLock],
        expect: ExpectedVerdict::Safe,
        ..base()
    }
}

/// Two of three Sentinels with the replica elect a leader and promote it; client-2, asking
/// one of them, takes the lock there while client-1 still holds it on the old master.
pub fn sentinel_majority_fails_over() -> Scenario {
    Scenario {
        expect: ExpectedVerdict::Violated {
            oracle: "me-lock".into(),
        },
        ..three_sentinels(
            "sentinel-majority-fails-over",
            "three Sentinels, quorum 2: the two beside the replica see the master down, elect a leader and promote the replica; client-2 acquires there while client-1 holds the lock on the old master",
            &["sentinel-1"],
        )
    }
}

/// One Sentinel beside the replica sees the master down but is short of the quorum and of a
/// majority: no failover, and client-2 never gets a lock client-1 holds.
pub fn sentinel_minority_cannot_fail_over() -> Scenario {
    three_sentinels(
        "sentinel-minority-cannot-fail-over",
        "three Sentinels, quorum 2: the only one beside the replica sees the master down alone and cannot fail over; no two holders",
        &["sentinel-1", "sentinel-2"],
    )
}

/// Every built-in of this file.
pub fn all() -> Vec<Scenario> {
    vec![
        sentinel_majority_fails_over(),
        sentinel_minority_cannot_fail_over(),
    ]
}
