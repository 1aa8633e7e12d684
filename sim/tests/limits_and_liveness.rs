//! Limits end a search with a named outcome and partial statistics; bounded liveness
//! (`eventually within`, `leads to within`) is checked along paths.

mod common;

use common::{phase, Lease, Node, Phase, State, CLIENT_1, CLIENT_2, KV};
use lockcheck_sim::world::{CrashKind, FaultEnvelope, World};
use lockcheck_sim::{
    explore, BreadthFirst, DepthFirst, Limit, Options, Outcome, Property, Report, Status, WallClock,
};
use lockcheck_sim::{Hooks, Limits, Stop};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A lease world big enough that limits bite: delays and several pauses.
fn big_world() -> World<Node> {
    let mut lease = Lease::new(40, 10, 5);
    lease.pauses_ms = vec![5, 15, 30];
    lease.max_pauses = 2;
    lease.delays_ms = vec![0, 1, 2, 3];
    lease.world()
}

/// `options`, searching on after a violation (unless they stop once all is settled).
fn all(options: Options) -> Options {
    let stop = match options.stop {
        Stop::AtFirstViolation => Stop::Never,
        other => other,
    };
    Options { stop, ..options }
}

fn run(world: &World<Node>, options: Options) -> Report<World<Node>> {
    explore(world, &mut BreadthFirst::default(), all(options))
}

#[test]
fn the_big_world_is_big_enough_to_test_limits() {
    let report = run(&big_world(), Options::default());
    assert_eq!(report.outcome, Outcome::Complete);
    assert!(
        report.stats.unique_states > 20_000,
        "{}",
        report.stats.unique_states
    );
}

#[test]
fn a_state_limit_is_a_named_outcome_with_partial_statistics() {
    let report = run(
        &big_world(),
        Options {
            limits: Limits::states(1_000),
            ..Options::default()
        },
    );
    assert_eq!(report.outcome, Outcome::LimitReached(Limit::States));
    assert_eq!(report.stats.unique_states, 1_000, "{:?}", report.stats);
    assert!(report.stats.transitions > 0);
    assert_eq!(report.properties.len(), 2, "every property still reports");
    assert!(!report.is_exhaustive());
}

/// A fake wall clock that advances 1 ms each time it is read.
struct Ticking(AtomicU64);

impl WallClock for Ticking {
    fn elapsed_ms(&self) -> u64 {
        self.0.fetch_add(1, Ordering::Relaxed)
    }
}

#[test]
fn a_wall_time_limit_is_a_named_outcome() {
    let report = run(
        &big_world(),
        Options {
            limits: Limits {
                time_limit_ms: Some(2),
                ..Limits::default()
            },
            hooks: Hooks {
                wall_clock: Some(Arc::new(Ticking(AtomicU64::new(0)))),
                ..Hooks::default()
            },
            ..Options::default()
        },
    );
    assert_eq!(report.outcome, Outcome::LimitReached(Limit::WallTime));
    assert!(report.stats.unique_states > 0);
    assert!(report.stats.wall_ms.is_some());
}

#[test]
fn a_memory_limit_is_a_named_outcome_before_memory_runs_out() {
    let report = run(
        &big_world(),
        Options {
            limits: Limits {
                max_memory_bytes: Some(64 * 1024),
                ..Limits::default()
            },
            ..Options::default()
        },
    );
    assert_eq!(report.outcome, Outcome::LimitReached(Limit::Memory));
    assert!(report.stats.peak_memory_bytes >= 64 * 1024);
    assert!(report.stats.unique_states > 0);
}

