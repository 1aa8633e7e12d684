//! Honest shrinking: the shrinker's score (faults, fault sizes, steps) never rises, and
//! `shrink` says what it removed or reduced and calls a run shrunk only when it is shorter.

mod common;

use common::{json, lockcheck_within, workdir};
use lockcheck::check::{check, Mode};
use lockcheck::scenario::builtin;
use lockcheck::sim::{shrink, shrink_score, ShrinkOptions};
use std::time::Duration;

/// Kleppmann's pause with room for more and longer pauses than the violation needs.
fn generous_pauses() -> lockcheck::scenario::Scenario {
    let mut s = builtin::by_name("kleppmann-pause-past-lease").unwrap();
    s.faults.max_pauses = 3;
    s.faults.pauses[0].durations_ms = vec![500, 15_000, 20_000];
    s
}

#[test]
fn the_score_never_rises() {
    let scenarios = [
        generous_pauses(),
        builtin::by_name("seed-000-redlock-clock-drift").unwrap(),
        builtin::by_name("seed-003-incident").unwrap(),
    ];
    let mut shrunk_some = 0;
    for scenario in scenarios {
        for first in [0, 100] {
            let mode = Mode::Random { first, count: 100 };
            let checked = check(&scenario, mode).unwrap();
            let Some((oracle, path)) = checked.report.first_violation() else {
                continue;
            };
            let world = &checked.world;
            let options = ShrinkOptions {
                max_attempts: 500,
                ..ShrinkOptions::default()
            };
            let small = shrink(world, path, oracle, options).expect("still violates");
            let actions = |p: &lockcheck::sim::Path<lockcheck::oracles::RedisWorld>| {
                p.steps.iter().map(|s| s.action.clone()).collect::<Vec<_>>()
            };
            let (before, after) = (
                shrink_score(world, &actions(path)),
                shrink_score(world, &actions(&small)),
            );
            assert!(
                after <= before,
                "{}: {before:?} -> {after:?}",
                scenario.name
            );
            shrunk_some += usize::from(after < before);
        }
    }
    assert!(shrunk_some > 0, "no run was simplified at all");
}

#[test]
fn shrink_reports_what_it_reduced() {
    let dir = workdir("shrink-honest");
    let limit = Duration::from_secs(300);
    let check = [
        "check",
        "kleppmann-pause-past-lease",
        "--random",
        "--seeds",
        "200",
        "--set",
        "faults.max_pauses=3",
        "--set",
        "faults.pauses[0].durations_ms=[500, 15000, 20000]",
        "-o",
        "k.json",
    ];
    assert_eq!(lockcheck_within(&dir, &check, limit).code, 1);
    let out = lockcheck_within(&dir, &["shrink", "k.json", "-o", "s.json"], limit);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let first = out.stdout.lines().next().unwrap();
    assert!(
        first.starts_with("simplified k.json: fewer or smaller faults in the same 65 steps"),
        "{first}"
    );
    assert!(
        out.stdout
            .contains("  reduced: pause client-1 for 20000 ms -> pause client-1 for 15000 ms\n"),
        "{}",
        out.stdout
    );
    let j = json(&lockcheck_within(
        &dir,
        &["--json", "shrink", "k.json", "-o", "s.json"],
        limit,
    ));
    assert_eq!(j["score_before"], serde_json::json!([1, 2, 65]));
    assert_eq!(j["score_after"], serde_json::json!([1, 1, 65]));
    // The shrunk trace is as simple as it gets: shrinking it again finds nothing simpler.
    let again = lockcheck_within(&dir, &["shrink", "s.json", "-o", "t.json"], limit);
    assert!(
        again.stdout.starts_with("found no simpler run than s.json"),
        "{}",
        again.stdout
    );
}
