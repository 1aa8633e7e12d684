//! A single-node lock without a TTL (redis-py's default `timeout=None`): the grant is
//! `SET key token NX` with no expiry, and `extend` and `reacquire` fail at once without a
//! command, as redis-py raises `LockError` for a lock with no timeout.

mod lock_world;
mod world;

use lock_world::*;
use lockcheck_model::lock::engine::Extension;
use lockcheck_model::lock::single::SingleNode;
use lockcheck_model::lock::{Protocol, Steps, Workload, WorkloadStep};
use world::{run, RedisWorld};

/// Client-1 acquires on `redis-1`, extends with `how`, works 50 ms and releases.
fn extender(ttl_ms: Option<u64>, how: Extension) -> RedisWorld {
    let single = SingleNode {
        ttl_ms,
        request_timeout_ms: None,
        ..SingleNode::new(NODES[0], 1)
    };
    let steps = vec![
        WorkloadStep::Acquire {
            slot: 0,
            within_ms: None,
        },
        WorkloadStep::Extend { slot: 0, how },
        WorkloadStep::Work { ms: vec![50] },
        WorkloadStep::Release { slot: 0 },
    ];
    let job = Workload {
        steps: Steps::Listed(vec![steps]),
        ..job(0, &[50])
    };
    lock_world(Protocol::SingleNode(single), [job, no_job()])
}

/// The labels of the messages client-1 sent to `redis-1`.
fn sent(world: &RedisWorld) -> Vec<String> {
    run(world, &[], 10_000)
        .labels()
        .into_iter()
        .filter(|l| l.contains("client-1 -> redis-1"))
        .collect()
}

#[test]
fn without_a_ttl_the_grant_sets_no_expiry() {
    let grant = |ttl_ms| sent(&extender(ttl_ms, Extension::Ttl))[0].clone();
    assert!(
        grant(None).ends_with("SET lock client-1 NX"),
        "{}",
        grant(None)
    );
    assert!(
        grant(Some(10_000)).ends_with("SET lock client-1 NX PX 10000"),
        "{}",
        grant(Some(10_000))
    );
}

#[test]
fn without_a_ttl_extend_and_reacquire_send_nothing() {
    for how in [Extension::Ttl, Extension::By(1_000), Extension::To(1_000)] {
        let with_ttl = sent(&extender(Some(10_000), how));
        let without = sent(&extender(None, how));
        assert_eq!(with_ttl.len(), 3, "grant, extension, release: {with_ttl:?}");
        assert_eq!(without.len(), 2, "grant and release only: {without:?}");
    }
}