#[test]
fn depth_and_virtual_time_bounds_give_a_bounded_outcome() {
    let report = run(
        &big_world(),
        Options {
            limits: Limits {
                max_depth: Some(4),
                ..Limits::default()
            },
            ..Options::default()
        },
    );
    assert_eq!(
        report.outcome,
        Outcome::Bounded {
            depth: true,
            virtual_time: false
        }
    );
    assert_eq!(report.stats.max_depth, 4);
    assert!(report.is_exhaustive());
    let report = run(
        &big_world(),
        Options {
            limits: Limits {
                max_virtual_time_ms: Some(3),
                ..Limits::default()
            },
            ..Options::default()
        },
    );
    assert_eq!(
        report.outcome,
        Outcome::Bounded {
            depth: false,
            virtual_time: true
        }
    );
    assert!(report.stats.cut_off_states > 0);
}

#[test]
fn stop_at_first_violation_or_explore_everything() {
    let world = Lease::new(10, 5, 5).world();
    let first = explore(&world, &mut BreadthFirst::default(), Options::default());
    assert_eq!(first.outcome, Outcome::StoppedAtViolation);
    let everything = run(&world, Options::default());
    assert_eq!(everything.outcome, Outcome::Complete);
    assert!(everything
        .property("mutual-exclusion")
        .unwrap()
        .status
        .is_violated());
    assert!(everything.stats.unique_states > first.stats.unique_states);
}

/// Searching on after a violation until every property is settled stops as soon as the
/// last one is, with the same first counterexamples a search of everything finds, and it
/// searches everything when one property holds.
#[test]
fn stop_when_every_property_is_settled() {
    let world = Lease::new(10, 5, 5)
        .world()
        .with_property(Property::always("both-never-done", |_, s: &State| {
            !both_done(s)
        }));
    let settled_options = || Options {
        stop: Stop::WhenAllSettled,
        ..Options::default()
    };
    let settled = run(&world, settled_options());
    let everything = run(&world, Options::default());
    assert_eq!(settled.outcome, Outcome::AllSettled);
    assert_eq!(everything.outcome, Outcome::Complete);
    assert!(settled.stats.unique_states < everything.stats.unique_states);
    for name in ["mutual-exclusion", "both-never-done"] {
        let path = |r: &Report<World<Node>>| match &r.property(name).unwrap().status {
            Status::Violated(p) => p.labels(),
            _ => panic!("{name} is violated"),
        };
        assert_eq!(path(&settled), path(&everything), "{name}");
    }
    let one_holds = world.with_property(Property::always("true", |_, _| true));
    let report = run(&one_holds, settled_options());
    assert_eq!(report.outcome, Outcome::Complete);
    assert_eq!(report.stats.unique_states, everything.stats.unique_states);
}

fn both_done(s: &State) -> bool {
    phase(s, CLIENT_1) == Some(Phase::Done) && phase(s, CLIENT_2) == Some(Phase::Done)
}

/// A lease world whose kv may crash and stay down, with liveness properties.
fn crashy_world(max_crashes: u32) -> World<Node> {
    let mut lease = Lease::new(10, 5, 5);
    lease.pauses_ms.clear();
    lease
        .world()
        .with_faults(FaultEnvelope::none().crash(KV, &[CrashKind::Process], &[None], max_crashes))
        .with_property(Property::eventually_within(
            "both-done-within-40ms",
            40,
            |_, s| both_done(s),
        ))
        .with_property(Property::leads_to_within(
            "holder-done-within-work",
            5,
            |_, s: &State| phase(s, CLIENT_1) == Some(Phase::Holding),
            |_, s: &State| phase(s, CLIENT_1) == Some(Phase::Done),
        ))
}

#[test]
fn eventually_within_holds_without_faults_and_fails_when_the_kv_stays_down() {
    let calm = run(&crashy_world(0), Options::default());
    assert_eq!(calm.outcome, Outcome::Complete);
    for p in &calm.properties[..2] {
        assert!(!p.status.is_violated(), "{p:?}");
    }
    assert!(matches!(
        calm.property("both-done-within-40ms").unwrap().status,
        Status::Holds
    ));
    let crashy = run(&crashy_world(1), Options::default());
    let Status::Violated(path) = &crashy.property("both-done-within-40ms").unwrap().status else {
        panic!("a kv that never restarts blocks the clients: {crashy}")
    };
    assert!(path.labels().iter().any(|l| l.starts_with("crash kv")));
    assert!(!both_done(path.last_state()));
    // A holder always finishes its work on time: no pauses here, crashes do not stop it.
    assert!(matches!(
        crashy.property("holder-done-within-work").unwrap().status,
        Status::Holds
    ));
}

