//! Symmetry over interchangeable Redlock nodes loses nothing: a Redlock client that asks its
//! nodes at once lets them trade places (its sweep's per-node slots permuted), and the search
//! with symmetry reduction reaches the same verdict for every oracle, the same `sometimes`
//! witnesses and the same completeness as the full search, on the built-ins where it runs and
//! on random small worlds whose fault envelope treats the nodes alike. Counterexamples found
//! with it replay in the full model. Nodes a client asks one after another never trade
//! places.
//!
//! The searches judge the scenarios' own oracles, which all declare themselves symmetric
//! (the other differential tests add a per-client witness, which turns symmetry off).

mod common;

use common::verdicts::{complete, verdicts};

use lockcheck::check::Checked;
use lockcheck::oracles::{RedisState, RedisWorld};
use lockcheck::scenario::file::scenario_from_json;
use lockcheck::scenario::{builtin, Scenario};
use lockcheck_sim::world::{Renaming, SymmetryRequest};
use lockcheck_sim::{explore, replay, BreadthFirst, Model, Reductions, Status, Symmetry, Trace};
use proptest::prelude::*;
use serde_json::json;
use std::collections::{BTreeSet, VecDeque};

/// The whole breadth-first search of `scenario` (no stop at a violation), capped.
fn search(scenario: &Scenario, reductions: Reductions, max_states: u64) -> Checked {
    let world = scenario.build().expect("scenario builds");
    let options = lockcheck_sim::Options {
        stop: lockcheck_sim::Stop::Never,
        reductions,
        limits: lockcheck_sim::Limits {
            max_states: Some(max_states),
            ..scenario.explore.options().limits
        },
        ..scenario.explore.options()
    };
    let report = explore(&world, &mut BreadthFirst::default(), options);
    Checked { world, report }
}

fn symmetry_only() -> Reductions {
    Reductions {
        symmetry: true,
        ..Reductions::none()
    }
}

/// The groups symmetry ran over, as the report describes them (`None` when it did not run).
fn groups(c: &Checked) -> Option<&str> {
    match &c.report.plan.symmetry {
        Symmetry::On(groups) => Some(groups),
        _ => None,
    }
}

/// Compares symmetry reduction alone with the full search; returns whether symmetry ran and
/// both searches were complete (so that the comparison was whole).
fn compare(scenario: &Scenario, max_states: u64) -> bool {
    let full = search(scenario, Reductions::none(), max_states);
    let reduced = search(scenario, symmetry_only(), max_states);
    let name = &scenario.name;
    let whole = complete(&full) && complete(&reduced);
    if whole {
        assert_eq!(
            verdicts(&reduced),
            verdicts(&full),
            "{name}: verdicts differ"
        );
        assert!(
            reduced.report.stats.unique_states <= full.report.stats.unique_states,
            "{name}: symmetry stored more states"
        );
    }
    for p in &reduced.report.properties {
        if let Status::Violated(path) | Status::Witnessed(path) = &p.status {
            let trace = Trace::from_path(&reduced.world, path, Some(&p.name));
            let again = replay(&full.world, &trace)
                .unwrap_or_else(|e| panic!("{name}: {} does not replay: {e}", p.name));
            let status = &again.report.property(&p.name).unwrap().status;
            assert_eq!(status.word(), p.status.word(), "{name}: {} replays", p.name);
        }
    }
    whole && groups(&reduced).is_some()
}

#[test]
fn redlock_builtins_get_the_same_verdicts_with_and_without_node_symmetry() {
    let mut whole = Vec::new();
    for scenario in builtin::all() {
        if compare(&scenario, 30_000) {
            whole.push(scenario.name.clone());
        }
    }
    for name in ["redlock-split-vote", "redlock-split-vote-progress"] {
        assert!(
            whole.iter().any(|w| w == name),
            "{name} was not compared whole with node symmetry on (compared: {whole:?})"
        );
    }
}

