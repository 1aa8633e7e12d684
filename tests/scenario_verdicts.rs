//! Every built-in scenario gets its pinned verdict, exhaustively and by random search; every
//! violation's trace replays and shrinks.
//!
//! The verdicts are pinned twice: in each scenario's `expect` and in [`PINNED`] below, so that
//! a protocol change that breaks a scenario fails here instead of quietly moving its
//! expectation. `bench/mutants.sh` checks that these tests catch a list of protocol bugs.

use lockcheck::check::{check, Mode};
use lockcheck::oracles::{RedisAction, RedisWorld};
use lockcheck::scenario::{builtin, ExpectedVerdict};
use lockcheck_sim::{replay, shrink, shrink_score, ShrinkOptions, Trace};

/// Every built-in scenario by name, with the oracle it must violate (`None`: safe).
const PINNED: &[(&str, Option<&str>)] = &[
    ("aof-power-loss-noticed", None),
    ("aof-stall-power-loss", Some("me-lock")),
    ("delayed-restart", None),
    ("failover-fencing-from-token-service", None),
    ("failover-loses-lock", Some("me-lock")),
    ("failover-rolls-back-fencing-counter", Some("me-resource")),
    ("fencing-prevents-damage", None),
    ("force-release-breaks-exclusion", Some("me-lock")),
    ("force-release-fenced", None),
    ("force-release-with-abort", None),
    ("kleppmann-clock-jump", Some("me-lock")),
    ("kleppmann-pause-past-lease", Some("me-resource")),
    ("lost-wait-edge", Some("detector-false-negative")),
    ("min-replicas-default-lag", None),
    ("min-replicas-lag-refuses-writes", Some("no-give-up")),
    ("node-redlock-4-extend-silent-node", None),
    ("node-redlock-4-pause-during-acquire", None),
    ("node-redlock-4-pause-during-extend", None),
    ("node-redlock-5-pause-during-acquire", Some("me-resource")),
    ("node-redlock-5-pause-during-extend", Some("me-resource")),
    ("node-redlock-5-tie-never-decided", Some("progress")),
    ("node-redlock-5-using-abort-before-write", None),
    (
        "node-redlock-5-using-believes-through-pause",
        Some("me-lock"),
    ),
    ("node-redlock-5-using-pause-checked", None),
    ("node-redlock-5-using-pause-unchecked", Some("me-resource")),
    ("node-redlock-5-using-validity-belief", None),
    (
        "node-redlock-5-using-write-before-abort",
        Some("me-resource"),
    ),
    ("node-redlock-crashed-server-queued", Some("progress")),
    ("node-redlock-wall-clock-step", Some("me-lock")),
    (
        "phantom-cycle-separate-reads",
        Some("detector-false-positive"),
    ),
    ("redis-py-no-timeout-holder-dies", Some("liveness")),
    (
        "redis-py-renewer-thread-paused-with-its-process",
        Some("me-resource"),
    ),
    (
        "redis-py-shared-token-releases-another-thread-s-lock",
        Some("me-resource"),
    ),
    ("redis-py-thread-local-token-keeps-the-lock", None),
    ("redis-py-timeout-holder-dies", None),
    ("redisson-fair-lock-dead-waiter", Some("progress")),
    ("redisson-fair-lock-first-come-first-served", None),
    ("redisson-five-minute-job-lease-crash", Some("liveness")),
    ("redisson-five-minute-job-lease-gc", None),
    ("redisson-five-minute-job-watchdog-crash", None),
    ("redisson-five-minute-job-watchdog-gc", Some("me-resource")),
    ("redisson-gc-past-lease-defended", None),
    ("redisson-late-unlock", None),
    ("redisson-lease-longer-than-job", None),
    ("redisson-lock-dead-waiter", None),
    ("redisson-lock-not-first-come-first-served", Some("fifo")),
    ("redisson-one-of-two-synced", None),
    ("redisson-own-threads", None),
    ("redisson-priority-promotes-unsynced", Some("me-lock")),
    (
        "redisson-resent-acquire-counts-twice",
        Some("no-starvation"),
    ),
    ("redisson-shared-thread", Some("me-lock")),
    ("redisson-stall-within-timeout", None),
    ("redisson-synced-replica-keeps-lock", None),
    ("redisson-unchecked-sync-loses-lock", Some("me-lock")),
    ("redisson-wait-longer-than-lease", Some("me-resource")),
    ("redlock-baseline-safe", None),
    ("redlock-bounded-drift-safe", None),
    ("redlock-crashed-node-refuses", None),
    ("redlock-drift-beyond-factor", Some("me-lock")),
    ("redlock-pause-and-clock-step", Some("me-lock")),
    ("redlock-powered-off-node-silent", Some("no-give-up")),
    ("redlock-slow-acquisition", None),
    ("redlock-split-vote", None),
    ("redlock-split-vote-livelock", Some("progress")),
    ("redlock-split-vote-progress", None),
    ("redlock-watchdog-counts-extensions", None),
    ("redsync-extend-after-pause", None),
    ("redsync-set-nx-on-extend-after-pause", Some("me-resource")),
    ("redsync-wall-clock-step", None),
    ("restart-without-persistence", Some("me-lock")),
    (
        "seed-000-detector-as-intended",
        Some("detector-false-negative"),
    ),
    ("seed-000-detector-breaks-exclusion", Some("me-lock")),
    (
        "seed-000-detector-self-cycle",
        Some("detector-false-positive"),
    ),
    ("seed-000-redlock-clock-drift", Some("me-lock")),
    ("seed-000-redlock-long-job", None),
    ("seed-000-redlock-majority-failure", Some("me-lock")),
    ("seed-000-redlock-partition", Some("me-resource")),
    ("seed-000-redlock-partition-checked", None),
    ("seed-000-redlock-process-pause", Some("me-lock")),
    ("seed-000-single-node", Some("me-lock")),
    ("seed-003-defended", None),
    ("seed-003-dense-gc", Some("me-resource")),
    ("seed-003-dense-gc-back-to-back", Some("me-resource")),
    ("seed-003-dense-gc-spaced", None),
    ("seed-003-fenced-by-callee", None),
    ("seed-003-gc-without-stall", None),
    ("seed-003-idempotency-key", None),
    ("seed-003-incident", Some("me-resource")),
    ("seed-003-on-redisson-3-44", None),
    ("seed-003-trylock-result-checked", None),
    ("seed-003-trylock-result-ignored", Some("me-resource")),
    ("seed-003-unlock-in-finally", None),
    ("sentinel-majority-fails-over", Some("me-lock")),
    ("sentinel-minority-cannot-fail-over", None),
    ("shared-detector-aborts-victim", None),
    ("single-node-attempts-run-out", Some("no-give-up")),
    ("single-node-holder-crash", None),
    ("single-node-holder-partitioned", None),
    ("single-node-owner-checked-late-unlock", None),
    ("single-node-plain-del-late-unlock", Some("me-lock")),
    ("single-node-retries-outlast-the-job", None),
    ("single-node-rounds-bounded-wait", None),
    (
        "single-node-rounds-starve-a-contender",
        Some("no-starvation"),
    ),
    ("single-node-unlock-in-finally", Some("me-lock")),
    (
        "stale-cycle-atomic-snapshot",
        Some("detector-false-positive"),
    ),
    ("stale-cycle-confirmed", Some("detector-false-positive")),
    ("steps-extend-result-checked", None),
    ("steps-extend-result-ignored", Some("me-resource")),
    (
        "steps-read-and-debit-under-different-locks",
        Some("me-resource"),
    ),
    ("steps-read-and-debit-under-one-lock", None),
    ("steps-reentrant-redisson", None),
    (
        "steps-reentrant-set-nx-waits-on-itself",
        Some("no-starvation"),
    ),
    ("steps-try-acquire-then-wait", Some("no-give-up")),
    ("ttl-expiry-breaks-deadlock", Some("me-lock")),
    ("two-detectors-abort-victim", None),
    ("two-detectors-double-release", Some("me-lock")),
    ("two-detectors-owner-checked", Some("me-lock")),
];

