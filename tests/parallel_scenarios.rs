//! Every built-in scenario gets the same search on any number of threads: the same
//! outcome, unique states and statistics, the same verdict per oracle and the same paths
//! (counterexamples and witnesses, step for step), with symmetry reduction and without,
//! stopping at the first violation and exploring everything (each search capped at a
//! state limit to keep the test short, which the parallel search must also cut at the same
//! state). With partial-order reduction the expansions are prepared on the threads and
//! deduplicated on one, with the same results; so does the batch search when its trials
//! switch batches between its threads and one thread. Random walks give the same results
//! on any number of threads too.

use lockcheck::oracles::RedisWorld;
use lockcheck::scenario::{builtin, Scenario};
use lockcheck_sim::{
    explore, explore_parallel, explore_walks, BreadthFirst, Engine, Options, Reductions, Report,
    WallClock, WorkerTrials,
};
use lockcheck_sim::{Hooks, Limits, Parallelism, Stop};

const MAX_STATES: u64 = 2_000;

/// Each oracle's verdict with its path's labels.
fn verdicts(report: &Report<RedisWorld>) -> Vec<(String, String, Vec<String>)> {
    report
        .properties
        .iter()
        .map(|p| {
            let labels = p
                .status
                .path()
                .map(|path| path.labels())
                .unwrap_or_default();
            (p.name.clone(), p.status.word().to_string(), labels)
        })
        .collect()
}

/// Symmetry reduction alone (the batch search runs it; the other reductions prepare
/// expansions on the threads instead).
fn symmetry_only() -> Reductions {
    Reductions {
        partial_order: false,
        symmetry: true,
        dead_values: false,
    }
}

/// Requires the same outcome, statistics, reductions and verdicts (with their paths).
fn assert_same(parallel: &Report<RedisWorld>, sequential: &Report<RedisWorld>, what: &str) {
    assert_eq!(parallel.outcome, sequential.outcome, "{what}");
    assert_eq!(
        parallel.plan.partial_order, sequential.plan.partial_order,
        "{what}"
    );
    assert_eq!(parallel.plan.symmetry, sequential.plan.symmetry, "{what}");
    assert_eq!(
        parallel.plan.dead_values, sequential.plan.dead_values,
        "{what}"
    );
    assert_eq!(
        parallel.stats.results(),
        sequential.stats.results(),
        "{what}"
    );
    assert_eq!(verdicts(parallel), verdicts(sequential), "{what}");
}

fn options(scenario: &Scenario, reductions: Reductions, stop: Stop, threads: usize) -> Options {
    let base = scenario.explore.options();
    Options {
        stop,
        limits: Limits {
            max_states: Some(MAX_STATES),
            ..base.limits
        },
        reductions,
        parallelism: Parallelism {
            threads,
            ..base.parallelism
        },
        ..base
    }
}

/// Stop at the first violation (`true`) or go on.
fn at_first(stop: bool) -> Stop {
    if stop {
        Stop::AtFirstViolation
    } else {
        Stop::Never
    }
}

