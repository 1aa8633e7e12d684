//! Client-library profiles (`library = "redsync"`, `version = "4.17"`): a profile stands for
//! its version's protocol and defaults, a field of the table overrides one of them, a
//! default that follows another field follows it, the table is written back as given, bad
//! tables are refused naming the line and the field, and two libraries answer the same
//! question differently.

mod common;

use common::verdicts::exhaustive;
use lockcheck::check::{check, Mode};
use lockcheck::scenario::file::scenario_from_toml;
use lockcheck::scenario::{ProtocolSpec, Scenario};
use lockcheck_model::lock::redlock::{Dispatch, DriftRounding, Redlock};
use lockcheck_model::lock::single::Release;
use lockcheck_model::lock::ClockKind;
use lockcheck_sim::world::WorldAction;
use lockcheck_sim::Outcome;
use serde_json::json;

/// A scenario file with three nodes and one client whose protocol table is `protocol`.
fn file_with(protocol: &str) -> String {
    format!(
        r#"name = "profile"
description = "one client of a library"

[[nodes]]
name = "redis-1"
[[nodes]]
name = "redis-2"
[[nodes]]
name = "redis-3"

[[clients]]
name = "p1"
[clients.protocol]
{protocol}
[clients.workload]
locks = ["order_lock"]
work_ms = [1000]

[[oracles]]
kind = "me-lock"
"#
    )
}

const NODES: &str = r#"nodes = ["redis-1", "redis-2", "redis-3"]"#;

fn protocol_of(text: &str) -> ProtocolSpec {
    let s = scenario_from_toml(text).unwrap_or_else(|e| panic!("{e}"));
    s.clients[0].protocol.clone()
}

#[test]
fn redsync_stands_for_its_mutex_defaults() {
    let p = protocol_of(&file_with(&format!(
        "library = \"redsync\"\nversion = \"4.17\"\n{NODES}"
    )));
    let ProtocolSpec::Redlock {
        ttl_ms,
        drift_ppm,
        drift_extra_ms,
        drift_rounding,
        clock,
        dispatch,
        node_timeout_ms,
        retry_ms,
        acquire_timeout_ms,
        max_attempts,
        watchdog,
        ..
    } = p.resolved().clone()
    else {
        panic!("redsync is Redlock: {p:?}");
    };
    assert_eq!((ttl_ms, drift_ppm, drift_extra_ms), (8_000, 10_000, 0));
    assert_eq!(drift_rounding, DriftRounding::Down);
    assert_eq!(
        (clock, dispatch),
        (ClockKind::Monotonic, Dispatch::Multiplexed)
    );
    // expiry * timeoutFactor (0.05).
    assert_eq!(node_timeout_ms, Some(400));
    assert_eq!(retry_ms, (50..=249).collect::<Vec<u64>>());
    assert_eq!((acquire_timeout_ms, max_attempts), (None, Some(32)));
    assert!(watchdog.is_none());
}

#[test]
fn an_override_replaces_one_default_and_a_derived_default_follows_it() {
    let p = protocol_of(&file_with(&format!(
        "library = \"redsync\"\nversion = \"4\"\n{NODES}\nttl_ms = \"10s\"\nretry_ms = [100]"
    )));
    let ProtocolSpec::Redlock {
        ttl_ms,
        node_timeout_ms,
        retry_ms,
        max_attempts,
        ..
    } = p.resolved().clone()
    else {
        panic!("redsync is Redlock");
    };
    assert_eq!(
        (ttl_ms, retry_ms, max_attempts),
        (10_000, vec![100], Some(32))
    );
    // The per-node timeout is 5 % of the expiry given, not of the default one.
    assert_eq!(node_timeout_ms, Some(500));
    let p = protocol_of(&file_with(&format!(
        "library = \"redsync\"\nversion = \"4.17.0\"\n{NODES}\nttl_ms = \"10s\"\nnode_timeout_ms = 50"
    )));
    let ProtocolSpec::Redlock {
        node_timeout_ms, ..
    } = p.resolved().clone()
    else {
        panic!("redsync is Redlock");
    };
    assert_eq!(node_timeout_ms, Some(50));
}