#[test]
fn the_fault_free_redlock_stores_far_fewer_states_with_its_five_nodes_interchangeable() {
    let scenario = builtin::by_name("redlock-baseline-safe").expect("a built-in");
    let full = search(&scenario, Reductions::none(), 1_000_000);
    let reduced = search(&scenario, symmetry_only(), 1_000_000);
    assert!(complete(&full) && complete(&reduced));
    assert_eq!(verdicts(&reduced), verdicts(&full));
    let on = groups(&reduced).unwrap_or_default();
    assert!(
        on.starts_with("{redis-1, redis-2, redis-3, redis-4, redis-5}"),
        "{on}"
    );
    let (f, r) = (
        full.report.stats.unique_states,
        reduced.report.stats.unique_states,
    );
    assert!(r * 5 < f, "{r} states with symmetry, {f} without");
}

#[test]
fn nodes_asked_one_after_another_never_trade_places() {
    let scenario = redlock_world(json!("sequential"), &[1], 2_000, &[], "[]", 0);
    let reduced = search(&scenario, symmetry_only(), 10_000);
    match &reduced.report.plan.symmetry {
        Symmetry::Unavailable(why) => assert!(
            why.contains("r1") && why.contains("an order that matters"),
            "{why}"
        ),
        other => panic!("symmetry ran over nodes asked in order: {other:?}"),
    }
}

/// A Redlock world on three nodes: two clients (`b` starting `start_b_ms` later), the
/// dispatch given, `delays_ms` on every link, and a fault envelope that treats the three
/// nodes alike: `crash_restart_ms` lists the restart delays of a crash any node may suffer
/// (none when empty), `client_pauses` the clients' pauses as JSON.
fn redlock_world(
    dispatch: serde_json::Value,
    delays_ms: &[u64],
    ttl_ms: u64,
    crash_restart_ms: &[u64],
    client_pauses: &str,
    start_b_ms: u64,
) -> Scenario {
    let nodes = ["r1", "r2", "r3"];
    let protocol = json!({
        "kind": "redlock", "nodes": nodes, "ttl_ms": ttl_ms, "retry_ms": [150],
        "dispatch": dispatch, "node_timeout_ms": 40, "acquire_timeout_ms": 3_000,
    });
    let client = |name: &str, start: u64| {
        json!({
            "name": name, "protocol": protocol,
            "workload": {"locks": ["job"], "work_ms": [ttl_ms / 2, ttl_ms * 2],
                         "start_after_ms": start, "uses_account": true},
        })
    };
    let crashes: Vec<_> = if crash_restart_ms.is_empty() {
        Vec::new()
    } else {
        nodes
            .iter()
            .map(|n| json!({"process": n, "restart_after_ms": crash_restart_ms}))
            .collect()
    };
    let pauses: serde_json::Value = serde_json::from_str(client_pauses).expect("pauses");
    let text = json!({
        "name": "generated-redlock",
        "description": "three interchangeable Redlock nodes",
        "nodes": nodes.iter().map(|n| json!({"name": n})).collect::<Vec<_>>(),
        "clients": [client("a", 0), client("b", start_b_ms)],
        "account": {},
        "network": {"delays_ms": delays_ms},
        "faults": {"crashes": crashes, "max_crashes": if crashes.is_empty() { 0 } else { 2 },
                   "pauses": pauses, "max_pauses": 1},
        "oracles": [{"kind": "me-lock"}, {"kind": "me-resource"},
                    {"kind": "pause-while-holding"}, {"kind": "lock-overlap"},
                    {"kind": "every-client-done"}],
    })
    .to_string();
    scenario_from_json(&text).unwrap_or_else(|e| panic!("generated scenario: {e:?}\n{text}"))
}

