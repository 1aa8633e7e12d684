//! Parallel breadth-first search gives the sequential search's results whatever the number
//! of threads: the same outcome, unique states and statistics, the same verdicts, and the
//! same counterexample and witnesses, step for step (the pausable-lock benchmark model and
//! the lease world, with and without a `leads_to_within` obligation, limits and bounds).

mod common;
#[allow(dead_code)] // The tests use part of the model; the benchmark uses the rest.
#[path = "../../bench/compare/lockcheck/pausable_lock.rs"]
mod pausable_lock;

use common::{holders, phase, Lease, Node, Phase, CLIENT_1};
use lockcheck_sim::world::World;
use lockcheck_sim::{
    explore, explore_parallel, BreadthFirst, Engine, Limit, Model, Options, Outcome, Property,
    Reductions, Report, WorkerTrials,
};
use lockcheck_sim::{Hooks, Limits, Parallelism, Stop};
use pausable_lock::PausableLock;

/// A property's name, verdict, and path (initial state's index and step labels), if any.
type Verdict = (String, &'static str, Option<(usize, Vec<String>)>);

/// Each property's verdict with its path.
fn verdicts<M: Model>(report: &Report<M>) -> Vec<Verdict> {
    report
        .properties
        .iter()
        .map(|p| {
            let path = p.status.path().map(|path| (path.init, path.labels()));
            (p.name.clone(), p.status.word(), path)
        })
        .collect()
}

/// Runs `model` sequentially and on 2, 3 and 4 threads under `options()`, and requires
/// every parallel report to equal the sequential one. Returns the sequential report.
fn same_on_any_threads<M>(model: &M, options: impl Fn() -> Options) -> Report<M>
where
    M: Model + Sync,
    M::State: Send + Sync,
    M::Action: Send + Sync,
{
    let sequential = explore(model, &mut BreadthFirst::default(), options());
    for threads in [2, 3, 4] {
        let parallel = explore_parallel(
            model,
            Options {
                parallelism: Parallelism {
                    threads,
                    ..options().parallelism
                },
                ..options()
            },
        );
        assert_eq!(
            parallel.plan.engine,
            Engine::Batches {
                threads,
                tuned: false
            }
        );
        assert_eq!(parallel.outcome, sequential.outcome, "{threads} threads");
        assert_eq!(
            parallel.stats.results(),
            sequential.stats.results(),
            "{threads} threads"
        );
        assert_eq!(
            verdicts(&parallel),
            verdicts(&sequential),
            "{threads} threads"
        );
    }
    sequential
}

fn all_properties() -> Options {
    Options {
        stop: Stop::Never,
        ..Options::default()
    }
}

#[test]
fn pausable_lock_small_and_medium_the_same_on_any_threads() {
    let small = PausableLock::new(2, 5, 2, 3, 1, 12, 1);
    let report = same_on_any_threads(&small, all_properties);
    assert_eq!(report.stats.unique_states, 6_402);
    assert!(report.first_violation().is_some());
    let medium = PausableLock::new(3, 6, 2, 3, 1, 16, 2);
    let report = same_on_any_threads(&medium, all_properties);
    assert_eq!(report.stats.unique_states, 481_927);
    assert!(report.first_violation().is_none());
}

#[test]
fn the_first_counterexample_is_the_same_on_any_threads() {
    // Stops at the first violation: the statistics at that point must agree too.
    let model = PausableLock::new(3, 5, 2, 3, 1, 14, 1);
    let report = same_on_any_threads(&model, Options::default);
    assert_eq!(report.outcome, Outcome::StoppedAtViolation);
    let (_, path) = report.first_violation().expect("TTL <= C + B*P violates");
    assert!(!path.steps.is_empty());
}

#[test]
fn state_limits_and_depth_bounds_cut_at_the_same_state() {
    let model = PausableLock::new(3, 6, 2, 3, 1, 16, 2);
    for max_states in [1, 2, 1_000, 12_345] {
        let report = same_on_any_threads(&model, || Options {
            limits: Limits {
                max_states: Some(max_states),
                ..all_properties().limits
            },
            ..all_properties()
        });
        assert_eq!(report.outcome, Outcome::LimitReached(Limit::States));
        assert_eq!(report.stats.unique_states, max_states);
    }
    let report = same_on_any_threads(&model, || Options {
        limits: Limits {
            max_depth: Some(9),
            ..all_properties().limits
        },
        ..all_properties()
    });
    assert!(matches!(
        report.outcome,
        Outcome::Bounded { depth: true, .. }
    ));
}

/// The lease world with a bounded-liveness property, so paths carry obligations.
fn lease_with_obligation(lease: &Lease) -> World<Node> {
    lease.world().with_property(Property::leads_to_within(
        "client-1-done-soon",
        25,
        |_, s| phase(s, CLIENT_1) == Some(Phase::Holding),
        |_, s| phase(s, CLIENT_1) != Some(Phase::Holding),
    ))
}

#[test]
fn lease_worlds_the_same_on_any_threads_with_obligations_and_time_bounds() {
    let mut lease = Lease::new(10, 4, 8);
    lease.delays_ms = vec![0, 1, 2];
    lease.max_pauses = 2;
    let world = lease_with_obligation(&lease);
    let report = same_on_any_threads(&world, all_properties);
    assert_eq!(report.outcome, Outcome::Complete);
    assert!(
        report.stats.unique_states > 1_000,
        "{}",
        report.stats.unique_states
    );
    let report = same_on_any_threads(&world, Options::default);
    assert!(report.first_violation().is_some());
    same_on_any_threads(&world, || Options {
        limits: Limits {
            max_virtual_time_ms: Some(12),
            ..all_properties().limits
        },
        ..all_properties()
    });
    let safe = Lease::new(10, 2, 1).world();
    let report = same_on_any_threads(&safe, all_properties);
    assert!(report.first_violation().is_none());
    assert!(holders(&World::init_states(&safe)[0]) == 0);
}

/// With partial-order reduction or the dead-values reduction, the expansions are prepared on
/// the threads and deduplicated on one: the one-thread search's results, stopping at the
/// first violation or not, and the reason said.
#[test]
fn partial_order_reduction_and_dead_values_prepare_on_threads_and_say_why() {
    let world = Lease::new(10, 4, 8).world();
    for stop in [true, false] {
        let options = || Options {
            reductions: Reductions::all(),
            stop: if stop {
                Stop::AtFirstViolation
            } else {
                Stop::Never
            },
            ..all_properties()
        };
        let sequential = explore(&world, &mut BreadthFirst::default(), options());
        assert!(sequential.plan.partial_order.is_on() || sequential.plan.dead_values.is_on());
        for threads in [2, 3] {
            let parallel = explore_parallel(
                &world,
                Options {
                    parallelism: Parallelism {
                        threads,
                        ..options().parallelism
                    },
                    ..options()
                },
            );
            assert!(
                matches!(&parallel.plan.engine, Engine::Lookahead { threads: t, why, .. } if *t == threads && (why.contains("cycle proviso") || why.contains("dead-values"))),
                "{}",
                parallel.plan.engine
            );
            assert_eq!(parallel.outcome, sequential.outcome);
            assert_eq!(parallel.stats.results(), sequential.stats.results());
            assert_eq!(verdicts(&parallel), verdicts(&sequential));
        }
    }
}

/// A clock that moves on by an uneven step at each reading, so that the worker trials'
/// windows take different times.
struct SeeSaw(std::sync::atomic::AtomicU64);

impl lockcheck_sim::WallClock for SeeSaw {
    fn elapsed_ms(&self) -> u64 {
        const STEPS_MS: [u64; 6] = [10, 1, 10, 10, 20, 10];
        let reading = self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed) as usize;
        // The sum of the steps so far, in constant time (a search reads its clock often).
        let cycles = (reading / STEPS_MS.len()) as u64;
        let cycle_ms: u64 = STEPS_MS.iter().sum();
        cycles * cycle_ms + STEPS_MS[..reading % STEPS_MS.len()].iter().sum::<u64>()
    }
}

