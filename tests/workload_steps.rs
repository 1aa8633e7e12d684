//! Workloads written as steps: the shorthand and the same rounds written out as steps are
//! one model (every built-in, the same verdicts and the same number of states); the step
//! forms do what they say (a re-entrant hold, a per-round wait bound, redis-py's three
//! extensions); and bad steps are
//! refused at their line, naming the step.

mod common;

use common::verdicts::{complete, verdicts};
use lockcheck::check::Checked;
use lockcheck::scenario::file::scenario_from_toml;
use lockcheck::scenario::{builtin, Scenario};
use lockcheck::InputError;
use lockcheck_sim::{explore, BreadthFirst, Options};
use lockcheck_sim::{Limits, Stop};

/// The breadth-first search of `scenario` to the end (no stop at the first violation),
/// capped at `max_states`.
fn search(scenario: &Scenario, max_states: u64) -> Checked {
    let world = scenario.build().expect("scenario builds");
    let options = Options {
        stop: Stop::Never,
        limits: Limits {
            max_states: Some(max_states),
            ..scenario.explore.options().limits
        },
        ..scenario.explore.options()
    };
    let report = explore(&world, &mut BreadthFirst::default(), options);
    Checked { world, report }
}

/// `scenario` with every client's shorthand written out as the steps it stands for.
fn written_out(scenario: &Scenario) -> Scenario {
    let mut s = scenario.clone();
    for c in &mut s.clients {
        let w = &mut c.workload;
        let work = w
            .work_ms
            .iter()
            .map(|ms| format!("{ms}ms"))
            .collect::<Vec<_>>()
            .join(" | ");
        let mut steps: Vec<String> = w.locks.iter().map(|l| format!("acquire {l}")).collect();
        if w.uses_account {
            steps.push("read".into());
        }
        steps.push(format!("work {work}"));
        if w.uses_account {
            steps.push("debit".into());
        }
        steps.extend(w.locks.iter().rev().map(|l| format!("release {l}")));
        w.steps = steps;
        w.locks.clear();
        w.work_ms.clear();
        w.uses_account = false;
    }
    s
}

/// The differential test of the step runner: the shorthand is the steps it stands for.
/// A built-in whose space is over the cap is compared on what both searches saw up to it.
#[test]
fn every_builtin_written_out_as_steps_is_the_same_model() {
    const CAP: u64 = 30_000;
    let mut whole = 0;
    for scenario in builtin::all() {
        if scenario
            .clients
            .iter()
            .any(|c| !c.workload.steps.is_empty() || !c.workload.round_steps.is_empty())
        {
            continue;
        }
        let shorthand = search(&scenario, CAP);
        let steps = search(&written_out(&scenario), CAP);
        let name = &scenario.name;
        assert_eq!(verdicts(&shorthand), verdicts(&steps), "{name}: verdicts");
        assert_eq!(
            complete(&shorthand),
            complete(&steps),
            "{name}: completeness"
        );
        assert_eq!(
            shorthand.report.stats.unique_states, steps.report.stats.unique_states,
            "{name}: states"
        );
        whole += complete(&shorthand) as u32;
    }
    assert!(whole >= 60, "only {whole} built-ins compared whole");
}

/// A built-in's verdict for every oracle, searched to the end.
fn all_verdicts(name: &str) -> Vec<(String, &'static str)> {
    let scenario = builtin::by_name(name).expect("a built-in");
    let checked = search(&scenario, 2_000_000);
    assert!(complete(&checked), "{name}: {}", checked.report);
    verdicts(&checked)
}