#[test]
fn node_redlock_and_redis_py_stand_for_theirs() {
    let p = protocol_of(&file_with(&format!(
        "library = \"node-redlock\"\nversion = \"4.2.0\"\n{NODES}\nttl_ms = 1000"
    )));
    let ProtocolSpec::Redlock {
        drift_extra_ms,
        drift_rounding,
        clock,
        node_timeout_ms,
        retry_ms,
        max_attempts,
        ..
    } = p.resolved().clone()
    else {
        panic!("node-redlock is Redlock");
    };
    assert_eq!(
        (drift_extra_ms, drift_rounding),
        (2, DriftRounding::Nearest)
    );
    assert_eq!((clock, node_timeout_ms), (ClockKind::Wall, None));
    assert_eq!(retry_ms, (100..=299).collect::<Vec<u64>>());
    // retryCount 10: the first attempt and ten retries.
    assert_eq!(max_attempts, Some(11));
    let p = protocol_of(&file_with(
        "library = \"redis-py\"\nversion = \"5.0.8\"\nnode = \"redis-1\"\nttl_ms = \"5s\"",
    ));
    let ProtocolSpec::SingleNode {
        node,
        ttl_ms,
        release,
        retry_ms,
        acquire_timeout_ms,
        request_timeout_ms,
        ..
    } = p.resolved().clone()
    else {
        panic!("redis-py is the single-node lock");
    };
    assert_eq!((node.as_str(), ttl_ms), ("redis-1", Some(5_000)));
    assert_eq!((release, retry_ms), (Release::OwnerChecked, vec![100]));
    assert_eq!((acquire_timeout_ms, request_timeout_ms), (None, None));
}

#[test]
fn the_drift_is_rounded_as_each_library_rounds_it() {
    let mut r = Redlock::seed_000(vec![0, 1, 2]);
    r.ttl_ms = 10_040; // 1 % is 100.4 ms
    assert_eq!(r.drift_ms(), 101 + 2, "the seed: up, plus 2 ms");
    r.drift_rounding = DriftRounding::Nearest;
    assert_eq!(r.drift_ms(), 100 + 2, "node-redlock: Math.round, plus 2 ms");
    r.drift_rounding = DriftRounding::Down;
    r.drift_extra_ms = 0;
    assert_eq!(r.drift_ms(), 100, "redsync: truncated, nothing added");
    r.ttl_ms = 10_050;
    r.drift_rounding = DriftRounding::Nearest;
    assert_eq!(r.drift_ms(), 101, "a half rounds up, as Math.round does");
}

#[test]
fn a_profile_is_written_back_as_given_and_reads_back_equal() {
    let s = scenario_from_toml(&file_with(&format!(
        "library = \"redsync\"\nversion = \"4.17\"\n{NODES}\nttl_ms = \"10s\""
    )))
    .unwrap();
    let written = serde_json::to_value(&s.clients[0].protocol).unwrap();
    assert_eq!(
        written,
        json!({
            "library": "redsync",
            "version": "4.17",
            "nodes": ["redis-1", "redis-2", "redis-3"],
            "ttl_ms": 10_000,
        })
    );
    let back: Scenario = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(back, s);
    // The same override written as a number is the same scenario.
    let same = scenario_from_toml(&file_with(&format!(
        "library = \"redsync\"\nversion = \"4.17\"\n{NODES}\nttl_ms = 10000"
    )))
    .unwrap();
    assert_eq!(same, s);
    // An override that the kind writes only when it differs from the kind's default (2 ms)
    // is kept: it is not redsync's default (0 ms).
    let p = protocol_of(&file_with(&format!(
        "library = \"redsync\"\nversion = \"4.17\"\n{NODES}\ndrift_extra_ms = 2"
    )));
    let back: ProtocolSpec = serde_json::from_value(serde_json::to_value(&p).unwrap()).unwrap();
    let ProtocolSpec::Redlock { drift_extra_ms, .. } = back.resolved().clone() else {
        panic!("redsync is Redlock");
    };
    assert_eq!(drift_extra_ms, 2);
}

