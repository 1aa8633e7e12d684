//! Built-in scenarios of progress: whether a free lock that clients ask for is taken within a
//! bound (the `progress` oracle), with Redlock's split votes, and whether a client that keeps
//! asking gets the lock within a bound (the `no-starvation` oracle).

use super::builtin_redlock::redlock_split_vote;
use super::kit::{base, client, node, single_node};
use super::*;

/// The progress built-ins.
pub fn all() -> Vec<Scenario> {
    vec![
        redlock_split_vote_progress(),
        redlock_split_vote_livelock(),
        single_node_rounds_starve_a_contender(),
        single_node_rounds_bounded_wait(),
    ]
}

/// Redlock's split vote on three nodes (`redlock-split-vote`), judged for progress: every
/// split of three votes gives one client a majority, so the lock is taken in the first round.
pub fn redlock_split_vote_progress() -> Scenario {
    let mut s = redlock_split_vote();
    s.name = "redlock-split-vote-progress".into();
    s.description = "two clients ask three Redlock nodes at the same instant: an odd number of votes always has a winner, the lock is taken within 300 ms".into();
    s.oracles = vec![OracleSpec::MeLock, OracleSpec::Progress { bound_ms: 300 }];
    s.explore = ExploreSpec {
        max_virtual_time_ms: Some(400),
        ..ExploreSpec::default()
    };
    s.expect = ExpectedVerdict::Safe;
    s
}

/// The same race on four nodes: two votes each is no majority for either, both release and
/// retry after the same fixed 200 ms, and split again. The lock stays free while both ask
/// for it: a livelock (no two holders).
pub fn redlock_split_vote_livelock() -> Scenario {
    let mut s = redlock_split_vote_progress();
    s.name = "redlock-split-vote-livelock".into();
    s.description = "the same race on four Redlock nodes with a fixed 200 ms retry: the votes split 2-2 round after round, nobody holds the lock within 300 ms".into();
    s.nodes.push(node("redis-4"));
    for c in &mut s.clients {
        if let ProtocolSpec::Redlock { nodes, .. } = &mut c.protocol {
            nodes.push("redis-4".into());
        }
    }
    s.expect = ExpectedVerdict::Violated {
        oracle: "progress".into(),
    };
    s
}

/// `client-1` runs three 100 ms jobs back to back and asks again the moment it releases;
/// `client-2` asks 5 ms after the start and retries every 300 ms, which lands while
/// `client-1` holds the lock again: it waits through all three rounds, over 300 ms.
pub fn single_node_rounds_starve_a_contender() -> Scenario {
    let mut greedy = client("client-1", single_node("redis", 10_000), &[100], 0);
    greedy.workload.rounds = 3;
    let mut patient = client("client-2", single_node("redis", 10_000), &[100], 5);
    if let ProtocolSpec::SingleNode { retry_ms, .. } = &mut patient.protocol {
        *retry_ms = vec![300];
    }
    Scenario {
        name: "single-node-rounds-starve-a-contender".into(),
        description: "one client runs three 100 ms jobs back to back, the other retries every 300 ms: its retries land while the lock is held again, and it waits more than 250 ms".into(),
        nodes: vec![node("redis")],
        clients: vec![greedy, patient],
        oracles: vec![
            OracleSpec::MeLock,
            OracleSpec::NoStarvation { bound_ms: 250 },
        ],
        expect: ExpectedVerdict::Violated {
            oracle: "no-starvation".into(),
        },
        ..base()
    }
}

/// The same contention judged with a bound of 1 s: the greedy client has only three
/// rounds, so the other's wait is bounded by them.
pub fn single_node_rounds_bounded_wait() -> Scenario {
    let mut s = single_node_rounds_starve_a_contender();
    s.name = "single-node-rounds-bounded-wait".into();
    s.description = "the same three greedy rounds judged with a 1 s bound: the other client's wait ends with them, within 1 s".into();
    s.oracles = vec![
        OracleSpec::MeLock,
        OracleSpec::NoStarvation { bound_ms: 1_000 },
        OracleSpec::EveryClientDone,
    ];
    s.expect = ExpectedVerdict::Safe;
    s
}
