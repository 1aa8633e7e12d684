//! Deadlock detectors: seed 000's cycle search and records, the true wait-for graph, the
//! finding about seed 000's detector, and detector scenarios as data.

use lockcheck::check::{check, Mode};
use lockcheck::scenario::builtin;
use lockcheck::scenario::detection::{DetectionSpec, DetectorSpec, ServiceSpec};
use lockcheck::scenario::{ExpectedVerdict, OracleSpec, Scenario};
use lockcheck::wait_for;
use lockcheck_model::lock::detector::{
    find_cycle, HolderGraph, Reads, Records, Resolution, WaitRecord, SEED_MAX_CHAIN,
};
use lockcheck_sim::{explore, BreadthFirst, Options, Property};

fn graph(edges: &[(usize, usize)]) -> HolderGraph {
    let mut g = HolderGraph::default();
    for &(a, b) in edges {
        g.add_edge(a, b, ());
    }
    g
}

fn scenario(name: &str) -> Scenario {
    builtin::by_name(name).unwrap_or_else(|| panic!("no built-in scenario {name}"))
}

#[test]
fn the_cycle_search_finds_the_seed_incidents_three_process_cycle() {
    let g = graph(&[(1, 2), (2, 3), (3, 1)]);
    let cycle = find_cycle(&g, SEED_MAX_CHAIN).expect("a cycle");
    assert_eq!(cycle, vec![1, 2, 3]);
    assert!(find_cycle(&graph(&[(1, 2), (2, 3)]), SEED_MAX_CHAIN).is_none());
}

#[test]
fn the_cycle_search_gives_up_on_chains_longer_than_the_seeds_maximum() {
    let ring = |n: usize| graph(&(0..n).map(|i| (i, (i + 1) % n)).collect::<Vec<_>>());
    // `len(path) > MAX_CHAIN_LENGTH` stops the search: a ring of 6 is still found, 7 is not.
    assert!(find_cycle(&ring(6), SEED_MAX_CHAIN).is_some());
    assert!(find_cycle(&ring(7), SEED_MAX_CHAIN).is_none());
}

#[test]
fn seed_000_records_as_written_report_a_nested_acquire_as_a_self_cycle_and_pick_the_outer_lock() {
    let mut r = Records::default();
    r.register_wait(0);
    assert_eq!(
        r.detect(7, SEED_MAX_CHAIN),
        None,
        "before any lock: no cycle"
    );
    r.register_acquire(0, WaitRecord::AsWritten);
    // `_wait_graph[P] = {order}` and `_lock_records[order] = P`: the records already hold
    // `P -> order -> P`; the next `acquire` runs `detect_deadlock` and finds it.
    r.register_wait(1);
    assert_eq!(r.detect(7, SEED_MAX_CHAIN), Some((vec![7], 0)));
}

#[test]
fn seed_000_records_with_the_wait_dropped_on_acquire_never_contain_a_cycle() {
    let mut r = Records::default();
    for lock in 0..3 {
        r.register_wait(lock);
        assert_eq!(r.detect(7, SEED_MAX_CHAIN), None);
        r.register_acquire(lock, WaitRecord::DroppedOnAcquire);
    }
}

#[test]
fn a_release_forgets_the_lock_record_and_every_wait_of_the_holder() {
    let mut r = Records::default();
    r.register_wait(0);
    r.register_acquire(0, WaitRecord::AsWritten);
    r.register_wait(1);
    r.released(1);
    assert_eq!(r.waits, Vec::<u8>::new());
    assert_eq!(r.locks, vec![0]);
}

#[test]
fn the_true_wait_for_graph_has_the_seed_incidents_cycle_when_the_fixed_detector_runs() {
    // Witness through the checker: some reachable state of the seed world is deadlocked.
    let mut s = scenario("seed-000-detector-as-intended");
    s.oracles = vec![OracleSpec::DeadlockFormed];
    s.expect = ExpectedVerdict::Safe;
    let checked = check(&s, Mode::Exhaustive).unwrap();
    assert!(checked.report.hollow().is_empty(), "{}", checked.report);
    // And the cycle is P1 -> P2 -> P3 -> P1 in the first deadlocked state found.
    s.oracles = Vec::new();
    let world = s
        .build()
        .unwrap()
        .with_property(Property::always("not-yet", |w, st| {
            !wait_for::deadlocked(w, st)
        }));
    let report = explore(&world, &mut BreadthFirst::default(), Options::default());
    let (_, path) = report.first_violation().expect("a deadlocked state");
    let deadlocked = path.states.last().unwrap();
    let g = wait_for::true_graph(&world, deadlocked);
    let p = |n: &str| world.process_id(n).unwrap();
    assert!(wait_for::is_cycle_of(&g, &[p("P1"), p("P2"), p("P3")]));
    assert!(!wait_for::is_cycle_of(&g, &[p("P1")]), "no self-cycle");
}