/// The error for a protocol table: its field and message.
fn refused(protocol: &str) -> (String, String, usize) {
    let text = file_with(protocol);
    let e = scenario_from_toml(&text).expect_err("refused");
    (
        e.field.clone().unwrap_or_default(),
        e.message.clone(),
        e.line.unwrap_or(0),
    )
}

#[test]
fn bad_profiles_are_refused_naming_the_line_and_the_field() {
    let protocol_line = 14; // the first line of the protocol table in `file_with`
    let (field, message, line) =
        refused(&format!("library = \"redlok\"\nversion = \"4\"\n{NODES}"));
    assert_eq!(field, "clients[0].protocol.library", "{message}");
    assert!(message.contains("no profile for `redlok`"), "{message}");
    assert!(
        message.contains("redsync, node-redlock, redis-py, redisson"),
        "{message}"
    );
    assert_eq!(line, protocol_line);
    let (field, message, line) = refused(&format!(
        "library = \"redsync\"\nversion = \"3.1\"\n{NODES}"
    ));
    assert_eq!(field, "clients[0].protocol.version", "{message}");
    assert!(message.contains("redsync` 3.1 has no profile"), "{message}");
    assert!(message.contains("4.7.1 to 4.17"), "{message}");
    assert_eq!(line, protocol_line + 1);
    let (field, message, _) = refused(&format!("library = \"redsync\"\n{NODES}"));
    assert_eq!(field, "clients[0].protocol.version", "{message}");
    let (_, message, _) = refused(&format!(
        "kind = \"redlock\"\nlibrary = \"redsync\"\nversion = \"4\"\n{NODES}"
    ));
    assert!(message.contains("remove `kind`"), "{message}");
    let (field, message, line) = refused(&format!(
        "library = \"redsync\"\nversion = \"4\"\n{NODES}\nretry_delay_ms = 5"
    ));
    assert_eq!(field, "clients[0].protocol.retry_delay_ms", "{message}");
    assert!(message.contains("unknown field"), "{message}");
    assert_eq!(line, protocol_line + 3);
    let (field, message, _) = refused(&format!(
        "library = \"node-redlock\"\nversion = \"4\"\n{NODES}"
    ));
    assert_eq!(field, "clients[0].protocol.ttl_ms", "{message}");
    assert!(message.contains("no default TTL"), "{message}");
    let (_, message, _) = refused("library = \"redsync\"\nversion = \"4\"");
    assert!(message.contains("missing field `nodes`"), "{message}");
    let (_, message, _) = refused(&format!(
        "library = \"redsync\"\nversion = \"4.x\"\n{NODES}"
    ));
    assert!(message.contains("is not a version"), "{message}");
}

#[test]
fn the_same_clock_step_breaks_node_redlock_and_not_redsync() {
    let broken = exhaustive("node-redlock-wall-clock-step");
    assert_eq!(broken.violated(), Some("me-lock"));
    // The counterexample steps p1's wall clock back once it holds the lock, and p2 acquires
    // more than 9 s later: node-redlock's p1 still believes its 10 s lock then.
    let (_, path) = broken.violations()[0];
    let steps: Vec<_> = path.steps.iter().map(|s| &s.action).collect();
    assert!(
        steps.iter().any(|a| matches!(
            a,
            WorldAction::ClockStep {
                delta_ms: -8_000,
                ..
            }
        )),
        "{steps:?}"
    );
    assert!(path.states.last().unwrap().now_ms > 10_000);
    let safe = exhaustive("redsync-wall-clock-step");
    assert_eq!(safe.violated(), None);
    assert_eq!(safe.report.outcome, Outcome::Complete);
    assert!(
        safe.report.hollow().is_empty(),
        "every-client-done is witnessed"
    );
}

/// A TOML value for a field of the listing (`null`: absent, written "never").
fn toml_value(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => "\"never\"".into(),
        other => toml::Value::try_from(other).unwrap().to_string(),
    }
}

