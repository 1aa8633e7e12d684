//! Built-in scenarios of progress: whether a free lock that clients ask for is taken within a
//! bound (the `progress` oracle), with Redlock's split votes.

use super::builtin::{node, redlock_split_vote};
use super::*;

/// The progress built-ins.
pub fn all() -> Vec<Scenario> {
    vec![redlock_split_vote_progress(), redlock_split_vote_livelock()]
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
    s.expect = Expected::Safe;
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
    s.expect = Expected::Violated {
        oracle: "progress".into(),
    };
    s
}
