//! node-redlock's own `extend` (`[clients.protocol.extend]`): each profile stands for its
//! library's rules, a rule overrides one, a bad rule is refused naming the field, and the
//! same pause inside `extend()` breaks 5 and not 4 (the scenario file is compared with its
//! built-in in `scenario_files.rs`).

mod common;

use common::verdicts::exhaustive;
use lockcheck::scenario::file::scenario_from_toml;
use lockcheck::scenario::ProtocolSpec;
use lockcheck_model::lock::redlock::ExtendRules;
use lockcheck_sim::world::WorldAction;
use lockcheck_sim::Outcome;

/// One client of `protocol` on three nodes that extends once in the middle of its job.
fn file_with(protocol: &str) -> String {
    format!(
        r#"name = "extend"
description = "one client that extends"

[[nodes]]
name = "redis-1"
[[nodes]]
name = "redis-2"
[[nodes]]
name = "redis-3"

[[clients]]
name = "p1"
[clients.protocol]
nodes = ["redis-1", "redis-2", "redis-3"]
{protocol}
[clients.workload]
steps = ["acquire order_lock", "work 1s", "extend order_lock", "release order_lock"]

[[oracles]]
kind = "me-lock"
"#
    )
}

fn extend_rules(protocol: &str) -> Result<ExtendRules, String> {
    let s = scenario_from_toml(&file_with(protocol)).map_err(|e| {
        format!(
            "{}: {}",
            e.field.clone().unwrap_or_default(),
            e.message.clone()
        )
    })?;
    match s.clients[0].protocol.resolved() {
        ProtocolSpec::Redlock { extend, .. } => Ok(*extend),
        other => Err(format!("not Redlock: {other:?}")),
    }
}

#[test]
fn each_library_stands_for_its_extend_and_one_rule_overrides_one() {
    let of = |library: &str, version: &str| {
        extend_rules(&format!(
            "library = \"{library}\"\nversion = \"{version}\"\nttl_ms = 10000"
        ))
        .unwrap()
    };
    assert_eq!(of("redsync", "4.17"), ExtendRules::REDSYNC);
    assert_eq!(of("node-redlock", "4.2"), ExtendRules::NODE_REDLOCK_4);
    assert_eq!(
        of("node-redlock", "5.0.0-beta.2"),
        ExtendRules::NODE_REDLOCK_5
    );
    // A Redlock table without the sub-table extends as redsync does.
    let plain = "kind = \"redlock\"\nttl_ms = 10000";
    assert_eq!(extend_rules(plain), Ok(ExtendRules::REDSYNC));
    let one_rule = extend_rules(
        "library = \"node-redlock\"\nversion = \"4.2\"\nttl_ms = 10000\nextend = { unlocks_after_failure = false }",
    );
    assert_eq!(
        one_rule,
        Ok(ExtendRules {
            unlocks_after_failure: false,
            ..ExtendRules::NODE_REDLOCK_4
        })
    );
    let refused = extend_rules(
        "library = \"node-redlock\"\nversion = \"4.2\"\nttl_ms = 10000\nextend = { unlock_after_failure = true }",
    )
    .unwrap_err();
    assert!(
        refused.starts_with("clients[0].protocol.extend"),
        "{refused}"
    );
    assert!(refused.contains("unlocks_after_failure"), "{refused}");
}

#[test]
fn a_pause_inside_extend_breaks_node_redlock_5_and_not_4() {
    let broken = exhaustive("node-redlock-5-pause-during-extend");
    assert_eq!(broken.violated(), Some("me-resource"));
    let (_, path) = broken.violations()[0];
    assert!(path
        .steps
        .iter()
        .any(|s| matches!(s.action, WorldAction::Pause { .. })));
    // The debit lands after p1 resumed, at 13 s.
    assert!(path.states.last().unwrap().now_ms > 13_000);
    let safe = exhaustive("node-redlock-4-pause-during-extend");
    assert_eq!(safe.violated(), None);
    assert_eq!(safe.report.outcome, Outcome::Complete);
}
