//! The `#[madsim::test]` suite: every built-in scenario under madsim.
//!
//! Each test runs a batch of runs under each madsim seed (`MADSIM_TEST_SEED`, then the next
//! `MADSIM_TEST_NUM - 1`; this crate's `.cargo/config.toml` defaults them to 1 and 8). A
//! scenario expected to be safe must show no violation in any run; a scenario expected to
//! break must break, with the expected oracle, within each seed's batch. A failure prints
//! the seed, the run, its timeline and the command that replays it; the replay runs the same
//! batch again and fails at the same run (checked below by running this very test binary
//! with the printed seed).

use lockcheck::scenario::{builtin, ExpectedVerdict};
use lockcheck_madsim::scenario::{
    batch_with_seed, expect_safe, expect_violation, in_runtime, TestName, NOT_REACHED,
};
use lockcheck_madsim::Until;
use std::process::Command;

/// Runs per seed of a scenario expected to be safe.
const SAFE_RUNS: u32 = 256;
/// Runs per seed within which a scenario expected to break must break.
const SEARCH_RUNS: u32 = 20_000;

const TARGET: &str = "builtin_scenarios";

macro_rules! safe {
    ($($test:ident => $name:literal),* $(,)?) => {
        $(
            #[madsim::test]
            async fn $test() {
                let scenario = builtin::by_name($name).expect("a built-in scenario");
                let test = TestName { target: TARGET, function: stringify!($test) };
                expect_safe(&scenario, SAFE_RUNS, test).await;
            }
        )*
        const SAFE: &[&str] = &[$($name),*];
    };
}

macro_rules! breaks {
    ($($test:ident => $name:literal violates $oracle:literal),* $(,)?) => {
        $(
            #[madsim::test]
            async fn $test() {
                let scenario = builtin::by_name($name).expect("a built-in scenario");
                let test = TestName { target: TARGET, function: stringify!($test) };
                expect_violation(&scenario, $oracle, SEARCH_RUNS, test).await;
            }
        )*
        const BREAKS: &[(&str, &str)] = &[$(($name, $oracle)),*];
    };
}

safe! {
    fencing_prevents_damage => "fencing-prevents-damage",
    single_node_holder_crash => "single-node-holder-crash",
    single_node_retries_outlast_the_job => "single-node-retries-outlast-the-job",
    single_node_rounds_bounded_wait => "single-node-rounds-bounded-wait",
    single_node_holder_partitioned => "single-node-holder-partitioned",
    single_node_owner_checked_late_unlock => "single-node-owner-checked-late-unlock",
    delayed_restart => "delayed-restart",
    failover_fencing_from_token_service => "failover-fencing-from-token-service",
    seed_003_defended => "seed-003-defended",
    seed_003_gc_without_stall => "seed-003-gc-without-stall",
    seed_003_dense_gc_spaced => "seed-003-dense-gc-spaced",
    min_replicas_default_lag => "min-replicas-default-lag",
    redisson_synced_replica_keeps_lock => "redisson-synced-replica-keeps-lock",
    redisson_one_of_two_synced => "redisson-one-of-two-synced",
    sentinel_minority_cannot_fail_over => "sentinel-minority-cannot-fail-over",
    redsync_wall_clock_step => "redsync-wall-clock-step",
    redsync_extend_after_pause => "redsync-extend-after-pause",
    node_redlock_4_pause_during_acquire => "node-redlock-4-pause-during-acquire",
    node_redlock_4_pause_during_extend => "node-redlock-4-pause-during-extend",
    node_redlock_4_extend_silent_node => "node-redlock-4-extend-silent-node",
    redis_py_timeout_holder_dies => "redis-py-timeout-holder-dies",
    redis_py_thread_local_token_keeps_the_lock => "redis-py-thread-local-token-keeps-the-lock",
    node_redlock_5_using_pause_checked => "node-redlock-5-using-pause-checked",
    node_redlock_5_using_validity_belief => "node-redlock-5-using-validity-belief",
    node_redlock_5_using_abort_before_write => "node-redlock-5-using-abort-before-write",
    seed_003_trylock_result_checked => "seed-003-trylock-result-checked",
    seed_003_unlock_in_finally => "seed-003-unlock-in-finally",
    steps_read_and_debit_under_one_lock => "steps-read-and-debit-under-one-lock",
    steps_reentrant_redisson => "steps-reentrant-redisson",
    steps_extend_result_checked => "steps-extend-result-checked",
    redisson_five_minute_job_lease_gc => "redisson-five-minute-job-lease-gc",
    redisson_five_minute_job_watchdog_crash => "redisson-five-minute-job-watchdog-crash",
    redisson_lease_longer_than_job => "redisson-lease-longer-than-job",
    seed_003_fenced_by_callee => "seed-003-fenced-by-callee",
    seed_003_idempotency_key => "seed-003-idempotency-key",
    redlock_bounded_drift_safe => "redlock-bounded-drift-safe",
    redlock_slow_acquisition => "redlock-slow-acquisition",
    redlock_split_vote => "redlock-split-vote",
    redlock_watchdog_counts_extensions => "redlock-watchdog-counts-extensions",
    redlock_baseline_safe => "redlock-baseline-safe",
    seed_000_redlock_long_job => "seed-000-redlock-long-job",
    seed_000_redlock_partition_checked => "seed-000-redlock-partition-checked",
    seed_003_on_redisson_3_44 => "seed-003-on-redisson-3-44",
    redisson_gc_past_lease_defended => "redisson-gc-past-lease-defended",
    redisson_late_unlock => "redisson-late-unlock",
    redisson_lock_dead_waiter => "redisson-lock-dead-waiter",
    redisson_fair_lock_first_come_first_served => "redisson-fair-lock-first-come-first-served",
    aof_power_loss_noticed => "aof-power-loss-noticed",
    redisson_own_threads => "redisson-own-threads",
    redlock_split_vote_progress => "redlock-split-vote-progress",
    shared_detector_aborts_victim => "shared-detector-aborts-victim",
    force_release_fenced => "force-release-fenced",
    force_release_with_abort => "force-release-with-abort",
    two_detectors_abort_victim => "two-detectors-abort-victim",
    redlock_crashed_node_refuses => "redlock-crashed-node-refuses",
    redisson_stall_within_timeout => "redisson-stall-within-timeout",
}

