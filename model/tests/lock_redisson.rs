//! Redisson's RLock engine in small worlds: one Redis master and two lock clients.
//!
//! Unless a test says otherwise: links of 1 ms, lease 300 ms (watchdog period 100 ms), work
//! 500 ms (so the watchdog must renew), one round per client, client `a` starts at 0 ms.

mod world;

use lockcheck_model::lock::redisson::{
    Generation, Redisson, RedissonPhase, RedissonState, Watchdog,
};
use lockcheck_model::lock::{EngineState, Phase};
use lockcheck_model::msg::{ClientTimer, LockTimer, Timer};
use lockcheck_model::node::RedisNode;
use lockcheck_model::process::Process;
use lockcheck_model::redis::{Command, LockScript, Reply};
use lockcheck_model::scripted::ScriptedStep;
use lockcheck_sim::world::{FaultEnvelope, LinkSpec, Network, ProcessId};
use lockcheck_sim::{explore, BreadthFirst, Options, Outcome, Path, Property};
use lockcheck_sim::{Limits, Stop};
use world::*;

const REDIS: ProcessId = 0;
const A: ProcessId = 1;
const B: ProcessId = 2;
const KEY: &[u8] = b"lock";
const LEASE_MS: u64 = 300;
const WORK_MS: u64 = 500;

/// `lock()` with the test lease and a request timeout of 100 ms.
fn watchdog() -> Redisson {
    Redisson::lock(REDIS)
        .with_watchdog_timeout_ms(LEASE_MS)
        .with_request_timeout_ms(100)
}

fn client(engine: Redisson, owner: &str, start_after_ms: u64, work_ms: u64) -> Process {
    redisson_client(engine, KEY, owner, start_after_ms, work_ms)
}

/// `a` (starting at 0 ms) and `b` (starting at `b_start_ms`), both working `work_ms`.
fn pair(a: Redisson, b: Redisson, b_start_ms: u64, work_ms: u64) -> RedisWorld {
    world(vec![
        ("redis", Process::Redis(RedisNode::master())),
        ("a", client(a, "uuid-a", 0, work_ms)),
        ("b", client(b, "uuid-b", b_start_ms, work_ms)),
    ])
}

fn believes(w: &RedisWorld, s: &State, p: ProcessId) -> bool {
    let (Process::Client(config), Some(state)) = (
        &w.processes[p].actor,
        s.actor(p).and_then(|a| a.as_client()),
    ) else {
        return false;
    };
    !config.believed_locks(state, w.local_now(s, p)).is_empty()
}

fn both_believe(w: &RedisWorld, s: &State) -> bool {
    believes(w, s, A) && believes(w, s, B)
}

fn engine(s: &State, p: ProcessId) -> &RedissonState {
    let client = s.actor(p).and_then(|a| a.as_client()).expect("a client");
    match &client.engines[0] {
        EngineState::Redisson(e) => e,
        other => panic!("not a Redisson engine: {other:?}"),
    }
}

fn client_phase(s: &State, p: ProcessId) -> Phase {
    s.actor(p)
        .and_then(|a| a.as_client())
        .expect("a client")
        .phase
}

/// The first time in `path` at which `pred` holds.
fn first_time(path: &Path<RedisWorld>, pred: impl Fn(&State) -> bool) -> Option<u64> {
    path.states.iter().find(|s| pred(s)).map(|s| s.now_ms)
}

/// When `p` first believes it holds the lock.
fn acquired_at(w: &RedisWorld, path: &Path<RedisWorld>, p: ProcessId) -> Option<u64> {
    first_time(path, |s| believes(w, s, p))
}

/// When `p`'s pending `timer` is due in `s`.
fn due(s: &State, p: ProcessId, timer: LockTimer) -> Option<u64> {
    let timer = Timer::Client(ClientTimer::Lock { lock: 0, timer });
    s.procs[p]
        .timers
        .iter()
        .find(|t| t.timer == timer)
        .map(|t| t.due_ms)
}

fn me_violated(w: &RedisWorld, path: &Path<RedisWorld>) -> bool {
    path.states.iter().any(|s| both_believe(w, s))
}

