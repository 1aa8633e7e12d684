//! `testing::for_all`: a failing property prints one message for its smallest case (its
//! parameters, timeline, one saved trace, the command that reruns it), records the seed,
//! and `LOCKCHECK_SEED` reruns that case alone. The environment is process-wide, so one
//! test sets it and runs the steps in order.

use lockcheck::testing::{self, single_node_scenario, Failure};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

fn fresh(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Pauses never break the account: false once pause + work outlasts the TTL.
fn pauses_are_harmless() -> Option<String> {
    let result = catch_unwind(AssertUnwindSafe(|| {
        testing::for_all("pauses_are_harmless", single_node_scenario(), |(_p, s)| {
            testing::check(&s).no_violation()
        })
    }));
    result
        .err()
        .map(|p| p.downcast_ref::<String>().expect("a message").clone())
}

#[test]
fn a_failing_property_reports_once_and_reruns_by_seed() {
    let traces = fresh("for-all-traces");
    let regressions = fresh("for-all-regressions");
    std::env::set_var("LOCKCHECK_TRACE_DIR", &traces);
    std::env::set_var("LOCKCHECK_REGRESSIONS", &regressions);
    std::env::remove_var("LOCKCHECK_SEED");
    std::env::set_var("LOCKCHECK_SEEDS", "8");

    let msg = pauses_are_harmless().expect("the property fails");
    assert!(
        msg.lines().count() < 60,
        "{} lines:\n{msg}",
        msg.lines().count()
    );
    assert!(!msg.contains("Scenario {"), "a Debug dump:\n{msg}");
    assert!(msg.contains("  single-node lock, TTL "), "{msg}");
    assert!(msg.contains("me-resource VIOLATED"), "{msg}");
    assert_eq!(msg.matches("counterexample:").count(), 1, "{msg}");
    let seed: u64 = msg
        .lines()
        .find_map(|l| l.strip_prefix("rerun this case: LOCKCHECK_SEED="))
        .and_then(|l| l.split(' ').next()?.parse().ok())
        .expect("a rerun line");
    let saved: Vec<_> = std::fs::read_dir(&traces).unwrap().collect();
    assert_eq!(saved.len(), 1, "one trace per failure");
    let recorded = std::fs::read_to_string(regressions.join("pauses_are_harmless.seeds")).unwrap();
    assert!(
        recorded.lines().any(|l| l == seed.to_string()),
        "{recorded}"
    );

    // The seed alone reproduces the same smallest case.
    std::env::set_var("LOCKCHECK_SEED", seed.to_string());
    let again = pauses_are_harmless().expect("the seed fails again");
    let params = |m: &str| m.lines().nth(1).map(str::to_string);
    assert_eq!(params(&again), params(&msg));

    // LOCKCHECK_SEED runs one case: the property sees a single drawn value before shrinking.
    let calls = AtomicU64::new(0);
    testing::for_all("counting", single_node_scenario(), |_| {
        calls.fetch_add(1, Ordering::Relaxed);
        Ok::<(), Failure>(())
    });
    assert_eq!(calls.load(Ordering::Relaxed), 1);
    std::env::remove_var("LOCKCHECK_SEED");

    // LOCKCHECK_SEEDS sets the number of cases.
    calls.store(0, Ordering::Relaxed);
    std::env::set_var("LOCKCHECK_SEEDS", "5");
    testing::for_all("counting", single_node_scenario(), |_| {
        calls.fetch_add(1, Ordering::Relaxed);
        Ok(())
    });
    assert_eq!(calls.load(Ordering::Relaxed), 5);

    // A bad value is named.
    std::env::set_var("LOCKCHECK_SEEDS", "many");
    let bad = catch_unwind(|| testing::for_all("counting", single_node_scenario(), |_| Ok(())));
    let bad = bad.expect_err("refused");
    let bad = bad.downcast_ref::<String>().unwrap();
    assert!(
        bad.contains("LOCKCHECK_SEEDS must be a whole number, got `many`"),
        "{bad}"
    );
    std::env::remove_var("LOCKCHECK_SEEDS");
}