#[test]
fn a_leads_to_bound_shorter_than_the_work_is_violated() {
    let world = crashy_world(0).with_property(Property::leads_to_within(
        "holder-done-within-4ms",
        4,
        |_, s: &State| phase(s, CLIENT_1) == Some(Phase::Holding),
        |_, s: &State| phase(s, CLIENT_1) == Some(Phase::Done),
    ));
    let report = explore(&world, &mut DepthFirst::default(), all(Options::default()));
    let Status::Violated(path) = &report.property("holder-done-within-4ms").unwrap().status else {
        panic!("work takes 5 ms: {report}")
    };
    assert_eq!(phase(path.last_state(), CLIENT_1), Some(Phase::Holding));
    assert!(path.last_state().now_ms >= 5);
}

/// A model that never ends: a counter that ticks forever.
struct Forever;

impl lockcheck_sim::Model for Forever {
    type State = u64;
    type Action = ();
    fn init_states(&self) -> Vec<u64> {
        vec![0]
    }
    fn actions(&self, _: &u64, actions: &mut Vec<()>) {
        actions.push(());
    }
    fn next_state(&self, s: &u64, _: &()) -> Option<u64> {
        Some(s + 1)
    }
    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("small", |_, s: &u64| *s < u64::MAX)]
    }
}

#[test]
fn random_walks_in_a_model_that_never_ends_stop_after_their_step_bound() {
    let report = explore(
        &Forever,
        &mut lockcheck_sim::Walk::random(0..3).with_max_steps(500),
        Options::default(),
    );
    assert_eq!(report.outcome, Outcome::RunsDone { runs: 3 });
    assert_eq!(report.stats.max_depth, 500);
    assert_eq!(report.stats.unique_states, 501);
}

/// Whether client `p` is waiting for the lease (not the kv).
fn waiting(s: &State, p: usize) -> bool {
    p != KV && matches!(phase(s, p), Some(Phase::Requesting | Phase::Waiting))
}

/// Each client that waits, on a deadline of its own: holding within `bound_ms`.
fn each_waiter_holds_within(bound_ms: u64) -> Property<World<Node>> {
    Property::each_leads_to_within(
        "each-waiter-holds",
        bound_ms,
        |_, s: &State, p| waiting(s, p),
        |_, s: &State, p| !waiting(s, p),
    )
}

/// A per-process obligation: the client that waits out the other's 5 ms of work misses a
/// 3 ms deadline, while the one that got the lease at once met its own; 20 ms is enough
/// for both.
#[test]
fn each_process_has_an_obligation_of_its_own() {
    let short = crashy_world(0).with_property(each_waiter_holds_within(3));
    let report = explore(
        &short,
        &mut BreadthFirst::default(),
        all(Options::default()),
    );
    let Status::Violated(path) = &report.property("each-waiter-holds").unwrap().status else {
        panic!("a client waits out 5 ms of work: {report}")
    };
    let last = path.last_state();
    let waiters = [CLIENT_1, CLIENT_2]
        .iter()
        .filter(|&&c| waiting(last, c))
        .count();
    assert_eq!(waiters, 1, "one client waits, the other holds or is done");
    assert!(last.now_ms > 3);
    let long = crashy_world(0).with_property(each_waiter_holds_within(20));
    let report = explore(&long, &mut BreadthFirst::default(), all(Options::default()));
    assert!(matches!(
        report.property("each-waiter-holds").unwrap().status,
        Status::Holds
    ));
}