fn exhaustive() -> Options {
    Options {
        stop: Stop::Never,
        limits: Limits::states(500_000),
        ..Options::default()
    }
}

/// Both clients start at 0 ms and work 100 or 500 ms (a choice), on links of `delays_ms`.
fn racing(engine: Redisson, delays_ms: &[u64]) -> RedisWorld {
    let mut processes = pair(engine.clone(), engine, 0, WORK_MS).processes;
    for p in [A, B] {
        if let Process::Client(c) = &mut processes[p].actor {
            c.workload.work_ms = vec![100, WORK_MS];
        }
    }
    RedisWorld::new("redisson", processes)
        .with_network(Network::uniform(LinkSpec::choice(delays_ms.to_vec())))
        .with_property(Property::always("mutual-exclusion", |w, s| {
            !both_believe(w, s)
        }))
}

fn failed_renewals(w: &RedisWorld, s: &State, p: ProcessId) -> u32 {
    match (
        &w.processes[p].actor,
        s.actor(p).and_then(|a| a.as_client()),
    ) {
        (Process::Client(config), Some(state)) => config.failed_renewals(state),
        _ => 0,
    }
}

#[test]
fn without_faults_two_watchdog_clients_never_both_believe() {
    for delays_ms in [&[1][..], &[1, 2]] {
        let mut w = racing(watchdog(), delays_ms)
            .with_property(Property::sometimes("the-watchdog-renews", |_, s| {
                watchdog_on(s, A) && s.now_ms > LEASE_MS
            }))
            .with_property(Property::sometimes("both-rounds-done", |_, s| {
                client_phase(s, A) == Phase::Done && client_phase(s, B) == Phase::Done
            }));
        if delays_ms.len() > 1 {
            // An unlock message that reaches a client while its retry is in flight.
            w = w.with_property(Property::sometimes(
                "an-unlock-message-kept-as-a-permit",
                |_, s| engine(s, A).permits + engine(s, B).permits > 0,
            ));
        }
        let report = explore(&w, &mut BreadthFirst::default(), exhaustive());
        assert_eq!(report.outcome, Outcome::Complete, "{report}");
        assert!(report.first_violation().is_none(), "{report}");
        assert!(report.hollow().is_empty(), "{report}");
    }
    // Nobody ever gives up under `lock()` without faults.
    let w = pair(watchdog(), watchdog(), 0, WORK_MS);
    let end = run(&w, &[], 5_000);
    for p in [A, B] {
        let client = end.last_state().actor(p).unwrap().as_client().unwrap();
        assert_eq!((client.phase, client.gave_up), (Phase::Done, 0));
    }
}

/// Exhaustive search over every moment one client may pause (request timeout 1 s, so that no
/// request times out): the boundary of the scripted test below holds whenever the pause starts.
#[test]
fn exhaustively_one_pause_of_198_ms_never_breaks_mutual_exclusion_and_one_of_199_ms_does() {
    for (pause_ms, safe) in [(198, true), (199, false)] {
        // One pause in all (the budget is shared), of either client.
        let faults = FaultEnvelope::none()
            .pause(A, &[pause_ms], 1)
            .pause(B, &[pause_ms], 0);
        let w = racing(watchdog().with_request_timeout_ms(1_000), &[1])
            .with_faults(faults)
            .with_property(Property::sometimes("a-pause-happened", |_, s: &State| {
                s.faults_used.pauses > 0
            }));
        let report = explore(&w, &mut BreadthFirst::default(), exhaustive());
        assert_eq!(report.outcome, Outcome::Complete, "{report}");
        assert!(report.hollow().is_empty(), "{report}");
        let violated = report.first_violation().is_some();
        assert_eq!(violated, !safe, "pause {pause_ms} ms: {report}");
    }
}

