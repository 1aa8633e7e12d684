//! Three Sentinels that vote, searched exhaustively over 30 s with a partition at any moment:
//! a minority cut off with the replica never promotes it, a majority does, a quorum of three
//! needs all three, and no two Sentinels ever name different masters in one configuration
//! epoch, nor are two elected in one (one leader per epoch).

mod world;

use lockcheck_model::node::RedisNode;
use lockcheck_model::process::Process;
use lockcheck_model::sentinel::Sentinel;
use lockcheck_sim::world::{FaultEnvelope, PartitionFault, ProcessId};
use lockcheck_sim::{explore, BreadthFirst, Options, Outcome, Property};
use lockcheck_sim::{Limits, Stop};
use world::*;

const MASTER: ProcessId = 0;
const REPLICA: ProcessId = 1;
const SENTINELS: [ProcessId; 3] = [2, 3, 4];

fn sentinel(me: ProcessId, quorum: u32) -> Process {
    Process::Sentinel(Sentinel {
        peers: SENTINELS.into_iter().filter(|&p| p != me).collect(),
        quorum,
        election_retry_ms: 10_000,
        ..Sentinel::new(vec![MASTER, REPLICA], MASTER, 1_000, 3_000)
    })
}

/// The master, its replica and three Sentinels; the partition puts `with_master` beside the
/// master and the rest beside the replica, at any moment, for good.
fn world_of(quorum: u32, with_master: &[ProcessId]) -> RedisWorld {
    let mut side_a = vec![MASTER];
    side_a.extend(with_master);
    let mut side_b = vec![REPLICA];
    side_b.extend(SENTINELS.iter().filter(|s| !with_master.contains(s)));
    let cut = PartitionFault::two_way("split", &side_a, &side_b, vec![None]);
    world(vec![
        ("master", Process::Redis(RedisNode::master())),
        ("replica", Process::Redis(RedisNode::replica_of(MASTER))),
        ("sentinel-1", sentinel(SENTINELS[0], quorum)),
        ("sentinel-2", sentinel(SENTINELS[1], quorum)),
        ("sentinel-3", sentinel(SENTINELS[2], quorum)),
    ])
    .with_faults(FaultEnvelope::none().partition(cut, 1))
    .with_property(Property::always("one-master-per-epoch", |_, s: &State| {
        let views: Vec<(u64, ProcessId)> = SENTINELS
            .iter()
            .filter_map(|&p| s.actor(p).and_then(|a| a.as_sentinel()))
            .map(|v| (v.epoch, v.master))
            .collect();
        views
            .iter()
            .all(|a| views.iter().all(|b| a.0 != b.0 || a.1 == b.1))
    }))
    .with_property(Property::always("one-leader-per-epoch", |_, s: &State| {
        let leaders: Vec<u64> = SENTINELS
            .iter()
            .filter_map(|&p| s.actor(p).and_then(|a| a.as_sentinel()))
            .filter(|v| v.failovers > 0)
            .map(|v| v.epoch)
            .collect();
        leaders
            .iter()
            .enumerate()
            .all(|(i, e)| !leaders[i + 1..].contains(e))
    }))
}

fn promoted(s: &State) -> bool {
    s.actor(REPLICA)
        .and_then(|a| a.as_redis())
        .is_some_and(|n| n.is_master())
}

/// Whether some state within 30 s has the replica promoted; the search must be complete and
/// one leader per epoch must hold.
fn can_promote(w: RedisWorld) -> bool {
    let w = w.with_property(Property::sometimes("promoted", |_, s: &State| promoted(s)));
    let options = Options {
        stop: Stop::Never,
        limits: Limits {
            max_virtual_time_ms: Some(30_000),
            max_states: Some(2_000_000),
            ..Limits::default()
        },
        ..Options::default()
    };
    let report = explore(&w, &mut BreadthFirst::default(), options);
    assert!(
        matches!(report.outcome, Outcome::Complete | Outcome::Bounded { .. }),
        "{report}"
    );
    assert!(report.first_violation().is_none(), "{report}");
    report.hollow().is_empty()
}

#[test]
fn a_majority_beside_the_replica_promotes_it_and_a_minority_never_does() {
    assert!(can_promote(world_of(2, &[SENTINELS[0]])));
    assert!(!can_promote(world_of(2, &[SENTINELS[0], SENTINELS[1]])));
}

#[test]
fn a_quorum_of_three_needs_every_sentinel_to_see_the_master_down() {
    assert!(!can_promote(world_of(3, &[SENTINELS[0]])));
    // Quorum 1 still needs a majority to elect a leader.
    assert!(!can_promote(world_of(1, &[SENTINELS[0], SENTINELS[1]])));
    assert!(can_promote(world_of(1, &[SENTINELS[0]])));
}
