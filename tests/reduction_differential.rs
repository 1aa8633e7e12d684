//! Partial-order and symmetry reduction and the dead-values reduction lose nothing: with them and without them, every built-in scenario
//! and random small scenarios get the same verdict for every oracle (violated or holds), the
//! same set of `sometimes` witnesses, and the same completeness, breadth-first and
//! depth-first; every counterexample the reduced search finds is a real path of the full
//! model (it replays without reduction).
//!
//! Both searches explore the whole space (no stop at the first violation), so each property
//! ends with its final status. A scenario whose full space exceeds the cap is compared only
//! on what both searches settled, and the test requires most scenarios to be compared whole.

mod common;

use common::verdicts::{complete, verdicts};

use lockcheck::check::{check_with, Checked, Mode};
use lockcheck::model::process::ProcessState;
use lockcheck::oracles::{self, RedisWorld};
use lockcheck::scenario::file::scenario_from_json;
use lockcheck::scenario::{builtin, Scenario};
use lockcheck::testing::fault_schedule;
use lockcheck_sim::world::ProcessId;
use lockcheck_sim::{
    explore, explore_shard, replay, BreadthFirst, DeadValues, DepthFirst, FpHasher, Outcome,
    Property, Reductions, ShardPlan, Status, Symmetry, Trace,
};
use proptest::prelude::*;
use serde_json::json;
use std::hash::{Hash, Hasher};

/// The full breadth-first search of `scenario` with or without reductions, capped at
/// `max_states`, with its oracles and a "wins first" witness per client.
fn search(scenario: &Scenario, reductions: Reductions, max_states: u64) -> Checked {
    search_with(scenario, reductions, max_states, false)
}

/// [`search`], depth-first when asked.
fn search_with(
    scenario: &Scenario,
    reductions: Reductions,
    max_states: u64,
    depth_first: bool,
) -> Checked {
    let mut world = scenario.build().expect("scenario builds");
    let clients: Vec<ProcessId> = oracles::clients(&world).map(|(p, _)| p).collect();
    for &p in &clients {
        world.properties.push(wins_first(&world, p));
    }
    let options = lockcheck_sim::Options {
        stop: lockcheck_sim::Stop::Never,
        reductions,
        limits: lockcheck_sim::Limits {
            max_states: Some(max_states),
            ..scenario.explore.options().limits
        },
        ..scenario.explore.options()
    };
    let report = if depth_first {
        explore(&world, &mut DepthFirst::default(), options)
    } else {
        explore(&world, &mut BreadthFirst::default(), options)
    };
    Checked { world, report }
}

/// Witness: client `p` believes it holds a lock while every other client is still in its
/// first round (who wins a race, which an order of same-instant events decides).
fn wins_first(world: &RedisWorld, p: ProcessId) -> Property<RedisWorld> {
    let name = format!("{}-wins-first", world.process_name(p));
    let round = |s: &oracles::RedisState, q: ProcessId| {
        s.actor(q)
            .and_then(ProcessState::as_client)
            .map_or(u32::MAX, |c| c.round)
    };
    Property::sometimes(name, move |w: &RedisWorld, s: &oracles::RedisState| {
        oracles::clients(w).any(|(q, c)| q == p && !oracles::believed_keys(w, s, q, c).is_empty())
            && oracles::clients(w).all(|(q, _)| q == p || round(s, q) == 0)
    })
    .observing_digest(
        oracles::on_a_client,
        move |w: &RedisWorld, s: &oracles::RedisState| {
            let mut h = FpHasher::new();
            for (q, _) in oracles::clients(w) {
                round(s, q).hash(&mut h);
            }
            oracles::beliefs_digest(w, s).hash(&mut h);
            h.finish()
        },
    )
}