/// Seed 003's 3.6 s Full GC against Redisson's 3 s command timeout, scaled down: a pause
/// longer than the request timeout while a renewal is in flight makes the renewal time out
/// when the process resumes (the timeout timer may fire before the waiting answer is read).
#[test]
fn a_pause_longer_than_the_request_timeout_kills_the_3_17_watchdog_but_not_the_3_44_one() {
    for (generation, safe) in [(Generation::UpTo3_43, false), (Generation::From3_44, true)] {
        let engine = watchdog().with_generation(generation);
        let w = racing(engine, &[1])
            .with_faults(FaultEnvelope::none().pause(A, &[150], 1))
            .with_property(Property::sometimes("a-renewal-failed", |w, s| {
                failed_renewals(w, s, A) > 0
            }));
        let report = explore(&w, &mut BreadthFirst::default(), exhaustive());
        assert_eq!(report.outcome, Outcome::Complete, "{report}");
        assert!(report.hollow().is_empty(), "{report}");
        let violated = report.first_violation().is_some();
        assert_eq!(violated, !safe, "{generation:?}: {report}");
    }
}

#[test]
fn a_waiter_is_woken_by_the_unlock_message_before_its_pttl_timeout() {
    let w = pair(watchdog(), watchdog(), 10, 450);
    let end = run(&w, &[], 5_000);
    // a: acquire script at 1 ms (reply 2), renewals at 103, 205, 307, 409; work until 452;
    // release at 453 publishes; the message reaches b at 454; b's retry runs at 455.
    assert_eq!(acquired_at(&w, &end, A), Some(2));
    assert_eq!(acquired_at(&w, &end, B), Some(456));
    let woken = state_at(&end, 454);
    assert_eq!(engine(woken, B).phase, RedissonPhase::Waiting);
    // b's last refusal (run at 303, reply 304) said PTTL 202: it would wait until 506.
    assert_eq!(due(woken, B, LockTimer::WaitTtl), Some(506));
    assert!(!me_violated(&w, &end));
}

#[test]
fn with_an_explicit_lease_shorter_than_the_work_there_is_no_watchdog_and_the_second_client_gets_in()
{
    let leased = Redisson::lock(REDIS)
        .with_lease_ms(LEASE_MS)
        .with_request_timeout_ms(100);
    let w = pair(leased.clone(), leased, 10, WORK_MS);
    let end = run(&w, &[], 5_000);
    let never_renews = end
        .states
        .iter()
        .all(|s| due(s, A, LockTimer::Renew).is_none() && due(s, B, LockTimer::Renew).is_none());
    assert!(never_renews, "no watchdog with an explicit lease");
    // a's lease runs from 1 ms to 301; b's last refusal (run at 15, reply 16) said PTTL 286,
    // so b retries at 302; the script runs at 303, after the deadline, and answers at 304.
    assert_eq!(acquired_at(&w, &end, B), Some(304));
    assert!(me_violated(&w, &end), "a works until 502 ms");
    // Exhaustive search finds it too, from a simultaneous start.
    let w = pair(
        Redisson::lock(REDIS).with_lease_ms(LEASE_MS),
        Redisson::lock(REDIS).with_lease_ms(LEASE_MS),
        0,
        WORK_MS,
    )
    .with_property(Property::always("mutual-exclusion", |w, s| {
        !both_believe(w, s)
    }));
    let report = explore(&w, &mut BreadthFirst::default(), Options::default());
    assert_eq!(report.outcome, Outcome::StoppedAtViolation, "{report}");
}

/// A run in which `a` pauses for `pause_ms` at 204 ms, just before its second watchdog tick.
fn paused_at_a_tick(pause_ms: u64) -> (RedisWorld, Path<RedisWorld>) {
    let faults = FaultEnvelope::none().pause(A, &[pause_ms], 1);
    let w = pair(watchdog(), watchdog(), 10, WORK_MS).with_faults(faults);
    let end = run(&w, &[(204, &format!("pause a for {pause_ms} ms"))], 5_000);
    (w, end)
}