breaks! {
    seed_000_single_node => "seed-000-single-node" violates "me-lock",
    aof_stall_power_loss => "aof-stall-power-loss" violates "me-lock",
    kleppmann_pause_past_lease => "kleppmann-pause-past-lease" violates "me-resource",
    single_node_plain_del_late_unlock => "single-node-plain-del-late-unlock" violates "me-lock",
    single_node_attempts_run_out => "single-node-attempts-run-out" violates "no-give-up",
    single_node_rounds_starve_a_contender => "single-node-rounds-starve-a-contender" violates "no-starvation",
    restart_without_persistence => "restart-without-persistence" violates "me-lock",
    failover_loses_lock => "failover-loses-lock" violates "me-lock",
    failover_rolls_back_fencing_counter => "failover-rolls-back-fencing-counter" violates "me-resource",
    seed_003_incident => "seed-003-incident" violates "me-resource",
    seed_003_dense_gc => "seed-003-dense-gc" violates "me-resource",
    seed_003_dense_gc_back_to_back => "seed-003-dense-gc-back-to-back" violates "me-resource",
    min_replicas_lag_refuses_writes => "min-replicas-lag-refuses-writes" violates "no-give-up",
    redisson_unchecked_sync_loses_lock => "redisson-unchecked-sync-loses-lock" violates "me-lock",
    redisson_priority_promotes_unsynced => "redisson-priority-promotes-unsynced" violates "me-lock",
    sentinel_majority_fails_over => "sentinel-majority-fails-over" violates "me-lock",
    node_redlock_wall_clock_step => "node-redlock-wall-clock-step" violates "me-lock",
    redsync_set_nx_on_extend_after_pause => "redsync-set-nx-on-extend-after-pause" violates "me-resource",
    node_redlock_5_pause_during_acquire => "node-redlock-5-pause-during-acquire" violates "me-resource",
    node_redlock_5_pause_during_extend => "node-redlock-5-pause-during-extend" violates "me-resource",
    node_redlock_5_tie_never_decided => "node-redlock-5-tie-never-decided" violates "progress",
    node_redlock_5_using_pause_unchecked => "node-redlock-5-using-pause-unchecked" violates "me-resource",
    node_redlock_5_using_believes_through_pause => "node-redlock-5-using-believes-through-pause" violates "me-lock",
    node_redlock_5_using_write_before_abort => "node-redlock-5-using-write-before-abort" violates "me-resource",
    seed_003_trylock_result_ignored => "seed-003-trylock-result-ignored" violates "me-resource",
    single_node_unlock_in_finally => "single-node-unlock-in-finally" violates "me-lock",
    redisson_five_minute_job_watchdog_gc => "redisson-five-minute-job-watchdog-gc" violates "me-resource",
    redisson_five_minute_job_lease_crash => "redisson-five-minute-job-lease-crash" violates "liveness",
    redis_py_no_timeout_holder_dies => "redis-py-no-timeout-holder-dies" violates "liveness",
    redis_py_renewer_thread_paused_with_its_process => "redis-py-renewer-thread-paused-with-its-process" violates "me-resource",
    redis_py_shared_token_releases_another_thread_s_lock => "redis-py-shared-token-releases-another-thread-s-lock" violates "me-resource",
    redlock_powered_off_node_silent => "redlock-powered-off-node-silent" violates "no-give-up",
    node_redlock_crashed_server_queued => "node-redlock-crashed-server-queued" violates "progress",
    redisson_resent_acquire_counts_twice => "redisson-resent-acquire-counts-twice" violates "no-starvation",
    redisson_wait_longer_than_lease => "redisson-wait-longer-than-lease" violates "me-resource",
    seed_000_redlock_process_pause => "seed-000-redlock-process-pause" violates "me-lock",
    seed_000_redlock_partition => "seed-000-redlock-partition" violates "me-resource",
    seed_000_redlock_majority_failure => "seed-000-redlock-majority-failure" violates "me-lock",
    seed_000_redlock_clock_drift => "seed-000-redlock-clock-drift" violates "me-lock",
    kleppmann_clock_jump => "kleppmann-clock-jump" violates "me-lock",
    redlock_drift_beyond_factor => "redlock-drift-beyond-factor" violates "me-lock",
    redlock_pause_and_clock_step => "redlock-pause-and-clock-step" violates "me-lock",
    seed_000_detector_self_cycle => "seed-000-detector-self-cycle" violates "detector-false-positive",
    seed_000_detector_breaks_exclusion => "seed-000-detector-breaks-exclusion" violates "me-lock",
    seed_000_detector_as_intended => "seed-000-detector-as-intended" violates "detector-false-negative",
    phantom_cycle_separate_reads => "phantom-cycle-separate-reads" violates "detector-false-positive",
    stale_cycle_atomic_snapshot => "stale-cycle-atomic-snapshot" violates "detector-false-positive",
    stale_cycle_confirmed => "stale-cycle-confirmed" violates "detector-false-positive",
    lost_wait_edge => "lost-wait-edge" violates "detector-false-negative",
    ttl_expiry_breaks_deadlock => "ttl-expiry-breaks-deadlock" violates "me-lock",
    force_release_breaks_exclusion => "force-release-breaks-exclusion" violates "me-lock",
    two_detectors_double_release => "two-detectors-double-release" violates "me-lock",
    redisson_shared_thread => "redisson-shared-thread" violates "me-lock",
    redisson_fair_lock_dead_waiter => "redisson-fair-lock-dead-waiter" violates "progress",
    redisson_lock_not_first_come_first_served => "redisson-lock-not-first-come-first-served" violates "fifo",
    two_detectors_owner_checked => "two-detectors-owner-checked" violates "me-lock",
    steps_read_and_debit_under_different_locks => "steps-read-and-debit-under-different-locks" violates "me-resource",
    steps_reentrant_set_nx_waits_on_itself => "steps-reentrant-set-nx-waits-on-itself" violates "no-starvation",
    steps_try_acquire_then_wait => "steps-try-acquire-then-wait" violates "no-give-up",
    steps_extend_result_ignored => "steps-extend-result-ignored" violates "me-resource",
}

