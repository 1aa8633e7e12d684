//! `min-replicas-to-write` with `min-replicas-max-lag`, told to a real master and replica
//! (the replica's link through a TCP proxy that turns into a black hole, as the model's
//! partitions are) and to the model world: a write
//! half a second after the cut is accepted, while the replica's last acknowledgement is
//! younger than the lag; a write five seconds after it is refused with `NOREPLICAS`.

// Talks to a real Redis server, in real time: the wall clock is the point here.
#![allow(clippy::disallowed_methods)]

#[path = "../../src/reproduce/proxy.rs"]
mod proxy;
mod support;
mod world;

use lockcheck_model::node::RedisNode;
use lockcheck_model::process::Process;
use lockcheck_model::redis::Reply;
use lockcheck_sim::world::{FaultEnvelope, PartitionFault};
use proxy::Proxy;
use std::thread::sleep;
use std::time::Duration;
use support::real_redis::{request_words, RealRedis};
use world::*;

const MASTER: usize = 0;
const REPLICA: usize = 1;
const CLIENT: usize = 2;

#[test]
fn a_write_is_refused_once_the_cut_off_replica_lags_more_than_the_max_lag_on_both() {
    // Real: max lag 2 s; the replica acknowledges every second (repl-ping and REPLCONF ACK).
    let master = RealRedis::start_with(&[
        "--min-replicas-to-write",
        "1",
        "--min-replicas-max-lag",
        "2",
    ]);
    let link = Proxy::start(master.port());
    let port = link.port().to_string();
    let _replica = RealRedis::start_with(&["--replicaof", "127.0.0.1", &port]);
    master.wait_for_replication_info(
        "min_slaves_good_slaves:1",
        "the real master never counted its replica as good",
    );
    let mut m = master.connection();
    link.black_hole();
    sleep(Duration::from_millis(500));
    let real_soon = request_words(&mut m, &["SET", "a", "1"]);
    sleep(Duration::from_millis(4_500));
    let real_late = request_words(&mut m, &["SET", "b", "2"]);

    // Model: the same, the cut a partition at 1 s, the replica acknowledging every second.
    let mut strict = RedisNode::master();
    strict.min_replicas_to_write = 1;
    strict.min_replicas_max_lag_ms = 2_000;
    let mut acking = RedisNode::replica_of(MASTER);
    acking.repl_ack_every_ms = Some(1_000);
    let cut = PartitionFault::two_way("master|replica", &[MASTER], &[REPLICA], vec![None]);
    let w = world(vec![
        ("master", Process::Redis(strict)),
        ("replica", Process::Redis(acking)),
        (
            "client",
            scripted(vec![
                step(1_500, MASTER, &["SET", "a", "1"]),
                step(4_500, MASTER, &["SET", "b", "2"]),
            ]),
        ),
    ])
    .with_faults(FaultEnvelope::none().partition(cut, 1));
    let s = run(&w, &[(1_000, "partition master|replica for good")], 7_000)
        .last_state()
        .clone();
    let model = [reply(&s, CLIENT, 0).unwrap(), reply(&s, CLIENT, 1).unwrap()];
    assert_eq!(model, [real_soon.clone(), real_late.clone()]);
    assert_eq!(real_soon, Reply::ok());
    assert_eq!(
        real_late,
        Reply::Error("NOREPLICAS Not enough good replicas to write.".into())
    );
}