/// The boundary. a's acquire runs at 1 ms (reply at 2); each tick fires 100 ms after the
/// previous reply and its script runs 1 ms later: ticks at 102 and 204, scripts at 103 and 205.
/// After the script at 103 the lock lives until 403 (Redis 7: a key is gone once `now >
/// deadline`). A pause from 204 delays the tick to 204 + D, whose script runs at 205 + D:
/// it renews iff 205 + D <= 403, i.e. D <= 198 = lease - lease/3 - 2 * delay (the period
/// counts from the previous reply, 1 ms after its script, and the tick's request takes 1 ms).
#[test]
fn the_watchdog_survives_a_pause_up_to_198_ms_and_loses_the_lock_beyond() {
    for pause_ms in [50, 150, 197, 198] {
        let (w, end) = paused_at_a_tick(pause_ms);
        assert!(!me_violated(&w, &end), "pause {pause_ms} ms");
        let s = end.last_state();
        assert_eq!(engine(s, A).failed_renewals, 0, "pause {pause_ms} ms");
        assert_eq!(client_phase(s, B), Phase::Done);
    }
    for pause_ms in [199, 250] {
        let (w, end) = paused_at_a_tick(pause_ms);
        assert!(me_violated(&w, &end), "pause {pause_ms} ms");
        let s = state_at(&end, 480);
        let a = engine(s, A);
        assert_eq!((a.phase, a.failed_renewals), (RedissonPhase::Holding, 1));
        assert_eq!(a.watchdog, Watchdog::Off);
        let client = s.actor(A).unwrap().as_client().unwrap();
        assert!(
            !client.stop_event,
            "the renewal that found the field gone says nothing"
        );
        assert!(
            believes(&w, s, A) && believes(&w, s, B),
            "pause {pause_ms} ms"
        );
    }
}

/// Lease 600 ms (period 200 ms), work 1000 ms, request timeout 100 ms; b starts at 700.
/// a acquires at 1 ms (reply 2) and renews at 203 (reply 204); its next tick sends at 404,
/// when the node stalls for 200 ms: the renewal times out at 504, then runs when the stall
/// ends (604), extending the lock to 1204, but its answer is late and ignored. With
/// `pause`, a also pauses for 300 ms at 1002, just as its work would end (a GC pause; shorter
/// than the 398 ms = lease - lease/3 - 2 * delay a running watchdog always survives).
fn stalled(generation: Generation, pause: bool) -> (RedisWorld, Path<RedisWorld>) {
    let engine = Redisson::lock(REDIS)
        .with_watchdog_timeout_ms(600)
        .with_request_timeout_ms(100)
        .with_generation(generation);
    let faults = FaultEnvelope::none()
        .pause(REDIS, &[200], 1)
        .pause(A, &[300], 1);
    let w = pair(engine.clone(), engine, 700, 1_000).with_faults(faults);
    let mut script = vec![(404, "pause redis for 200 ms")];
    if pause {
        script.push((1_002, "pause a for 300 ms"));
    }
    let end = run(&w, &script, 5_000);
    (w, end)
}

fn watchdog_on(s: &State, p: ProcessId) -> bool {
    engine(s, p).watchdog != Watchdog::Off
}

#[test]
fn a_node_stall_that_times_out_a_renewal_stops_the_3_17_watchdog_for_good_but_not_the_3_44_one() {
    // 3.17: the timeout at 504 stops the watchdog for good; the late renewal at 604 holds the
    // lock until 1204 and a's work ends at 1002: no harm without a pause.
    let (w, end) = stalled(Generation::UpTo3_43, false);
    let failed_at = first_time(&end, |s| engine(s, A).failed_renewals == 1);
    assert_eq!(failed_at, Some(504));
    let stopped_at = first_time(&end, |s| s.now_ms > 2 && !watchdog_on(s, A));
    assert_eq!(stopped_at, Some(504));
    assert!(!watchdog_on(state_at(&end, 1_000), A), "never again");
    assert!(!me_violated(&w, &end));
    // With the pause, a's work ends at 1302: b's PTTL wait ends at 1205, its retry runs at
    // 1206 on the expired lock, and from 1207 both believe; a was never told.
    let (w, end) = stalled(Generation::UpTo3_43, true);
    assert_eq!(first_time(&end, |s| both_believe(&w, s)), Some(1_207));
    assert!(both_believe(&w, state_at(&end, 1_301)));
    assert!(
        !state_at(&end, 1_301)
            .actor(A)
            .unwrap()
            .as_client()
            .unwrap()
            .stop_event
    );
    // 3.44: the failed renewal is retried at the next tick (504 + 200 = 704, run at 705); the
    // next one runs at 907 (lock until 1507) and the pause delays the one after it from 1108
    // to 1302, in time.
    for pause in [false, true] {
        let (w, end) = stalled(Generation::From3_44, pause);
        assert_eq!(engine(state_at(&end, 1_000), A).failed_renewals, 1);
        assert!(watchdog_on(state_at(&end, 1_000), A));
        assert!(!me_violated(&w, &end), "pause: {pause}");
    }
}