#[test]
fn every_builtin_scenario_is_searched_alike_on_1_2_and_4_threads() {
    let mut compared = 0;
    for scenario in builtin::all() {
        let world = scenario.build().expect("a built-in builds");
        for reductions in [Reductions::none(), symmetry_only()] {
            // Stop at the first violation, go on, or stop once every oracle is settled.
            for stop in [Stop::AtFirstViolation, Stop::Never, Stop::WhenAllSettled] {
                let options = |threads| options(&scenario, reductions, stop, threads);
                let sequential = explore(&world, &mut BreadthFirst::default(), options(1));
                for threads in [2, 4] {
                    let parallel = explore_parallel(&world, options(threads));
                    let what = format!(
                        "{} on {threads} threads, {reductions:?}, stop {stop:?}",
                        scenario.name
                    );
                    let tuned = false;
                    let batches = Engine::Batches { threads, tuned };
                    assert_eq!(parallel.plan.engine, batches, "{what}");
                    assert_same(&parallel, &sequential, &what);
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 4 * 2 * 3 * 2, "{compared} comparisons");
}

/// With partial-order reduction (and the dead-values reduction) the expansions are prepared on
/// the threads and deduplicated on one: every built-in, stopping at the first violation and
/// exploring everything, gets the one-thread search's outcome, statistics and paths.
#[test]
fn with_every_reduction_every_builtin_is_searched_alike_with_expansions_prepared_on_2_and_4_threads(
) {
    let mut prepared = 0;
    for scenario in builtin::all() {
        let world = scenario.build().expect("a built-in builds");
        for stop in [true, false] {
            let sequential = explore(
                &world,
                &mut BreadthFirst::default(),
                options(&scenario, Reductions::all(), at_first(stop), 1),
            );
            for threads in [2, 4] {
                let parallel = explore_parallel(
                    &world,
                    options(&scenario, Reductions::all(), at_first(stop), threads),
                );
                let what = format!("{} on {threads} threads, stop {stop}", scenario.name);
                if sequential.plan.partial_order.is_on() || sequential.plan.dead_values.is_on() {
                    let Engine::Lookahead {
                        threads: ran, why, ..
                    } = &parallel.plan.engine
                    else {
                        panic!("{what}: {}", parallel.plan.engine);
                    };
                    assert_eq!(*ran, threads, "{what}");
                    assert!(
                        why.contains("partial-order reduction") || why.contains("dead-values"),
                        "{why}"
                    );
                    prepared += 1;
                }
                assert_same(&parallel, &sequential, &what);
            }
        }
    }
    assert!(
        prepared > 100,
        "only {prepared} searches prepared their expansions on threads"
    );
}

/// Seeded random walks of every built-in scenario on one thread and on three (waves of
/// twelve seeds, so the last wave is partial): the same outcome, the same statistics, and
/// per oracle the same verdict from the same seed along the same path.
#[test]
fn every_builtin_scenario_walks_alike_on_1_and_3_threads() {
    const SEEDS: u64 = 30;
    let mut violated = 0;
    for scenario in builtin::all() {
        let world = scenario.build().expect("a built-in builds");
        let walks = |threads| {
            explore_walks(
                &world,
                0..SEEDS,
                scenario.explore.random_max_steps,
                Options {
                    // As `check` walks: the scenario's state bound is for exhaustive search.
                    limits: Limits {
                        max_states: None,
                        ..scenario.explore.options().limits
                    },
                    parallelism: Parallelism {
                        threads,
                        ..scenario.explore.options().parallelism
                    },
                    ..scenario.explore.options()
                },
            )
        };
        let (sequential, parallel) = (walks(1), walks(3));
        let what = format!("{}: random walks on 3 threads", scenario.name);
        assert_eq!(parallel.plan.engine, Engine::Walks { threads: 3 }, "{what}");
        assert_same(&parallel, &sequential, &what);
        let seeds = |r: &Report<RedisWorld>| -> Vec<Option<u64>> {
            r.properties
                .iter()
                .map(|p| p.status.path().and_then(|path| path.seed))
                .collect()
        };
        assert_eq!(seeds(&parallel), seeds(&sequential), "{what}");
        violated += usize::from(sequential.first_violation().is_some());
    }
    assert!(
        violated > 10,
        "only {violated} built-ins violated in {SEEDS} walks"
    );
}

/// A search that goes on after a violation runs its walks on one thread and says why: what
/// one walk decided changes what the next one evaluates.
#[test]
fn walks_that_go_on_after_a_violation_run_on_one_thread() {
    let scenario = builtin::by_name("seed-000-single-node").unwrap();
    let world = scenario.build().unwrap();
    let report = explore_walks(
        &world,
        0..8,
        scenario.explore.random_max_steps,
        Options {
            stop: Stop::Never,
            limits: Limits {
                max_states: None,
                ..scenario.explore.options().limits
            },
            parallelism: Parallelism {
                threads: 2,
                ..scenario.explore.options().parallelism
            },
            ..scenario.explore.options()
        },
    );
    let Engine::OneThread {
        refused: Some((2, why)),
    } = &report.plan.engine
    else {
        panic!("{}", report.plan.engine);
    };
    assert!(why.contains("goes on after a violation"), "{why}");
    assert_eq!(report.stats.runs, 8);
}

/// A wall clock whose readings alternate between slow and fast steps, so that the batch
/// search's trials find the threads faster in some windows and slower in others.
struct SeeSaw(std::sync::atomic::AtomicU64);

impl WallClock for SeeSaw {
    fn elapsed_ms(&self) -> u64 {
        const STEPS_MS: [u64; 5] = [10, 1, 10, 30, 10];
        let reading = self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed) as usize;
        // The sum of the steps so far, in constant time (a search reads its clock often).
        let cycles = (reading / STEPS_MS.len()) as u64;
        let cycle_ms: u64 = STEPS_MS.iter().sum();
        cycles * cycle_ms + STEPS_MS[..reading % STEPS_MS.len()].iter().sum::<u64>()
    }
}

/// The batch search switched between its threads and one thread by its trials, window by
/// window, gets every built-in's one-thread results (without reductions and with symmetry
/// alone, exploring everything up to the cap); on most of them it switched.
#[test]
fn every_builtin_is_searched_alike_when_batches_switch_between_threads_and_one_thread() {
    let mut switched = 0;
    for scenario in builtin::all() {
        let world = scenario.build().expect("a built-in builds");
        for reductions in [Reductions::none(), symmetry_only()] {
            let options = |threads| Options {
                parallelism: Parallelism {
                    worker_trials: Some(WorkerTrials {
                        warmup: 50,
                        window: 200,
                        settle: 10,
                        retry_every: 2,
                    }),
                    ..options(&scenario, reductions, Stop::Never, threads).parallelism
                },
                hooks: Hooks {
                    wall_clock: Some(std::sync::Arc::new(SeeSaw(Default::default()))),
                    ..options(&scenario, reductions, Stop::Never, threads).hooks
                },
                ..options(&scenario, reductions, Stop::Never, threads)
            };
            let sequential = explore(&world, &mut BreadthFirst::default(), options(1));
            let parallel = explore_parallel(&world, options(2));
            let what = format!("{} on 2 threads, {reductions:?}", scenario.name);
            assert_same(&parallel, &sequential, &what);
            if let (Engine::Batches { tuned: true, .. }, Some(percent)) =
                (&parallel.plan.engine, parallel.threads_used_percent)
            {
                switched += usize::from((1..=99).contains(&percent));
            }
        }
    }
    assert!(switched > 20, "only {switched} searches switched");
}
