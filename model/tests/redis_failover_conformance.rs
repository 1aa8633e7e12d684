//! The Redis node actor's replication and persistence stories, told twice: once to real
//! `redis-server` processes, once to the model world, comparing the replies.
//!
//! - A replica that is busy (`DEBUG SLEEP`, a stall in the model) when a lock is written
//!   receives it late, as an absolute deadline: its remaining TTL has shrunk by the delay.
//! - A write acknowledged by the master after the replica's link is cut (a TCP proxy, a
//!   partition in the model) is lost when the replica is promoted (`REPLICAOF NO ONE`).
//! - With AOF `always`, a lock acknowledged before a `kill -9` is there after the restart,
//!   with its deadline.

// Talks to a real Redis server, in real time: the wall clock is the point here.
#![allow(clippy::disallowed_methods)]

#[path = "../../src/reproduce/proxy.rs"]
mod proxy;
mod support;
mod world;

use lockcheck_model::node::{Persistence, RedisNode};
use lockcheck_model::process::Process;
use lockcheck_model::redis::Reply;
use lockcheck_sim::world::{CrashKind, FaultEnvelope, PartitionFault};
use proxy::Proxy;
use std::thread::{self, sleep};
use std::time::{Duration, Instant};
use support::real_redis::{request_words, RealRedis};
use world::*;

const MASTER: usize = 0;
const REPLICA: usize = 1;
const CLIENT: usize = 2;

/// How far a remaining TTL may differ between model and server (scheduling noise).
const TTL_SLACK_MS: i64 = 300;

fn pttl(reply: &Reply) -> i64 {
    match reply {
        Reply::Integer(ms) => *ms,
        other => panic!("PTTL answered {other:?}"),
    }
}

#[test]
fn a_stalled_replica_receives_a_lock_late_as_an_absolute_deadline_on_both() {
    // Real: the replica sleeps 1.5 s; the lock (PX 3000) is written 100 ms into the sleep.
    let master = RealRedis::start();
    let port = master.port().to_string();
    let replica = RealRedis::start_with(&["--replicaof", "127.0.0.1", &port]);
    replica.wait_for_link();
    let mut sleeper = replica.connection();
    let sleeping = thread::spawn(move || request_words(&mut sleeper, &["DEBUG", "SLEEP", "1.5"]));
    sleep(Duration::from_millis(100));
    let written = Instant::now();
    let mut m = master.connection();
    assert_eq!(
        request_words(&mut m, &["SET", "lock", "tok", "PX", "3000"]),
        Reply::ok()
    );
    sleeping.join().unwrap();
    let mut r = replica.connection();
    let real_get = request_words(&mut r, &["GET", "lock"]);
    let real_pttl = pttl(&request_words(&mut r, &["PTTL", "lock"]));
    let real_elapsed = written.elapsed().as_millis() as i64;

    // Model: the replica stalls from 0 to 1500 ms; the lock is written at 100 ms.
    let w = world(vec![
        ("master", Process::Redis(RedisNode::master())),
        ("replica", Process::Redis(RedisNode::replica_of(MASTER))),
        (
            "client",
            scripted(vec![
                step(99, MASTER, &["SET", "lock", "tok", "PX", "3000"]),
                step(1_402, REPLICA, &["GET", "lock"]),
                step(0, REPLICA, &["PTTL", "lock"]),
            ]),
        ),
    ])
    .with_faults(FaultEnvelope::none().pause(REPLICA, &[1_500], 1));
    // The replica's start-up sync is done at 3 ms; the stall begins at the next event.
    let end = run(&w, &[(3, "pause replica for 1500 ms")], 3_000);
    let s = end.last_state();
    assert_eq!(reply(s, CLIENT, 1).as_ref(), Some(&real_get));
    assert_eq!(real_get, bulk("tok"));
    let model_pttl = pttl(&reply(s, CLIENT, 2).unwrap());
    // Both shrank by the time since the write (about 1.4 s), not by nothing.
    assert!(
        (model_pttl - (3_000 - 1_402)).abs() <= 2,
        "model {model_pttl}"
    );
    assert!(
        (real_pttl - (3_000 - real_elapsed)).abs() <= TTL_SLACK_MS,
        "real {real_pttl} after {real_elapsed} ms"
    );
    assert!(
        (model_pttl - real_pttl).abs() <= TTL_SLACK_MS + 200,
        "model {model_pttl} real {real_pttl}"
    );
}