#[test]
fn every_builtin_scenario_expects_its_pinned_verdict() {
    let mut expected: Vec<(String, Option<String>)> = builtin::all()
        .into_iter()
        .map(|s| match s.expect {
            ExpectedVerdict::Safe => (s.name, None),
            ExpectedVerdict::Violated { oracle } => (s.name, Some(oracle)),
            ExpectedVerdict::Unstated => panic!("built-in {} states no expectation", s.name),
        })
        .collect();
    expected.sort_unstable();
    let pinned: Vec<(String, Option<String>)> = PINNED
        .iter()
        .map(|(n, o)| (n.to_string(), o.map(str::to_string)))
        .collect();
    assert_eq!(expected, pinned);
}

fn describe(c: &lockcheck::check::Checked) -> String {
    format!("{}", c.report)
}

#[test]
fn every_builtin_scenario_gets_its_expected_verdict_exhaustively() {
    for scenario in builtin::all() {
        let checked = check(&scenario, Mode::Exhaustive).expect("built-ins build");
        assert!(
            checked.as_expected(&scenario.expect),
            "{}: expected {:?}\n{}",
            scenario.name,
            scenario.expect,
            describe(&checked)
        );
        if scenario.expect == ExpectedVerdict::Safe {
            assert!(
                checked.report.is_exhaustive(),
                "{}: a safe verdict must cover the whole bounded space\n{}",
                scenario.name,
                describe(&checked)
            );
        }
    }
}

