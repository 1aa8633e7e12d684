//! The Redlock engine in worlds of five Redis masters and two clients: mutual exclusion
//! without faults, quorums under crashes, the exact validity, what a pause and a clock step
//! do, seed 000's watchdog and its stop event, the local-first optimisation and the random
//! retry delay.

mod lock_world;
mod world;

use lock_world::redlock::{
    engine_phase, first, held, kept_alive_work, renewal_requests, small, working,
};
use lock_world::*;
use lockcheck_model::lock::redlock::{Dispatch, Phase, Redlock, RenewCount, Watchdog};
use lockcheck_model::lock::{ClockKind, Deadline, Phase as ClientPhase, Protocol};
use lockcheck_sim::world::{
    CrashKind, FaultEnvelope, LinkSpec, Network, PartitionFault, ProcessId,
};
use lockcheck_sim::{explore, BreadthFirst, Model, Options, Outcome, Path, Property};
use lockcheck_sim::{Limits, Stop};
use world::{run, RedisWorld, State};

/// Seed 000's watchdog scaled down: 0.3 of the validity, 3 tries, 5 ms per try.
fn watchdog(counts: RenewCount) -> Watchdog {
    Watchdog {
        timeout_ms: 5,
        counts,
        ..Watchdog::seed_000()
    }
}

fn exhaustive(world: &RedisWorld) -> lockcheck_sim::Report<RedisWorld> {
    let options = Options {
        stop: Stop::Never,
        limits: Limits::states(3_000_000),
        ..Options::default()
    };
    explore(world, &mut BreadthFirst::default(), options)
}

/// Checks `world` in every reachable state: the ME-lock property holds and nothing is hollow.
fn assert_exclusive_everywhere(world: RedisWorld) -> u64 {
    let world = world
        .with_property(Property::always("ME-lock", |w, s| !both_believe(w, s)))
        .with_property(Property::sometimes("client-1 holds", |w, s| {
            believes(w, s, CLIENT_1)
        }))
        .with_property(Property::sometimes("client-2 holds", |w, s| {
            believes(w, s, CLIENT_2)
        }))
        .with_property(Property::sometimes("a client waits to retry", |_, s| {
            CLIENTS
                .iter()
                .any(|&p| matches!(engine_phase(s, p), Phase::Waiting { .. }))
        }));
    let report = exhaustive(&world);
    assert_eq!(report.outcome, Outcome::Complete, "{report}");
    assert!(report.hollow().is_empty(), "{report}");
    assert!(report.first_violation().is_none(), "{report}");
    report.stats.unique_states
}

#[test]
fn without_faults_two_sequential_clients_never_both_believe_they_hold_the_lock() {
    // Both start at once and race for every node; two links take 1 or 2 ms.
    let network = Network::uniform(LinkSpec::fixed(1))
        .with_link(CLIENT_1, NODES[3], LinkSpec::choice([1, 2]))
        .with_link(CLIENT_2, NODES[2], LinkSpec::choice([1, 2]));
    let protocol = Protocol::Redlock(small(Dispatch::Sequential));
    let world = lock_world(protocol, [job(0, &[20]), job(0, &[20])]).with_network(network);
    let states = assert_exclusive_everywhere(world);
    assert!(states > 10_000, "{states} states");
}

#[test]
fn without_faults_two_multiplexed_clients_with_random_retries_never_both_believe() {
    // Both clients start at once: their bursts of five requests and ten answers interleave
    // on ten links. Messages in flight are kept grouped by link, so the interleavings of
    // independent links are one state and this stays small enough to explore completely.
    let protocol = Protocol::Redlock(Redlock {
        retry_ms: vec![30, 40],
        ..small(Dispatch::Multiplexed)
    });
    let world = lock_world(protocol, [job(0, &[10, 20]), job(0, &[10])]);
    let states = assert_exclusive_everywhere(world);
    assert!(states > 1_000, "{states} states");
}

/// Crashes of `n` nodes (the last ones) at time 0, for good: power losses, so that they
/// answer nothing and each try waits out its timeout.
fn crash_last(world: RedisWorld, n: usize) -> (RedisWorld, Vec<(u64, String)>) {
    crash_last_with(world, n, CrashKind::PowerLoss)
}

