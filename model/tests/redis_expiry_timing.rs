//! Expiry in real time: the model, run at wall-clock instants, against a real `redis-server`
//! and real sleeps. Each check allows for a slow machine: a trial whose sleeps overshoot too
//! much to judge is repeated, and a test that could never judge fails instead of passing.

// Talks to a real Redis server, in real time: the wall clock is the point here.
#![allow(clippy::disallowed_methods)]

mod support;

use lockcheck_model::redis::{Command, Keyspace, Reply, Role};
use std::time::{Duration, Instant};
use support::real_redis::{request_words, RealRedis};
use support::wall::{sleep_until, wall_ms};

const TRIALS: usize = 5;

fn model(ks: &mut Keyspace, words: &[&str]) -> Reply {
    let argv: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
    ks.execute_argv(&argv, wall_ms(), Role::Master).reply
}

/// Both sides' `(EXISTS, PTTL)` of `k`, or `None` if the reading came later than `latest`.
fn read_both(
    ks: &mut Keyspace,
    con: &mut redis::Connection,
    start: Instant,
    latest: Duration,
) -> Option<[(Reply, Reply); 2]> {
    let both = [
        (model(ks, &["EXISTS", "k"]), model(ks, &["PTTL", "k"])),
        (
            request_words(con, &["EXISTS", "k"]),
            request_words(con, &["PTTL", "k"]),
        ),
    ];
    (start.elapsed() <= latest).then_some(both)
}

fn is_ttl_within(reply: &Reply, low: i64, high: i64) -> bool {
    matches!(reply, Reply::Integer(ms) if (low..=high).contains(ms))
}

/// A key set with `PX 300` is there at ~100 ms (judged up to 250 ms) with a PTTL in
/// 50..=200 ms, and gone at ~500 ms, in the model and in the real server. The upper bound
/// grows by the time the two `SET`s took to return (rounded up, plus the millisecond a clock
/// reading can lag): a key set later has more of its 300 ms left at the same instant.
#[test]
fn a_key_set_with_px_300_is_there_at_100_ms_and_gone_at_500_ms_on_the_model_and_the_server() {
    let server = RealRedis::start();
    let mut con = server.connection();
    for _ in 0..TRIALS {
        let mut ks = Keyspace::new();
        request_words(&mut con, &["FLUSHALL"]);
        let start = Instant::now();
        model(&mut ks, &["SET", "k", "v", "PX", "300"]);
        request_words(&mut con, &["SET", "k", "v", "PX", "300"]);
        let set_lag_ms = start.elapsed().as_micros().div_ceil(1000) as i64 + 1;
        sleep_until(start, Duration::from_millis(100));
        let Some(there) = read_both(&mut ks, &mut con, start, Duration::from_millis(250)) else {
            continue;
        };
        for (exists, pttl) in &there {
            assert_eq!(exists, &Reply::Integer(1), "there at ~100 ms: {there:?}");
            assert!(
                is_ttl_within(pttl, 50, 200 + set_lag_ms),
                "PTTL at ~100 ms, SETs took up to {set_lag_ms} ms: {there:?}"
            );
        }
        sleep_until(start, Duration::from_millis(500));
        let gone = [
            model(&mut ks, &["GET", "k"]),
            request_words(&mut con, &["GET", "k"]),
        ];
        assert_eq!(gone, [Reply::nil(), Reply::nil()], "gone at ~500 ms");
        return;
    }
    panic!("the machine was too slow to judge expiry in {TRIALS} trials");
}

/// Redis 7.0 expires a key when `now > deadline`, not `now >= deadline` (as the model does):
/// during the deadline millisecond itself the key is there and `PTTL` answers 0. The test polls
/// `PTTL` as fast as it can across the deadline. Were the key gone at its deadline, a 0 could
/// only come from the clock ticking between the server's lookup and its TTL arithmetic, at most
/// once per deadline; a run of 3 zeros shows a whole millisecond in which the key lived.
#[test]
fn the_real_server_still_has_a_key_during_its_deadline_millisecond_as_the_model_does() {
    let server = RealRedis::start();
    let mut con = server.connection();
    for _ in 0..10 {
        let deadline_ms = wall_ms() + 20;
        let deadline = deadline_ms.to_string();
        request_words(&mut con, &["SET", "k", "v", "PXAT", &deadline]);
        let polls = poll_pttl_until_gone(&mut con);
        if polls.iter().filter(|&&ttl| ttl == 0).count() >= 3 {
            let mut ks = Keyspace::new();
            ks.execute(&Command::set_pxat(b"k", b"v", deadline_ms), 0, Role::Master);
            let at_deadline = ks.execute_argv(
                &[b"PTTL".to_vec(), b"k".to_vec()],
                deadline_ms,
                Role::Master,
            );
            assert_eq!(at_deadline.reply, Reply::Integer(0));
            return;
        }
    }
    panic!("PTTL never answered 0 three times within a deadline millisecond in 10 tries");
}

/// `PTTL k` as fast as possible until the key is gone (or one second passed).
fn poll_pttl_until_gone(con: &mut redis::Connection) -> Vec<i64> {
    let start = Instant::now();
    let mut polls = Vec::new();
    while start.elapsed() < Duration::from_secs(1) {
        match request_words(con, &["PTTL", "k"]) {
            Reply::Integer(-2) => break,
            Reply::Integer(ttl) => polls.push(ttl),
            other => panic!("PTTL answered {other:?}"),
        }
    }
    polls
}

/// A real script sees the key its first call saw, even though the key's deadline passes while
/// the script runs (it busy-waits on `TIME` until 20 ms after it): time is frozen in a script,
/// which is why the model runs each lock script at a single instant.
#[test]
fn a_key_that_expires_while_a_real_script_runs_stays_live_until_the_script_ends() {
    let busy = "local a = redis.call('exists', KEYS[1]); local deadline = tonumber(ARGV[1]); \
                while true do local t = redis.call('time'); \
                if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > deadline + 20 \
                then break end end; \
                local b = redis.call('exists', KEYS[1]); return {a, b}";
    let server = RealRedis::start();
    let mut con = server.connection();
    for _ in 0..TRIALS {
        let deadline = (wall_ms() + 30).to_string();
        request_words(&mut con, &["SET", "k", "v", "PXAT", &deadline]);
        let seen = request_words(&mut con, &["EVAL", busy, "1", "k", &deadline]);
        if seen == Reply::Array(Some(vec![Reply::Integer(0), Reply::Integer(0)])) {
            continue; // the script started after the deadline: no judgement
        }
        assert_eq!(
            seen,
            Reply::Array(Some(vec![Reply::Integer(1), Reply::Integer(1)]))
        );
        assert_eq!(request_words(&mut con, &["EXISTS", "k"]), Reply::Integer(0));
        return;
    }
    panic!("the script never started before the deadline in {TRIALS} trials");
}
