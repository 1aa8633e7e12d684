//! Time arithmetic at the extremes: clock readings, due times and whole worlds with durations
//! near `u64::MAX` never overflow, never hang and keep their meaning up to the saturation
//! point (`MAX_INSTANT_MS`, readings within ±`MAX_READING_MS`).

mod common;

use common::Lease;
use lockcheck_sim::world::{add_step, later, ClockSpec, MAX_INSTANT_MS, MAX_READING_MS};
use lockcheck_sim::Limits;
use lockcheck_sim::{explore, BreadthFirst, Options, Outcome};
use proptest::prelude::*;
use std::sync::mpsc;
use std::time::Duration;

/// Extreme and ordinary instants and durations alike.
fn any_ms() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(u64::MAX),
        Just(i64::MAX as u64),
        Just(MAX_INSTANT_MS),
        Just(MAX_INSTANT_MS - 1),
        0u64..10_000,
        any::<u64>(),
    ]
}

fn any_drift_ppm() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(0i64),
        Just(-999_999i64),
        Just(999_999i64),
        Just(i64::MAX),
        -999_999i64..1_000_000,
    ]
}

fn any_signed_ms() -> impl Strategy<Value = i64> {
    prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(0i64), any::<i64>()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// `due_after` is the earliest instant at which `after_ms` of monotonic time have passed,
    /// or `MAX_INSTANT_MS` when that moment lies beyond it.
    #[test]
    fn due_after_is_the_first_instant_reaching_the_target(
        t_ms in any_ms(),
        after_ms in any_ms(),
        drift_ppm in any_drift_ppm(),
        offset_ms in any_signed_ms(),
    ) {
        let c = ClockSpec::new(offset_ms, drift_ppm);
        let start = t_ms.min(MAX_INSTANT_MS);
        let due = c.due_after(t_ms, after_ms);
        prop_assert!(due >= start && due <= MAX_INSTANT_MS, "due {due} from {start}");
        let passed = |t: u64| c.mono_ms(t) as i128 - c.mono_ms(start) as i128;
        if due < MAX_INSTANT_MS {
            prop_assert!(passed(due) >= after_ms as i128, "due {due} too early");
        }
        if due > start {
            prop_assert!(passed(due - 1) < after_ms as i128, "due {due} too late");
        }
    }

    /// Readings stay within ±MAX_READING_MS, monotonic time never runs backwards, and sums of
    /// steps and later instants saturate instead of wrapping.
    #[test]
    fn readings_and_sums_saturate(
        t_ms in any_ms(),
        d_ms in any_ms(),
        drift_ppm in any_drift_ppm(),
        offset_ms in any_signed_ms(),
        steps_ms in any_signed_ms(),
        delta_ms in any_signed_ms(),
    ) {
        let c = ClockSpec::new(offset_ms, drift_ppm);
        let wall = c.wall_ms(t_ms, steps_ms);
        prop_assert!((-MAX_READING_MS..=MAX_READING_MS).contains(&wall));
        prop_assert!(c.mono_ms(t_ms) <= c.mono_ms(later(t_ms, d_ms)));
        let t2 = later(t_ms, d_ms);
        prop_assert!(t2 <= MAX_INSTANT_MS);
        prop_assert_eq!(t2, (t_ms as u128 + d_ms as u128).min(MAX_INSTANT_MS as u128) as u64);
        let sum = add_step(steps_ms, delta_ms);
        let exact = (steps_ms as i128 + delta_ms as i128)
            .clamp(-(MAX_READING_MS as i128), MAX_READING_MS as i128);
        prop_assert_eq!(sum as i128, exact);
    }
}

#[test]
fn ordinary_values_are_untouched_by_saturation() {
    let c = ClockSpec::new(-3_000, 10_000);
    assert_eq!(c.mono_ms(10_000), 10_100);
    assert_eq!(c.wall_ms(10_000, 500), 7_600);
    assert_eq!(c.due_after(0, 10_100), 10_000);
    assert_eq!(later(5, 7), 12);
    assert_eq!(add_step(-5, 7), 2);
}

#[test]
fn the_slowest_clock_finds_its_due_time_by_bisection() {
    // One monotonic ms per million true ms: rounding puts the estimate far off.
    let c = ClockSpec::new(0, -999_999);
    let due = c.due_after(1, 3);
    assert!(c.mono_ms(due) - c.mono_ms(1) >= 3);
    assert!(c.mono_ms(due - 1) - c.mono_ms(1) < 3);
    assert_eq!(due, 3_000_000, "mono(t) = floor(t / 1e6)");
}

/// A world whose work and pauses last about `u64::MAX` ms is explored to its state limit
/// quickly; before saturation, `due_after` overflowed on it (a panic in a debug build).
#[test]
fn a_world_with_extreme_durations_ends_within_its_limits() {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut lease = Lease::new(10, u64::MAX - 5, u64::MAX);
        lease.delays_ms = vec![0, u64::MAX];
        let world = lease.world();
        let options = Options {
            limits: Limits::states(2_000),
            ..Options::default()
        };
        let report = explore(&world, &mut BreadthFirst::default(), options);
        let time_ms = report.stats.max_virtual_time_ms;
        tx.send((report.outcome, time_ms)).unwrap();
    });
    let (outcome, time_ms) = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the search ends within a minute");
    // Work that outlasts the 10 ms lease breaks mutual exclusion, however long it is.
    assert_eq!(outcome, Outcome::StoppedAtViolation);
    assert!(time_ms > 10 && time_ms <= MAX_INSTANT_MS, "{time_ms}");
}
