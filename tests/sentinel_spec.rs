//! Several Sentinels in a scenario file: `count` Sentinels named `sentinel-1`, ... that a
//! partition and a client may name, each knowing the others as peers with the quorum; bad
//! counts, quorums and names are refused naming the line and the field.

use lockcheck::model::lock::redisson::Servers;
use lockcheck::model::lock::Protocol;
use lockcheck::model::process::Process;
use lockcheck::scenario::file::scenario_from_toml;

/// A master, a replica, the `[sentinel]` table's extra lines, and a Redisson client through
/// Sentinel whose servers table ends with `servers`.
fn file_with(sentinel: &str, servers: &str) -> String {
    format!(
        r#"name = "sentinels"
description = "three Sentinels"

[[nodes]]
name = "redis-1"
[[nodes]]
name = "redis-2"
replica_of = "redis-1"

[sentinel]
master = "redis-1"
ping_every_ms = 1000
down_after_ms = 5000
{sentinel}

[[clients]]
name = "c"
[clients.protocol]
kind = "redisson"
node = "redis-1"
[clients.protocol.servers]
mode = "sentinel"
{servers}
[clients.workload]
locks = ["order_lock"]
work_ms = [1000]

[faults]
max_partitions = 1
[[faults.partitions]]
name = "split"
side_a = ["redis-1", "sentinel-1"]
side_b = ["redis-2", "sentinel-2", "sentinel-3"]
durations_ms = ["never"]

[[oracles]]
kind = "me-lock"
"#
    )
}

#[test]
fn count_sentinels_know_each_other_and_a_client_names_the_one_it_asks() {
    let world = scenario_from_toml(&file_with("count = 3", "sentinel = \"sentinel-3\""))
        .unwrap_or_else(|e| panic!("{e}"))
        .build()
        .unwrap_or_else(|e| panic!("{}: {}", e.field, e.message));
    let id = |name: &str| world.processes.iter().position(|p| p.name == name).unwrap();
    let ids = [id("sentinel-1"), id("sentinel-2"), id("sentinel-3")];
    for &me in &ids {
        let Process::Sentinel(s) = &world.processes[me].actor else {
            panic!("a Sentinel")
        };
        let others: Vec<usize> = ids.iter().copied().filter(|&p| p != me).collect();
        assert_eq!((s.peers.clone(), s.quorum), (others, 2));
        assert_eq!(s.election_retry_ms, 360_000);
    }
    let Process::Client(c) = &world.processes[id("c")].actor else {
        panic!("a client")
    };
    let Protocol::Redisson(r) = &c.protocol else {
        panic!("Redisson")
    };
    assert!(matches!(r.servers, Servers::Sentinel { sentinel, .. } if sentinel == ids[2]));
}

fn refused(sentinel: &str, servers: &str) -> (String, String, usize) {
    let e = scenario_from_toml(&file_with(sentinel, servers)).expect_err("refused");
    (
        e.field.clone().unwrap_or_default(),
        e.message.clone(),
        e.line.unwrap_or(0),
    )
}

#[test]
fn bad_counts_quorums_and_sentinel_names_are_refused_by_field() {
    let (field, message, _) = refused("count = 3\nquorum = 4", "");
    assert_eq!(field, "sentinel.quorum", "{message}");
    assert!(message.contains("3 Sentinels"), "{message}");
    let (field, message, _) = refused("count = 0", "");
    assert_eq!(field, "sentinel.count", "{message}");
    let (field, message, line) = refused("count = 3", "sentinel = \"sentinel-9\"");
    assert_eq!(field, "clients[0].protocol.servers.sentinel", "{message}");
    assert!(
        message.contains("sentinel-1, sentinel-2, sentinel-3"),
        "{message}"
    );
    assert!(line > 0);
    // One Sentinel is named `sentinel`: the partition's `sentinel-1` is no process.
    let (field, message, _) = refused("", "");
    assert!(
        field.starts_with("faults.partitions[0]"),
        "{field}: {message}"
    );
}