fn crash_last_with(
    world: RedisWorld,
    n: usize,
    kind: CrashKind,
) -> (RedisWorld, Vec<(u64, String)>) {
    let crashed = &NODES[NODES.len() - n..];
    let mut envelope = FaultEnvelope::none();
    let mut faults = Vec::new();
    for &node in crashed {
        envelope = envelope.crash(node, &[kind], &[None], 1);
        let label = format!(
            "crash redis-{}{}, no restart",
            node + 1,
            kind.label_suffix()
        );
        faults.push((0, label));
    }
    (world.with_faults(envelope), faults)
}

fn run_with(world: &RedisWorld, faults: &[(u64, String)], until_ms: u64) -> Path<RedisWorld> {
    let faults: Vec<(u64, &str)> = faults.iter().map(|(t, l)| (*t, l.as_str())).collect();
    run(world, &faults, until_ms)
}

#[test]
fn a_client_acquires_with_a_majority_when_two_of_five_nodes_are_down() {
    let protocol = Protocol::Redlock(small(Dispatch::Sequential));
    let (world, faults) = crash_last(lock_world(protocol, [job(5, &[20]), no_job()]), 2);
    let path = run_with(&world, &faults, 1_000);
    // Three answers of 2 ms and two timeouts of 5 ms: elapsed 16, validity 100 - 16 - 3.
    let holding = first(&path, |s| held(s, CLIENT_1).is_some()).expect("client-1 acquires");
    assert_eq!(holding.now_ms, 21);
    assert_eq!(
        held(holding, CLIENT_1).unwrap().valid_until,
        Some(Deadline {
            clock: ClockKind::Monotonic,
            at_ms: 21 + 81
        })
    );
    let end = client_state(path.last_state(), CLIENT_1);
    assert_eq!((end.phase, end.gave_up), (ClientPhase::Done, 0));
}

#[test]
fn a_client_acquires_sooner_when_the_two_nodes_down_refuse_at_once() {
    let protocol = Protocol::Redlock(small(Dispatch::Sequential));
    let world = lock_world(protocol, [job(5, &[20]), no_job()]);
    let (world, faults) = crash_last_with(world, 2, CrashKind::Process);
    let path = run_with(&world, &faults, 1_000);
    // Three answers of 2 ms and two refusals of 1 ms (the way back): elapsed 8, validity
    // 100 - 8 - 3, to the same deadline T1 + 100 - 3.
    let holding = first(&path, |s| held(s, CLIENT_1).is_some()).expect("client-1 acquires");
    assert_eq!(holding.now_ms, 13);
    assert_eq!(
        held(holding, CLIENT_1).unwrap().valid_until,
        Some(Deadline {
            clock: ClockKind::Monotonic,
            at_ms: 13 + 89
        })
    );
}

#[test]
fn a_client_gives_up_when_three_of_five_nodes_are_down() {
    let protocol = Protocol::Redlock(small(Dispatch::Sequential));
    let (world, faults) = crash_last(lock_world(protocol, [job(5, &[20]), no_job()]), 3);
    let path = run_with(&world, &faults, 2_000);
    assert!(first(&path, |s| held(s, CLIENT_1).is_some()).is_none());
    let gave_up = first(&path, |s| client_state(s, CLIENT_1).gave_up == 1).expect("gives up");
    // An attempt takes 2 * 2 + 3 * 5 = 19 ms, deleting everywhere 19 more, then 10 ms of
    // delay: attempts begin at 5 + 48 k. The acquire timeout (at 505) passes during the one
    // begun at 485, and is noticed when the delay after it is over: 485 + 48.
    assert_eq!(gave_up.now_ms, 533);
    // The failed attempts left no key behind on the live nodes.
    let end = path.last_state();
    for &node in &NODES[..2] {
        assert_eq!(world::node(end, node).keyspace.stored_len(), 0);
    }
}