#[test]
fn try_lock_gives_up_after_its_wait_time() {
    let w = pair(watchdog(), watchdog().with_wait_ms(100), 10, WORK_MS);
    let end = run(&w, &[], 5_000);
    assert_eq!(acquired_at(&w, &end, B), None);
    let gave_up = first_time(&end, |s| {
        s.actor(B).unwrap().as_client().unwrap().gave_up == 1
    });
    assert_eq!(gave_up, Some(110), "started at 10 ms, waited 100 ms");
    // With a wait longer than a's work, b is woken by the unlock message instead.
    let w = pair(watchdog(), watchdog().with_wait_ms(1_000), 10, WORK_MS);
    let end = run(&w, &[], 5_000);
    assert_eq!(acquired_at(&w, &end, B), Some(506));
}

#[test]
fn a_release_that_finds_another_owner_still_ends_the_release_and_deletes_nothing() {
    let leased = Redisson::lock(REDIS).with_lease_ms(LEASE_MS);
    let w = pair(leased.clone(), leased, 10, WORK_MS);
    let end = run(&w, &[], 5_000);
    // a's release runs at 503, while b holds the lock (since 304): nil, the client goes on.
    let s = state_at(&end, 505);
    assert_eq!(client_phase(s, A), Phase::Done);
    assert!(believes(&w, s, B));
    let lock = node(s, REDIS).keyspace.peek(KEY, 505);
    assert!(lock.is_some(), "b's lock is still there");
}

#[test]
fn acquiring_twice_with_the_same_field_reenters_and_needs_two_releases() {
    let field = Redisson::field(b"uuid-a");
    let other = Redisson::field(b"uuid-b");
    let script =
        |after_ms, s: LockScript| ScriptedStep::command(after_ms, REDIS, Command::Script(s));
    let acquire = |field: &[u8]| LockScript::RedissonAcquire {
        key: KEY.to_vec(),
        field: field.to_vec(),
        lease_ms: 30_000,
    };
    let release = LockScript::RedissonRelease {
        key: KEY.to_vec(),
        channel: Redisson::channel(KEY),
        field: field.clone(),
        lease_ms: 30_000,
    };
    let client = 1;
    let w = world(vec![
        ("redis", Process::Redis(RedisNode::master())),
        (
            "client",
            scripted(vec![
                script(1, acquire(&field)),
                script(10, acquire(&field)),
                step(0, REDIS, &["HGET", "lock", "uuid-a:1"]),
                script(0, acquire(&other)),
                script(0, release.clone()),
                step(0, REDIS, &["HGET", "lock", "uuid-a:1"]),
                script(0, release),
                step(0, REDIS, &["EXISTS", "lock"]),
            ]),
        ),
    ]);
    let s = run(&w, &[], 1_000).last_state().clone();
    let replies: Vec<Option<Reply>> = (0..8).map(|i| reply(&s, client, i)).collect();
    assert_eq!(replies[0], Some(Reply::nil()), "acquired");
    assert_eq!(replies[1], Some(Reply::nil()), "re-entered");
    assert_eq!(replies[2], Some(bulk("2")));
    assert!(
        matches!(replies[3], Some(Reply::Integer(ttl)) if ttl > 29_000),
        "another field is refused with the PTTL: {:?}",
        replies[3]
    );
    assert_eq!(replies[4], Some(Reply::Integer(0)), "still held once");
    assert_eq!(replies[5], Some(bulk("1")));
    assert_eq!(replies[6], Some(Reply::Integer(1)), "released and deleted");
    assert_eq!(replies[7], Some(Reply::Integer(0)));
}