/// Compares a reduced and a full search of `scenario`; returns whether both were complete.
fn compare(scenario: &Scenario, max_states: u64) -> bool {
    let full = search(scenario, Reductions::none(), max_states);
    let reduced = search(scenario, Reductions::all(), max_states);
    let reduced_dfs = search_with(scenario, Reductions::all(), max_states, true);
    let name = &scenario.name;
    if complete(&reduced_dfs) && complete(&full) {
        assert_eq!(
            verdicts(&reduced_dfs),
            verdicts(&full),
            "{name}: verdicts differ (depth-first, reduced)"
        );
    }
    assert!(
        reduced.report.stats.unique_states <= full.report.stats.unique_states || !complete(&full),
        "{name}: the reduced search stored more states than the full one"
    );
    if complete(&reduced) && complete(&full) {
        assert_eq!(
            verdicts(&reduced),
            verdicts(&full),
            "{name}: verdicts differ"
        );
        assert_eq!(
            reduced.report.outcome, full.report.outcome,
            "{name}: completeness differs"
        );
    }
    // Whatever the reduced search found must be real in the full model.
    for p in &reduced.report.properties {
        if let Status::Violated(path) | Status::Witnessed(path) = &p.status {
            let trace = Trace::from_path(&reduced.world, path, Some(&p.name));
            let again = replay(&reduced.world, &trace)
                .unwrap_or_else(|e| panic!("{name}: {} does not replay: {e}", p.name));
            let status = &again.report.property(&p.name).unwrap().status;
            assert_eq!(status.word(), p.status.word(), "{name}: {} replays", p.name);
        }
    }
    complete(&reduced) && complete(&full)
}

/// Symmetry reduction alone against the full search: same verdicts, and the search says
/// whether it ran or, naming the processes, why not.
fn compare_symmetry(scenario: &Scenario, max_states: u64) {
    let symmetry_only = Reductions {
        partial_order: false,
        symmetry: true,
        dead_values: false,
    };
    let full = search(scenario, Reductions::none(), max_states);
    let reduced = search(scenario, symmetry_only, max_states);
    let name = &scenario.name;
    match &reduced.report.plan.symmetry {
        Symmetry::On(groups) => assert!(!groups.is_empty(), "{name}"),
        Symmetry::Unavailable(why) => assert!(
            reduced
                .world
                .processes
                .iter()
                .any(|p| why.contains(&p.name))
                || why.starts_with("no two processes")
                || why.starts_with("property "),
            "{name}: the reason names processes or a property: {why}"
        ),
        Symmetry::Off => panic!("{name}: symmetry was asked for"),
    }
    if complete(&reduced) && complete(&full) {
        assert_eq!(
            verdicts(&reduced),
            verdicts(&full),
            "{name}: verdicts differ (symmetry)"
        );
    }
}

#[test]
fn every_builtin_scenario_gets_the_same_verdicts_with_and_without_symmetry() {
    for scenario in builtin::all() {
        compare_symmetry(&scenario, 20_000);
    }
}

/// The dead-values reduction alone against the full search: same verdicts and completeness,
/// and the same witnesses.
fn compare_dead_values(scenario: &Scenario, max_states: u64) {
    let dead_values_only = Reductions {
        dead_values: true,
        ..Reductions::none()
    };
    let full = search(scenario, Reductions::none(), max_states);
    let reduced = search(scenario, dead_values_only, max_states);
    let name = &scenario.name;
    assert_eq!(reduced.report.plan.dead_values, DeadValues::On, "{name}");
    assert_eq!(full.report.plan.dead_values, DeadValues::Off, "{name}");
    if complete(&reduced) && complete(&full) {
        assert_eq!(
            verdicts(&reduced),
            verdicts(&full),
            "{name}: verdicts differ (dead values)"
        );
        assert_eq!(
            reduced.report.outcome, full.report.outcome,
            "{name}: completeness differs (dead values)"
        );
        assert!(
            reduced.report.stats.dead_values_states_met <= full.report.stats.unique_states,
            "{name}: the reduced search met states the full one does not have"
        );
    }
}

#[test]
fn every_builtin_scenario_gets_the_same_verdicts_with_and_without_dead_values() {
    for scenario in builtin::all() {
        compare_dead_values(&scenario, 20_000);
    }
}

#[test]
fn every_builtin_scenario_gets_the_same_verdicts_with_and_without_reduction() {
    let all = builtin::all();
    let compared = all.iter().filter(|s| compare(s, 40_000)).count();
    assert!(
        compared * 3 >= all.len() * 2,
        "only {compared} of {} built-ins were compared whole",
        all.len()
    );
}

/// Two clients whose requests reach the node in the same millisecond: the order of those two
/// deliveries decides who wins, and each order must be explored.
#[test]
fn a_race_decided_by_same_instant_order_can_be_won_by_either_client_with_reduction() {
    for protocol in ["single_owner", "redlock_mux"] {
        let scenario = small_world(protocol, false, 2_000, &[300], 200, 0, 0);
        assert!(
            compare(&scenario, 200_000),
            "{protocol}: both searches complete"
        );
        let reduced = search(&scenario, Reductions::all(), 200_000);
        for name in ["a-wins-first", "b-wins-first"] {
            let status = &reduced.report.property(name).unwrap().status;
            assert!(
                matches!(status, Status::Witnessed(_)),
                "{protocol}: {name} is witnessed"
            );
        }
    }
}