#[test]
fn every_builtin_scenario_gets_its_expected_verdict_by_random_search() {
    for scenario in builtin::all() {
        let seeds = scenario.explore.random_seeds;
        let checked = check(
            &scenario,
            Mode::Random {
                first: 0,
                count: seeds,
            },
        )
        .unwrap();
        match &scenario.expect {
            ExpectedVerdict::Violated { oracle } => assert_eq!(
                checked.violated(),
                Some(oracle.as_str()),
                "{}: random search should find it in {seeds} seeds\n{}",
                scenario.name,
                describe(&checked)
            ),
            ExpectedVerdict::Safe => assert_eq!(
                checked.violated(),
                None,
                "{}\n{}",
                scenario.name,
                describe(&checked)
            ),
            ExpectedVerdict::Unstated => panic!("built-in {} states no expectation", scenario.name),
        }
    }
}

#[test]
fn every_violation_replays_from_its_trace_and_shrinks() {
    for scenario in builtin::all() {
        let ExpectedVerdict::Violated { oracle } = &scenario.expect else {
            continue;
        };
        let checked = check(&scenario, Mode::Exhaustive).unwrap();
        let (_, path) = checked.report.first_violation().unwrap();
        let trace = Trace::from_path(&checked.world, path, Some(oracle));
        let parsed = Trace::from_json(&trace.to_json()).unwrap();
        let replayed =
            replay(&checked.world, &parsed).unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
        assert!(
            replayed
                .report
                .property(oracle)
                .unwrap()
                .status
                .is_violated(),
            "{}: replay reproduces the violation",
            scenario.name
        );
        let small = shrink(&checked.world, path, oracle, ShrinkOptions::default())
            .unwrap_or_else(|| panic!("{}: the path violates {oracle}", scenario.name));
        // The shrinker's promise: fewer faults, then smaller choices, then fewer steps (a
        // smaller delay can take more steps).
        let actions = |p: &lockcheck_sim::Path<RedisWorld>| -> Vec<RedisAction> {
            p.steps.iter().map(|s| s.action.clone()).collect()
        };
        assert!(
            shrink_score(&checked.world, &actions(&small))
                <= shrink_score(&checked.world, &actions(path)),
            "{}",
            scenario.name
        );
        let small_trace = Trace::from_path(&checked.world, &small, Some(oracle));
        let again = replay(&checked.world, &small_trace).unwrap();
        assert!(again.report.property(oracle).unwrap().status.is_violated());
    }
}

#[test]
fn builtin_scenario_names_are_unique_and_stable() {
    let names: Vec<String> = builtin::all().into_iter().map(|s| s.name).collect();
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len());
    for name in [
        "seed-000-single-node",
        "kleppmann-pause-past-lease",
        "fencing-prevents-damage",
    ] {
        assert!(builtin::by_name(name).is_some(), "{name}");
    }
}