#[test]
fn the_validity_is_the_ttl_minus_the_elapsed_time_minus_the_drift() {
    // Sequential, 1 ms links: T1 = 5, five round trips of 2 ms, so T2 = 15 and elapsed = 10.
    // TTL 1000 ms, drift factor 0.01: drift = 10 + 2 = 12, validity = 1000 - 10 - 12 = 978.
    let cases = [
        (Dispatch::Sequential, 1_000, Some((15, 978))),
        (Dispatch::Multiplexed, 1_000, Some((7, 1_000 - 2 - 12))),
        // TTL 14: drift = ceil(0.14) + 2 = 3, validity 14 - 10 - 3 = 1 > 0: acquired.
        (Dispatch::Sequential, 14, Some((15, 1))),
        // TTL 13: validity 0: refused however many nodes said OK.
        (Dispatch::Sequential, 13, None),
    ];
    for (dispatch, ttl_ms, expected) in cases {
        let protocol = Protocol::Redlock(Redlock {
            ttl_ms,
            acquire_timeout_ms: Some(50),
            ..small(dispatch)
        });
        let world = lock_world(protocol, [job(5, &[1]), no_job()]);
        let path = run(&world, &[], 500);
        let holding = first(&path, |s| held(s, CLIENT_1).is_some());
        let got = holding.map(|s| {
            let deadline = held(s, CLIENT_1).unwrap().valid_until.unwrap();
            assert_eq!(deadline.clock, ClockKind::Monotonic);
            (s.now_ms, deadline.at_ms - s.now_ms as i64)
        });
        assert_eq!(got, expected, "{dispatch:?}, TTL {ttl_ms}");
        if expected.is_none() {
            assert_eq!(client_state(path.last_state(), CLIENT_1).gave_up, 1);
        }
    }
}

/// Client-1 takes the lock at 0 and works 60 ms; client-2 tries from 20 ms on, every 10 ms.
fn paying_world(redlock: Redlock, jobs: [lockcheck_model::lock::Workload; 2]) -> RedisWorld {
    lock_world(Protocol::Redlock(redlock), jobs).with_faults(FaultEnvelope::none().pause(
        CLIENT_1,
        &[200],
        1,
    ))
}

#[test]
fn a_pause_of_the_holder_longer_than_the_validity_lets_the_other_client_in() {
    let redlock = Redlock {
        acquire_timeout_ms: Some(1_000),
        ..small(Dispatch::Sequential)
    };
    let jobs = [paying_job(0, &[60]), paying_job(20, &[60])];
    let world = paying_world(redlock, jobs);
    let calm = run(&world, &[], 1_000);
    assert!(!account(calm.last_state()).damaged(), "no pause, no damage");

    let path = run(&world, &[(30, "pause client-1 for 200 ms")], 1_000);
    // Client-2 gets the lock while client-1, paused, is still inside its critical section.
    let overlap = first(&path, |s| {
        held(s, CLIENT_2).is_some() && client_state(s, CLIENT_1).phase == ClientPhase::Working
    });
    assert!(
        overlap.is_some(),
        "client-2 acquires during client-1's work"
    );
    // Client-1's belief ended at its validity deadline, on its own clock: the ME-lock
    // oracle sees no overlap, yet client-1 writes after the pause (it never checks its
    // validity): a duplicate debit on the resource, from a stale read.
    assert!(path.states.iter().all(|s| !both_believe(&world, s)));
    let damage = account(path.last_state());
    assert_eq!((damage.duplicate_debits, damage.lost_updates), (1, 1));
}

#[test]
fn a_forward_clock_step_on_one_node_lets_a_second_client_acquire_kleppmann() {
    // Client-1 reaches redis-1..3 only, client-2 redis-3..5 only; redis-3 (C) is shared.
    let (c, d, e) = (NODES[2], NODES[3], NODES[4]);
    let cut_1 = PartitionFault::two_way("client-1|D,E", &[CLIENT_1], &[d, e], vec![None]);
    let cut_2 = PartitionFault::two_way("client-2|A,B", &[CLIENT_2], &NODES[..2], vec![None]);
    let faults = FaultEnvelope::none()
        .partition(cut_1, 1)
        .partition(cut_2, 1)
        .clock_step(c, &[1_000], 1);
    let redlock = Redlock {
        ttl_ms: 1_000,
        ..small(Dispatch::Multiplexed)
    };
    let world = lock_world(
        Protocol::Redlock(redlock),
        [job(0, &[500]), job(50, &[500])],
    )
    .with_faults(faults);
    let mut script = vec![
        (0, "partition client-1|D,E for good"),
        (0, "partition client-2|A,B for good"),
    ];
    let calm = run(&world, &script, 2_000);
    assert!(calm.states.iter().all(|s| !both_believe(&world, s)));
    assert!(
        first(&calm, |s| held(s, CLIENT_2).is_some())
            .unwrap()
            .now_ms
            > 500,
        "without the step, client-2 waits for client-1's release"
    );

    script.push((30, "step clock of redis-3 by +1000 ms"));
    let path = run(&world, &script, 2_000);
    let both = first(&path, |s| both_believe(&world, s)).expect("both believe");
    assert_eq!(
        both.now_ms, 55,
        "client-2 holds C, D, E after its A, B timeouts"
    );
}

