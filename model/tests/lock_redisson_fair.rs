//! Redisson's fair lock in a world: a `tryLock` waiter queues with its own wait time in the
//! timeouts, and when that runs out it leaves the queue (`acquireFailedAsync`), so no stale
//! place is left behind to hold up the others.

mod lock_world;
mod world;

use lock_world::*;
use lockcheck_model::lock::redisson::{FairLock, Redisson};
use lockcheck_model::lock::Protocol;
use lockcheck_model::redis::Value;
use world::{run, State};

const QUEUE: &[u8] = b"redisson_lock_queue:{lock}";
const TIMEOUTS: &[u8] = b"redisson_lock_timeout:{lock}";

fn value(s: &State, key: &[u8]) -> Option<Value> {
    let node = s.actor(NODES[0]).and_then(|a| a.as_redis())?;
    node.keyspace
        .peek(key, s.now_ms as i64)
        .map(|e| e.value.clone())
}

#[test]
fn a_try_lock_waiter_queues_with_its_wait_time_and_leaves_the_queue_when_it_runs_out() {
    let fair = Redisson {
        fair: Some(FairLock::REDISSON),
        ..Redisson::lock(NODES[0]).with_wait_ms(500)
    };
    // client-1 holds for 2 s; client-2 asks at 10 ms and may wait 500 ms.
    let world = lock_world(Protocol::Redisson(fair), [job(0, &[2_000]), job(10, &[10])]);
    let path = run(&world, &[], 5_000);
    let queued = path
        .states
        .iter()
        .find_map(|s| value(s, TIMEOUTS).map(|v| (s.now_ms, v)))
        .expect("client-2 queues");
    // Its timeout: the lock's PTTL when the script ran (the 30 s lease set at 1 ms, the
    // script at 11) + its own wait time (500 ms, not threadWaitTime) + its clock when it
    // sent the script (10).
    assert_eq!(
        queued.1,
        Value::SortedSet(vec![(b"client-2:1".to_vec(), (30_001 - 11) + 500 + 10)])
    );
    let gave_up = path
        .states
        .iter()
        .find(|s| client_state(s, CLIENT_2).gave_up > 0)
        .expect("client-2 gives up");
    assert!((510..530).contains(&gave_up.now_ms), "{}", gave_up.now_ms);
    // Its acquire-failed script has run by the time the holder releases.
    let later = path.states.iter().find(|s| s.now_ms >= 1_000).unwrap();
    assert_eq!(value(later, QUEUE), None);
    assert_eq!(value(later, TIMEOUTS), None);
}