#[test]
fn each_listed_profile_is_what_its_defaults_written_as_a_kind_read_as() {
    for profile in lockcheck::scenario::profiles::catalogue() {
        let version = profile.versions.rsplit(' ').next().unwrap();
        let mut kind_table = String::new();
        let mut library_table = format!(
            "library = \"{}\"\nversion = \"{version}\"\n",
            profile.library
        );
        for (field, _) in profile.required {
            library_table.push_str(&format!("{field} = 7000\n"));
        }
        let mut defaults = profile.resolved_defaults();
        for (field, _) in profile.required {
            defaults.insert(field.to_string(), json!(7000));
        }
        for (field, value) in &defaults {
            // A `null` duration is a time that never comes; any other `null` is a field
            // left out (none), as `lockcheck profiles` shows them.
            if field.ends_with("_ms") || !value.is_null() {
                kind_table.push_str(&format!("{field} = {}\n", toml_value(value)));
            }
        }
        let nodes = if defaults["kind"] == "redlock" {
            NODES.to_string()
        } else {
            "node = \"redis-1\"".to_string()
        };
        let from_library = protocol_of(&file_with(&format!("{library_table}{nodes}")));
        let from_kind = protocol_of(&file_with(&format!("{kind_table}{nodes}")));
        assert_eq!(
            from_library.resolved(),
            &from_kind,
            "{} {}: the listed defaults are not the profile",
            profile.library,
            profile.versions
        );
    }
}

