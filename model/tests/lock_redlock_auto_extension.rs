//! node-redlock 5's automatic extension (`using`) in worlds of five masters and two
//! clients: it keeps a long job's lock alive, it is frozen by a pause like any timer, and
//! after the pause it refuses the expired lock and aborts (the stop event), which helps
//! only the code that checks it.

mod lock_world;
mod world;

use lock_world::redlock::{
    first, held, kept_alive_work, renewal_requests, small, validities, working,
};
use lock_world::*;
use lockcheck_model::lock::redlock::{AttemptRules, AutoExtension, Dispatch, ExtendRules, Redlock};
use lockcheck_model::lock::{Phase as ClientPhase, Protocol, Workload};
use lockcheck_sim::world::FaultEnvelope;
use lockcheck_sim::{Limits, Stop};
use world::{run, RedisWorld};

/// Client-1 pays after a 300 ms job on a 100 ms lock extended 20 ms before its expiry
/// (node-redlock 5's rules, no request timeout); client-2 pays after 150 ms, asking from
/// 20 ms on. Client-1 may pause 200 ms once.
fn long_job_world(extension: Option<AutoExtension>, checks_stop_event: bool) -> RedisWorld {
    let redlock = Redlock {
        rules: AttemptRules::NODE_REDLOCK_5,
        node_timeout_ms: None,
        acquire_timeout_ms: None,
        max_attempts: Some(11),
        auto_extension: extension,
        extend: ExtendRules::REDSYNC,
        ..small(Dispatch::Multiplexed)
    };
    let long_job = Workload {
        checks_stop_event,
        ..paying_job(0, &[300])
    };
    lock_world(
        Protocol::Redlock(redlock),
        [long_job, paying_job(20, &[150])],
    )
    .with_faults(FaultEnvelope::none().pause(CLIENT_1, &[200], 1))
}

const USING: Option<AutoExtension> = Some(AutoExtension { threshold_ms: 20 });

#[test]
fn the_extension_keeps_a_long_jobs_lock_alive_and_each_is_a_new_validity() {
    let world = long_job_world(USING, false);
    let path = run(&world, &[], 2_000);
    let work = kept_alive_work(&world, &path);
    // Acquired at 2 ms, valid until 2 + 100 - 3 (from `start` at 0: 97); extended at 77,
    // answered at 79: valid until 77 + 97 = 174, and so on every 77 ms.
    let valid_until = validities(work.iter().copied());
    assert_eq!(valid_until[..4], [97, 174, 251, 328], "{valid_until:?}");
    let end = path.last_state();
    assert_eq!(client_state(end, CLIENT_2).phase, ClientPhase::Done);
    assert!(!account(end).damaged());
    // Without it, the lock expires under the job and client-2 walks in.
    let path = run(&long_job_world(None, false), &[], 2_000);
    assert!(first(&path, |s| held(s, CLIENT_2).is_some()
        && working(s, CLIENT_1))
    .is_some());
    assert!(account(path.last_state()).damaged());
}