/// Switching the workers on and off mid-search (trials that try the slower way every other
/// window) changes nothing: the entries they hold come back first, so the results are the
/// one-thread search's; the report says what share of the expansions they prepared.
#[test]
fn workers_switched_on_and_off_by_their_trials_change_no_result() {
    let world = Lease::new(10, 4, 8).world();
    let options = |threads| Options {
        stop: Stop::Never,
        reductions: Reductions::all(),
        parallelism: Parallelism {
            threads,
            worker_trials: Some(WorkerTrials {
                warmup: 2,
                window: 3,
                settle: 1,
                retry_every: 2,
            }),
        },
        hooks: Hooks {
            wall_clock: Some(std::sync::Arc::new(SeeSaw(Default::default()))),
            ..all_properties().hooks
        },
        ..all_properties()
    };
    let sequential = explore(&world, &mut BreadthFirst::default(), options(1));
    let parallel = explore_parallel(&world, options(2));
    assert!(sequential.stats.expanded_states > 100);
    assert!(
        matches!(parallel.plan.engine, Engine::Lookahead { tuned: true, .. }),
        "{}",
        parallel.plan.engine
    );
    let percent = parallel.threads_used_percent.expect("the share measured");
    assert_eq!(parallel.outcome, sequential.outcome);
    assert_eq!(parallel.stats.results(), sequential.stats.results());
    assert_eq!(verdicts(&parallel), verdicts(&sequential));
    assert!((1..=99).contains(&percent), "{percent} %");
}

