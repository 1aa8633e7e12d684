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

/// node-redlock 4 on three nodes, cut from `cut` (for good, at 500 ms, after the acquire)
/// before its `extend` at 1 s.
fn extend_cut_from(cut: &[&str]) -> lockcheck::scenario::Scenario {
    let nodes: Vec<String> = cut.iter().map(|n| format!("\"{n}\"")).collect();
    let text = file_with("library = \"node-redlock\"\nversion = \"4.2\"\nttl_ms = 10000\nnode_timeout_ms = 2000\n")
        .replace(
            "[[oracles]]\nkind = \"me-lock\"",
            &format!(
                "[faults]\nmax_partitions = 1\n[[faults.partitions]]\nname = \"cut\"\nside_a = [\"p1\"]\nside_b = [{}]\ndurations_ms = [\"never\"]\nwhen = {{ at_ms = \"500ms\" }}\n\n[[oracles]]\nkind = \"me-lock\"\n[[oracles]]\nkind = \"every-client-done\"",
                nodes.join(", ")
            ),
        );
    scenario_from_toml(&text).unwrap()
}

/// The labels of the run of `scenario` in which the cut comes at 500 ms, until 60 s.
fn run_with_the_cut(scenario: &lockcheck::scenario::Scenario) -> Vec<String> {
    let world = scenario.build().unwrap();
    let cut = lockcheck_sim::ScriptedFault::new(500, "partition cut for good");
    let path = lockcheck_sim::run_script(&world, &[cut], 60_000, 10_000).unwrap();
    (path.steps.iter().zip(&path.states))
        .map(|(step, state)| lockcheck_sim::Model::label(&world, state, &step.action))
        .collect()
}

/// The index of the first label at or after `from` that contains `text`.
fn first(labels: &[String], from: usize, text: &str) -> Option<usize> {
    (labels.iter().enumerate().skip(from)).find_map(|(i, l)| l.contains(text).then_some(i))
}

#[test]
fn an_extend_whose_nodes_never_answer_times_out_and_node_redlock_4_then_unlocks() {
    // One node silent: the extension's requests time out after node_timeout_ms, two of
    // three extended (a quorum), and the job releases and ends, long before the run's 60 s.
    let labels = run_with_the_cut(&extend_cut_from(&["redis-3"]));
    let extend = first(&labels, 0, "compare-and-pexpire").expect("the extend is sent");
    let timed_out = first(&labels, extend, "requests timed out")
        .unwrap_or_else(|| panic!("the extension waits for the silent node for good: {labels:#?}"));
    let release = first(&labels, timed_out, "compare-and-delete").expect("then the release");
    assert_eq!(first(&labels, 0, "retry"), None, "{labels:#?}");
    assert!(labels[release..]
        .iter()
        .any(|l| l.contains("-> p1: (integer) 1")));
    // Two nodes silent: the extension fails when they time out, and node-redlock 4 unlocks
    // (compare-and-delete) before it tries to extend again.
    let labels = run_with_the_cut(&extend_cut_from(&["redis-2", "redis-3"]));
    let extend = first(&labels, 0, "compare-and-pexpire").expect("the extend is sent");
    let timed_out = first(&labels, extend, "requests timed out").unwrap_or_else(|| {
        panic!("the extension waits for the silent nodes for good: {labels:#?}")
    });
    let unlock = first(&labels, timed_out, "compare-and-delete").expect("an unlock");
    let again = first(&labels, timed_out, "retry").expect("a second extend");
    assert!(unlock < again, "{labels:#?}");
}