fn verdict<'a>(all: &'a [(String, &'static str)], oracle: &str) -> &'a str {
    all.iter()
        .find(|(n, _)| n == oracle)
        .map(|(_, v)| *v)
        .unwrap_or_else(|| panic!("no oracle {oracle} in {all:?}"))
}

#[test]
fn a_try_acquire_that_gives_up_ends_its_round_and_the_next_round_waits() {
    let all = all_verdicts("steps-try-acquire-then-wait");
    assert_eq!(verdict(&all, "no-give-up"), "VIOLATED", "{all:?}");
    assert_eq!(verdict(&all, "me-lock"), "holds", "{all:?}");
    assert_eq!(verdict(&all, "me-resource"), "holds", "{all:?}");
}

#[test]
fn a_try_acquire_that_waits_longer_than_the_holder_does_not_give_up() {
    let mut s = builtin::by_name("steps-try-acquire-then-wait").unwrap();
    s.clients[1].workload.round_steps[0][0] = "try-acquire order within 5s".into();
    let checked = search(&s, 2_000_000);
    assert!(complete(&checked));
    assert_eq!(verdict(&verdicts(&checked), "no-give-up"), "holds");
}

#[test]
fn a_reentrant_hold_on_redisson_keeps_the_lock_until_the_outer_release() {
    let all = all_verdicts("steps-reentrant-redisson");
    assert!(all.iter().all(|(_, v)| *v == "holds"), "{all:?}");
    // Without the outer hold (the inner release ends the lock), the other handler reads
    // while the first is still to debit: the debit is applied twice.
    let mut s = builtin::by_name("steps-reentrant-redisson").unwrap();
    s.network.delays_ms = vec![1, 5];
    for c in &mut s.clients {
        c.workload.steps = [
            "acquire order",
            "read",
            "work 50ms",
            "release order",
            "acquire order",
            "debit",
            "release order",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
    }
    let checked = search(&s, 2_000_000);
    assert_eq!(verdict(&verdicts(&checked), "me-resource"), "VIOLATED");
}

fn example() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/steps-read-and-debit-under-different-locks.toml"
    );
    std::fs::read_to_string(path).unwrap()
}

/// The example with `from` replaced once.
fn edited(from: &str, to: &str) -> String {
    let text = example();
    assert!(text.contains(from), "`{from}` not in the example");
    text.replacen(from, to, 1)
}

/// Loading fails at `field`, on the line of `needle`'s first occurrence in `text` (when
/// given), with every word of `expected` in the message.
fn refused(text: &str, field: &str, line_of: Option<&str>, expected: &[&str]) -> InputError {
    let e = scenario_from_toml(text).expect_err("refused");
    assert_eq!(e.field.as_deref(), Some(field), "{e}");
    for w in expected {
        assert!(e.message.contains(w), "`{w}` not in: {e}");
    }
    if let Some(needle) = line_of {
        let line = text[..text.find(needle).unwrap()].matches('\n').count() + 1;
        assert_eq!(e.line, Some(line), "{e}");
    }
    e
}

#[test]
fn the_examples_load() {
    scenario_from_toml(&example()).expect("loads");
}

#[test]
fn an_unknown_step_is_refused_at_its_line() {
    let text = edited("\"read\",", "\"reed\",");
    refused(
        &text,
        "clients[0].workload.steps[1]",
        Some("\"reed\""),
        &["unknown step `reed`", "acquire L"],
    );
}

#[test]
fn releasing_a_lock_the_round_does_not_hold_is_refused() {
    let text = edited("\"release inventory\",", "\"release payment\",");
    refused(
        &text,
        "clients[0].workload.steps[2]",
        None,
        &["does not hold `payment`"],
    );
}

#[test]
fn a_round_that_ends_holding_a_lock_is_refused() {
    let text = edited("  \"release payment\",\n]", "]");
    refused(
        &text,
        "clients[0].workload.steps",
        None,
        &["ends holding `payment`", "release payment"],
    );
}

#[test]
fn a_debit_without_a_read_before_it_is_refused() {
    let text = edited("\"read\",", "\"work 1ms\",");
    refused(
        &text,
        "clients[0].workload.steps[5]",
        None,
        &["put a `read` before it"],
    );
}

#[test]
fn steps_and_the_shorthand_together_are_refused() {
    let text = edited("\nsteps = [", "\nlocks = [\"order\"]\nsteps = [");
    refused(
        &text,
        "clients[0].workload.locks",
        None,
        &["belongs to the shorthand"],
    );
}

#[test]
fn a_try_acquire_without_its_bound_is_refused() {
    let text = edited("\"acquire inventory\",", "\"try-acquire inventory\",");
    refused(
        &text,
        "clients[0].workload.steps[0]",
        None,
        &["try-acquire L within T"],
    );
}

#[test]
fn a_work_step_needs_a_finite_duration() {
    let text = edited("work 10ms | 50ms", "work never");
    refused(
        &text,
        "clients[0].workload.steps[3]",
        None,
        &["finite duration"],
    );
    let text = edited("work 10ms | 50ms", "work 10ms | 5 parsecs");
    refused(
        &text,
        "clients[0].workload.steps[3]",
        None,
        &["unknown unit"],
    );
}

#[test]
fn reading_without_an_account_is_refused() {
    // Without the account `me-resource` is refused too (it would judge nothing): ask about
    // the lock alone, so that the steps are what is refused.
    let text = edited("[account]\ninitial_balance = 100\n", "")
        .replacen("[[oracles]]\nkind = \"me-resource\"\n", "", 1)
        .replacen("oracle = \"me-resource\"", "oracle = \"me-lock\"", 1);
    refused(&text, "clients[0].workload.steps", None, &["no account"]);
}

#[test]
fn round_steps_with_a_round_count_are_refused() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/steps-try-acquire-then-wait.toml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    scenario_from_toml(&text).expect("loads");
    let text = text.replacen("round_steps = [", "rounds = 3\nround_steps = [", 1);
    refused(
        &text,
        "clients[1].workload.rounds",
        None,
        &["each list is a round"],
    );
}

