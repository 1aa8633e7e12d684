//! A madsim run is decided by its seed alone: the same seed gives the same runs, byte for
//! byte, whatever ran before in the same process.

use lockcheck::scenario::builtin;
use lockcheck_madsim::scenario::runs_with_seed;
use lockcheck_madsim::RunReport;

/// Everything a run shows: its report, timeline and kernel trace.
fn fingerprint(runs: &[RunReport]) -> Vec<String> {
    runs.iter()
        .map(|r| format!("{r}\n{}\n{}", r.timeline.join("\n"), r.trace.to_json()))
        .collect()
}

fn runs(name: &str, seed: u64) -> Vec<String> {
    let scenario = builtin::by_name(name).expect("a built-in scenario");
    fingerprint(&runs_with_seed(&scenario, seed, 20).expect("built-ins build"))
}

#[test]
fn the_same_seed_gives_the_same_runs_whatever_ran_before() {
    let first = runs("seed-000-redlock-majority-failure", 5);
    let _ = runs("two-detectors-double-release", 3);
    let _ = runs("failover-loses-lock", 4);
    assert_eq!(first, runs("seed-000-redlock-majority-failure", 5));
}

#[test]
fn different_seeds_give_different_runs() {
    let a = runs("seed-003-incident", 1);
    let b = runs("seed-003-incident", 2);
    assert_ne!(a, b);
    let distinct: std::collections::BTreeSet<&String> = a.iter().collect();
    assert!(
        distinct.len() > 10,
        "runs of one batch differ from each other: {} distinct of {}",
        distinct.len(),
        a.len()
    );
}
