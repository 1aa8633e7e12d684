//! A run's options: faults come from the world's envelope at the run's rate, within its
//! budgets; step and time bounds end a run with what it saw so far.

use lockcheck::scenario::builtin;
use lockcheck_madsim::scenario::options;
use lockcheck_madsim::{run, Ended, RunOptions};
use std::sync::Arc;

fn seed_000_with_rate(fault_per_mille: u64) -> (Arc<lockcheck::oracles::RedisWorld>, RunOptions) {
    let scenario = builtin::by_name("seed-000-single-node").unwrap();
    let options = RunOptions {
        fault_per_mille: Some(fault_per_mille),
        ..options(&scenario)
    };
    (Arc::new(scenario.build().unwrap()), options)
}

#[madsim::test]
async fn without_faults_the_single_node_lock_holds() {
    let (world, options) = seed_000_with_rate(0);
    let report = run(world, options).await;
    assert_eq!(report.violation, None, "{report}");
    assert_eq!(report.faults, Default::default(), "{report}");
    assert_eq!(report.ended, Ended::Quiescent, "{report}");
    assert!(
        report
            .not_witnessed
            .contains(&"pause-while-holding".to_string()),
        "{report}"
    );
}

#[madsim::test]
async fn at_full_rate_the_first_chance_takes_a_fault_and_the_budget_caps_them() {
    let (world, options) = seed_000_with_rate(1000);
    let report = run(world, options).await;
    assert_eq!(
        report.faults.pauses, 1,
        "the envelope allows one pause: {report}"
    );
    assert_eq!(
        report
            .timeline
            .iter()
            .filter(|l| l.contains("FAULT pause"))
            .count(),
        1,
        "{report}"
    );
    assert!(
        report.timeline[0].starts_with("t=       0 ms  FAULT pause service-"),
        "at full rate the first chance, before the first event, takes a fault: {report}"
    );
}

#[madsim::test]
async fn a_step_bound_ends_the_run_after_that_many_handlers() {
    let (world, options) = seed_000_with_rate(0);
    let report = run(
        world,
        RunOptions {
            max_steps: 5,
            ..options
        },
    )
    .await;
    assert_eq!(report.ended, Ended::StepBound, "{report}");
    assert_eq!(report.steps, 5);
    assert_eq!(report.timeline.len(), 5, "{report}");
}

#[madsim::test]
async fn a_time_bound_ends_the_run_at_that_world_time() {
    let (world, options) = seed_000_with_rate(0);
    let bound_ms = 10_000;
    let report = run(
        world,
        RunOptions {
            max_virtual_time_ms: Some(bound_ms),
            ..options
        },
    )
    .await;
    assert_eq!(report.ended, Ended::TimeBound, "{report}");
    assert!(report.end_ms >= bound_ms, "{report}");
    // service-b retries every 2 s until the time bound; nothing runs after it.
    assert!(report.steps > 5, "{report}");
    let last = report.timeline.last().expect("events before the bound");
    let at_ms: u64 = last[2..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(at_ms <= bound_ms, "{report}");
}