#[test]
fn the_suite_covers_every_built_in_scenario_with_its_expected_verdict() {
    let mut covered: Vec<(&str, Option<&str>)> = SAFE.iter().map(|&n| (n, None)).collect();
    covered.extend(BREAKS.iter().map(|&(n, o)| (n, Some(o))));
    covered.extend(NOT_REACHED.iter().map(|&(n, o, _why)| (n, Some(o))));
    covered.sort_unstable();
    let mut expected: Vec<(String, Option<String>)> = builtin::all()
        .into_iter()
        .map(|s| match s.expect {
            ExpectedVerdict::Safe => (s.name, None),
            ExpectedVerdict::Violated { oracle } => (s.name, Some(oracle)),
            ExpectedVerdict::Unstated => panic!("built-in {} states no expectation", s.name),
        })
        .collect();
    expected.sort_unstable();
    let expected: Vec<(&str, Option<&str>)> = expected
        .iter()
        .map(|(n, o)| (n.as_str(), o.as_deref()))
        .collect();
    assert_eq!(covered, expected);
}

/// Runs one test of this binary (this very executable) under madsim seed `seed`, as the
/// printed replay command does, and returns what it printed.
fn run_this_test(function: &str, seed: u64) -> (bool, String) {
    let output = Command::new(std::env::current_exe().expect("the test binary"))
        .args([function, "--exact", "--nocapture", "--test-threads", "1"])
        .env("MADSIM_TEST_SEED", seed.to_string())
        .env("MADSIM_TEST_NUM", "1")
        .output()
        .expect("the test binary runs");
    let text = String::from_utf8_lossy(&output.stdout).to_string()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

/// The lines a test printed about its madsim run, without the harness's own (timings).
fn run_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.starts_with("found:") || l.starts_with("  t=") || l.starts_with("replay:"))
        .collect()
}