/// Client-1 runs a 300 ms job under a 100 ms TTL; client-2 tries from 20 ms on, for a
/// 150 ms job.
fn long_job_world(watchdog: Option<Watchdog>, checks_stop_event: bool) -> RedisWorld {
    let redlock = Redlock {
        acquire_timeout_ms: Some(2_000),
        watchdog,
        ..small(Dispatch::Sequential)
    };
    let long_job = lockcheck_model::lock::Workload {
        checks_stop_event,
        on_fail: Default::default(),
        lock_object_peers: Vec::new(),
        ..paying_job(0, &[300])
    };
    paying_world(redlock, [long_job, paying_job(20, &[150])])
}

fn failed_renewals(world: &RedisWorld, s: &State, p: ProcessId) -> u32 {
    lock_client(world, p).failed_renewals(client_state(s, p))
}

#[test]
fn the_watchdog_keeps_a_long_jobs_lock_alive_without_faults() {
    let world = long_job_world(Some(watchdog(RenewCount::Extended)), false);
    let path = run(&world, &[], 2_000);
    kept_alive_work(&world, &path);
    assert!(first(&path, |s| held(s, CLIENT_2).is_some()
        && working(s, CLIENT_1))
    .is_none());
    let end = path.last_state();
    assert_eq!(client_state(end, CLIENT_2).phase, ClientPhase::Done);
    assert_eq!(failed_renewals(&world, end, CLIENT_1), 0);
    assert!(!account(end).damaged());

    // Without it, the lock expires under the job and client-2 walks in.
    let world = long_job_world(None, false);
    let path = run(&world, &[], 2_000);
    assert!(first(&path, |s| held(s, CLIENT_2).is_some()
        && working(s, CLIENT_1))
    .is_some());
    assert!(account(path.last_state()).damaged());
}

#[test]
fn a_pause_outlasting_the_ttl_fires_the_stop_event_which_only_helps_if_checked() {
    for checks in [false, true] {
        let world = long_job_world(Some(watchdog(RenewCount::Extended)), checks);
        let path = run(&world, &[(50, "pause client-1 for 200 ms")], 2_000);
        // After the pause the overdue renewal finds the keys gone (client-2's now): Lost.
        let lost = first(&path, |s| client_state(s, CLIENT_1).stop_event).expect("stop event");
        assert!(lost.now_ms > 250, "{}", lost.now_ms);
        assert_eq!(failed_renewals(&world, lost, CLIENT_1), 1);
        assert!(held(lost, CLIENT_2).is_some());
        // The watchdog stopped: no renewal after the failed one.
        let after: Vec<&State> = path
            .states
            .iter()
            .filter(|s| s.now_ms > lost.now_ms)
            .collect();
        assert!(after.iter().all(|s| renewal_requests(s, CLIENT_1) == 0));
        // Seed 000's business code never checks the event: it keeps its lock object and
        // writes from a stale read; checking it drops the lock and skips the write.
        assert_eq!(held(lost, CLIENT_1).is_some(), !checks, "checks: {checks}");
        let damage = account(path.last_state());
        assert_eq!(
            damage.duplicate_debits,
            u32::from(!checks),
            "checks: {checks}"
        );
    }
}

#[test]
fn seed_000s_watchdog_as_written_renews_a_lock_it_no_longer_holds() {
    // Its code counts a renewal script that returned 0 as a renewed node.
    let world = long_job_world(Some(watchdog(RenewCount::AnyAnswer)), false);
    let path = run(&world, &[(50, "pause client-1 for 200 ms")], 2_000);
    assert!(path
        .states
        .iter()
        .all(|s| !client_state(s, CLIENT_1).stop_event));
    let both = first(&path, |s| both_believe(&world, s)).expect("both believe");
    assert!(both.now_ms > 250, "after the pause: {}", both.now_ms);
    assert!(
        failed_renewals(&world, both, CLIENT_1) >= 1,
        "no node really renewed"
    );
    assert!(account(path.last_state()).damaged());
}

