//! The kernel proven end to end on the lease world (see `common/mod.rs`).

mod common;

use common::{Lease, Node, CLIENT_1};
use lockcheck_sim::world::{World, WorldAction};
use lockcheck_sim::Stop;
use lockcheck_sim::{
    explore, replay, shrink, BreadthFirst, DepthFirst, Model, Options, Outcome, Report,
    ShrinkOptions, Status, Trace, Walk,
};

fn exhaustive(world: &World<Node>) -> Report<World<Node>> {
    explore(world, &mut BreadthFirst::default(), Options::default())
}

fn exhaustive_all(world: &World<Node>) -> Report<World<Node>> {
    let options = Options {
        stop: Stop::Never,
        ..Options::default()
    };
    explore(world, &mut BreadthFirst::default(), options)
}

fn violated(report: &Report<World<Node>>) -> bool {
    report
        .property("mutual-exclusion")
        .expect("the lease world has this property")
        .status
        .is_violated()
}

fn random(world: &World<Node>, seeds: std::ops::Range<u64>) -> Report<World<Node>> {
    explore(world, &mut Walk::random(seeds), Options::default())
}

#[test]
fn exhaustive_search_finds_the_violation_exactly_when_pause_plus_work_reaches_ttl() {
    for ttl_ms in [10, 25] {
        for work_ms in [1, 5, 9] {
            for pause_ms in [1, 5, 10, 16, 20, 24, 30] {
                let report = exhaustive(&Lease::new(ttl_ms, work_ms, pause_ms).world());
                let expected = pause_ms + work_ms >= ttl_ms;
                assert_eq!(
                    violated(&report),
                    expected,
                    "ttl {ttl_ms} work {work_ms} pause {pause_ms}: {report}"
                );
                if !expected {
                    assert_eq!(report.outcome, Outcome::Complete, "a proof, not a sample");
                }
            }
        }
    }
}

#[test]
fn network_delay_moves_the_boundary_by_two_delays() {
    // Client-2 learns the remaining time one delay late, retries, and its grant takes two
    // more trips: it can hold from deadline + 2d, while client-1 holds until
    // grant + d + work + pause. So the race needs work + pause >= ttl + 2d.
    let d = 3;
    for pause_ms in [10, 14, 15, 16, 20] {
        let mut lease = Lease::new(20, 5, pause_ms);
        lease.delays_ms = vec![d];
        let report = exhaustive(&lease.world());
        assert_eq!(
            violated(&report),
            5 + pause_ms >= 20 + 2 * d,
            "pause {pause_ms}"
        );
    }
}

#[test]
fn a_violation_path_ends_with_two_holders_and_a_pause_in_it() {
    let world = Lease::new(10, 5, 5).world();
    let report = exhaustive(&world);
    let Status::Violated(path) = &report.property("mutual-exclusion").unwrap().status else {
        panic!("expected a violation: {report}")
    };
    assert_eq!(common::holders(path.last_state()), 2);
    assert!(path.steps.iter().any(|s| matches!(
        s.action,
        WorldAction::Pause {
            process: CLIENT_1,
            ..
        }
    )));
    assert!(path.labels().iter().any(|l| l == "pause client-1 for 5 ms"));
}

#[test]
fn breadth_first_counterexample_is_never_longer_than_depth_first() {
    let world = Lease::new(10, 5, 5).world();
    let bfs = exhaustive(&world);
    let dfs = explore(&world, &mut DepthFirst::default(), Options::default());
    let len = |r: &Report<World<Node>>| r.first_violation().unwrap().1.steps.len();
    assert!(
        len(&bfs) <= len(&dfs),
        "bfs {} dfs {}",
        len(&bfs),
        len(&dfs)
    );
}

#[test]
fn depth_first_and_breadth_first_agree_on_unique_state_counts() {
    for (ttl, work, pause) in [(10, 5, 3), (10, 5, 6), (25, 9, 20)] {
        let mut lease = Lease::new(ttl, work, pause);
        lease.delays_ms = vec![0, 2];
        let world = lease.world();
        let options = || Options {
            stop: Stop::Never,
            ..Options::default()
        };
        let bfs = explore(&world, &mut BreadthFirst::default(), options());
        let dfs = explore(&world, &mut DepthFirst::default(), options());
        assert_eq!(bfs.outcome, Outcome::Complete);
        assert_eq!(dfs.outcome, Outcome::Complete);
        assert_eq!(bfs.stats.unique_states, dfs.stats.unique_states);
        assert!(bfs.stats.unique_states > 20, "{}", bfs.stats.unique_states);
    }
}

#[test]
fn pinned_unique_state_count_of_the_small_lease_world() {
    let mut lease = Lease::new(10, 5, 3);
    lease.delays_ms = vec![0, 2];
    let report = exhaustive_all(&lease.world());
    assert_eq!(report.outcome, Outcome::Complete);
    assert_eq!(report.stats.unique_states, PINNED_SMALL_LEASE_STATES);
}
// 749 before messages in flight were grouped by link (which merges equivalent states).
const PINNED_SMALL_LEASE_STATES: u64 = 740;

