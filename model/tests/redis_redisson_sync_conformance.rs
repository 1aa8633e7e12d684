//! Redisson's lock scripts each followed by `WAIT 1 1000` on the same connection, as its
//! batches send them, told to a real master and replica (the replica's link through a TCP
//! proxy that turns into a black hole, as the model's partitions are) and to the model world:
//!
//! - an acquire while the replica is linked: nil, then `WAIT` counts it (1);
//! - after the cut, the holder's renewal: 1, then `WAIT` waits its full second and counts
//!   none (0): "None of slaves were synced";
//! - another owner's refused acquire, which writes nothing: the lock's PTTL, then `WAIT`
//!   waits its full second too and counts none, because a connection's `WAIT` waits for the
//!   master's offset after its last command of any kind (`c->woff`), not after its last
//!   write: the contender fails with "None of slaves were synced" instead of waiting;
//! - the replica promoted (`REPLICAOF NO ONE`, what Sentinel sends): it has the holder's
//!   field, with the lease of the acquire, not of the renewal it never received.

// Talks to a real Redis server, in real time: the wall clock is the point here.
#![allow(clippy::disallowed_methods)]

#[path = "../../src/reproduce/proxy.rs"]
mod proxy;
mod support;
mod world;

use lockcheck_model::lock::redisson::Redisson;
use lockcheck_model::node::RedisNode;
use lockcheck_model::process::Process;
use lockcheck_model::redis::{Command, LockScript, Reply};
use lockcheck_model::scripted::ScriptedStep;
use lockcheck_sim::world::{FaultEnvelope, PartitionFault, ProcessId};
use proxy::Proxy;
use std::time::{Duration, Instant};
use support::real_redis::{request, request_words, RealRedis};
use world::*;

const MASTER: ProcessId = 0;
const REPLICA: ProcessId = 1;
const HOLDER: ProcessId = 2;
const OTHER: ProcessId = 3;
const KEY: &[u8] = b"order_lock";
const LEASE_MS: i64 = 30_000;

fn acquire(owner: &[u8]) -> LockScript {
    LockScript::RedissonAcquire {
        key: KEY.to_vec(),
        field: Redisson::field(owner),
        lease_ms: LEASE_MS,
    }
}

fn renew(owner: &[u8]) -> LockScript {
    LockScript::RedissonRenew {
        key: KEY.to_vec(),
        field: Redisson::field(owner),
        lease_ms: LEASE_MS,
    }
}

fn script(after_ms: u64, to: ProcessId, s: LockScript) -> ScriptedStep {
    ScriptedStep::command(after_ms, to, Command::Script(s))
}

/// The replies and how long each took, on one real connection.
fn timed(con: &mut redis::Connection, argv: &[Vec<u8>]) -> (Reply, Duration) {
    let start = Instant::now();
    (request(con, argv), start.elapsed())
}

fn wait_1_1000() -> Vec<Vec<u8>> {
    Command::Wait {
        replicas: 1,
        timeout_ms: 1_000,
    }
    .to_argv()
}

/// The replies of the story, in order: the holder's acquire and its WAIT, its renewal and
/// its WAIT, the other owner's acquire and its WAIT, the promoted replica's `HGET` of the
/// holder's field; and the ms gone from the lease on the promoted replica.
#[derive(Debug, PartialEq)]
struct Story {
    replies: Vec<Reply>,
    lease_gone_ms: i64,
}

fn field() -> String {
    String::from_utf8(Redisson::field(b"a")).unwrap()
}