#[test]
fn replaying_a_printed_seed_runs_the_same_batch_again() {
    let seed = 11;
    let (ok_first, first) = run_this_test("kleppmann_pause_past_lease", seed);
    let (ok_again, again) = run_this_test("kleppmann_pause_past_lease", seed);
    assert!(ok_first && ok_again, "{first}\n{again}");
    let lines = run_lines(&first);
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("MADSIM_TEST_SEED={seed} "))),
        "the test prints the command that replays it:\n{first}"
    );
    assert!(
        lines.iter().any(|l| l.contains("debit 10")),
        "the timeline shows the stale debit:\n{first}"
    );
    assert_eq!(lines, run_lines(&again), "the same seed, the same run");
    // The batch the test ran is the batch `batch_with_seed` runs outside the test harness.
    let scenario = builtin::by_name("kleppmann-pause-past-lease").unwrap();
    let batch = batch_with_seed(
        &scenario,
        seed,
        SEARCH_RUNS,
        Until::Violation("me-resource".into()),
    )
    .unwrap();
    let report = batch
        .violation_of("me-resource")
        .expect("found in the batch");
    let found = format!("in run {} of madsim seed {seed}", report.run);
    assert!(first.contains(&found), "expected `{found}` in:\n{first}");
    for line in &report.timeline {
        assert!(
            first.contains(line.as_str()),
            "missing `{line}` in:\n{first}"
        );
    }
}

#[test]
fn a_failing_safety_test_prints_its_seed_and_fails_again_when_replayed() {
    // Treat a scenario that breaks as if it were expected to be safe: the test must fail,
    // and the failure must name the seed that replays it.
    let scenario = builtin::by_name("restart-without-persistence").unwrap();
    let fail = |seed: u64| -> String {
        let scenario = scenario.clone();
        let panic = in_runtime(seed, move || async move {
            let test = TestName {
                target: TARGET,
                function: "restart_without_persistence_is_safe",
            };
            expect_safe(&scenario, SEARCH_RUNS, test).await;
        })
        .expect_err("the scenario breaks, so the safety test fails");
        panic
            .downcast_ref::<String>()
            .cloned()
            .expect("a formatted panic message")
    };
    let message = fail(5);
    assert!(
        message.contains("violates `me-lock`"),
        "the failure names the oracle:\n{message}"
    );
    assert!(
        message.contains(
            "MADSIM_TEST_SEED=5 MADSIM_TEST_NUM=1 cargo test --test builtin_scenarios -- restart_without_persistence_is_safe --exact"
        ),
        "the failure prints the command that replays it:\n{message}"
    );
    assert!(
        message.contains("** me-lock violated here **"),
        "and the race:\n{message}"
    );
    assert_eq!(fail(5), message, "replaying the seed fails the same way");
}