#[test]
fn random_walks_find_the_violation_from_a_seed_and_the_trace_replays() {
    let world = Lease::new(10, 5, 8).world();
    let report = random(&world, 0..500);
    let (property, path) = report.first_violation().expect("some seed finds the race");
    let seed = path.seed.expect("random runs carry their seed");
    let trace = Trace::from_path(&world, path, Some(property));
    let json = trace.to_json();
    let parsed = Trace::from_json(&json).expect("our own JSON parses");
    assert_eq!(parsed, trace);
    let replayed = replay(&world, &parsed).expect("the trace replays");
    assert!(
        violated(&replayed.report),
        "replay reproduces the violation"
    );
    assert_eq!(replayed.path.labels(), path.labels());
    // The same seed alone reproduces it too.
    let again = random(&world, seed..seed + 1);
    assert_eq!(again.first_violation().unwrap().1.labels(), path.labels());
}

#[test]
fn same_seed_gives_a_byte_identical_trace_twice() {
    let world = Lease::new(10, 5, 8).world();
    let trace_of = |seed: u64| {
        let report = random(&world, seed..seed + 1);
        let path = report.properties[0]
            .status
            .path()
            .cloned()
            .or_else(|| report.properties[1].status.path().cloned());
        path.map(|p| Trace::from_path(&world, &p, None).to_json())
    };
    let mut compared = 0;
    for seed in 0..50 {
        let (a, b) = (trace_of(seed), trace_of(seed));
        assert_eq!(a, b, "seed {seed}");
        compared += a.is_some() as usize;
    }
    assert!(
        compared > 0,
        "at least one seed produced a trace to compare"
    );
}

#[test]
fn replay_refuses_a_changed_label_naming_the_step() {
    let world = Lease::new(10, 5, 5).world();
    let report = exhaustive(&world);
    let (property, path) = report.first_violation().unwrap();
    let mut trace = Trace::from_path(&world, path, Some(property));
    trace.steps[2].label = "deliver nobody -> kv: Acquire".to_string();
    let err = replay(&world, &trace)
        .err()
        .expect("a changed label is refused");
    let message = err.to_string();
    assert!(message.contains("step 3"), "{message}");
    assert!(
        message.contains("deliver nobody -> kv: Acquire"),
        "{message}"
    );
}

#[test]
fn replay_refuses_a_trace_of_another_configuration_or_format() {
    let world = Lease::new(10, 5, 5).world();
    let report = exhaustive(&world);
    let (property, path) = report.first_violation().unwrap();
    let trace = Trace::from_path(&world, path, Some(property));
    let other = Lease::new(11, 5, 5).world();
    let err = replay(&other, &trace).err().expect("other configuration");
    assert!(err.to_string().contains("configuration"), "{err}");
    let json = trace
        .to_json()
        .replace("\"format_version\": 1", "\"format_version\": 99");
    let err = Trace::from_json(&json).expect_err("other format version");
    assert!(err.to_string().contains("version 99"), "{err}");
    assert!(Trace::from_json("{ not json").is_err());
}

#[test]
fn shrinking_leaves_one_pause_and_still_violates() {
    let mut lease = Lease::new(10, 5, 8);
    lease.pauses_ms = vec![2, 8, 9];
    lease.max_pauses = 3;
    lease.delays_ms = vec![0, 1];
    let world = lease.world();
    // Find a random violation with several pauses so the shrinker has work to do.
    let mut found = None;
    for seed in 0..2_000 {
        let report = random(&world, seed..seed + 1);
        if let Some((_, path)) = report.first_violation() {
            let pauses = path
                .steps
                .iter()
                .filter(|s| world.is_fault(&s.action))
                .count();
            if pauses >= 2 {
                found = Some(path.clone());
                break;
            }
        }
    }
    let path = found.expect("a seed with at least two pauses violates");
    let small = shrink(&world, &path, "mutual-exclusion", ShrinkOptions::default())
        .expect("the path violates the property");
    let pauses: Vec<_> = small
        .steps
        .iter()
        .filter(|s| world.is_fault(&s.action))
        .collect();
    assert_eq!(pauses.len(), 1, "{:?}", small.labels());
    assert!(small.steps.len() <= path.steps.len());
    assert_eq!(common::holders(small.last_state()), 2);
    // The smallest pause that still breaks ttl 10 with work 5 is 8 (2 is too short).
    assert_eq!(pauses[0].label, "pause client-1 for 8 ms");
    // And the shrunk trace replays.
    let trace = Trace::from_path(&world, &small, Some("mutual-exclusion"));
    assert!(violated(&replay(&world, &trace).unwrap().report));
}

#[test]
fn a_run_without_pauses_reports_the_pause_witness_as_never_seen() {
    let mut lease = Lease::new(10, 5, 5);
    lease.pauses_ms.clear();
    let report = exhaustive_all(&lease.world());
    assert_eq!(report.outcome, Outcome::Complete);
    assert!(!violated(&report));
    assert_eq!(report.hollow(), vec!["pause-while-holding"]);
    let with_pauses = exhaustive_all(&Lease::new(20, 5, 5).world());
    assert!(with_pauses.hollow().is_empty(), "{with_pauses}");
}