/// The story told to a real master and replica; checks how long each WAIT waited.
fn real_story() -> Story {
    let master = RealRedis::start();
    let link = Proxy::start(master.port());
    let port = link.port().to_string();
    let replica = RealRedis::start_with(&["--replicaof", "127.0.0.1", &port]);
    replica.wait_for_link();
    let mut holder = master.connection();
    let mut other = master.connection();
    let started = Instant::now();
    let mut replies = vec![request(&mut holder, &acquire(b"a").eval_argv())];
    replies.push(timed(&mut holder, &wait_1_1000()).0);
    link.black_hole();
    replies.push(request(&mut holder, &renew(b"a").eval_argv()));
    let (renew_wait, renew_waited) = timed(&mut holder, &wait_1_1000());
    replies.push(renew_wait);
    replies.push(request(&mut other, &acquire(b"b").eval_argv()));
    let (refused_wait, refused_waited) = timed(&mut other, &wait_1_1000());
    replies.push(refused_wait);
    let mut r = replica.connection();
    let promoted = request_words(&mut r, &["REPLICAOF", "NO", "ONE"]);
    assert_eq!(promoted, Reply::ok());
    replies.push(request_words(&mut r, &["HGET", "order_lock", &field()]));
    let pttl_left = pttl(&request_words(&mut r, &["PTTL", "order_lock"]));
    let elapsed = started.elapsed().as_millis() as i64;
    for waited in [renew_waited, refused_waited] {
        assert!(waited >= Duration::from_millis(900), "{waited:?}");
    }
    let lease_gone_ms = LEASE_MS - pttl_left;
    assert!(lease_gone_ms <= elapsed + 1, "{lease_gone_ms} {elapsed}");
    Story {
        replies,
        lease_gone_ms,
    }
}

/// The same story in the model world, the black hole a partition between master and
/// replica, each step timed as the real one happens.
fn model_story() -> Story {
    let cut = PartitionFault::two_way("master|replica", &[MASTER], &[REPLICA], vec![None]);
    let wait = || Command::Wait {
        replicas: 1,
        timeout_ms: 1_000,
    };
    let w = world(vec![
        ("master", Process::Redis(RedisNode::master())),
        ("replica", Process::Redis(RedisNode::replica_of(MASTER))),
        (
            "holder",
            scripted(vec![
                script(10, MASTER, acquire(b"a")),
                ScriptedStep::command(0, MASTER, wait()),
                script(20, MASTER, renew(b"a")),
                ScriptedStep::command(0, MASTER, wait()),
                replicaof(2_100, REPLICA, None),
                step(10, REPLICA, &["HGET", "order_lock", &field()]),
                step(0, REPLICA, &["PTTL", "order_lock"]),
            ]),
        ),
        (
            "other",
            scripted(vec![
                script(1_100, MASTER, acquire(b"b")),
                ScriptedStep::command(0, MASTER, wait()),
            ]),
        ),
    ])
    .with_faults(FaultEnvelope::none().partition(cut, 1));
    let path = run(&w, &[(25, "partition master|replica for good")], 4_000);
    let s = path.last_state();
    let at = |p, i| reply(s, p, i).unwrap_or_else(|| panic!("no reply {i} of {p}"));
    let replies = vec![
        at(HOLDER, 0),
        at(HOLDER, 1),
        at(HOLDER, 2),
        at(HOLDER, 3),
        at(OTHER, 0),
        at(OTHER, 1),
        at(HOLDER, 5),
    ];
    Story {
        replies,
        lease_gone_ms: LEASE_MS - pttl(&at(HOLDER, 6)),
    }
}

#[test]
fn redissons_wait_after_each_script_counts_the_same_replicas_on_both() {
    let (real, model) = (real_story(), model_story());
    let expected_real = [
        Reply::nil(),
        Reply::Integer(1),
        Reply::Integer(1),
        Reply::Integer(0),
    ];
    assert_eq!(real.replies[..4], expected_real, "{real:?}");
    assert_eq!(real.replies[5], Reply::Integer(0), "{real:?}");
    assert_eq!(real.replies[6], Reply::bulk("1"), "{real:?}");
    // The refused acquire answers the lock's PTTL, which differs by the clocks' noise.
    for story in [&real, &model] {
        assert!(
            matches!(story.replies[4], Reply::Integer(ms) if ms > 0),
            "{story:?}"
        );
    }
    let without_pttl = |s: &Story| {
        let mut r = s.replies.clone();
        r.remove(4);
        r
    };
    assert_eq!(without_pttl(&model), without_pttl(&real));
    // The promoted replica's lease counts from the acquire on both (the renewal is lost):
    // two seconds (the two WAITs) have gone from it on each.
    assert!(
        (model.lease_gone_ms - real.lease_gone_ms).abs() <= 300,
        "model {model:?}, real {real:?}"
    );
}

fn pttl(reply: &Reply) -> i64 {
    match reply {
        Reply::Integer(ms) => *ms,
        other => panic!("PTTL answered {other:?}"),
    }
}