#[test]
fn after_a_pause_past_the_expiry_the_extension_aborts_which_only_helps_if_checked() {
    for checks in [false, true] {
        let world = long_job_world(USING, checks);
        // The pause begins at the first event from 50 ms on (client-2's retry at 56),
        // before the extension due at 77 ms, and ends at 256.
        let path = run(&world, &[(50, "pause client-1 for 200 ms")], 2_000);
        let lost = first(&path, |s| client_state(s, CLIENT_1).stop_event).expect("abort");
        assert_eq!(
            lost.now_ms, 256,
            "the overdue extension refuses the expired lock"
        );
        assert!(held(lost, CLIENT_2).is_some(), "client-2 holds it by then");
        // No extension request ever goes out: the pause came before the first was due,
        // and after it the lock had expired.
        assert!(path
            .states
            .iter()
            .all(|s| renewal_requests(s, CLIENT_1) == 0));
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
fn failed_extensions_are_retried_and_renewed_while_the_lock_is_valid_then_abort() {
    // When the extension is due (77 ms), the clocks of three of the five nodes jump 1 s
    // ahead: the keys expire there, and a quorum answers 0 to every extension.
    let with_attempts = |max_attempts| {
        let redlock = Redlock {
            rules: AttemptRules::NODE_REDLOCK_5,
            node_timeout_ms: None,
            acquire_timeout_ms: None,
            max_attempts: Some(max_attempts),
            auto_extension: USING,
            extend: ExtendRules::REDSYNC,
            ..small(Dispatch::Multiplexed)
        };
        let mut envelope = FaultEnvelope::none();
        for &node in &NODES[2..] {
            envelope = envelope.clock_step(node, &[1_000], 1);
        }
        let world = lock_world(
            Protocol::Redlock(redlock),
            [paying_job(0, &[300]), no_job()],
        )
        .with_faults(envelope);
        let faults: Vec<String> = NODES[2..]
            .iter()
            .map(|n| format!("step clock of redis-{} by +1000 ms", n + 1))
            .collect();
        let faults: Vec<(u64, &str)> = faults.iter().map(|l| (77, l.as_str())).collect();
        let path = run(&world, &faults, 2_000);
        let lost = first(&path, |s| client_state(s, CLIENT_1).stop_event).expect("abort");
        let failed = lock_client(&world, CLIENT_1).failed_renewals(client_state(lost, CLIENT_1));
        (lost.now_ms, failed)
    };
    // Valid until 97. Two attempts of 2 ms, 10 ms apart (77-79, 89-91): the extension
    // failed, the lock is still valid, so a new one starts at once (91-93, 103-105); at 105
    // it is not, and the routine is aborted.
    assert_eq!(with_attempts(2), (105, 3));
    // Three attempts (77-79, 89-91, 101-103): the lock expired during the first extension.
    assert_eq!(with_attempts(3), (103, 3));
}

#[test]
fn the_fingerprint_keeps_what_an_extension_depends_on_whatever_the_search_order() {
    use lockcheck_sim::{explore, BreadthFirst, DepthFirst, Options, Outcome};
    // Extensions that fail (two of the three node clocks may jump ahead, each once) and one
    // that starts late (client-1 may pause): the extension's start, its attempts and the
    // expiration each decide when the routine is aborted. A fingerprint that merged states
    // differing in what is still to come would make the space explored depend on the
    // search order. (The engine's copies of the expiration and of the extension's start are
    // also implied by the client's belief and the sweep's own start in this world: dropping
    // either from the fingerprint leaves the count unchanged.)
    let redlock = Redlock {
        nodes: NODES[..3].to_vec(),
        rules: AttemptRules::NODE_REDLOCK_5,
        node_timeout_ms: None,
        acquire_timeout_ms: None,
        max_attempts: Some(2),
        auto_extension: USING,
        extend: ExtendRules::REDSYNC,
        ..small(Dispatch::Multiplexed)
    };
    let mut envelope = FaultEnvelope::none().pause(CLIENT_1, &[30], 1);
    for &node in &NODES[1..3] {
        envelope = envelope.clock_step(node, &[1_000], 1);
    }
    let world = lock_world(
        Protocol::Redlock(redlock),
        [paying_job(0, &[150]), no_job()],
    )
    .with_faults(envelope);
    let options = || Options {
        stop: Stop::Never,
        limits: Limits::states(500_000),
        ..Options::default()
    };
    let bfs = explore(&world, &mut BreadthFirst::default(), options());
    let dfs = explore(&world, &mut DepthFirst::default(), options());
    assert_eq!(bfs.outcome, Outcome::Complete, "{bfs}");
    assert_eq!(bfs.stats.unique_states, dfs.stats.unique_states);
    assert!(
        bfs.stats.unique_states > 1_000,
        "{}",
        bfs.stats.unique_states
    );
}