/// The batch search (no reduction that needs the order of expansions) switched between its
/// threads and one thread by its trials, every other window, finds what one thread finds;
/// the report says what share of the expansions the threads made.
#[test]
fn batches_switched_between_threads_and_one_thread_change_no_result() {
    let model = PausableLock::new(3, 6, 2, 3, 1, 16, 2);
    let options = |threads| Options {
        stop: Stop::Never,
        parallelism: Parallelism {
            threads,
            worker_trials: Some(WorkerTrials {
                warmup: 1_000,
                window: 5_000,
                settle: 10,
                retry_every: 2,
            }),
        },
        hooks: Hooks {
            wall_clock: Some(std::sync::Arc::new(SeeSaw(Default::default()))),
            ..all_properties().hooks
        },
        ..all_properties()
    };
    let sequential = explore(&model, &mut BreadthFirst::default(), options(1));
    let parallel = explore_parallel(&model, options(2));
    assert_eq!(
        parallel.plan.engine,
        Engine::Batches {
            threads: 2,
            tuned: true
        }
    );
    let percent = parallel.threads_used_percent.expect("the share measured");
    assert_eq!(parallel.outcome, sequential.outcome);
    assert_eq!(parallel.stats.results(), sequential.stats.results());
    assert_eq!(verdicts(&parallel), verdicts(&sequential));
    assert!((1..=99).contains(&percent), "{percent} %");
}

/// A clock that says the time limit has long passed.
struct LongAgo;

impl lockcheck_sim::WallClock for LongAgo {
    fn elapsed_ms(&self) -> u64 {
        1 << 40
    }
}

#[test]
fn limits_interrupts_and_progress_hold_on_threads() {
    let model = PausableLock::new(3, 6, 2, 3, 1, 16, 2);
    let on_two = |options: Options| {
        explore_parallel(
            &model,
            Options {
                parallelism: Parallelism {
                    threads: 2,
                    ..options.parallelism
                },
                ..options
            },
        )
    };
    let timed = on_two(Options {
        limits: Limits {
            time_limit_ms: Some(1_000),
            ..all_properties().limits
        },
        hooks: Hooks {
            wall_clock: Some(std::sync::Arc::new(LongAgo)),
            ..all_properties().hooks
        },
        ..all_properties()
    });
    assert_eq!(timed.outcome, Outcome::LimitReached(Limit::WallTime));
    let bounded = on_two(Options {
        limits: Limits {
            max_memory_bytes: Some(1 << 20),
            ..all_properties().limits
        },
        ..all_properties()
    });
    assert_eq!(bounded.outcome, Outcome::LimitReached(Limit::Memory));
    assert!(bounded.stats.peak_memory_bytes >= 1 << 20);
    assert!(bounded.stats.unique_states < 481_927);
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let interrupted = on_two(Options {
        hooks: Hooks {
            interrupt: Some(flag),
            ..all_properties().hooks
        },
        ..all_properties()
    });
    assert_eq!(interrupted.outcome, Outcome::Interrupted);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let complete = on_two(Options {
        hooks: Hooks {
            progress: Some(Box::new(move |s: &lockcheck_sim::Stats| {
                log.lock()
                    .unwrap()
                    .push((s.unique_states, s.frontier_states));
            })),
            ..all_properties().hooks
        },
        ..all_properties()
    });
    assert_eq!(complete.stats.unique_states, 481_927);
    let seen = seen.lock().unwrap();
    assert!(seen.len() > 10, "{} progress reports", seen.len());
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0));
    assert!(seen.iter().any(|&(_, frontier)| frontier > 1_000));
}

/// Random walks over many waves (a witness settled in the first wave is left out of the
/// later ones): on 2 and 3 threads the report of one thread, safe and violating alike.
#[test]
fn random_walks_over_many_waves_report_what_one_thread_does() {
    let safe = Lease::new(10, 4, 3).world();
    let broken = Lease::new(10, 4, 12).world();
    let mut outcomes = Vec::new();
    for world in [&safe, &broken] {
        let walks = |threads| {
            lockcheck_sim::explore_walks(
                world,
                0..300,
                200,
                Options {
                    parallelism: Parallelism {
                        threads,
                        ..Parallelism::default()
                    },
                    ..Options::default()
                },
            )
        };
        let one = walks(1);
        for threads in [2, 3] {
            let many = walks(threads);
            assert_eq!(many.plan.engine, Engine::Walks { threads });
            assert_eq!(many.outcome, one.outcome);
            assert_eq!(many.stats.results(), one.stats.results());
            assert_eq!(verdicts(&many), verdicts(&one));
        }
        outcomes.push(one.outcome);
    }
    assert_eq!(
        outcomes,
        [Outcome::RunsDone { runs: 300 }, Outcome::StoppedAtViolation]
    );
}
