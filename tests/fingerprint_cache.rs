//! The world's cached fingerprint parts are exact: along seeded random walks of every
//! built-in scenario, the fingerprint the explorer uses (cached process parts) equals the
//! one computed from scratch, and a step shares every process it did not touch with its
//! parent state (copy-on-write), which is what makes the cache pay. A part computed at
//! one instant and moved to a later one (the actors write their times linearly) is the part
//! computed there, on every state of a bounded search of every built-in.

mod common;

use common::walks::walk;
use lockcheck::scenario::builtin;
use lockcheck_sim::world::{time_shifts_verified, verify_time_shifts, Shared, WorldAction};
use lockcheck_sim::{explore, lane_a, lane_b, BreadthFirst, Model, Options, Reductions};
use lockcheck_sim::{Limits, Stop};

const SEEDS: u64 = 6;
const STEPS: usize = 400;

#[test]
fn cached_fingerprints_equal_fingerprints_from_scratch_on_every_builtin() {
    let mut checked = 0u64;
    for scenario in builtin::all() {
        let world = scenario.build().expect("built-ins build");
        let init = world.init_states().remove(0);
        assert_eq!(
            world.fingerprint(&init),
            world.fingerprint_from_scratch(&init)
        );
        for seed in 0..SEEDS {
            walk(&world, seed, STEPS, |_, _, next| {
                let now = next.now_ms;
                assert!(
                    next.procs.iter().all(|p| p.cached_hash(now).is_some()),
                    "{}: a successor leaves the world step with every part cached",
                    scenario.name
                );
                assert_eq!(
                    world.fingerprint(next),
                    world.fingerprint_from_scratch(next),
                    "{}, seed {seed}, at {now} ms: cached and fresh fingerprints differ",
                    scenario.name
                );
                checked += 1;
            });
        }
    }
    assert!(checked > 10_000, "only {checked} states checked");
}

/// A world built for 128-bit fingerprints: its cached parts are exact in both lanes, its
/// lane A is the 64-bit world's fingerprint of the same state, and its lane B is hashed
/// (a 64-bit world leaves lane B at its start, the same for every state).
#[test]
fn wide_fingerprints_are_exact_and_keep_lane_a_on_every_builtin() {
    let mut checked = 0u64;
    for scenario in builtin::all() {
        let narrow = scenario.build().expect("built-ins build");
        let wide = scenario
            .build()
            .expect("built-ins build")
            .with_wide_fingerprints(true);
        let constant_b = lane_b(narrow.fingerprint(&narrow.init_states().remove(0)));
        for seed in 0..2 {
            walk(&wide, seed, STEPS, |_, _, next| {
                let fp = wide.fingerprint(next);
                let name = &scenario.name;
                assert_eq!(
                    fp,
                    wide.fingerprint_from_scratch(next),
                    "{name}, seed {seed}"
                );
                assert_eq!(
                    lane_a(fp),
                    lane_a(narrow.fingerprint_from_scratch(next)),
                    "{name}, seed {seed}: lane A depends on the width"
                );
                assert_eq!(lane_b(narrow.fingerprint_from_scratch(next)), constant_b);
                assert_ne!(lane_b(fp), constant_b, "{name}: lane B not hashed");
                checked += 1;
            });
        }
    }
    assert!(checked > 5_000, "only {checked} states checked");
}

#[test]
fn a_step_copies_only_the_processes_it_changes() {
    let scenario = builtin::by_name("seed-000-redlock-clock-drift").expect("a built-in");
    let world = scenario.build().expect("built-ins build");
    let (mut steps, mut shared) = (0usize, 0usize);
    for seed in 0..SEEDS {
        walk(&world, seed, STEPS, |state, action, next| {
            let copied = state
                .procs
                .iter()
                .zip(&next.procs)
                .filter(|(a, b)| !Shared::ptr_eq(a, b))
                .count();
            // A step other than `Advance` (which may end pauses and restart processes) runs
            // at most one handler or fault: every other process stays shared.
            if !matches!(action, WorldAction::Advance) {
                assert!(copied <= 1, "{action:?} copied {copied} processes");
            }
            steps += 1;
            shared += state.procs.len() - copied;
        });
    }
    // Eight processes; nearly all of them are shared at nearly every step.
    assert!(
        shared * 10 > steps * 8 * 8,
        "{shared} shared of {}",
        steps * 8
    );
}

/// Every part moved with time, on every state of a breadth-first search of each built-in
/// (capped), with every reduction and without, equals the part computed afresh (the check
/// panics otherwise); and parts are moved, on every Redlock built-in among others.
#[test]
fn parts_moved_with_time_equal_parts_computed_afresh_on_every_builtin() {
    verify_time_shifts(true);
    let mut moved_in = Vec::new();
    for scenario in builtin::all() {
        let world = scenario.build().expect("built-ins build");
        let before = time_shifts_verified();
        for reductions in [Reductions::none(), Reductions::default()] {
            let options = Options {
                stop: Stop::Never,
                reductions,
                limits: Limits {
                    max_states: Some(3_000),
                    ..scenario.explore.options().limits
                },
                ..scenario.explore.options()
            };
            explore(&world, &mut BreadthFirst::default(), options);
        }
        if time_shifts_verified() > before {
            moved_in.push(scenario.name.clone());
        }
    }
    for name in [
        "seed-000-redlock-majority-failure",
        "kleppmann-clock-jump",
        "seed-000-redlock-partition",
        "seed-000-single-node",
        "sentinel-majority-fails-over",
    ] {
        assert!(
            moved_in.iter().any(|n| n == name),
            "no part of {name} was moved with time"
        );
    }
    assert!(
        moved_in.len() * 2 > builtin::all().len(),
        "parts moved in {} built-ins only",
        moved_in.len()
    );
}
