//! Limits that hold inside one step: an expansion that offers a great many choices, and
//! successors whose admission costs much (many properties), end the search at the time
//! limit, the memory limit or an interrupt after a bounded amount of work, on one thread and
//! on every engine that uses threads, with the outcome named and the work done so far.
//!
//! The model is a fan: the initial state offers `width` actions, each to a state of its own
//! with nothing after it. Its clock advances one millisecond per reading, and the model
//! counts the successors it computes and the properties it evaluates, so each bound is a
//! count, not a timing.

use lockcheck_sim::{
    explore, explore_parallel, BreadthFirst, Engine, Hooks, Limit, Limits, MemoryGauge, Model,
    Options, Outcome, Parallelism, Property, Reductions, Report, Stop, WallClock,
};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Successors computed between two looks at the limits inside a step (the kernel's own
/// figure, with room for the looks of other threads).
const LOOK_EVERY: u64 = 64;

/// The initial state `0` offers actions `1..=width`; each leads to its own state, which
/// offers nothing.
struct Fan {
    width: u32,
    properties: usize,
    computed: Arc<AtomicU64>,
    evaluated: Arc<AtomicU64>,
    /// Set after this many successors computed, if given.
    interrupt_after: Option<(u64, Arc<AtomicBool>)>,
}

impl Fan {
    fn new(width: u32, properties: usize) -> Self {
        Fan {
            width,
            properties,
            computed: Arc::default(),
            evaluated: Arc::default(),
            interrupt_after: None,
        }
    }
}

impl Model for Fan {
    type State = u32;
    type Action = u32;

    fn init_states(&self) -> Vec<u32> {
        vec![0]
    }

    fn actions(&self, state: &u32, actions: &mut Vec<u32>) {
        if *state == 0 {
            actions.extend(1..=self.width);
        }
    }

    fn next_state(&self, _state: &u32, action: &u32) -> Option<u32> {
        let computed = self.computed.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some((after, flag)) = &self.interrupt_after {
            if computed == *after {
                flag.store(true, Ordering::Relaxed);
            }
        }
        Some(*action)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        (0..self.properties)
            .map(|i| {
                let evaluated = self.evaluated.clone();
                Property::always(format!("p{i}"), move |_, _: &u32| {
                    evaluated.fetch_add(1, Ordering::Relaxed);
                    true
                })
                .observing(|_, _| false)
            })
            .collect()
    }
}

/// A clock one millisecond later at every reading.
#[derive(Default)]
struct Ticking(AtomicU64);

impl WallClock for Ticking {
    fn elapsed_ms(&self) -> u64 {
        self.0.fetch_add(1, Ordering::Relaxed)
    }
}

/// A gauge that reads `bytes` until `after` readings, then `grown` bytes.
struct Growing {
    readings: AtomicU64,
    after: u64,
    grown: u64,
}

impl MemoryGauge for Growing {
    fn resident_bytes(&self) -> Option<u64> {
        let n = self.readings.fetch_add(1, Ordering::Relaxed);
        Some(if n < self.after { 1 << 20 } else { self.grown })
    }
}

/// Options with a time limit of `limit_ms` on the ticking clock, on `threads` threads with
/// `reductions`.
fn timed(threads: usize, reductions: Reductions, limit_ms: u64) -> Options {
    Options {
        stop: Stop::Never,
        reductions,
        limits: Limits {
            time_limit_ms: Some(limit_ms),
            ..Limits::default()
        },
        parallelism: Parallelism {
            threads,
            ..Parallelism::default()
        },
        hooks: Hooks {
            wall_clock: Some(Arc::new(Ticking::default())),
            ..Hooks::default()
        },
        ..Options::default()
    }
}

fn search(model: &Fan, options: Options) -> Report<Fan> {
    if options.parallelism.threads > 1 {
        explore_parallel(model, options)
    } else {
        explore(model, &mut BreadthFirst::default(), options)
    }
}

#[test]
fn an_expansion_of_many_choices_ends_at_the_time_limit_on_every_engine() {
    let dead_values = Reductions {
        dead_values: true,
        ..Reductions::none()
    };
    for (threads, reductions) in [
        (1, Reductions::none()),
        (2, Reductions::none()),
        (2, dead_values),
    ] {
        let model = Fan::new(400_000, 1);
        let report = search(&model, timed(threads, reductions, 50));
        let what = format!("{threads} threads, {}", report.plan.engine);
        assert_eq!(
            report.outcome,
            Outcome::LimitReached(Limit::WallTime),
            "{what}"
        );
        // About 50 readings of the clock, one every LOOK_EVERY successors (a few more
        // readings are the search's own, between expansions).
        let computed = model.computed.load(Ordering::Relaxed);
        assert!(
            computed <= 60 * LOOK_EVERY,
            "{what}: {computed} successors computed"
        );
        // The abandoned expansion is not counted, nor any state behind it.
        assert_eq!(report.stats.unique_states, 1, "{what}");
        assert_eq!(report.stats.expanded_states, 0, "{what}");
    }
    let engines = |threads, reductions| search(&Fan::new(10, 1), timed(threads, reductions, 50));
    assert!(matches!(
        engines(2, Reductions::none()).plan.engine,
        Engine::Batches { threads: 2, .. }
    ));
    assert!(matches!(
        engines(2, dead_values).plan.engine,
        Engine::Lookahead { threads: 2, .. }
    ));
}

#[test]
fn without_a_limit_the_same_expansion_runs_to_its_end() {
    let model = Fan::new(20_000, 1);
    let options = Options {
        limits: Limits::default(),
        ..timed(1, Reductions::none(), 50)
    };
    let report = search(&model, options);
    assert_eq!(report.outcome, Outcome::Complete);
    assert_eq!(report.stats.unique_states, 20_001);
    assert_eq!(model.computed.load(Ordering::Relaxed), 20_000);
}

#[test]
fn admitting_successors_that_cost_much_ends_at_the_time_limit() {
    // Computing the 20,000 successors reads the clock about 312 times; the limit comes
    // later, while they are admitted, each admission evaluating 200 properties.
    let model = Fan::new(20_000, 200);
    let report = search(&model, timed(1, Reductions::none(), 400));
    assert_eq!(report.outcome, Outcome::LimitReached(Limit::WallTime));
    assert_eq!(model.computed.load(Ordering::Relaxed), 20_000);
    let admitted = report.stats.unique_states;
    assert!(
        (LOOK_EVERY..100 * LOOK_EVERY).contains(&admitted),
        "{admitted} states admitted"
    );
    let evaluated = model.evaluated.load(Ordering::Relaxed);
    assert_eq!(evaluated, admitted * 200, "each admitted state judged once");
}

#[test]
fn an_interrupt_within_an_expansion_ends_it_at_the_next_look() {
    let flag = Arc::new(AtomicBool::new(false));
    let mut model = Fan::new(400_000, 1);
    model.interrupt_after = Some((1_000, flag.clone()));
    let options = Options {
        hooks: Hooks {
            interrupt: Some(flag),
            ..Hooks::default()
        },
        ..Options::exhaustive(Limits::default())
    };
    let report = search(&model, options);
    assert_eq!(report.outcome, Outcome::Interrupted);
    let computed = model.computed.load(Ordering::Relaxed);
    assert!(
        (1_000..1_000 + LOOK_EVERY).contains(&computed),
        "{computed} successors computed"
    );
}

#[test]
fn memory_that_grows_within_an_expansion_ends_it_at_the_memory_limit() {
    // The gauge reads 1 MiB at first, 2 GiB from its fifth reading on; readings inside a
    // step come at most every 10 ms of the ticking clock.
    let model = Fan::new(400_000, 1);
    let gauge = Growing {
        readings: AtomicU64::new(0),
        after: 4,
        grown: 2 << 30,
    };
    let options = Options {
        limits: Limits {
            max_memory_bytes: Some(1 << 30),
            ..Limits::default()
        },
        hooks: Hooks {
            wall_clock: Some(Arc::new(Ticking::default())),
            memory_gauge: Some(Arc::new(gauge)),
            ..Hooks::default()
        },
        ..Options::exhaustive(Limits::default())
    };
    let report = search(&model, options);
    assert_eq!(report.outcome, Outcome::LimitReached(Limit::Memory));
    let computed = model.computed.load(Ordering::Relaxed);
    assert!(
        computed <= 100 * LOOK_EVERY,
        "{computed} successors computed"
    );
    assert!(
        report.stats.peak_memory_bytes >= 2 << 30,
        "the reading that stopped it"
    );
}