fn small_redlock_world() -> impl Strategy<Value = Scenario> {
    (
        // Every node at once, or one node first and the other two (which alone trade
        // places) at once.
        prop_oneof![
            Just(json!("multiplexed")),
            Just(json!({"local_first": {"local": 1}}))
        ],
        prop::bool::ANY,
        200u64..=600,
        prop::collection::vec(0u64..=400, 0..=2),
        prop::option::of(100u64..=900),
        0u64..=60,
    )
        .prop_map(
            |(dispatch, two_delays, ttl_ms, restarts, pause_ms, start_b)| {
                let pauses = match pause_ms {
                    Some(ms) => json!([{"process": "a", "durations_ms": [ms]}]).to_string(),
                    None => "[]".to_string(),
                };
                let delays: &[u64] = if two_delays { &[1, 2] } else { &[1] };
                redlock_world(dispatch, delays, ttl_ms, &restarts, &pauses, start_b)
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn generated_redlock_worlds_get_the_same_verdicts_with_and_without_node_symmetry(
        scenario in small_redlock_world()
    ) {
        let reduced = search(&scenario, symmetry_only(), 1);
        prop_assert!(
            groups(&reduced).is_some_and(|g| g.contains("r2, r3")),
            "node symmetry did not run: {:?}",
            reduced.report.plan.symmetry
        );
        compare(&scenario, 40_000);
    }
}

/// Every state of `world` reachable within `max_states` (all of them, or `None` past the
/// cap), by a plain breadth-first enumeration of the model.
fn reachable(world: &RedisWorld, max_states: usize) -> Option<Vec<RedisState>> {
    let mut seen = BTreeSet::new();
    let mut states = Vec::new();
    let mut queue: VecDeque<RedisState> = world.init_states().into();
    let mut actions = Vec::new();
    while let Some(s) = queue.pop_front() {
        if !seen.insert(world.fingerprint(&s)) {
            continue;
        }
        if seen.len() > max_states {
            return None;
        }
        actions.clear();
        world.actions(&s, &mut actions);
        queue.extend(actions.iter().filter_map(|a| world.next_state(&s, a)));
        states.push(s);
    }
    Some(states)
}

/// The soundness rule itself, on every reachable state: renaming a state by a transposition
/// of a symmetry group gives a state the model reaches too (the initial state is symmetric,
/// so the image of a run is a run). A renaming hook that forgot part of a process's state
/// (a slot left in its old position) gives states no run reaches. States with a message
/// still to route are left out: the world routes one handler's sends in send order, so the
/// image of such a state may have routed another of them first, which no run does, though
/// every state reached once all are routed is reached (see `world::canonical`).
fn images_are_reachable(scenario: &Scenario, max_states: usize) -> bool {
    let world = scenario.build().expect("scenario builds");
    let Some(states) = reachable(&world, max_states) else {
        return false;
    };
    let groups = world
        .symmetry_groups(&SymmetryRequest::Inferred)
        .expect("the world has symmetry");
    let fingerprints: BTreeSet<_> = states.iter().map(|s| world.fingerprint(s)).collect();
    let n = world.processes.len();
    for group in &groups.groups {
        for (i, &a) in group.iter().enumerate() {
            for &b in &group[i + 1..] {
                let swap = Renaming::swap(n, a, b);
                for s in states.iter().filter(|s| s.unrouted.is_empty()) {
                    let image = world.rename(s, &swap, &groups);
                    assert!(
                        fingerprints.contains(&world.fingerprint(&image)),
                        "{}: swapping {} and {} gives a state no run reaches, from {s:?}",
                        scenario.name,
                        world.process_name(a),
                        world.process_name(b)
                    );
                }
            }
        }
    }
    true
}

#[test]
fn renaming_interchangeable_nodes_maps_reachable_states_to_reachable_states() {
    let scenario = builtin::by_name("redlock-split-vote").expect("a built-in");
    assert!(images_are_reachable(&scenario, 200_000));
    // A crash of any node with one delay; two delays with the clients one after the other
    // (with two delays, contention alone passes 300,000 states).
    let at_once = json!("multiplexed");
    let local_first = json!({"local_first": {"local": 1}});
    for (dispatch, delays, restarts, start_b) in [
        (&at_once, &[1u64][..], &[100u64][..], 20),
        (&at_once, &[1, 2], &[], 1_000),
        (&local_first, &[1], &[100], 20),
    ] {
        let scenario = redlock_world(dispatch.clone(), delays, 300, restarts, "[]", start_b);
        assert!(
            images_are_reachable(&scenario, 300_000),
            "the world ({dispatch}, delays {delays:?}) is small enough to enumerate"
        );
    }
}
