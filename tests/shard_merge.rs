//! Sharded search loses nothing and invents nothing: for every built-in scenario that
//! completes within the cap, N shards merged give the unsharded breadth-first search's
//! outcome, unique-state count (the union of the shards' keys), verdict per oracle and the
//! same counterexample and witness paths, step for step, stopping at the first violation
//! and exploring everything (symmetry reduction under sharding is compared in the kernel's
//! `sim/tests/symmetry.rs`, on a world with identical clients). A merge that leaves out one shard's states is caught by the same comparison.
//! With partial-order reduction the shards' reduced graphs are their own: the merge keeps the
//! outcome and every verdict, and its paths are real.

use lockcheck::check::outcome_word;
use lockcheck::check::Checked;
use lockcheck::oracles::RedisWorld;
use lockcheck::scenario::{builtin, Scenario};
use lockcheck::shard::{merge, plan_hash, Merged, ShardResult};
use lockcheck_sim::{
    explore, explore_shard, follow_labels, replay_checked, union_len, BreadthFirst, Claim,
    Fingerprint, Model, Options, Outcome, ShardPlan,
};
use lockcheck_sim::{Limits, Stop};

const CAP: u64 = 12_000;
/// Few roots per shard, so that small spaces split.
const ROOTS: u32 = 4;

/// The search's options: the scenario's, with the cap, and partial-order reduction off
/// unless `partial_order`.
fn options(scenario: &Scenario, stop_at_first: bool, partial_order: bool) -> Options {
    let base = scenario.explore.options();
    let mut o = Options {
        stop: if stop_at_first {
            Stop::AtFirstViolation
        } else {
            Stop::Never
        },
        limits: Limits {
            max_states: Some(CAP),
            ..base.limits
        },
        ..base
    };
    o.reductions.partial_order &= partial_order;
    o
}

fn unsharded(scenario: &Scenario, stop_at_first: bool, partial_order: bool) -> Checked {
    let world = scenario.build().expect("scenario builds");
    let report = explore(
        &world,
        &mut BreadthFirst::default(),
        options(scenario, stop_at_first, partial_order),
    );
    Checked { world, report }
}

/// Every shard's result, and how many of them split.
fn shard_results(
    world: &RedisWorld,
    scenario: &Scenario,
    shards: u32,
    stop_at_first: bool,
    partial_order: bool,
) -> Vec<(ShardResult, Vec<Fingerprint>)> {
    (0..shards)
        .map(|k| {
            let o = options(scenario, stop_at_first, partial_order);
            let plan = ShardPlan::new(shards, k)
                .unwrap()
                .with_roots_per_shard(ROOTS);
            let hash = plan_hash(world, scenario, &o, plan);
            let found = explore_shard(world, plan, o);
            let r = ShardResult::new(
                scenario,
                world,
                plan,
                hash,
                stop_at_first,
                &found,
                "-".into(),
            );
            (r, found.keys)
        })
        .collect()
}

/// The merge of `results` and the size of the union of their keys.
fn merged(results: &[(ShardResult, Vec<Fingerprint>)]) -> (Merged, u64) {
    let files: Vec<(String, ShardResult)> = results
        .iter()
        .map(|(r, _)| (format!("shard-{}", r.shard), r.clone()))
        .collect();
    let merged = merge(&files, true).expect("one plan");
    let unique = union_len(results.iter().map(|(_, k)| k.iter().copied()).collect());
    (merged, unique)
}

/// Compares the merge of `shards` shards with the unsharded search: `None` when the
/// unsharded search hit the cap (nothing compared), else whether the search split.
fn compare(scenario: &Scenario, shards: u32, stop_at_first: bool) -> Option<bool> {
    let whole = unsharded(scenario, stop_at_first, false);
    if matches!(whole.report.outcome, Outcome::LimitReached(_)) {
        return None;
    }
    let name = format!(
        "{} ({shards} shards, stop at first: {stop_at_first})",
        scenario.name
    );
    let results = shard_results(&whole.world, scenario, shards, stop_at_first, false);
    let (m, unique) = merged(&results);
    assert_eq!(
        m.outcome,
        outcome_word(&whole.report.outcome),
        "{name}: outcome"
    );
    if results.iter().any(|(r, _)| r.outcome == "limit_reached") {
        // A shard without the violation may explore past the cap where the whole search
        // stopped at it: the merge must not claim the shortest counterexample then.
        assert!(!m.shortest, "{name}: a shard hit the cap");
        return None;
    }
    assert!(m.shortest, "{name}: every shard present and done");
    if whole.report.outcome != Outcome::StoppedAtViolation {
        assert_eq!(
            unique, whole.report.stats.unique_states,
            "{name}: unique states"
        );
    }
    for (p, w) in m.properties.iter().zip(&whole.report.properties) {
        assert_eq!(p.name, w.name);
        assert_eq!(
            p.status,
            w.status.word().to_lowercase(),
            "{name}: {}",
            p.name
        );
        let path = w.status.path().map(|path| path.labels());
        assert_eq!(p.labels, path, "{name}: {}'s path", p.name);
    }
    Some(results.iter().any(|(r, _)| r.split.is_some()))
}

