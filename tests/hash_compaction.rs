//! `--hash-compaction`: storing 32 bits of each fingerprint in a table sized for the state
//! limit gives every built-in the exact search's states, verdicts and paths (their spaces
//! are far too small for an omission to be likely, and the bound printed says so), on one
//! thread and on two; the command line prints the bound and refuses what compaction cannot
//! serve.

mod common;

use common::verdicts::assert_same_verdicts;
use common::{lockcheck_within, workdir};
use lockcheck::check::{check_with, Checked, Mode};
use lockcheck::scenario::{builtin, Scenario};
use lockcheck_sim::{Limits, Parallelism, Stop, Storage};
use lockcheck_sim::{Options, Reductions};
use std::time::Duration;

/// A cap that keeps every built-in quick in a debug build; capped searches compare too.
const CAP: u64 = 4_000;

fn run(scenario: &Scenario, compact: bool, reductions: Reductions, threads: usize) -> Checked {
    let options = Options {
        stop: Stop::Never,
        reductions,
        limits: Limits {
            max_states: Some(CAP),
            ..scenario.explore.options().limits
        },
        parallelism: Parallelism {
            threads,
            ..scenario.explore.options().parallelism
        },
        storage: Storage {
            hash_compaction: compact,
            ..scenario.explore.options().storage
        },
        ..scenario.explore.options()
    };
    check_with(scenario, Mode::Exhaustive, options).expect("built-ins build")
}

fn assert_same_search(exact: &Checked, compact: &Checked, name: &str) {
    assert_eq!(exact.report.outcome, compact.report.outcome, "{name}");
    let (e, c) = (&exact.report.stats, &compact.report.stats);
    assert_eq!(e.unique_states, c.unique_states, "{name}");
    assert_eq!(e.transitions, c.transitions, "{name}");
    assert_eq!(e.reduced_states, c.reduced_states, "{name}");
    assert_same_verdicts(exact, compact, name);
}

#[test]
fn every_builtin_under_hash_compaction_gives_the_exact_search_results() {
    for scenario in builtin::all() {
        let name = &scenario.name;
        let exact = run(&scenario, false, Reductions::all(), 1);
        let compact = run(&scenario, true, Reductions::all(), 1);
        assert_same_search(&exact, &compact, name);
        assert!(exact.report.compaction.is_none(), "{name}");
        let c = compact.report.compaction.expect("compaction reported");
        // The visited set (and the expanded set under partial-order reduction) sized for
        // the limit and the state beyond it, all in their compact tables.
        let sets = c.planned_states / (CAP + 1);
        assert!(sets == 1 || sets == 2, "{name}: {c:?}");
        assert_eq!(c.planned_states, sets * (CAP + 1), "{name}");
        assert_eq!(c.stored_whole, 0, "{name}");
        assert!(
            c.stored >= compact.report.stats.unique_states,
            "{name}: {c:?}"
        );
        assert_eq!(c.match_bits, 32, "{name}");
        if let Some(p) = compact.report.collision_probability() {
            let whole = exact.report.collision_probability().unwrap();
            assert!(p >= whole && p < 1e-3, "{name}: {p} against {whole}");
            assert_eq!(p, whole + c.comparisons as f64 / 2f64.powi(32), "{name}");
        }
    }
}

/// On two threads, both parallel searches (batches deduplicated on the threads without
/// partial-order reduction, expansions prepared ahead with it) give the one-thread results,
/// the batch search's two shards matching one bit fewer by chance.
#[test]
fn hash_compaction_on_two_threads_gives_the_one_thread_results() {
    for name in ["seed-000-redlock-majority-failure", "seed-003-incident"] {
        let scenario = builtin::by_name(name).expect("a built-in");
        for reductions in [Reductions::all(), Reductions::none()] {
            let one = run(&scenario, true, reductions, 1);
            let two = run(&scenario, true, reductions, 2);
            assert_same_search(&one, &two, name);
            let bits = two.report.compaction.expect("compaction").match_bits;
            let partial_order = reductions == Reductions::all();
            assert_eq!(bits, if partial_order { 32 } else { 31 }, "{name}");
        }
    }
}

#[test]
fn the_command_line_prints_the_bound_and_refuses_what_compaction_cannot_serve() {
    let dir = workdir("hash-compaction");
    let args = ["check", "redlock-baseline-safe", "--hash-compaction"];
    let text = lockcheck_within(&dir, &args, Duration::from_secs(120));
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains("hash compaction: ")
            && text
                .stdout
                .contains("probability that a state was taken for another at most"),
        "{}",
        text.stdout
    );
    let json = lockcheck_within(
        &dir,
        &[args[0], args[1], args[2], "--json", "--max-states", "30000"],
        Duration::from_secs(120),
    );
    let j: serde_json::Value = serde_json::from_str(&json.stdout).expect("one JSON object");
    let c = &j["search"]["hash_compaction"];
    assert_eq!(c["planned_states"].as_u64().unwrap() % 30_001, 0, "{c}");
    assert_eq!(c["stored_whole"], 0, "{c}");
    let p = j["search"]["collision_probability"].as_f64().unwrap();
    let comparisons = c["comparisons"].as_u64().unwrap();
    assert!(
        comparisons > 0 && p >= comparisons as f64 / 2f64.powi(32) && p < 1e-3,
        "{p}"
    );
    for refused in [
        vec!["--fingerprint-bits", "128"],
        vec!["--random"],
        vec!["--shards", "2", "--shard", "0"],
    ] {
        let mut args = args.to_vec();
        args.extend(refused.iter());
        let out = lockcheck_within(&dir, &args, Duration::from_secs(60));
        assert_eq!(out.code, 2, "{refused:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("cannot be used with"),
            "{refused:?}: {}",
            out.stderr
        );
    }
}