#[test]
fn seed_000_per_process_records_never_report_any_cycle_once_the_self_cycle_is_fixed() {
    let mut s = scenario("seed-000-detector-as-intended");
    s.oracles = vec![OracleSpec::DetectorReported];
    s.expect = ExpectedVerdict::Safe;
    let checked = check(&s, Mode::Exhaustive).unwrap();
    assert!(checked.report.is_exhaustive(), "{}", checked.report);
    assert_eq!(checked.report.hollow(), vec!["detector-reported"]);
}

#[test]
fn seed_000_detector_reports_a_self_cycle_for_a_single_process_taking_two_locks_uncontended() {
    let mut s = scenario("seed-000-detector-self-cycle");
    s.clients.truncate(1);
    if let Some(d) = &mut s.detection {
        d.services.truncate(1);
    }
    let checked = check(&s, Mode::Exhaustive).unwrap();
    assert_eq!(checked.violated(), Some("detector-false-positive"));
}

#[test]
fn seed_000_detector_breaks_exclusion_by_releasing_the_callers_own_outer_lock() {
    let s = scenario("seed-000-detector-breaks-exclusion");
    let checked = check(&s, Mode::Exhaustive).unwrap();
    let (_, path) = checked.report.first_violation().expect("me-lock violated");
    let labels: Vec<&str> = path.steps.iter().map(|s| s.label.as_str()).collect();
    let released_own = labels
        .iter()
        .any(|l| l.contains("P1 -> redis: EVAL compare-and-delete order_lock_001 P1"));
    let taken = labels
        .iter()
        .any(|l| l.contains("P3 -> redis: SET order_lock_001 P3 NX"));
    assert!(released_own && taken, "{labels:#?}");
}

#[test]
fn an_atomic_detector_that_tells_its_victim_resolves_every_deadlock_without_false_reports() {
    let s = scenario("shared-detector-aborts-victim");
    let checked = check(&s, Mode::Exhaustive).unwrap();
    assert!(
        checked.as_expected(&ExpectedVerdict::Safe),
        "{}",
        checked.report
    );
}

#[test]
fn the_same_detector_without_an_abort_never_resolves_a_deadlock_without_an_acquire_timeout() {
    let mut s = scenario("shared-detector-aborts-victim");
    if let Some(d) = &mut s.detection {
        d.detectors[0].resolution = Resolution::ReportOnly;
    }
    s.oracles = vec![OracleSpec::DeadlockLiveness { bound_ms: 2_500 }];
    let checked = check(&s, Mode::Exhaustive).unwrap();
    assert_eq!(checked.violated(), Some("deadlock-liveness"));
}

#[test]
fn a_detector_scenario_round_trips_through_json() {
    for s in lockcheck::scenario::builtin_detector::all() {
        let json = serde_json::to_string(&s).unwrap();
        let back: Scenario = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
    }
}

#[test]
fn a_service_for_a_client_that_does_not_exist_is_an_error_naming_the_field() {
    let mut s = scenario("shared-detector-aborts-victim");
    s.detection.as_mut().unwrap().services[1].client = "P9".into();
    let e = s.build().err().expect("an error");
    assert_eq!(e.field, "detection.services[1].client");
    assert!(e.message.contains("P9"), "{e}");
}

#[test]
fn a_detector_on_a_process_that_is_not_a_redis_node_is_an_error_naming_the_field() {
    let mut s = scenario("shared-detector-aborts-victim");
    s.detection.as_mut().unwrap().detectors[0].node = "P1".into();
    let e = s.build().err().expect("an error");
    assert_eq!(e.field, "detection.detectors[0].node");
}

#[test]
fn a_detector_without_any_client_writing_wait_edges_is_an_error() {
    let mut s = scenario("seed-000-detector-self-cycle");
    s.detection = Some(DetectionSpec {
        services: vec![ServiceSpec {
            client: "P1".into(),
            local_detector: None,
            wait_edges: None,
        }],
        detectors: vec![DetectorSpec {
            name: "detector".into(),
            node: "redis".into(),
            interval_ms: 1_000,
            start_after_ms: 0,
            reads: Reads::Atomic,
            confirm: false,
            resolution: Resolution::ReportOnly,
            max_chain: SEED_MAX_CHAIN,
            request_timeout_ms: 1_000,
        }],
    });
    let e = s.build().err().expect("an error");
    assert_eq!(e.field, "detection.detectors[0].name");
}

#[test]
fn unknown_fields_in_a_detector_are_refused() {
    let json = r#"{"name":"d","node":"redis","interval_ms":1000,"reads":"atomic",
        "resolution":"report_only","colour":"red"}"#;
    let e = serde_json::from_str::<DetectorSpec>(json).unwrap_err();
    assert!(e.to_string().contains("colour"), "{e}");
}

#[test]
fn detector_durations_take_units_like_every_other_duration_in_scenario_files() {
    let json = r#"{"name":"d","node":"redis","interval_ms":"1.5s","reads":"separate",
        "resolution":"abort_victim","request_timeout_ms":"200ms"}"#;
    let d: DetectorSpec = serde_json::from_str(json).unwrap();
    assert_eq!((d.interval_ms, d.request_timeout_ms), (1_500, 200));
    assert_eq!(
        (d.reads, d.resolution),
        (Reads::Separate, Resolution::AbortVictim)
    );
}