/// A race the order of a resumed process's overdue timers decides, judged by an oracle that
/// sees only the account: the routine's write against the overdue extension that aborts its
/// signal. Partial-order reduction may explore the client's actions alone there, and must
/// keep both orders (treating its overdue timers as independent loses the violation).
#[test]
fn a_race_decided_by_the_resume_order_is_found_with_and_without_reduction() {
    let scenario = builtin::by_name("node-redlock-5-using-write-before-abort").unwrap();
    for reductions in [Reductions::none(), Reductions::all()] {
        let options = lockcheck_sim::Options {
            reductions,
            ..scenario.explore.options()
        };
        let checked = check_with(&scenario, Mode::Exhaustive, options).unwrap();
        assert_eq!(checked.violated(), Some("me-resource"), "{reductions:?}");
    }
}

/// A small random world: one or three nodes, two clients of one protocol (node-redlock
/// 5's among them), one or two delay values, client clock drift, and a random fault envelope over every process.
fn small_scenario() -> impl Strategy<Value = Scenario> {
    small_scenario_of(prop_oneof![
        Just("single_owner"),
        Just("single_del"),
        Just("redlock_seq"),
        Just("redlock_mux"),
        Just("redlock_node_5"),
        Just("redisson"),
    ])
}

/// node-redlock 5 with a 600 ms TTL and a job of 1.5 to 2 s: `using` extends the lock
/// every 100 ms or so, and the faults (pauses, node clock steps) make extensions fail and
/// retry.
fn extending_node_redlock_5_scenario() -> impl Strategy<Value = Scenario> {
    (1_500u64..=2_000, 100u64..=300).prop_flat_map(|(work_ms, retry_ms)| {
        let scenario = small_world("redlock_node_5", false, 600, &[work_ms], retry_ms, 0, 0);
        let processes: Vec<String> = ["r1", "r2", "r3", "a", "b"].map(String::from).to_vec();
        let clients = vec!["a".to_string(), "b".to_string()];
        (Just(scenario), fault_schedule(processes, clients, 1_000)).prop_map(
            |(mut scenario, faults)| {
                scenario.faults = faults;
                scenario
            },
        )
    })
}

/// [`small_scenario`] with the protocol drawn from `protocol`.
fn small_scenario_of(
    protocol: impl Strategy<Value = &'static str>,
) -> impl Strategy<Value = Scenario> {
    (
        protocol,
        prop::bool::ANY,
        1_000u64..=3_000,
        prop::collection::vec(100u64..=800, 1..=2),
        100u64..=400,
        -20_000i64..=20_000,
        prop_oneof![Just(0u64), 0u64..=300],
    )
        .prop_flat_map(
            |(protocol, two_delays, ttl_ms, work_ms, retry_ms, ppm, start_b)| {
                let scenario = small_world(
                    protocol, two_delays, ttl_ms, &work_ms, retry_ms, ppm, start_b,
                );
                let clients: Vec<String> =
                    scenario.clients.iter().map(|c| c.name.clone()).collect();
                let processes: Vec<String> = scenario
                    .nodes
                    .iter()
                    .map(|n| n.name.clone())
                    .chain(clients.iter().cloned())
                    .collect();
                (Just(scenario), fault_schedule(processes, clients, 2_000))
            },
        )
        .prop_map(|(mut scenario, faults)| {
            scenario.faults = faults;
            scenario
        })
}