/// Client-1 is 30 ms away from redis-4 and redis-5 (the remote site), 1 ms from the others.
fn two_sites(redlock: Redlock) -> RedisWorld {
    let far = LinkSpec::fixed(30);
    let network = Network::uniform(LinkSpec::fixed(1))
        .with_both(CLIENT_1, NODES[3], far.clone())
        .with_both(CLIENT_1, NODES[4], far);
    let redlock = Redlock {
        ttl_ms: 1_000,
        node_timeout_ms: Some(100),
        ..redlock
    };
    lock_world(Protocol::Redlock(redlock), [job(5, &[20]), no_job()])
        .with_network(network)
        .with_faults(FaultEnvelope::none().crash(NODES[0], &[CrashKind::PowerLoss], &[None], 1))
}

/// When client-1 first holds the lock, and the validity it computed then.
fn acquired(path: &Path<RedisWorld>) -> (u64, i64) {
    let s = first(path, |s| held(s, CLIENT_1).is_some()).expect("client-1 acquires");
    let deadline = held(s, CLIENT_1).unwrap().valid_until.unwrap();
    (s.now_ms, deadline.at_ms - s.now_ms as i64)
}

#[test]
fn local_first_decides_on_the_local_quorum_without_waiting_for_the_remote_nodes() {
    // Sequential: 3 local round trips of 2 ms and 2 remote ones of 60 ms, elapsed 126.
    let sequential = run(&two_sites(small(Dispatch::Sequential)), &[], 1_000);
    assert_eq!(acquired(&sequential), (5 + 126, 1_000 - 126 - 12));
    // Local first: the remote requests leave at T1 = 5 and the three local OKs decide at 11.
    let local_first = two_sites(small(Dispatch::LocalFirst { local: 3 }));
    let path = run(&local_first, &[], 1_000);
    assert_eq!(acquired(&path), (11, 1_000 - 6 - 12));
    let remote_set = path
        .labels()
        .iter()
        .zip(&path.states[1..])
        .find(|(l, _)| l.starts_with("deliver client-1 -> redis-4: SET"))
        .map(|(_, s)| s.now_ms);
    assert_eq!(remote_set, Some(35), "sent at T1 without waiting");
    // The remote nodes got the lock too, and the release deleted it there.
    let end = path.last_state();
    assert!(NODES
        .iter()
        .all(|&n| world::node(end, n).keyspace.stored_len() == 0));
}

#[test]
fn local_first_counts_remote_answers_when_a_local_node_is_down() {
    let local_first = two_sites(small(Dispatch::LocalFirst { local: 3 }));
    let path = run(
        &local_first,
        &[(0, "crash redis-1 with power loss, no restart")],
        1_000,
    );
    // redis-1 times out at 105, redis-2 and -3 answer by 109; the remote OKs came at 65.
    assert_eq!(acquired(&path), (109, 1_000 - 104 - 12));
}

#[test]
fn a_random_retry_delay_is_a_labelled_choice() {
    let retry_choice = |retry_ms: Vec<u64>| {
        let redlock = Redlock {
            retry_ms,
            ..small(Dispatch::Multiplexed)
        };
        let world = lock_world(Protocol::Redlock(redlock), [job(0, &[20]), job(3, &[5])]);
        let path = run(&world, &[], 500);
        // The state in which the world offers the retry delay, and what it offers.
        let at = path
            .labels()
            .iter()
            .position(|l| l.starts_with("timer client-2: retry (lock 0) after"));
        at.map(|i| {
            let state = &path.states[i];
            let mut actions = Vec::new();
            world.actions(state, &mut actions);
            let offered: Vec<String> = actions.iter().map(|a| world.label(state, a)).collect();
            (state.now_ms, offered)
        })
    };
    let (at_ms, offered) = retry_choice(vec![3, 7]).expect("a retry delay was chosen");
    assert_eq!(at_ms, 7, "refused at 5, deleted everywhere by 7");
    assert_eq!(
        offered,
        [
            "timer client-2: retry (lock 0) after 3 ms",
            "timer client-2: retry (lock 0) after 7 ms"
        ]
    );
    assert_eq!(
        retry_choice(vec![500]),
        None,
        "seed 000's fixed delay is no choice"
    );
}

