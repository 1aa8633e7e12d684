//! A seed's meaning is pinned: the trace of one random run is committed, and this build must
//! produce it byte for byte (in debug and in release). If this test fails, stored seeds and
//! traces changed meaning; update the golden file only as a deliberate, noted decision.

mod common;

use common::Lease;
use lockcheck_sim::{explore, replay, Options, Trace, Walk};

const GOLDEN: &str = include_str!("golden/lease_seed.trace.json");

fn golden_world() -> lockcheck_sim::world::World<common::Node> {
    let mut lease = Lease::new(10, 5, 8);
    lease.pauses_ms = vec![2, 8];
    lease.max_pauses = 2;
    lease.delays_ms = vec![0, 1, 2];
    lease.world()
}

fn trace_of_first_violating_seed() -> Trace {
    let world = golden_world();
    let report = explore(&world, &mut Walk::random(0..1_000), Options::default());
    let (property, path) = report
        .first_violation()
        .expect("a seed below 1000 violates");
    Trace::from_path(&world, path, Some(property))
}

#[test]
fn the_first_violating_seed_gives_the_committed_trace_byte_for_byte() {
    let json = trace_of_first_violating_seed().to_json();
    if std::env::var_os("LOCKCHECK_WRITE_GOLDEN").is_some() {
        std::fs::write("tests/golden/lease_seed.trace.json", &json).unwrap();
    }
    assert_eq!(json, GOLDEN);
}

#[test]
fn the_committed_trace_still_replays_to_its_violation() {
    let trace = Trace::from_json(GOLDEN).unwrap();
    let replayed = replay(&golden_world(), &trace).unwrap();
    let property = trace.property.as_deref().unwrap();
    assert!(replayed
        .report
        .property(property)
        .unwrap()
        .status
        .is_violated());
}