fn small_world(
    protocol: &str,
    two_delays: bool,
    ttl_ms: u64,
    work_ms: &[u64],
    retry_ms: u64,
    ppm: i64,
    start_b: u64,
) -> Scenario {
    let nodes: Vec<&str> = if protocol.starts_with("redlock") {
        vec!["r1", "r2", "r3"]
    } else {
        vec!["r1"]
    };
    let protocol = match protocol {
        "single_owner" | "single_del" => json!({
            "kind": "single_node", "node": "r1", "ttl_ms": ttl_ms, "retry_ms": retry_ms,
            "release": if protocol == "single_del" { "plain_del" } else { "owner_checked" },
        }),
        "redisson" => json!({"kind": "redisson", "node": "r1", "lease_ms": ttl_ms}),
        // node-redlock 5: early decisions, no undo between attempts, the validity from
        // the first attempt and unchecked, no request timeout, and `using`'s extension.
        "redlock_node_5" => json!({
            "library": "node-redlock", "version": "5", "nodes": nodes, "ttl_ms": ttl_ms,
            "retry_ms": [retry_ms], "max_attempts": 3, "auto_extension": {},
        }),
        _ => json!({
            "kind": "redlock", "nodes": nodes, "ttl_ms": ttl_ms, "retry_ms": [retry_ms],
            "dispatch": if protocol == "redlock_mux" { "multiplexed" } else { "sequential" },
        }),
    };
    let client = |name: &str, start: u64, drift_ppm: i64| {
        json!({
            "name": name, "protocol": protocol, "clock": {"drift_ppm": drift_ppm},
            "workload": {"locks": ["job"], "work_ms": work_ms, "start_after_ms": start,
                         "uses_account": true},
        })
    };
    let text = json!({
        "name": "generated",
        "description": "a small random world",
        "nodes": nodes.iter().map(|n| json!({"name": n})).collect::<Vec<_>>(),
        "clients": [client("a", 0, ppm), client("b", start_b, 0)],
        "account": {},
        "network": {"delays_ms": if two_delays { vec![1, 2] } else { vec![1] }},
        "oracles": [{"kind": "me-lock"}, {"kind": "me-resource"},
                    {"kind": "pause-while-holding"}, {"kind": "lock-overlap"}],
        "expect": {"verdict": "safe"},
    })
    .to_string();
    scenario_from_json(&text).unwrap_or_else(|e| panic!("generated scenario: {e:?}\n{text}"))
}

/// Each reduction on and off ([`compare`], [`compare_symmetry`], [`compare_dead_values`]),
/// and the same state space breadth-first and depth-first: the fingerprint abstracts the
/// engines' times (relative, clamped); were it to merge states that differ, the space
/// explored would depend on the search order.
fn compare_each_reduction_and_search_order(scenario: &Scenario) {
    compare(scenario, 20_000);
    compare_symmetry(scenario, 20_000);
    compare_dead_values(scenario, 20_000);
    let bfs = search_with(scenario, Reductions::none(), 20_000, false);
    let dfs = search_with(scenario, Reductions::none(), 20_000, true);
    if bfs.report.outcome == Outcome::Complete {
        assert_eq!(
            bfs.report.stats.unique_states,
            dfs.report.stats.unique_states
        );
    }
}

/// The relative-time fingerprint is exact only if it includes each drifting clock's phase
/// (see `ClockSpec::phase`): without it, depth-first and breadth-first search stored
/// different numbers of states for this world, whose client clock runs 10,577 ppm fast.
#[test]
fn search_order_does_not_change_the_state_space_of_a_drifting_world() {
    let scenario = small_world("redlock_seq", true, 1_028, &[102], 320, 10_577, 255);
    let world = scenario.build().unwrap();
    let options = || lockcheck_sim::Options {
        stop: lockcheck_sim::Stop::Never,
        ..lockcheck_sim::Options::default()
    };
    let bfs = explore(&world, &mut BreadthFirst::default(), options());
    let dfs = explore(&world, &mut DepthFirst::default(), options());
    assert_eq!(bfs.outcome, Outcome::Complete);
    assert_eq!(bfs.stats.unique_states, dfs.stats.unique_states);
}

/// Three shards, each with every reduction (partial order among them): a property is
/// violated or witnessed by some shard exactly when the unsharded reduced search violates or
/// witnesses it. Compared when every search completes within `max_states`.
fn compare_sharded(scenario: &Scenario, max_states: u64) {
    let whole = search(scenario, Reductions::all(), max_states);
    if whole.report.outcome != Outcome::Complete {
        return;
    }
    let options = || lockcheck_sim::Options {
        stop: lockcheck_sim::Stop::Never,
        reductions: Reductions::all(),
        limits: lockcheck_sim::Limits {
            max_states: Some(max_states),
            ..scenario.explore.options().limits
        },
        ..scenario.explore.options()
    };
    let hit = |s: &Status<RedisWorld>| matches!(s, Status::Violated(_) | Status::Witnessed(_));
    let mut found = vec![false; whole.report.properties.len()];
    for k in 0..3 {
        let plan = ShardPlan::new(3, k).unwrap().with_roots_per_shard(4);
        let shard = explore_shard(&whole.world, plan, options());
        if shard.report.outcome != Outcome::Complete {
            return;
        }
        for (f, p) in found.iter_mut().zip(&shard.report.properties) {
            *f |= hit(&p.status);
        }
    }
    for (f, w) in found.iter().zip(&whole.report.properties) {
        assert_eq!(*f, hit(&w.status), "{}: {}", scenario.name, w.name);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, .. ProptestConfig::default() })]

    #[test]
    fn generated_scenarios_get_the_same_verdicts_from_reduced_shards_as_unsharded(
        scenario in small_scenario()
    ) {
        compare_sharded(&scenario, 20_000);
    }

    #[test]
    fn generated_scenarios_get_the_same_verdicts_with_and_without_reduction(
        scenario in small_scenario()
    ) {
        compare(&scenario, 20_000);
    }

    #[test]
    fn generated_scenarios_get_the_same_verdicts_with_and_without_dead_values(
        scenario in small_scenario()
    ) {
        compare_dead_values(&scenario, 20_000);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, .. ProptestConfig::default() })]

    /// node-redlock 5's rules (a sweep decided before every node answered, keys left by a
    /// failed attempt, the validity from the first attempt, the extension's timer and
    /// retries) under every reduction.
    #[test]
    fn generated_node_redlock_5_worlds_get_the_same_verdicts_with_and_without_each_reduction(
        scenario in prop_oneof![
            small_scenario_of(Just("redlock_node_5")),
            extending_node_redlock_5_scenario(),
        ]
    ) {
        compare_each_reduction_and_search_order(&scenario);
    }
}

