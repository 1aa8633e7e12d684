//! Redisson's server configurations as scenario files: `[clients.protocol.servers]` builds
//! the model's servers with the replicas the topology gives the master, a profile takes the
//! table as an override, bad values are refused naming the line and the field, and
//! `replica_priority` reaches Sentinel.

use lockcheck::model::lock::redisson::{NoneSynced, Servers};
use lockcheck::model::lock::Protocol;
use lockcheck::model::process::Process;
use lockcheck::scenario::file::scenario_from_toml;

/// A master with two replicas, a Sentinel, and one Redisson client whose protocol table
/// ends with `extra` (and whose `node` is `redis-1`).
fn file_with(extra: &str, sentinel: bool) -> String {
    let sentinel = if sentinel {
        "[sentinel]\nmaster = \"redis-1\"\nping_every_ms = 1000\ndown_after_ms = 5000\n"
    } else {
        ""
    };
    format!(
        r#"name = "redisson-servers"
description = "a Redisson client on a master with two replicas"

[[nodes]]
name = "redis-1"
[[nodes]]
name = "redis-2"
replica_of = "redis-1"
[[nodes]]
name = "redis-3"
replica_of = "redis-1"
replica_priority = 0

{sentinel}
[[clients]]
name = "c"
[clients.protocol]
node = "redis-1"
{extra}
[clients.workload]
locks = ["order_lock"]
work_ms = [1000]

[[oracles]]
kind = "me-lock"
"#
    )
}

/// The built world's Redisson servers, and whether the master records `WAIT` offsets.
fn servers_of(text: &str) -> (Servers, bool) {
    let world = scenario_from_toml(text)
        .unwrap_or_else(|e| panic!("{e}"))
        .build()
        .unwrap_or_else(|e| panic!("{}: {}", e.field, e.message));
    let client = world.processes.iter().find(|p| p.name == "c").unwrap();
    let Process::Client(c) = &client.actor else {
        panic!("a client")
    };
    let Protocol::Redisson(r) = &c.protocol else {
        panic!("Redisson")
    };
    let Process::Redis(master) = &world.processes[0].actor else {
        panic!("a node")
    };
    (r.servers, master.records_wait_offsets)
}

#[test]
fn the_servers_table_gives_the_master_s_replicas_to_the_wait() {
    let (servers, records) = servers_of(&file_with("kind = \"redisson\"", false));
    assert_eq!((servers, records), (Servers::Single, false));
    let (servers, records) = servers_of(&file_with(
        "kind = \"redisson\"\nservers = { mode = \"master_slave\", slaves_sync_timeout_ms = \"2s\" }",
        false,
    ));
    let Servers::MasterSlave { sync } = servers else {
        panic!("{servers:?}")
    };
    assert_eq!((sync.replicas, sync.timeout_ms, records), (2, 2_000, true));
    assert!(sync.check_synced);
    assert_eq!(sync.none_synced, NoneSynced::Fail);
    let (servers, _) = servers_of(&file_with(
        "kind = \"redisson\"\n[clients.protocol.servers]\nmode = \"sentinel\"\nnone_synced = \"unlock_and_fail\"\ncheck_lock_synced_slaves = false",
        true,
    ));
    let Servers::Sentinel {
        scan_interval_ms,
        sync,
        ..
    } = servers
    else {
        panic!("{servers:?}")
    };
    assert_eq!(scan_interval_ms, 1_000);
    assert_eq!(
        (sync.none_synced, sync.check_synced),
        (NoneSynced::UnlockAndFail, false)
    );
}

#[test]
fn a_redisson_profile_takes_the_servers_table_as_an_override() {
    for version in ["3.17.7", "3.44"] {
        let (servers, _) = servers_of(&file_with(
            &format!(
                "library = \"redisson\"\nversion = \"{version}\"\nservers = {{ mode = \"sentinel\" }}"
            ),
            true,
        ));
        let Servers::Sentinel { sync, .. } = servers else {
            panic!("{version}: {servers:?}")
        };
        assert_eq!(sync.none_synced, NoneSynced::Fail, "{version}");
    }
}

#[test]
fn sentinel_gets_each_node_s_replica_priority() {
    let world = scenario_from_toml(&file_with("kind = \"redisson\"", true))
        .unwrap()
        .build()
        .unwrap();
    let sentinel = world
        .processes
        .iter()
        .find(|p| p.name == "sentinel")
        .unwrap();
    let Process::Sentinel(s) = &sentinel.actor else {
        panic!("Sentinel")
    };
    assert_eq!(s.priorities, vec![100, 100, 0]);
}

/// The error for `extra`: its field, message and line.
fn refused(extra: &str, sentinel: bool) -> (String, String, usize) {
    let text = file_with(extra, sentinel);
    let e = match scenario_from_toml(&text) {
        Err(e) => e,
        Ok(s) => match s.build() {
            Err(e) => panic!("built, then refused late: {}: {}", e.field, e.message),
            Ok(_) => panic!("accepted: {extra}"),
        },
    };
    (
        e.field.clone().unwrap_or_default(),
        e.message.clone(),
        e.line.unwrap_or(0),
    )
}

#[test]
fn bad_servers_are_refused_naming_the_line_and_the_field() {
    let (field, message, line) = refused(
        "kind = \"redisson\"\nservers = { mode = \"sentinel\" }",
        false,
    );
    assert_eq!(field, "clients[0].protocol.servers.mode", "{message}");
    assert!(message.contains("[sentinel]"), "{message}");
    assert!(line > 0);
    let (field, message, _) = refused(
        "kind = \"redisson\"\nservers = { mode = \"master_slave\", slaves_sync_timeout_ms = 0 }",
        false,
    );
    assert_eq!(
        field, "clients[0].protocol.servers.slaves_sync_timeout_ms",
        "{message}"
    );
    let (field, message, _) = refused(
        "kind = \"redisson\"\nservers = { mode = \"sentinel\", wait_ms = 5 }",
        true,
    );
    assert!(field.contains("servers"), "{field}: {message}");
    assert!(message.contains("wait_ms"), "{message}");
    let (_, message, _) = refused(
        "kind = \"redisson\"\nservers = { mode = \"cluster\" }",
        false,
    );
    assert!(message.contains("cluster"), "{message}");
}