/// Two redis-py clients on one node: `holder` takes the lock at once and works 1 s; `waiter`
/// starts 1 ms later, tries every 100 ms (each try 2 ms there and back) with a
/// `blocking_timeout` of 1,021 ms, and `check` (if given) overrides when that timeout is
/// checked. The key is free from 1,003 ms; the waiter's eleventh try starts at 1,021 ms,
/// with its deadline, and is answered at 1,023 ms.
fn blocking_timeout_world(check: Option<&str>) -> Scenario {
    let check = check.map_or(String::new(), |c| format!("give_up_check = \"{c}\"\n"));
    let text = format!(
        r#"name = "blocking-timeout"
description = "redis-py's blocking_timeout against a 1 s holder"
[[nodes]]
name = "redis"
[[clients]]
name = "holder"
[clients.protocol]
library = "redis-py"
version = "5.3"
node = "redis"
ttl_ms = "10s"
[clients.workload]
locks = ["job"]
work_ms = ["1s"]
[[clients]]
name = "waiter"
[clients.protocol]
library = "redis-py"
version = "5.3"
node = "redis"
ttl_ms = "10s"
acquire_timeout_ms = 1021
{check}[clients.workload]
locks = ["job"]
start_after_ms = 1
work_ms = [10]
[[oracles]]
kind = "no-give-up"
[[oracles]]
kind = "every-client-done"
"#
    );
    scenario_from_toml(&text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn redis_py_checks_its_blocking_timeout_before_sleeping_never_during_a_try() {
    // redis-py: after the tenth failed try (at 921 ms, 920 ms in) the next would start at
    // 1,021 ms, not past the timeout: it sleeps, and its eleventh try gets the lock.
    let before_sleep = check(&blocking_timeout_world(None), Mode::Exhaustive).unwrap();
    assert_eq!(before_sleep.violated(), None);
    assert_eq!(before_sleep.report.outcome, Outcome::Complete);
    assert!(
        before_sleep.report.hollow().is_empty(),
        "both clients finish"
    );
    // Checked when the timeout passes instead, the try in flight is cut short and the
    // waiter gives up 2 ms before its answer.
    let at_deadline = check(
        &blocking_timeout_world(Some("at_deadline")),
        Mode::Exhaustive,
    )
    .unwrap();
    assert_eq!(at_deadline.violated(), Some("no-give-up"));
}

#[test]
fn a_timeout_checked_before_sleeping_needs_one_retry_delay() {
    let (field, message, _) = refused(
        "library = \"redis-py\"\nversion = \"7.4\"\nnode = \"redis-1\"\nttl_ms = 1000\nretry_ms = [50, 150]\nacquire_timeout_ms = 500",
    );
    assert_eq!(field, "clients[0].protocol.give_up_check", "{message}");
    assert!(message.contains("give `retry_ms` one value"), "{message}");
}

#[test]
fn node_redlock_5_stands_for_its_attempt_rules_and_one_rule_overrides_one() {
    use lockcheck_model::lock::redlock::{AttemptRules, Decide};
    let rules = |protocol: &str| match protocol_of(&file_with(protocol)).resolved() {
        ProtocolSpec::Redlock { attempt, .. } => *attempt,
        other => panic!("node-redlock is Redlock: {other:?}"),
    };
    for version in ["5", "5.0.0-beta.2", "v5.0.0"] {
        assert_eq!(
            rules(&format!(
                "library = \"node-redlock\"\nversion = \"{version}\"\nttl_ms = 1000\n{NODES}"
            )),
            AttemptRules::NODE_REDLOCK_5,
            "{version}"
        );
    }
    assert_eq!(
        rules(&format!(
            "library = \"node-redlock\"\nversion = \"4\"\nttl_ms = 1000\n{NODES}"
        )),
        AttemptRules::SEED
    );
    let one_rule = rules(&format!(
        "library = \"node-redlock\"\nversion = \"5\"\nttl_ms = 1000\n{NODES}\nattempt = {{ decide = \"all_answers\" }}"
    ));
    assert_eq!(
        one_rule,
        AttemptRules {
            decide: Decide::AllAnswers,
            ..AttemptRules::NODE_REDLOCK_5
        }
    );
    let (field, message, _) = refused(&format!(
        "library = \"node-redlock\"\nversion = \"5\"\nttl_ms = 1000\n{NODES}\nattempt = {{ decide = \"first_answer\" }}"
    ));
    assert!(
        field.starts_with("clients[0].protocol.attempt"),
        "{field}: {message}"
    );
    assert!(message.contains("early_quorum"), "{message}");
}

#[test]
fn node_redlock_5_returns_a_lock_already_expired_where_4_refuses_it() {
    let broken = exhaustive("node-redlock-5-pause-during-acquire");
    assert_eq!(broken.violated(), Some("me-resource"));
    // The pause comes first, at 1 ms, and the damage after p1 resumed at 12 s.
    let (_, path) = broken.violations()[0];
    assert!(
        path.steps
            .iter()
            .any(|s| matches!(s.action, WorldAction::Pause { .. })),
        "{:?}",
        path.steps
    );
    assert!(path.states.last().unwrap().now_ms > 12_000);
    let safe = exhaustive("node-redlock-4-pause-during-acquire");
    assert_eq!(safe.violated(), None);
    assert_eq!(safe.report.outcome, Outcome::Complete);
    // A tie on four servers: both wait for ever, neither gives up.
    let tie = exhaustive("node-redlock-5-tie-never-decided");
    assert_eq!(tie.violated(), Some("progress"));
}

#[test]
fn an_automatic_extension_needs_a_ttl_100_ms_past_its_threshold_and_no_watchdog() {
    let v5 = format!("library = \"node-redlock\"\nversion = \"5\"\n{NODES}");
    let (field, message, _) = refused(&format!(
        "{v5}\nttl_ms = 550\nauto_extension = {{ threshold_ms = 500 }}"
    ));
    assert_eq!(
        field, "clients[0].protocol.auto_extension.threshold_ms",
        "{message}"
    );
    assert!(message.contains("at least 100 ms longer"), "{message}");
    let (field, message, _) = refused(&format!(
        "{v5}\nttl_ms = 5000\nauto_extension = {{}}\nwatchdog = {{}}"
    ));
    assert_eq!(field, "clients[0].protocol.auto_extension", "{message}");
    assert!(message.contains("not both"), "{message}");
    let ProtocolSpec::Redlock { auto_extension, .. } = protocol_of(&file_with(&format!(
        "{v5}\nttl_ms = 5000\nauto_extension = {{}}"
    )))
    .resolved()
    .clone() else {
        panic!("node-redlock is Redlock");
    };
    assert_eq!(auto_extension.unwrap().threshold_ms, 500);
}
