//! Redisson's fair lock told as one story to a real `redis-server` and to the model: three
//! threads queue, the holder's release wakes the head of the queue on its own channel, the
//! head takes the lock and shifts the timeouts behind it, a `tryLock` out of time leaves the
//! queue, a stale head is dropped. Every reply, and the lock, queue and timeouts after every
//! step, must be the same. The scripts' `now` is an argument (the clients' clock), so the
//! story's times are exact on both sides; only the lock's PTTL is compared with a tolerance.

mod support;

use lockcheck_model::redis::{FairScript, Keyspace, LockScript, Reply, Role};
use support::real_redis::{agree, request, request_words, scores_agree, RealRedis};
use support::wall::wall_ms;

const LOCK: &[u8] = b"order";
const QUEUE: &[u8] = b"redisson_lock_queue:{order}";
const TIMEOUTS: &[u8] = b"redisson_lock_timeout:{order}";
const CHANNEL: &[u8] = b"redisson_lock__channel:{order}";
const LEASE_MS: i64 = 30_000;
const WAIT_MS: i64 = 300_000;

fn acquire(field: &str, now_ms: i64) -> FairScript {
    FairScript::Acquire {
        key: LOCK.to_vec(),
        queue: QUEUE.to_vec(),
        timeouts: TIMEOUTS.to_vec(),
        field: field.as_bytes().to_vec(),
        lease_ms: LEASE_MS,
        wait_ms: WAIT_MS,
        now_ms,
    }
}

fn release(field: &str, now_ms: i64) -> FairScript {
    FairScript::Release {
        key: LOCK.to_vec(),
        queue: QUEUE.to_vec(),
        timeouts: TIMEOUTS.to_vec(),
        channel: CHANNEL.to_vec(),
        field: field.as_bytes().to_vec(),
        lease_ms: LEASE_MS,
        now_ms,
    }
}

fn acquire_failed(field: &str) -> FairScript {
    FairScript::AcquireFailed {
        queue: QUEUE.to_vec(),
        timeouts: TIMEOUTS.to_vec(),
        field: field.as_bytes().to_vec(),
        wait_ms: WAIT_MS,
    }
}

/// The queue and the timeouts as the server lists them.
fn queue_state(con: &mut redis::Connection) -> (Reply, Reply) {
    let (queue, timeouts) = (
        String::from_utf8_lossy(QUEUE).into_owned(),
        String::from_utf8_lossy(TIMEOUTS).into_owned(),
    );
    (
        request_words(con, &["LRANGE", &queue, "0", "-1"]),
        request_words(con, &["ZRANGE", &timeouts, "0", "-1", "WITHSCORES"]),
    )
}

/// The same lists from the model's keyspace.
fn model_queue_state(ks: &Keyspace) -> (Reply, Reply) {
    use lockcheck_model::redis::Value;
    let now = wall_ms();
    let queue = match ks.peek(QUEUE, now).map(|e| &e.value) {
        Some(Value::List(items)) => items.iter().cloned().map(Reply::bulk).collect(),
        _ => Vec::new(),
    };
    let timeouts = match ks.peek(TIMEOUTS, now).map(|e| &e.value) {
        Some(Value::SortedSet(members)) => members
            .iter()
            .flat_map(|(m, s)| [Reply::bulk(m.clone()), Reply::bulk(s.to_string())])
            .collect(),
        _ => Vec::new(),
    };
    (Reply::Array(Some(queue)), Reply::Array(Some(timeouts)))
}

#[test]
fn a_fair_lock_story_gets_the_same_replies_and_queue_from_the_model_and_a_real_server() {
    let server = RealRedis::start();
    let mut con = server.connection();
    let mut ks = Keyspace::new();
    let t0 = 1_700_000_000_000;
    // (step, the reply both must give; `None`: a PTTL, compared with a tolerance).
    let story: Vec<(FairScript, Option<Reply>)> = vec![
        (acquire("a:1", t0), Some(Reply::nil())),
        // b queues behind the lock: it should wait the lock's PTTL.
        (acquire("b:1", t0 + 10), None),
        // c queues behind b: b's timeout - now (b's timeout holds the lock's PTTL).
        (acquire("c:1", t0 + 20), None),
        // b asks again, already queued: its timeout - wait - now.
        (acquire("b:1", t0 + 30), None),
        // a re-enters, then releases twice: the second wakes b on b's channel.
        (acquire("a:1", t0 + 40), Some(Reply::nil())),
        (release("a:1", t0 + 50), Some(Reply::Integer(0))),
        (release("a:1", t0 + 60), Some(Reply::Integer(1))),
        // c may not jump the queue; b, at its head, takes the lock; c's timeout shifts.
        (acquire("c:1", t0 + 70), None),
        (acquire("b:1", t0 + 80), Some(Reply::nil())),
        // c gives up (tryLock out of time) and leaves the queue.
        (acquire_failed("c:1"), Some(Reply::nil())),
        // d queues, then b's release much later finds d stale and drops it.
        (acquire("d:1", t0 + 90), None),
        (release("b:1", t0 + 10_000_000), Some(Reply::Integer(1))),
        (acquire("e:1", t0 + 10_000_010), Some(Reply::nil())),
    ];
    let mut published = Vec::new();
    for (i, (script, expected)) in story.iter().enumerate() {
        let script = LockScript::Fair(script.clone());
        let done = ks.execute(
            &lockcheck_model::redis::Command::Script(script.clone()),
            wall_ms(),
            Role::Master,
        );
        published.push(done.publish);
        let model = done.reply;
        let real = request(&mut con, &script.eval_argv());
        assert!(
            agree(&model, &real, true),
            "step {i} {script:?}: model {model:?}, real {real:?}"
        );
        if let Some(expected) = expected {
            assert_eq!(&real, expected, "step {i}: the story's own expectation");
        }
        let (model_queue, model_timeouts) = model_queue_state(&ks);
        let (real_queue, real_timeouts) = queue_state(&mut con);
        assert_eq!(model_queue, real_queue, "step {i}: the queue");
        assert!(
            scores_agree(&model_timeouts, &real_timeouts, |_| true),
            "step {i}: timeouts: model {model_timeouts:?}, real {real_timeouts:?}"
        );
    }
    // The release that frees the lock wakes the head of the queue on its own channel; the
    // one that found only a stale waiter wakes nobody.
    let to_b = [CHANNEL, b":b:1"].concat();
    assert_eq!(published[6], vec![(to_b, b"0".to_vec())]);
    assert!(published[5].is_empty() && published[11].is_empty());
}
