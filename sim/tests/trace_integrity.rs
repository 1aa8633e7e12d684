//! `replay_checked` refuses traces whose recorded times or property do not match the run,
//! while plain `replay` (used to compare simulators) still replays them.

mod common;

use common::Lease;
use lockcheck_sim::{explore, replay, replay_checked, BreadthFirst, Options, Trace, TraceError};

fn violation_trace() -> (lockcheck_sim::world::World<common::Node>, Trace) {
    let world = Lease::new(10, 5, 5).world();
    let report = explore(&world, &mut BreadthFirst::default(), Options::default());
    let (property, path) = report.first_violation().expect("pause + work >= ttl");
    let trace = Trace::from_path(&world, path, Some(property));
    (world, trace)
}

fn damaged(world: &lockcheck_sim::world::World<common::Node>, trace: &Trace) -> String {
    match replay_checked(world, trace) {
        Err(TraceError::Damaged(reason)) => reason,
        Err(e) => panic!("refused for another reason: {e}"),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn an_untouched_trace_is_accepted() {
    let (world, trace) = violation_trace();
    let replayed = replay_checked(&world, &trace).expect("accepted");
    assert_eq!(replayed.path.steps.len(), trace.steps.len());
}

#[test]
fn a_changed_time_is_refused_naming_the_step() {
    let (world, mut trace) = violation_trace();
    let last = trace.steps.len() - 1;
    trace.steps[last].at_ms += 7;
    let reason = damaged(&world, &trace);
    let expected = format!(
        "step {} (`{}`) is recorded at",
        last + 1,
        trace.steps[last].label
    );
    assert!(reason.contains(&expected), "{reason}");
    assert!(
        replay(&world, &trace).is_ok(),
        "plain replay does not judge times"
    );
}

#[test]
fn a_truncated_trace_or_another_property_is_refused() {
    let (world, trace) = violation_trace();
    let mut cut = trace.clone();
    cut.steps.pop();
    assert!(damaged(&world, &cut).contains("do not violate it"));
    // Recorded as a `sometimes` property, a trace is a witness: this run pauses client-1
    // while it holds, so it stands; cut before the pause, it reaches no witness.
    let mut witness = trace.clone();
    witness.property = Some("pause-while-holding".into());
    assert!(replay_checked(&world, &witness).is_ok());
    let pause = (witness.steps.iter())
        .position(|s| s.label.starts_with("pause"))
        .expect("the violation pauses client-1");
    witness.steps.truncate(pause);
    assert!(damaged(&world, &witness).contains("witness of pause-while-holding, but its"));
    let mut unknown = trace;
    unknown.property = Some("no-such-property".into());
    let reason = damaged(&world, &unknown);
    assert!(
        reason.contains("it has mutual-exclusion, pause-while-holding"),
        "{reason}"
    );
}
