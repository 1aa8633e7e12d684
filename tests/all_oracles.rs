//! `check --all-oracles` searches on after the first violation until every oracle is settled
//! or the space is done: each oracle then gets the verdict a search for it alone gets, each
//! violated oracle its own counterexample (a real run that replays to that violation) and
//! its own trace file.

mod common;

use common::{json, lockcheck_within, repo, workdir};
use lockcheck::check::{check_with, Checked, Mode};
use lockcheck::scenario::{builtin, ExpectedVerdict, OracleSpec, Scenario};
use lockcheck_sim::{replay_checked, Trace};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

fn all_oracles(scenario: &Scenario) -> Checked {
    let options = lockcheck_sim::Options {
        stop: lockcheck_sim::Stop::WhenAllSettled,
        ..scenario.explore.options()
    };
    check_with(scenario, Mode::Exhaustive, options).unwrap()
}

/// `name` with `extra` oracles added.
fn with_oracles(name: &str, extra: &[OracleSpec]) -> Scenario {
    let mut s = builtin::by_name(name).expect("a built-in");
    s.oracles.extend(extra.iter().cloned());
    s
}

/// Every oracle's verdict under `--all-oracles` against a search of the scenario with that
/// oracle alone; returns the names of the violated ones.
fn assert_each_oracle_as_alone(scenario: &Scenario) -> Vec<String> {
    let all = all_oracles(scenario);
    let mut violated = Vec::new();
    for spec in &scenario.oracles {
        let name = spec.definition().name;
        let alone = Scenario {
            oracles: vec![spec.clone()],
            expect: ExpectedVerdict::Unstated,
            ..scenario.clone()
        };
        let alone = check_with(&alone, Mode::Exhaustive, alone.explore.options()).unwrap();
        let status = |c: &Checked| c.report.property(name).unwrap().status.word();
        assert_eq!(status(&all), status(&alone), "{}: {name}", scenario.name);
        if let Some((_, path)) = all.violations().into_iter().find(|(n, _)| *n == name) {
            let trace = Trace::from_path(&all.world, path, Some(name));
            replay_checked(&all.world, &trace)
                .unwrap_or_else(|e| panic!("{}: {name}'s counterexample: {e}", scenario.name));
            violated.push(name.to_string());
        }
    }
    violated
}

#[test]
fn me_lock_broken_and_me_resource_safe_under_fencing() {
    let s = with_oracles("fencing-prevents-damage", &[OracleSpec::MeLock]);
    assert_eq!(assert_each_oracle_as_alone(&s), ["me-lock"]);
}

#[test]
fn both_exclusions_broken_without_fencing() {
    let s = with_oracles("kleppmann-pause-past-lease", &[OracleSpec::MeLock]);
    assert_eq!(assert_each_oracle_as_alone(&s), ["me-resource", "me-lock"]);
    let all = all_oracles(&s);
    assert_eq!(all.report.outcome, lockcheck_sim::Outcome::AllSettled);
}

#[test]
fn a_holder_crash_breaks_neither_exclusion_nor_liveness() {
    let s = builtin::by_name("single-node-holder-crash").unwrap();
    assert!(assert_each_oracle_as_alone(&s).is_empty());
}

#[test]
fn the_incident_breaks_both_the_account_and_the_lock() {
    let s = with_oracles("seed-003-incident", &[OracleSpec::MeLock]);
    assert_eq!(assert_each_oracle_as_alone(&s), ["me-resource", "me-lock"]);
}

/// `scenarios/pause-past-lease.toml` with a `me-lock` oracle as well.
fn two_oracle_file(dir: &std::path::Path) -> &'static str {
    let text = std::fs::read_to_string(repo("scenarios/pause-past-lease.toml")).unwrap();
    let text = text.replace("[expect]", "[[oracles]]\nkind = \"me-lock\"\n\n[expect]");
    std::fs::write(dir.join("two.toml"), text).unwrap();
    "two.toml"
}

#[test]
fn the_command_reports_and_saves_every_violated_oracle() {
    let dir = workdir("all-oracles");
    let file = two_oracle_file(&dir);
    let out = lockcheck_within(&dir, &["--json", "check", file, "--all-oracles"], LIMIT);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let j = json(&out);
    assert_eq!(j["outcome"], "all_settled");
    let each = j["violations"]
        .as_array()
        .expect("one entry per violated oracle");
    let oracles: Vec<&str> = each.iter().map(|v| v["oracle"].as_str().unwrap()).collect();
    assert_eq!(oracles, ["me-resource", "me-lock"]);
    assert_eq!(j["expectation"]["status"], "matches", "{j}");
    for v in each {
        let oracle = v["oracle"].as_str().unwrap();
        let trace = format!("lockcheck-traces/pause-past-lease.{oracle}.trace.json");
        assert_eq!(v["trace_file"], trace.as_str());
        let replayed = lockcheck_within(&dir, &["replay", &trace], LIMIT);
        assert_eq!(replayed.code, 1, "{}", replayed.stderr);
        assert!(
            replayed
                .stdout
                .contains(&format!("verdict: VIOLATION of {oracle} reproduced")),
            "{}",
            replayed.stdout
        );
    }
    let text = lockcheck_within(&dir, &["check", file, "--all-oracles"], LIMIT);
    assert!(text.stdout.contains("verdict: VIOLATION of me-resource"));
    assert!(
        text.stdout.contains("\nand VIOLATION of me-lock: "),
        "{}",
        text.stdout
    );
    // Without the flag the search stops at the first violation and saves one trace.
    let first = lockcheck_within(&dir, &["--json", "check", file], LIMIT);
    let j = json(&first);
    assert_eq!(j["outcome"], "stopped_at_violation");
    assert!(j.get("violations").is_none());
}

#[test]
fn all_oracles_and_one_output_file_are_refused_together() {
    let dir = workdir("all-oracles-output");
    let out = lockcheck_within(
        &dir,
        &[
            "check",
            "fencing-prevents-damage",
            "--all-oracles",
            "-o",
            "x.json",
        ],
        LIMIT,
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--all-oracles"), "{}", out.stderr);
}
