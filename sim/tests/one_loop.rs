//! Replay, shrinking and scripted runs are runs of the explorer with choosers of their own.
//! These tests hold them to what they must reproduce: a replayed trace is the path the
//! search found, state for state; and the shrunk runs and scripted runs of a fixed set of
//! inputs are pinned by digests taken from the hand-stepped implementations they replaced
//! (a change in any shrunk step, seed or scripted state changes a digest).

mod common;

use common::{phase, Lease, Node, Phase, State, CLIENT_1};
use lockcheck_sim::world::World;
use lockcheck_sim::{
    explore, lane_a, replay, run_script, shrink, Fingerprint, FpHasher, Model, Options, Path,
    Property, ScriptedFault, ShrinkOptions, Trace, Walk,
};
use std::hash::Hasher;

/// A lease world with room to shrink: several pause sizes, three pauses, three delays, and a
/// bounded-liveness property next to mutual exclusion.
fn world() -> World<Node> {
    let mut lease = Lease::new(10, 5, 8);
    lease.pauses_ms = vec![2, 5, 8, 12];
    lease.max_pauses = 3;
    lease.delays_ms = vec![0, 1, 2];
    lease.world().with_property(Property::leads_to_within(
        "holder-done-within-6ms",
        6,
        |_, s: &State| phase(s, CLIENT_1) == Some(Phase::Holding),
        |_, s: &State| phase(s, CLIENT_1) == Some(Phase::Done),
    ))
}

/// The first violation of each seed's random walk, with the property it violates.
fn violations(
    world: &World<Node>,
    seeds: std::ops::Range<u64>,
) -> Vec<(String, Path<World<Node>>)> {
    seeds
        .filter_map(|seed| {
            let report = explore(world, &mut Walk::random(seed..seed + 1), Options::default());
            report
                .first_violation()
                .map(|(name, path)| (name.to_string(), path.clone()))
        })
        .collect()
}

/// Labels and state fingerprints along a path.
fn digest_path(world: &World<Node>, path: &Path<World<Node>>, h: &mut FpHasher) {
    h.write_u64(path.seed.unwrap_or(u64::MAX));
    h.write_usize(path.init);
    for step in &path.steps {
        h.write(step.label.as_bytes());
    }
    for state in &path.states {
        h.write_u64(lane_a(world.fingerprint(state)));
    }
}

#[test]
fn a_replayed_trace_is_the_path_the_search_found_state_for_state() {
    let world = world();
    let found = violations(&world, 0..150);
    assert!(found.len() >= 20, "only {} seeds violate", found.len());
    for (property, path) in &found {
        let trace = Trace::from_path(&world, path, Some(property));
        let replayed = replay(&world, &trace).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(replayed.path.labels(), path.labels());
        assert_eq!(replayed.path.seed, path.seed);
        let fps = |p: &Path<World<Node>>| -> Vec<Fingerprint> {
            p.states.iter().map(|s| world.fingerprint(s)).collect()
        };
        assert_eq!(fps(&replayed.path), fps(path));
        let verdict = replayed
            .report
            .property(property)
            .expect("the model's property");
        let again = verdict.status.path().expect("violated on replay too");
        assert_eq!(again.labels(), path.labels(), "{property}");
    }
}

#[test]
fn shrunk_runs_are_the_ones_the_hand_stepped_shrinker_found() {
    let world = world();
    let found = violations(&world, 0..60);
    let mut h = FpHasher::new();
    let mut properties = Vec::new();
    for (property, path) in &found {
        let small = shrink(&world, path, property, ShrinkOptions::default())
            .expect("a violating path shrinks to a violating path");
        assert!(small.steps.len() <= path.steps.len());
        properties.push(property.as_str());
        h.write(property.as_bytes());
        digest_path(&world, &small, &mut h);
    }
    properties.sort();
    properties.dedup();
    assert_eq!(
        properties,
        ["holder-done-within-6ms", "mutual-exclusion"],
        "both kinds of property are shrunk"
    );
    assert_eq!(
        (found.len(), h.finish()),
        (PINNED_SHRINKS, PINNED_SHRINK_DIGEST),
        "shrunk runs changed"
    );
}

#[test]
fn scripted_runs_are_the_ones_the_hand_stepped_runner_took() {
    let world = world();
    let mut h = FpHasher::new();
    let (mut errors, mut cut) = (0, 0);
    for at_ms in 0..30 {
        for pause_ms in [2, 5, 8, 12, 7] {
            let faults = [ScriptedFault::new(
                at_ms,
                format!("pause client-1 for {pause_ms} ms"),
            )];
            for (until_ms, max_steps) in [(40, 1_000), (1_000, 20)] {
                match run_script(&world, &faults, until_ms, max_steps) {
                    Ok(path) => {
                        cut += (path.steps.len() == max_steps) as usize;
                        digest_path(&world, &path, &mut h)
                    }
                    Err(e) => {
                        errors += 1;
                        h.write(e.to_string().as_bytes());
                    }
                }
            }
        }
    }
    assert!(errors > 0, "some scripted faults are refused");
    assert!(cut > 0, "some runs end at their step bound");
    assert_eq!(
        (errors, h.finish()),
        (PINNED_SCRIPT_ERRORS, PINNED_SCRIPT_DIGEST),
        "scripted runs changed"
    );
}

// Taken from the hand-stepped shrinker and script runner (shrink::attempt and run_script as
// they were before they became runs of the explorer), which give the same figures.
const PINNED_SHRINKS: usize = 14;
const PINNED_SHRINK_DIGEST: u64 = 12234021375353138204;
const PINNED_SCRIPT_ERRORS: usize = 180;
const PINNED_SCRIPT_DIGEST: u64 = 4309427745832959306;