#[test]
fn a_write_cut_off_from_the_replica_is_lost_when_it_is_promoted_on_both() {
    // Real: master <- proxy <- replica; cut the proxy, write, promote the replica.
    let master = RealRedis::start();
    let link = Proxy::start(master.port());
    let port = link.port().to_string();
    let replica = RealRedis::start_with(&["--replicaof", "127.0.0.1", &port]);
    replica.wait_for_link();
    let mut m = master.connection();
    let mut r = replica.connection();
    let real_lock = request_words(&mut m, &["SET", "lock", "tok", "PX", "60000"]);
    assert_eq!(
        request_words(&mut m, &["WAIT", "1", "2000"]),
        Reply::Integer(1)
    );
    link.cut();
    let real_k2 = request_words(&mut m, &["SET", "k2", "v2"]);
    assert_eq!(
        request_words(&mut m, &["WAIT", "1", "200"]),
        Reply::Integer(0)
    );
    assert_eq!(
        request_words(&mut r, &["REPLICAOF", "NO", "ONE"]),
        Reply::ok()
    );
    let real: Vec<Reply> = [&["GET", "k2"][..], &["GET", "lock"], &["PTTL", "lock"]]
        .iter()
        .map(|words| request_words(&mut r, words))
        .chain([request_words(&mut m, &["GET", "k2"])])
        .collect();

    // Model: the same story, the cut being a partition between master and replica.
    let cut = PartitionFault::two_way("master|replica", &[MASTER], &[REPLICA], vec![None]);
    let w = world(vec![
        ("master", Process::Redis(RedisNode::master())),
        ("replica", Process::Redis(RedisNode::replica_of(MASTER))),
        (
            "client",
            scripted(vec![
                step(10, MASTER, &["SET", "lock", "tok", "PX", "60000"]),
                step(0, MASTER, &["WAIT", "1", "2000"]),
                step(10, MASTER, &["SET", "k2", "v2"]),
                step(0, MASTER, &["WAIT", "1", "200"]),
                replicaof(300, REPLICA, None),
                step(10, REPLICA, &["GET", "k2"]),
                step(0, REPLICA, &["GET", "lock"]),
                step(0, REPLICA, &["PTTL", "lock"]),
                step(0, MASTER, &["GET", "k2"]),
            ]),
        ),
    ])
    .with_faults(FaultEnvelope::none().partition(cut, 1));
    let s = run(&w, &[(20, "partition master|replica for good")], 2_000)
        .last_state()
        .clone();
    assert_eq!(reply(&s, CLIENT, 0), Some(real_lock));
    assert_eq!(reply(&s, CLIENT, 1), Some(Reply::Integer(1)));
    assert_eq!(reply(&s, CLIENT, 2), Some(real_k2));
    assert_eq!(reply(&s, CLIENT, 3), Some(Reply::Integer(0)));
    let model: Vec<Reply> = (5..9).map(|i| reply(&s, CLIENT, i).unwrap()).collect();
    assert_eq!(
        model[0], real[0],
        "the cut-off write is lost on the promoted replica"
    );
    assert_eq!(real[0], Reply::nil());
    assert_eq!(model[1], real[1], "the replicated lock survives");
    assert!(
        (pttl(&model[2]) - pttl(&real[2])).abs() <= 1_000,
        "{model:?} vs {real:?}"
    );
    assert_eq!(model[3], real[3], "the old master still has it");
    assert_eq!(real[3], bulk("v2"));
}

#[test]
fn aof_always_keeps_an_acknowledged_lock_across_kill_9_on_both() {
    let dir = std::env::temp_dir().join(format!("lockcheck-aof-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dir_text = dir.to_string_lossy().into_owned();
    let aof = [
        "--appendonly",
        "yes",
        "--appendfsync",
        "always",
        "--dir",
        &dir_text,
    ];
    let first = RealRedis::start_with(&aof);
    let mut con = first.connection();
    assert_eq!(
        request_words(&mut con, &["SET", "lock", "tok", "PX", "30000"]),
        Reply::ok()
    );
    let written = Instant::now();
    drop(con);
    drop(first); // SIGKILL: a process crash
    sleep(Duration::from_millis(300));
    let second = RealRedis::start_with(&aof);
    let mut con = second.connection();
    let real_get = request_words(&mut con, &["GET", "lock"]);
    let real_pttl = pttl(&request_words(&mut con, &["PTTL", "lock"]));
    let real_elapsed = written.elapsed().as_millis() as i64;
    drop(second);
    let _ = std::fs::remove_dir_all(&dir);

    let w = world(vec![
        (
            "master",
            Process::Redis(RedisNode::master().with_persistence(Persistence::AofAlways)),
        ),
        (
            "client",
            scripted(vec![
                step(10, MASTER, &["SET", "lock", "tok", "PX", "30000"]),
                step(400, MASTER, &["GET", "lock"]),
                step(0, MASTER, &["PTTL", "lock"]),
            ]),
        ),
    ])
    .with_faults(FaultEnvelope::none().crash(MASTER, &[CrashKind::Process], &[Some(300)], 1));
    // The node applied the SET at 11 ms; it crashes at 12 ms, its acknowledgement on the wire.
    let s = run(&w, &[(12, "crash master, restart after 300 ms")], 2_000)
        .last_state()
        .clone();
    assert_eq!(
        reply(&s, 1, 0),
        Some(Reply::ok()),
        "acknowledged before the crash"
    );
    assert_eq!(real_get, bulk("tok"));
    assert_eq!(reply(&s, 1, 1), Some(real_get));
    let model_pttl = pttl(&reply(&s, 1, 2).unwrap());
    assert_eq!(
        model_pttl,
        30_011 - 411,
        "the deadline counted on while the node was down"
    );
    assert!(
        (real_pttl - (30_000 - real_elapsed)).abs() <= TTL_SLACK_MS,
        "real {real_pttl}"
    );
}
