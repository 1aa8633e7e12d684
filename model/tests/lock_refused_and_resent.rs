//! A client against a Redis node that crashed: refused at once (a process crash) or silent
//! (a power loss), and Redisson writing a script again when it gets no answer.
//!
//! One node, one client starting at 10 ms, links of 1 ms; the node crashes at 0 ms for good.

mod world;

use lockcheck_model::lock::redisson::{Redisson, Retries};
use lockcheck_model::lock::single::SingleNode;
use lockcheck_model::lock::{LockClient, OnRefused, Protocol};
use lockcheck_model::node::RedisNode;
use lockcheck_model::process::Process;
use lockcheck_sim::world::{CrashKind, FaultEnvelope, ProcessId};
use lockcheck_sim::Path;
use proptest::prelude::*;
use world::*;

const REDIS: ProcessId = 0;
const CLIENT: ProcessId = 1;
const START_MS: u64 = 10;

fn crashed_node_world(client: Process, kind: CrashKind) -> RedisWorld {
    world(vec![
        ("redis", Process::Redis(RedisNode::master())),
        ("a", client),
    ])
    .with_faults(FaultEnvelope::none().crash(REDIS, &[kind], &[None], 1))
}

fn crash_label(kind: CrashKind) -> String {
    format!("crash redis{}, no restart", kind.label_suffix())
}

fn run_crashed(client: Process, kind: CrashKind, until_ms: u64) -> Path<RedisWorld> {
    let w = crashed_node_world(client, kind);
    run(&w, &[(0, crash_label(kind).as_str())], until_ms)
}

/// When the client's round ended having given up (`None`: it never did).
fn gave_up_at(path: &Path<RedisWorld>) -> Option<u64> {
    path.states
        .iter()
        .find(|s| {
            s.actor(CLIENT)
                .and_then(|a| a.as_client())
                .is_some_and(|c| c.gave_up > 0)
        })
        .map(|s| s.now_ms)
}

/// How many times the client wrote its script again.
fn rewrites(path: &Path<RedisWorld>) -> usize {
    path.labels().iter().filter(|l| l.contains("again")).count()
}

fn redisson(retries: Retries, timeout_ms: u64) -> Process {
    let engine = Redisson::lock(REDIS)
        .with_request_timeout_ms(timeout_ms)
        .with_retries(retries);
    redisson_client(engine, b"lock", "uuid-a", START_MS, 100)
}

fn single_node(on_refused: OnRefused) -> Process {
    let mut engine = SingleNode::new(REDIS, 5_000);
    engine.request_timeout_ms = None;
    engine.max_attempts = Some(1);
    engine.on_refused = on_refused;
    let Process::Client(LockClient {
        workload,
        fencing,
        owner,
        ..
    }) = redisson_client(Redisson::lock(REDIS), b"lock", "a", START_MS, 100)
    else {
        unreachable!("a lock client")
    };
    Process::Client(LockClient {
        protocol: Protocol::SingleNode(engine),
        workload,
        fencing,
        owner,
    })
}

#[test]
fn without_a_request_timeout_a_refusal_fails_the_attempt_and_silence_waits_for_ever() {
    // redis-py without socket_timeout: ConnectionError at once on a process crash.
    let refused = run_crashed(single_node(OnRefused::Fail), CrashKind::Process, 60_000);
    assert_eq!(gave_up_at(&refused), Some(START_MS + 1));
    // The same crash for a library that queues the command: it waits as for silence.
    let queued = run_crashed(single_node(OnRefused::Wait), CrashKind::Process, 60_000);
    assert_eq!(gave_up_at(&queued), None);
    // A power loss answers nothing.
    let silent = run_crashed(single_node(OnRefused::Fail), CrashKind::PowerLoss, 60_000);
    assert_eq!(gave_up_at(&silent), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// A silent node: every write waits `timeout`, the next comes `interval` later, and the
    /// call fails after the last: `(attempts + 1) * timeout + attempts * interval`.
    #[test]
    fn redisson_writes_again_after_each_timeout_then_fails(
        attempts in 0u8..4,
        interval_ms in 1u64..2_000,
        timeout_ms in 1u64..4_000,
    ) {
        let retries = Retries { attempts, interval_ms };
        let path = run_crashed(redisson(retries, timeout_ms), CrashKind::PowerLoss, 60_000);
        let n = attempts as u64;
        prop_assert_eq!(rewrites(&path), attempts as usize);
        prop_assert_eq!(
            gave_up_at(&path),
            Some(START_MS + (n + 1) * timeout_ms + n * interval_ms)
        );
    }

    /// A crashed process's host refuses each write after a round trip; the next write
    /// comes `interval` after the refusal, and the last refusal fails the call.
    #[test]
    fn redisson_writes_again_after_each_refusal_then_fails(
        attempts in 0u8..4,
        interval_ms in 1u64..2_000,
    ) {
        let retries = Retries { attempts, interval_ms };
        let path = run_crashed(redisson(retries, 3_000), CrashKind::Process, 60_000);
        let n = attempts as u64;
        prop_assert_eq!(rewrites(&path), attempts as usize);
        prop_assert_eq!(gave_up_at(&path), Some(START_MS + 1 + n * (interval_ms + 1)));
    }
}
