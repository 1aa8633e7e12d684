//! `--fingerprint-bits 128`: comparing both lanes of every fingerprint changes nothing but
//! the collision estimate on the built-ins (whose 64-bit searches have no collision), with
//! every reduction; and the command line takes 64 or 128 and refuses anything else.

mod common;

use common::verdicts::assert_same_verdicts;
use common::{lockcheck_within, workdir};
use lockcheck::check::{check_with, Mode};
use lockcheck::scenario::builtin;
use lockcheck_sim::{Limits, Parallelism, Stop, Storage};
use lockcheck_sim::{Options, Reductions, Width};
use std::time::Duration;

/// A cap that keeps every built-in quick in a debug build; capped searches compare too.
const CAP: u64 = 4_000;

#[test]
fn every_builtin_searched_with_128_bits_gives_the_64_bit_search_results() {
    for scenario in builtin::all() {
        let run = |wide: bool| {
            let options = Options {
                stop: Stop::Never,
                reductions: Reductions::all(),
                limits: Limits {
                    max_states: Some(CAP),
                    ..scenario.explore.options().limits
                },
                storage: Storage {
                    wide_fingerprints: wide,
                    ..scenario.explore.options().storage
                },
                ..scenario.explore.options()
            };
            check_with(&scenario, Mode::Exhaustive, options).expect("built-ins build")
        };
        let (narrow, wide) = (run(false), run(true));
        let name = &scenario.name;
        assert_eq!(narrow.report.plan.width, Width::Bits64, "{name}");
        assert_eq!(wide.report.plan.width, Width::Bits128, "{name}");
        assert_eq!(narrow.report.outcome, wide.report.outcome, "{name}");
        let (n, w) = (&narrow.report.stats, &wide.report.stats);
        assert_eq!(n.unique_states, w.unique_states, "{name}");
        assert_eq!(n.transitions, w.transitions, "{name}");
        assert_eq!(n.reduced_states, w.reduced_states, "{name}");
        assert_eq!(n.symmetric_states_met, w.symmetric_states_met, "{name}");
        assert_eq!(n.dead_values_states_met, w.dead_values_states_met, "{name}");
        assert_same_verdicts(&narrow, &wide, name);
        if let (Some(p64), Some(p128)) = (
            narrow.report.collision_probability(),
            wide.report.collision_probability(),
        ) {
            assert!(p128 < p64 || p64 == 0.0, "{name}: {p128} vs {p64}");
        }
    }
}

/// 128-bit searches on two threads, in both parallel searches (batches deduplicated on the
/// threads without partial-order reduction, expansions prepared ahead with it), give the
/// one-thread 128-bit results.
#[test]
fn a_128_bit_search_on_two_threads_gives_the_one_thread_results() {
    for name in [
        "kleppmann-clock-jump",
        "seed-000-redlock-majority-failure",
        "redisson-gc-past-lease-defended",
    ] {
        let scenario = builtin::by_name(name).expect("a built-in");
        for reductions in [Reductions::all(), Reductions::none()] {
            let run = |threads: usize| {
                let options = Options {
                    stop: Stop::Never,
                    reductions,
                    limits: Limits {
                        max_states: Some(3 * CAP),
                        ..scenario.explore.options().limits
                    },
                    parallelism: Parallelism {
                        threads,
                        ..scenario.explore.options().parallelism
                    },
                    storage: Storage {
                        wide_fingerprints: true,
                        ..scenario.explore.options().storage
                    },
                    ..scenario.explore.options()
                };
                check_with(&scenario, Mode::Exhaustive, options).expect("built-ins build")
            };
            let (one, two) = (run(1), run(2));
            assert_eq!(two.report.plan.width, Width::Bits128, "{name}");
            assert_eq!(two.report.plan.engine.threads(), 2, "{name}");
            assert_eq!(one.report.outcome, two.report.outcome, "{name}");
            assert_eq!(
                one.report.stats.unique_states,
                two.report.stats.unique_states
            );
            assert_eq!(one.report.stats.transitions, two.report.stats.transitions);
            assert_same_verdicts(&one, &two, name);
        }
    }
}

#[test]
fn the_command_line_takes_64_or_128_bits_and_says_which() {
    let dir = workdir("fingerprint-bits");
    let run = |bits: &str| {
        lockcheck_within(
            &dir,
            &[
                "check",
                "seed-000-single-node",
                "--json",
                "--fingerprint-bits",
                bits,
            ],
            Duration::from_secs(120),
        )
    };
    for bits in [64, 128] {
        let out = run(&bits.to_string());
        assert_eq!(out.code, 1, "{}", out.stderr);
        let j: serde_json::Value = serde_json::from_str(&out.stdout).expect("one JSON object");
        assert_eq!(j["search"]["fingerprint_bits"], bits, "{}", out.stdout);
    }
    let text = lockcheck_within(
        &dir,
        &[
            "check",
            "redlock-baseline-safe",
            "--fingerprint-bits",
            "128",
        ],
        Duration::from_secs(120),
    );
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout
            .contains("128-bit fingerprints: probability that two of the"),
        "{}",
        text.stdout
    );
    let bad = run("96");
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("64 or 128 bits"), "{}", bad.stderr);
}

#[test]
fn a_scenario_file_sets_the_width_and_the_flag_overrides_it() {
    let dir = workdir("fingerprint-bits-file");
    let example = std::fs::read_to_string(common::repo("scenarios/pause-past-lease.toml")).unwrap();
    let with_bits = |bits: u32| format!("{example}\n[explore]\nfingerprint_bits = {bits}\n");
    std::fs::write(dir.join("wide.toml"), with_bits(128)).unwrap();
    std::fs::write(dir.join("odd.toml"), with_bits(96)).unwrap();
    let bits_of = |extra: &[&str]| {
        let mut args = vec!["check", "wide.toml", "--json"];
        args.extend_from_slice(extra);
        let out = lockcheck_within(&dir, &args, Duration::from_secs(120));
        assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
        let j: serde_json::Value = serde_json::from_str(&out.stdout).expect("one JSON object");
        j["search"]["fingerprint_bits"].as_u64().unwrap()
    };
    assert_eq!(bits_of(&[]), 128);
    assert_eq!(bits_of(&["--fingerprint-bits", "64"]), 64);
    let odd = lockcheck_within(&dir, &["check", "odd.toml"], Duration::from_secs(60));
    common::assert_bad_input(
        &odd,
        &[
            "odd.toml:",
            "field `explore.fingerprint_bits`",
            "fingerprints have 64 or 128 bits, not 96",
        ],
    );
}
