//! Faults on madsim come from the world's envelope, at the run's rate, within its budgets.

use lockcheck::scenario::builtin;
use lockcheck_madsim::scenario::options;
use lockcheck_madsim::{run, RunOptions};
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
    assert_eq!(report.ended, lockcheck_madsim::Ended::Quiescent, "{report}");
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
