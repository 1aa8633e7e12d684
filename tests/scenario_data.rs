//! Scenarios are data: they round-trip through serde, bad ones are refused with the field at
//! fault, and the workload options (several locks in order, several rounds) do what they say.

use lockcheck::check::{check, Mode};
use lockcheck::oracles::{believed_keys, clients};
use lockcheck::scenario::{builtin, ExpectedVerdict, ProtocolSpec, Scenario};
use lockcheck_sim::Stop;
use lockcheck_sim::{explore, BreadthFirst, Options, Outcome, Property};

#[test]
fn every_builtin_scenario_round_trips_through_json() {
    for scenario in builtin::all() {
        let json = serde_json::to_string_pretty(&scenario).unwrap();
        let back: Scenario = serde_json::from_str(&json).unwrap();
        assert_eq!(back, scenario, "{}", scenario.name);
    }
}

fn refused(mut edit: impl FnMut(&mut Scenario)) -> String {
    let mut s = builtin::seed_000_single_node();
    edit(&mut s);
    s.build()
        .map(|_| ())
        .expect_err("a bad scenario is refused")
        .to_string()
}

#[test]
fn a_reference_to_a_missing_process_names_the_field() {
    let message = refused(|s| {
        if let ProtocolSpec::SingleNode { node, .. } = &mut s.clients[1].protocol {
            *node = "redis-9".into();
        }
    });
    assert_eq!(
        message,
        "clients[1].protocol.node: no process named `redis-9`"
    );
    let message = refused(|s| s.faults.pauses[0].process = "nobody".into());
    assert_eq!(
        message,
        "faults.pauses[0].process: no process named `nobody`"
    );
}

#[test]
fn duplicate_names_impossible_values_and_missing_parts_are_refused() {
    assert!(
        refused(|s| s.clients[1].name = "redis".into()).contains("two processes are named `redis`")
    );
    assert_eq!(
        refused(|s| s.clients[0].workload.work_ms.clear()),
        "clients[0].workload.work_ms: give at least one work duration"
    );
    assert_eq!(
        refused(|s| s.clients[0].clock.drift_ppm = -1_000_000),
        "clients[0].clock.drift_ppm: a rate error must stay within ±999,999 ppm"
    );
    assert_eq!(
        refused(|s| s.clients[0].workload.uses_account = true),
        "clients[0].workload.uses_account: the scenario has no account"
    );
    assert_eq!(
        refused(
            |s| if let ProtocolSpec::SingleNode { ttl_ms, .. } = &mut s.clients[0].protocol {
                *ttl_ms = Some(0);
            }
        ),
        "clients[0].protocol.ttl_ms: must be greater than 0"
    );
}

#[test]
fn an_unknown_field_in_a_scenario_file_is_refused_by_name() {
    let mut json: serde_json::Value =
        serde_json::to_value(builtin::seed_000_single_node()).unwrap();
    json["clients"][0]["workload"]["work_time"] = 5.into();
    let err = serde_json::from_value::<Scenario>(json)
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown field `work_time`"), "{err}");
}

#[test]
fn clients_take_several_locks_in_order_over_several_rounds_without_breaking_either() {
    let mut s = builtin::seed_000_single_node();
    s.faults = Default::default();
    s.network.delays_ms = vec![1];
    for c in &mut s.clients {
        c.workload.locks = vec!["order_lock".into(), "inventory_lock".into()];
        c.workload.rounds = 2;
        c.workload.work_ms = vec![1_000, 3_000];
    }
    s.oracles = vec![lockcheck::scenario::OracleSpec::MeLock];
    s.expect = ExpectedVerdict::Safe;
    let both_held = |w: &lockcheck::oracles::RedisWorld, st: &lockcheck::oracles::RedisState| {
        clients(w).any(|(p, c)| believed_keys(w, st, p, c).len() == 2)
    };
    let rounds_done = |w: &lockcheck::oracles::RedisWorld, st: &lockcheck::oracles::RedisState| {
        clients(w).all(|(p, _)| {
            st.actor(p)
                .and_then(|a| a.as_client())
                .is_some_and(|c| c.round == 2)
        })
    };
    let world = s
        .build()
        .unwrap()
        .with_property(Property::sometimes("both-locks-held", both_held))
        .with_property(Property::sometimes("all-rounds-done", rounds_done));
    let options = Options {
        stop: Stop::Never,
        ..Options::default()
    };
    let report = explore(&world, &mut BreadthFirst::default(), options);
    assert_eq!(report.outcome, Outcome::Complete, "{report}");
    assert!(report.first_violation().is_none(), "{report}");
    assert!(report.hollow().is_empty(), "{report}");
    // And the built-in verdict machinery agrees.
    assert!(check(&s, Mode::Exhaustive)
        .unwrap()
        .as_expected(&ExpectedVerdict::Safe));
}

#[test]
fn a_liveness_bound_shorter_than_the_ttl_is_violated_after_a_crash_or_a_partition() {
    for mut s in [
        builtin::single_node_holder_crash(),
        builtin::single_node_holder_partitioned(),
    ] {
        s.oracles = vec![lockcheck::scenario::OracleSpec::Liveness { bound_ms: 5_000 }];
        let checked = check(&s, Mode::Exhaustive).unwrap();
        assert_eq!(
            checked.violated(),
            Some("liveness"),
            "{}\n{}",
            s.name,
            checked.report
        );
    }
}

/// The scenario files named after built-ins (the Redlock baseline, seed 003's dense GC
/// period and its ignored `tryLock`, the replica lag, library profiles, workloads as steps)
/// are the built-ins,
/// field for field.
#[test]
fn the_scenario_files_named_after_built_ins_are_the_built_ins() {
    for name in [
        "redlock-baseline-safe",
        "redlock-pause-and-clock-step",
        "seed-003-dense-gc",
        "seed-003-trylock-result-ignored",
        "min-replicas-lag-refuses-writes",
        "node-redlock-wall-clock-step",
        "node-redlock-5-pause-during-acquire",
        "node-redlock-5-using-pause-unchecked",
        "steps-read-and-debit-under-different-locks",
        "steps-try-acquire-then-wait",
        "redisson-priority-promotes-unsynced",
        "sentinel-majority-fails-over",
    ] {
        let path = format!("{}/scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        let file = lockcheck::scenario::file::load_scenario(&path)
            .unwrap_or_else(|e| panic!("{path}: {}", e.message));
        assert_eq!(Some(file), builtin::by_name(name), "{path}");
    }
}