#[test]
fn a_backward_step_of_a_wall_clock_stretches_the_belief_past_the_keys_a_monotonic_one_does_not() {
    for clock in [ClockKind::Monotonic, ClockKind::Wall] {
        let redlock = Redlock {
            ttl_ms: 1_000,
            clock,
            ..small(Dispatch::Sequential)
        };
        let jobs = [job(5, &[2_000]), job(1_100, &[50])];
        let world = lock_world(Protocol::Redlock(redlock), jobs)
            .with_faults(FaultEnvelope::none().clock_step(CLIENT_1, &[-500], 1));
        let path = run(&world, &[(500, "step clock of client-1 by -500 ms")], 1_150);
        // Acquired at 15 with validity 978: the deadline reads 993 on the chosen clock,
        // which a wall clock set back by 500 ms reaches only at true time 1493.
        let holding = first(&path, |s| held(s, CLIENT_1).is_some()).unwrap();
        let deadline = held(holding, CLIENT_1).unwrap().valid_until;
        assert_eq!(deadline, Some(Deadline { clock, at_ms: 993 }));
        // The keys expired at about 1005 whatever the client's clock says: client-2 gets
        // the lock at 1110, while the wall-clock holder still believes it has it.
        let end = path.last_state();
        assert!(believes(&world, end, CLIENT_2), "{clock:?}");
        let both = path.states.iter().any(|s| both_believe(&world, s));
        assert_eq!(both, clock == ClockKind::Wall, "{clock:?}");
    }
}

#[test]
fn with_the_watchdog_and_no_faults_two_clients_never_both_believe() {
    let redlock = Redlock {
        watchdog: Some(watchdog(RenewCount::Extended)),
        ..small(Dispatch::Sequential)
    };
    let world = lock_world(Protocol::Redlock(redlock), [job(0, &[150]), job(0, &[150])]);
    let states = assert_exclusive_everywhere(world);
    assert!(states > 1_000, "{states} states");
}

/// Client-1 runs a 300 ms job under a 100 ms TTL with the watchdog counting `counts`, and
/// may pause once for 200 ms at any moment; client-2 tries from 20 ms on.
fn pausing_watchdog_world(counts: RenewCount) -> RedisWorld {
    let redlock = Redlock {
        acquire_timeout_ms: Some(2_000),
        watchdog: Some(watchdog(counts)),
        ..small(Dispatch::Sequential)
    };
    lock_world(
        Protocol::Redlock(redlock),
        [job(0, &[300]), job(20, &[150])],
    )
    .with_faults(FaultEnvelope::none().pause(CLIENT_1, &[200], 1))
    .with_property(Property::always("ME-lock", |w, s| !both_believe(w, s)))
}

#[test]
fn exhaustive_search_finds_that_seed_000s_watchdog_as_written_breaks_mutual_exclusion() {
    let world = pausing_watchdog_world(RenewCount::AnyAnswer);
    let report = explore(&world, &mut BreadthFirst::default(), Options::default());
    let (name, path) = report.first_violation().expect("a violation");
    assert_eq!(name, "ME-lock");
    let labels = path.labels();
    assert!(
        labels.iter().any(|l| l == "pause client-1 for 200 ms"),
        "{labels:#?}"
    );
    // The renewal after the pause: every node answered 0, and that counted as renewed.
    let end = path.last_state();
    assert!(!client_state(end, CLIENT_1).stop_event);
    assert!(failed_renewals(&world, end, CLIENT_1) >= 1);
}

#[test]
fn with_renewals_counted_as_intended_no_single_pause_breaks_mutual_exclusion() {
    let world = pausing_watchdog_world(RenewCount::Extended)
        .with_property(Property::sometimes("the stop event fires", |_, s| {
            client_state(s, CLIENT_1).stop_event
        }));
    let report = exhaustive(&world);
    assert_eq!(report.outcome, Outcome::Complete, "{report}");
    assert!(report.hollow().is_empty(), "{report}");
    assert!(report.first_violation().is_none(), "{report}");
}
