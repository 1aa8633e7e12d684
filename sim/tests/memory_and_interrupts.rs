//! The limits a caller sets from outside the model: exactly this many states, the process's
//! memory as a gauge reads it, and an interrupt flag. Each ends the search with a named
//! outcome, partial statistics and a real memory figure.

mod common;

use common::Lease;
use lockcheck_sim::world::World;
use lockcheck_sim::MIN_INTERVAL;
use lockcheck_sim::{explore, BreadthFirst, Limit, MemoryGauge, Options, Outcome, Report, Stats};
use lockcheck_sim::{Hooks, Limits, Stop};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

fn world() -> World<common::Node> {
    let mut lease = Lease::new(40, 10, 5);
    lease.pauses_ms = vec![5, 15, 30];
    lease.max_pauses = 2;
    lease.delays_ms = vec![0, 1, 2, 3];
    lease.world()
}

fn run(options: Options) -> Report<World<common::Node>> {
    let options = Options {
        stop: Stop::Never,
        ..options
    };
    explore(&world(), &mut BreadthFirst::default(), options)
}

#[test]
fn a_state_limit_explores_exactly_that_many_states() {
    let all = run(Options::default()).stats.unique_states;
    for limit in [1, 500, all - 1] {
        let report = run(Options {
            limits: Limits::states(limit),
            ..Options::default()
        });
        assert_eq!(report.outcome, Outcome::LimitReached(Limit::States));
        assert_eq!(report.stats.unique_states, limit);
    }
    // A space of exactly the limit is complete: the limit was never passed.
    let report = run(Options {
        limits: Limits::states(all),
        ..Options::default()
    });
    assert_eq!(report.outcome, Outcome::Complete);
    assert_eq!(report.stats.unique_states, all);
}

/// A gauge that reads a fixed figure and counts its readings.
struct FixedGauge {
    bytes: Option<u64>,
    readings: AtomicU64,
}

impl MemoryGauge for FixedGauge {
    fn resident_bytes(&self) -> Option<u64> {
        self.readings.fetch_add(1, Ordering::Relaxed);
        self.bytes
    }
}

fn gauge(bytes: Option<u64>) -> Arc<FixedGauge> {
    Arc::new(FixedGauge {
        bytes,
        readings: AtomicU64::new(0),
    })
}

#[test]
fn a_memory_limit_bounds_what_the_gauge_reads_from_the_first_check_on() {
    let g = gauge(Some(900 << 20));
    let report = run(Options {
        limits: Limits {
            max_memory_bytes: Some(512 << 20),
            ..Limits::default()
        },
        hooks: Hooks {
            memory_gauge: Some(g.clone()),
            ..Hooks::default()
        },
        ..Options::default()
    });
    assert_eq!(report.outcome, Outcome::LimitReached(Limit::Memory));
    assert_eq!(report.stats.expanded_states, MIN_INTERVAL);
    assert_eq!(report.stats.peak_memory_bytes, 900 << 20);
    // One reading at the check, one at the end.
    assert_eq!(g.readings.load(Ordering::Relaxed), 2);
}

#[test]
fn under_the_limit_the_search_completes_and_reports_the_gauges_figure() {
    let g = gauge(Some(30 << 20));
    let report = run(Options {
        limits: Limits {
            max_memory_bytes: Some(512 << 20),
            ..Limits::default()
        },
        hooks: Hooks {
            memory_gauge: Some(g.clone()),
            ..Hooks::default()
        },
        ..Options::default()
    });
    assert_eq!(report.outcome, Outcome::Complete);
    assert_eq!(report.stats.peak_memory_bytes, 30 << 20);
    // Memory that does not grow is read every 4096 expansions, not more often.
    let readings = g.readings.load(Ordering::Relaxed);
    assert!(
        readings <= report.stats.expanded_states / 4096 + 3,
        "{readings} readings"
    );
}

#[test]
fn a_gauge_that_cannot_read_falls_back_to_the_estimate() {
    let with = run(Options {
        hooks: Hooks {
            memory_gauge: Some(gauge(None)),
            ..Hooks::default()
        },
        ..Options::default()
    });
    let without = run(Options::default());
    assert_eq!(
        with.stats,
        Stats {
            wall_ms: None,
            ..without.stats
        }
    );
    assert!(without.stats.peak_memory_bytes > 0);
}

#[test]
fn a_short_search_still_reports_its_memory() {
    // Stops at its first violation long before the first periodic check.
    let world = Lease::new(10, 5, 5).world();
    let report = explore(&world, &mut BreadthFirst::default(), Options::default());
    assert_eq!(report.outcome, Outcome::StoppedAtViolation);
    assert!(report.stats.expanded_states < MIN_INTERVAL * 256);
    // At least the visited set's smallest table, 8 bytes a slot.
    assert!(
        report.stats.peak_memory_bytes >= 8 * 1024,
        "{:?}",
        report.stats
    );
    let g = gauge(Some(7 << 20));
    let measured = explore(
        &world,
        &mut BreadthFirst::default(),
        Options {
            hooks: Hooks {
                memory_gauge: Some(g),
                ..Hooks::default()
            },
            ..Options::default()
        },
    );
    assert_eq!(measured.stats.peak_memory_bytes, 7 << 20);
}

#[test]
fn an_interrupt_stops_the_search_at_the_next_state_with_partial_statistics() {
    let flag = Arc::new(AtomicBool::new(false));
    let set_by_progress = flag.clone();
    let report = run(Options {
        // The first check comes after MIN_INTERVAL expansions; the flag goes up there.
        hooks: Hooks {
            interrupt: Some(flag),
            progress: Some(Box::new(move |_| {
                set_by_progress.store(true, Ordering::Relaxed)
            })),
            ..Hooks::default()
        },
        ..Options::default()
    });
    assert_eq!(report.outcome, Outcome::Interrupted);
    assert_eq!(report.stats.expanded_states, MIN_INTERVAL);
    assert!(report.stats.unique_states > MIN_INTERVAL);
    assert!(report.stats.peak_memory_bytes > 0);
    assert_eq!(report.properties.len(), 2, "every property still reports");
    assert!(!report.is_exhaustive());
}

#[test]
fn an_interrupt_before_the_start_expands_nothing() {
    let report = run(Options {
        hooks: Hooks {
            interrupt: Some(Arc::new(AtomicBool::new(true))),
            ..Hooks::default()
        },
        ..Options::default()
    });
    assert_eq!(report.outcome, Outcome::Interrupted);
    assert_eq!(report.stats.expanded_states, 0);
}
