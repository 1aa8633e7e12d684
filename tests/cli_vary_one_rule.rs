//! `boundary` and `sweep` vary one field, named in the output, and print the faults of the
//! breaking run beside the number. The case: the seed-003 GC without its stall, given back
//! a 200 ms Redis stall and a budget of two pauses with `--set`. `--vary pause` could mean
//! the stall or the GC and is refused; the GC's path varies the GC alone, and the answer
//! (1.499 s) comes with its run: that one GC rule fired twice, back to back.

mod common;

use common::{assert_bad_input_error, json, lockcheck_within, workdir, Out};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

const GC_RULE: &str = "faults.pauses[1].durations_ms";

/// `boundary` (or `sweep`) of the GC scenario with the stall added back, with `args`.
fn with_stall(dir: &std::path::Path, command: &str, args: &[&str]) -> Out {
    let mut all = vec![
        command,
        "seed-003-gc-without-stall",
        "--set",
        r#"faults.pauses=[{process = "redis", durations_ms = [200]}, {process = "instance-a", durations_ms = [2900]}]"#,
        "--set",
        "faults.max_pauses=2",
    ];
    all.extend_from_slice(args);
    lockcheck_within(dir, &all, LIMIT)
}

#[test]
fn a_short_name_for_two_pause_rules_is_refused_with_both_paths() {
    let dir = workdir("vary-ambiguous");
    let out = with_stall(&dir, "boundary", &["--vary", "pause=0s..3s"]);
    assert_bad_input_error(
        &out,
        &[
            "`pause` is ambiguous",
            "faults.pauses[0].durations_ms (the pauses of redis, now 200ms)",
            "faults.pauses[1].durations_ms (the pauses of instance-a, now 2.9s)",
        ],
    );
    let out = with_stall(&dir, "sweep", &["--vary", "pause=1s,2s"]);
    assert_bad_input_error(&out, &["`pause` is ambiguous"]);
}

#[test]
fn boundary_names_the_rule_and_lists_the_faults_of_the_breaking_run() {
    let dir = workdir("vary-gc-rule");
    let vary = format!("{GC_RULE}=0s..3s");
    let out = with_stall(&dir, "boundary", &["--vary", &vary]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.starts_with(
            "varied: faults.pauses[1].durations_ms (the pauses of instance-a); every other rule and field as set\n"
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(&format!(
            "the smallest {GC_RULE} that breaks this configuration is 1.499 s"
        )),
        "{}",
        out.stdout
    );
    // The number is two GCs of the one rule, back to back: the shared budget of two pauses
    // let it fire twice, and the stall played no part.
    assert!(
        out.stdout.contains(&format!(
            "faults of the breaking run at {GC_RULE} = 1.499 s: two pauses of instance-a, 1.499 s each, back to back from 10.004 s (faults.pauses[1])\n"
        )),
        "{}",
        out.stdout
    );

    let j = json(&with_stall(&dir, "boundary", &["--vary", &vary, "--json"]));
    assert_eq!(j["parameter_path"], GC_RULE);
    assert_eq!(j["parameter_meaning"], "the pauses of instance-a");
    assert_eq!(j["flip"]["at_ms"], 1_499);
    assert_eq!(j["breaking_run"]["at_ms"], 1_499);
    let faults = j["breaking_run"]["faults"].as_array().unwrap();
    assert_eq!(faults.len(), 2, "{faults:?}");
    for (f, at_ms) in faults.iter().zip([10_004, 11_503]) {
        assert_eq!(f["kind"], "pause");
        assert_eq!(f["process"], "instance-a");
        assert_eq!(f["duration_ms"], 1_499);
        assert_eq!(f["rule"], "faults.pauses[1]");
        assert_eq!(f["at_ms"], at_ms);
    }
}

#[test]
fn the_other_rule_keeps_its_value_while_one_is_varied() {
    let dir = workdir("vary-stall-rule");
    // Varying the stall leaves the GC at 2.9 s: the counterexample pauses instance-a for
    // 2.9 s, not for the stall's value.
    let j = json(&with_stall(
        &dir,
        "sweep",
        &["--vary", "faults.pauses[0].durations_ms=200ms", "--json"],
    ));
    assert_eq!(j["varied"][0]["path"], "faults.pauses[0].durations_ms");
    assert_eq!(j["varied"][0]["meaning"], "the pauses of redis");
    let cell = &j["cells"][0];
    assert_eq!(cell["verdict"], "violated", "{j}");
    let faults = cell["faults"].as_array().unwrap();
    assert!(
        faults
            .iter()
            .any(|f| f["process"] == "instance-a" && f["duration_ms"] == 2_900),
        "{faults:?}"
    );
    assert!(
        faults
            .iter()
            .all(|f| f["duration_ms"] != 200 || f["process"] == "redis"),
        "{faults:?}"
    );
    let out = with_stall(
        &dir,
        "sweep",
        &[
            "--vary",
            "faults.pauses[0].durations_ms=200ms",
            "--svg",
            "map.svg",
        ],
    );
    // The heat map's cell says the same in its title.
    let svg = std::fs::read_to_string(dir.join("map.svg")).unwrap();
    assert!(
        svg.contains("(me-resource); faults: a pause of redis for 0.200 s at "),
        "{svg}"
    );
    assert!(
        out.stdout
            .contains("faults of the violating runs:\n  faults.pauses[0].durations_ms = 200 ms: "),
        "{}",
        out.stdout
    );
}
