//! Starting from a built-in without its source: `show NAME --toml` exports it as a file that
//! loads back to the same scenario; `--set PATH=VALUE` changes a field before a run; a
//! mistyped built-in name gets suggestions.

mod common;

use common::{assert_bad_input, json, lockcheck_within, workdir};
use lockcheck::scenario::builtin;
use lockcheck::scenario::to_toml::to_toml;
use lockcheck::testing::scenario_from_toml;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

#[test]
fn every_built_in_round_trips_through_toml() {
    for scenario in builtin::all() {
        let text = to_toml(&scenario);
        let back =
            scenario_from_toml(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", scenario.name));
        assert_eq!(back, scenario, "{}", scenario.name);
    }
}

/// `show --toml` writes a scenario in the order the guide reads it (the scenario, its nodes,
/// clients, account, network, faults, search bounds, oracles and expectation; in a client,
/// its protocol before its workload), not alphabetically.
#[test]
fn an_exported_file_reads_in_the_guides_order() {
    let scenario = builtin::by_name("seed-003-incident").unwrap();
    let text = to_toml(&scenario);
    let position = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("`{needle}` is not in\n{text}"))
    };
    let order = [
        "\nname = ",
        "\ndescription = ",
        "\n[[nodes]]",
        "\n[[clients]]",
        "\n[clients.protocol]",
        "\n[clients.workload]",
        "\n[account]",
        "\n[network]",
        "\n[faults]",
        "\n[explore]",
        "\n[[oracles]]",
        "\n[expect]",
    ];
    for pair in order.windows(2) {
        assert!(
            position(pair[0]) < position(pair[1]),
            "`{}` comes after `{}`:\n{text}",
            pair[0].trim(),
            pair[1].trim()
        );
    }
    let protocol = &text[position("\n[clients.protocol]")..];
    assert!(
        protocol.find("\nkind = ").unwrap() < protocol.find("\nnode = ").unwrap(),
        "a protocol starts with its kind:\n{text}"
    );
}

#[test]
fn an_exported_file_checks_like_the_built_in() {
    let dir = workdir("show-toml");
    let name = "kleppmann-pause-past-lease";
    let out = lockcheck_within(&dir, &["show", name, "--toml"], LIMIT);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with(&format!("# {name}: ")),
        "{}",
        out.stdout
    );
    std::fs::write(dir.join("k.toml"), &out.stdout).unwrap();
    let from_file = json(&lockcheck_within(
        &dir,
        &["--json", "check", "k.toml"],
        LIMIT,
    ));
    let built_in = json(&lockcheck_within(&dir, &["--json", "check", name], LIMIT));
    assert_eq!(from_file["verdict"], "violated");
    assert_eq!(from_file["oracle"], built_in["oracle"]);
    assert_eq!(from_file["steps"], built_in["steps"]);
}

#[test]
fn set_changes_a_field_before_the_run() {
    let dir = workdir("set-field");
    let check = |extra: &[&str]| {
        let mut args = vec!["--json", "check", "kleppmann-pause-past-lease"];
        args.extend_from_slice(extra);
        json(&lockcheck_within(&dir, &args, LIMIT))["verdict"].clone()
    };
    assert_eq!(check(&[]), "violated");
    // The pause shorter than the TTL, by short name and by path.
    assert_eq!(check(&["--set", "pause=1s"]), "no_violation");
    assert_eq!(
        check(&["--set", "faults.pauses[0].durations_ms=[1000]"]),
        "no_violation"
    );
    // Later sets apply on top of earlier ones.
    assert_eq!(
        check(&[
            "--set",
            "pause=1s",
            "--set",
            "faults.pauses[*].durations_ms=15s"
        ]),
        "violated"
    );
}

#[test]
fn set_refuses_what_it_cannot_do() {
    let dir = workdir("set-bad");
    let run = |set: &str| {
        lockcheck_within(
            &dir,
            &["check", "kleppmann-pause-past-lease", "--set", set],
            LIMIT,
        )
    };
    assert_bad_input(
        &run("clients[*].protocol.nothing=1"),
        &["field `clients[*].protocol.nothing`", "has no such field"],
    );
    assert_bad_input(
        &run("faults.max_pauses=true"),
        &["field `faults.max_pauses`", "cannot set it", "expected u32"],
    );
    assert_bad_input(&run("ttl=soon"), &["--set ttl=soon", "duration"]);
}

#[test]
fn a_mistyped_built_in_gets_suggestions() {
    let dir = workdir("did-you-mean");
    let out = lockcheck_within(&dir, &["check", "seed-003"], LIMIT);
    assert_bad_input(&out, &["did you mean one of seed-003-incident"]);
    let out = lockcheck_within(&dir, &["show", "kleppman-pause-past-lease"], LIMIT);
    assert_bad_input(&out, &["did you mean kleppmann-pause-past-lease?"]);
}
