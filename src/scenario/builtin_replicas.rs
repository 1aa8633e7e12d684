//! Built-ins of a master's replica requirements: `min_replicas_to_write` with
//! `min_replicas_max_lag_ms`, once a partition cuts the master off from its only replica.

use super::kit::{base, client, node, single_node};
use super::*;

/// A master that needs one good replica, its replica acknowledging every 500 ms, the two cut
/// apart at 1 s for good; a client asks for the lock at 5 s and gives up after 1 s. With a
/// 2 s max lag the replica is no longer good by then: every `SET` answers `NOREPLICAS` and
/// the client gives up.
pub fn min_replicas_lag_refuses_writes() -> Scenario {
    let mut protocol = single_node("m", 10_000);
    if let ProtocolSpec::SingleNode {
        acquire_timeout_ms,
        retry_ms,
        request_timeout_ms,
        ..
    } = &mut protocol
    {
        // Retried every 100 ms for 1 s (the scenario file's defaults).
        *acquire_timeout_ms = Some(1_000);
        *retry_ms = vec![100];
        *request_timeout_ms = Some(1_000);
    }
    let master = NodeSpec {
        min_replicas_to_write: 1,
        min_replicas_max_lag_ms: 2_000,
        ..node("m")
    };
    let replica = NodeSpec {
        replica_of: Some("m".into()),
        repl_ack_every_ms: Some(500),
        ..node("r")
    };
    Scenario {
        name: "min-replicas-lag-refuses-writes".into(),
        description: "min-replicas-to-write 1 with a 2 s max lag: 4 s after the replica is cut off, the master refuses every SET (NOREPLICAS) and the client gives up".into(),
        nodes: vec![master, replica],
        clients: vec![client("c", protocol, &[1_000], 5_000)],
        faults: FaultsSpec {
            partitions: vec![PartitionSpec {
                name: "m|r".into(),
                side_a: vec!["m".into()],
                side_b: vec!["r".into()],
                one_way: false,
                durations_ms: vec![None],
                when: FaultWhen {
                    at_ms: Some(1_000),
                    ..FaultWhen::default()
                },
            }],
            max_partitions: 1,
            ..FaultsSpec::default()
        },
        oracles: vec![OracleSpec::NoGiveUp],
        expect: ExpectedVerdict::Violated {
            oracle: "no-give-up".into(),
        },
        ..base()
    }
}

/// The same with Redis's default 10 s max lag: the replica still counts at 5 s, the lock is
/// granted.
pub fn min_replicas_default_lag() -> Scenario {
    let mut s = min_replicas_lag_refuses_writes();
    s.name = "min-replicas-default-lag".into();
    s.description = "the same with the default 10 s max lag: the cut-off replica still counts 4 s later, the lock is granted".into();
    s.nodes[0].min_replicas_max_lag_ms = 10_000;
    s.expect = ExpectedVerdict::Safe;
    s
}

/// Every built-in of this file.
pub fn all() -> Vec<Scenario> {
    vec![
        min_replicas_lag_refuses_writes(),
        min_replicas_default_lag(),
    ]
}