/// A round written as steps over the locks `job` and `audit`: the first acquire bounded by
/// `within_ms` or not, a re-entrant second hold, a second lock, an extension of `job` after
/// the work, the first hold given back before the debit or after it; everything still held
/// released innermost first.
fn generated_steps(
    within_ms: Option<u64>,
    reentrant: bool,
    second_lock: bool,
    release_before_debit: bool,
    work_ms: u64,
    extend: bool,
) -> Vec<String> {
    let mut held: Vec<&str> = vec!["job"];
    let mut steps = vec![match within_ms {
        Some(ms) => format!("try-acquire job within {ms}ms"),
        None => "acquire job".to_string(),
    }];
    if reentrant {
        steps.push("acquire job".into());
        held.push("job");
    }
    steps.push("read".into());
    if second_lock {
        steps.push("acquire audit".into());
        held.push("audit");
    }
    steps.push(format!("work {work_ms}ms"));
    if extend {
        steps.push("extend job by 300ms".into());
    }
    if release_before_debit {
        steps.push("release job".into());
        let at = held.iter().rposition(|l| *l == "job").unwrap();
        held.remove(at);
    }
    steps.push("debit".into());
    steps.extend(held.iter().rev().map(|l| format!("release {l}")));
    steps
}

/// Two clients alike (so that symmetry applies) running generated steps on a single-node
/// lock or on Redisson (re-entrant), with an `on_fail` rule and a fault schedule.
fn step_workload_scenario() -> impl Strategy<Value = Scenario> {
    (
        prop_oneof![Just("single_owner"), Just("redisson")],
        prop_oneof![Just(None), (50u64..=400).prop_map(Some)],
        prop::bool::ANY,
        prop::bool::ANY,
        prop::bool::ANY,
        100u64..=600,
        prop_oneof![Just("end_round"), Just("proceed"), Just("unlock")],
    )
        .prop_flat_map(
            |(protocol, within, reentrant, second, early, work_ms, on_fail)| {
                let mut scenario = small_world(protocol, true, 1_000, &[work_ms], 200, 0, 0);
                // redis-py's extension, on the single-node lock (Redisson has none).
                let extend = protocol == "single_owner" && work_ms % 2 == 0;
                let steps = generated_steps(within, reentrant, second, early, work_ms, extend);
                for c in &mut scenario.clients {
                    let w = &mut c.workload;
                    w.locks.clear();
                    w.work_ms.clear();
                    w.uses_account = false;
                    w.steps = steps.clone();
                    w.on_fail = serde_json::from_value(json!(on_fail)).unwrap();
                }
                let processes = ["r1", "a", "b"].map(String::from).to_vec();
                let clients = vec!["a".to_string(), "b".to_string()];
                (Just(scenario), fault_schedule(processes, clients, 1_500))
            },
        )
        .prop_map(|(mut scenario, faults)| {
            scenario.faults = faults;
            scenario
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, .. ProptestConfig::default() })]

    /// Workloads written as steps (re-entrant holds, a second lock, a release before the
    /// debit, a bounded wait, every `on_fail`) under every reduction.
    #[test]
    fn generated_step_workloads_get_the_same_verdicts_with_and_without_each_reduction(
        scenario in step_workload_scenario()
    ) {
        compare_each_reduction_and_search_order(&scenario);
    }
}