#[test]
fn every_builtin_scenario_merges_to_the_unsharded_search() {
    let mut compared = 0;
    let mut split = 0;
    for scenario in builtin::all() {
        for stop_at_first in [true, false] {
            if let Some(did_split) = compare(&scenario, 3, stop_at_first) {
                compared += 1;
                split += did_split as usize;
            }
        }
    }
    assert!(compared >= 40, "only {compared} searches compared");
    assert!(split >= 10, "only {split} of the compared searches split");
}

#[test]
fn the_number_of_shards_does_not_change_the_merged_result() {
    for name in [
        "kleppmann-pause-past-lease",
        "redisson-gc-past-lease-defended",
    ] {
        let scenario = builtin::by_name(name).unwrap();
        for shards in [1, 2, 4] {
            for stop_at_first in [true, false] {
                let split = compare(&scenario, shards, stop_at_first).expect("within the cap");
                // Exploring everything, every plan of several shards splits these spaces.
                if !stop_at_first || shards == 1 {
                    assert_eq!(split, shards > 1, "{name}: {shards} shards");
                }
            }
        }
    }
}

/// With partial-order reduction, each shard's reduced search differs from the unsharded one
/// (its cycle proviso sees its own expansions), so the state counts and paths may differ;
/// what must not: exploring everything, the merge has the unsharded reduced search's outcome
/// and every oracle's verdict, and every path it gives is real (a violation's trace replays
/// to that violation, a witness's path ends in a state where the witness holds).
#[test]
fn with_partial_order_reduction_the_merge_keeps_every_verdict_and_its_paths_are_real() {
    let mut compared = 0;
    let mut reduced = 0;
    for scenario in builtin::all() {
        let whole = unsharded(&scenario, false, true);
        if matches!(whole.report.outcome, Outcome::LimitReached(_)) {
            continue;
        }
        let results = shard_results(&whole.world, &scenario, 3, false, true);
        if results.iter().any(|(r, _)| r.outcome == "limit_reached") {
            continue;
        }
        let (m, _) = merged(&results);
        let name = &scenario.name;
        assert_eq!(m.outcome, outcome_word(&whole.report.outcome), "{name}");
        for (p, w) in m.properties.iter().zip(&whole.report.properties) {
            assert_eq!(
                p.status,
                w.status.word().to_lowercase(),
                "{name}: {}",
                p.name
            );
            check_real(&whole.world, p, name);
        }
        compared += 1;
        reduced += usize::from(whole.report.stats.reduced_states > 0);
    }
    assert!(compared >= 40, "only {compared} searches compared");
    assert!(reduced >= 20, "only {reduced} of them reduced");
}

/// Whether the merged path of `p` is a real path of `world` with `p`'s verdict at its end.
fn check_real(world: &RedisWorld, p: &lockcheck::shard::MergedProperty, name: &str) {
    match p.status.as_str() {
        "violated" => {
            let saved = p.trace.as_ref().expect("a violation's trace");
            if let Err(e) = replay_checked(world, &saved.trace) {
                panic!("{name}: {}'s trace does not replay to it: {e}", p.name);
            }
        }
        "witnessed" => {
            let labels = p.labels.clone().expect("a witness's path");
            let init = p.choices.as_ref().expect("its choices")[0] as usize;
            let path = follow_labels(world, None, init, labels).expect("a real path");
            let property = world.properties().into_iter().find(|q| q.name == p.name);
            let Some(Claim::Sometimes(holds)) = property.map(|q| q.claim) else {
                panic!("{name}: {} is a sometimes property", p.name);
            };
            let last = path.states.last().expect("a path has a state");
            assert!(holds(world, last), "{name}: {}'s witness", p.name);
        }
        _ => {}
    }
}

/// The comparison catches a merge that lacks one shard's states: the union is short.
#[test]
fn a_merge_missing_a_shard_is_caught() {
    let scenario = builtin::by_name("redisson-gc-past-lease-defended").unwrap();
    let whole = unsharded(&scenario, false, false);
    assert_eq!(whole.report.outcome, Outcome::Complete);
    let mut results = shard_results(&whole.world, &scenario, 3, false, false);
    results.pop();
    let (m, unique) = merged(&results);
    assert!(!m.shortest);
    assert_eq!(m.outcome, "incomplete");
    assert!(
        unique < whole.report.stats.unique_states,
        "{unique} of {} states without shard 2",
        whole.report.stats.unique_states
    );
}