/// A 6 s job on a 5 s single-node lock whose fourth step is `extend` (the text given), and
/// a second client asking every 100 ms from 100 ms on: ME-lock, no faults.
fn extending_job(extend: &str, protocol: &str) -> String {
    format!(
        r#"
name = "extending-job"
description = "a 6 s job on a 5 s lock, extended half way"
[[nodes]]
name = "redis"
[[clients]]
name = "job"
protocol = {protocol}
[clients.workload]
steps = ["acquire job", "work 3s", {extend}, "work 3s", "release job"]
[[clients]]
name = "other"
protocol = {protocol}
[clients.workload]
start_after_ms = "100ms"
steps = ["acquire job", "work 10ms", "release job"]
[[oracles]]
kind = "me-lock"
"#
    )
}

const SINGLE_NODE: &str =
    r#"{ kind = "single_node", node = "redis", ttl_ms = "5s", retry_ms = "100ms" }"#;

fn me_lock_of_extending_job(extend: &str) -> String {
    let scenario = scenario_from_toml(&extending_job(extend, SINGLE_NODE)).expect("loads");
    let checked = search(&scenario, 200_000);
    assert!(complete(&checked), "{extend}: {}", checked.report);
    verdict(&verdicts(&checked), "me-lock").to_string()
}

#[test]
fn each_extension_form_moves_the_expiry_as_redis_py_does() {
    // No extension: the key expires at 5 s, a second before the job ends.
    assert_eq!(me_lock_of_extending_job(r#""work 0ms""#), "VIOLATED");
    // `reacquire()`: back to 5 s at 3 s, past the job's end.
    assert_eq!(me_lock_of_extending_job(r#""extend job""#), "holds");
    // `extend(5)`: 2 s left plus 5 s.
    assert_eq!(me_lock_of_extending_job(r#""extend job by 5s""#), "holds");
    // `extend(1, replace_ttl=True)`: 1 s from 3 s, three seconds short.
    assert_eq!(
        me_lock_of_extending_job(r#""extend job to 1s""#),
        "VIOLATED"
    );
}

#[test]
fn extend_steps_are_refused_where_they_cannot_run() {
    let redisson = r#"{ kind = "redisson", node = "redis" }"#;
    let text = extending_job(r#""extend job""#, redisson);
    refused(
        &text,
        "clients[0].workload.steps[2]",
        Some("\"extend job\""),
        &["single-node kind", "watchdog"],
    );
    let text = extending_job(r#""extend other by 1s""#, SINGLE_NODE);
    refused(
        &text,
        "clients[0].workload.steps[2]",
        None,
        &["does not hold `other`"],
    );
    let text = extending_job(r#""extend job for 1s""#, SINGLE_NODE);
    refused(
        &text,
        "clients[0].workload.steps[2]",
        None,
        &["extend L by D"],
    );
}

/// A 6 s paying job on a 5 s Redlock lock over three nodes whose fourth step is `extend`
/// (the text given), and a second payer asking every 100 ms from 100 ms on: ME-resource.
fn extending_redlock_job(extend: &str, watchdog: &str) -> String {
    let protocol = format!(
        r#"{{ kind = "redlock", nodes = ["r1", "r2", "r3"], ttl_ms = "5s", retry_ms = ["100ms"]{watchdog} }}"#
    );
    format!(
        r#"
name = "extending-redlock-job"
description = "a 6 s job on a 5 s Redlock lock, extended half way"
[[nodes]]
name = "r1"
[[nodes]]
name = "r2"
[[nodes]]
name = "r3"
[[clients]]
name = "job"
protocol = {protocol}
[clients.workload]
steps = ["acquire job", "read", "work 3s", {extend}, "work 3s", "debit", "release job"]
[[clients]]
name = "other"
protocol = {protocol}
[clients.workload]
start_after_ms = "100ms"
steps = ["acquire job", "read", "work 10ms", "debit", "release job"]
[account]
[[oracles]]
kind = "me-resource"
"#
    )
}

#[test]
fn redsyncs_extend_keeps_a_redlock_lock_for_a_job_longer_than_its_ttl() {
    let me_resource = |extend: &str| {
        let scenario = scenario_from_toml(&extending_redlock_job(extend, "")).expect("loads");
        let checked = search(&scenario, 500_000);
        assert!(complete(&checked), "{extend}: {}", checked.report);
        verdict(&verdicts(&checked), "me-resource").to_string()
    };
    // Without it the keys expire at 5 s, the other payer debits, and the job's debit at
    // 6 s writes what it read before.
    assert_eq!(me_resource(r#""work 0ms""#), "VIOLATED");
    assert_eq!(me_resource(r#""extend job""#), "holds");
}

#[test]
fn extend_on_redlock_is_redsyncs_alone() {
    let text = extending_redlock_job(r#""extend job by 5s""#, "");
    refused(
        &text,
        "clients[0].workload.steps[3]",
        None,
        &["redis-py's", "write `extend L`"],
    );
    let dog = r#", watchdog = { interval_permille = 300, tries = 1, timeout_ms = "300ms", counts = "extended" }"#;
    let text = extending_redlock_job(r#""extend job""#, dog);
    refused(
        &text,
        "clients[0].workload.steps[3]",
        None,
        &["renews itself"],
    );
}
