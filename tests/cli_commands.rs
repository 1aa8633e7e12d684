//! The `lockcheck` binary driven as a user would: spawn it, read stdout, stderr, the exit
//! code and the files it writes. Small scenarios only (debug builds in CI).

mod common;

use common::{json, lockcheck_within, with_class, with_svg, workdir, Out};
use std::path::Path;
use std::time::Duration;

fn lockcheck_in(dir: &Path, args: &[&str]) -> Out {
    lockcheck_within(dir, args, Duration::from_secs(300))
}

fn repo(path: &str) -> String {
    common::repo(path).display().to_string()
}

/// Like `common::assert_bad_input`, but the parser's usage errors may add lines of help.
fn assert_bad_input(out: &Out, expected: &[&str]) {
    common::assert_bad_input_error(out, expected)
}

const SMALL: &str = "kleppmann-pause-past-lease";

#[test]
fn scenarios_lists_the_built_ins() {
    let dir = workdir("scenarios");
    let out = lockcheck_in(&dir, &["scenarios"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.lines().any(|l| l.starts_with(SMALL)));
    assert!(out.stdout.contains("seed-003-incident"));
    let j = json(&lockcheck_in(&dir, &["scenarios", "--json"]));
    let all = j.as_array().unwrap();
    assert!(all.len() >= 20);
    assert!(all.iter().all(|s| s["description"].as_str().is_some()));
}

#[test]
fn profiles_lists_every_library_with_its_versions_and_defaults() {
    let dir = workdir("profiles");
    let out = lockcheck_in(&dir, &["profiles"]);
    assert_eq!(out.code, 0);
    for line in [
        "redsync 4.7.1 to 4.17",
        "  read from go-redsync/redsync: redsync.go, mutex.go, scripts.go at v4.17.0",
        "node-redlock 5.0.0-beta.1 to 5.0.0-beta.2",
        "  defaults (kind = \"redlock\"):",
        "    node_timeout_ms = 400",
        "    retry_ms = [50, 51, 52, …, 249]  (200 values)",
        "node-redlock 4.0 to 4.2",
        "  required: ttl_ms (node-redlock's `lock(resource, ttl)` has no default TTL: give the `ttl` the code passes)",
        "    node_timeout_ms = \"never\"",
        "redis-py 4.3.4 to 8.2",
        "redisson 3.44",
    ] {
        assert!(out.stdout.lines().any(|l| l == line), "{line}\n{}", out.stdout);
    }
    let j = json(&lockcheck_in(&dir, &["profiles", "--json"]));
    let redsync = &j.as_array().unwrap()[0];
    assert_eq!(redsync["library"], "redsync");
    assert_eq!(redsync["last"], "4.17");
    assert!(j.as_array().unwrap().iter().all(|p| p["source"]
        .as_str()
        .is_some_and(|s| s.contains(" at ") || s.contains(" by "))));
    assert_eq!(
        redsync["defaults"]["retry_ms"].as_array().unwrap().len(),
        200
    );
    assert_eq!(
        redsync["defaults"]["acquire_timeout_ms"],
        serde_json::Value::Null
    );
    // A required field is not listed among the defaults.
    let node_redlock = &j.as_array().unwrap()[1];
    assert_eq!(node_redlock["required"][0]["field"], "ttl_ms");
    assert!(node_redlock["defaults"].get("ttl_ms").is_none());
}

#[test]
fn help_and_version() {
    let dir = workdir("help");
    let out = lockcheck_in(&dir, &["--help"]);
    assert_eq!(out.code, 0);
    for c in [
        "scenarios",
        "profiles",
        "check",
        "replay",
        "shrink",
        "sweep",
        "boundary",
        "explain",
        "Exit codes",
        "130  interrupted by SIGINT",
        "143  interrupted by SIGTERM",
    ] {
        assert!(out.stdout.contains(c), "{c}");
    }
    let out = lockcheck_in(&dir, &["check", "--help"]);
    for o in [
        "--random",
        "--seeds",
        "--max-states",
        "--max-depth",
        "--time-limit",
        "--memory-limit",
        "--json",
    ] {
        assert!(out.stdout.contains(o), "{o}");
    }
    let out = lockcheck_in(&dir, &["--version"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.starts_with("lockcheck "));
}

#[test]
fn check_finds_the_violation_saves_a_trace_and_replay_reproduces_it() {
    let dir = workdir("check-replay");
    let out = lockcheck_in(&dir, &["check", SMALL]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("verdict: VIOLATION of me-resource"));
    assert!(out.stdout.contains("statistics: "));
    assert!(out.stdout.contains("states/s"));
    assert!(out.stdout.contains("virtual time covered 17.003 s"));
    assert!(out.stdout.contains("FAULT pause client-1 for 15000 ms"));
    assert!(out.stdout.contains("MUTUAL EXCLUSION BROKEN"));
    let file = format!("lockcheck-traces/{SMALL}.trace.json");
    assert!(out.stdout.contains(&format!("trace saved to {file}")));
    assert!(out
        .stdout
        .contains(&format!("replay it with: lockcheck replay {file}")));
    // Not a terminal: no progress bar, nothing on stderr.
    assert_eq!(out.stderr, "");
    assert!(dir.join(&file).exists());

    let replayed = lockcheck_in(&dir, &["replay", &file]);
    assert_eq!(replayed.code, 1, "{}", replayed.stdout);
    assert!(replayed
        .stdout
        .contains("VIOLATION of me-resource reproduced"));
    // The same timeline, line for line.
    let timeline = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.trim_start().starts_with("t="))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(timeline(&out.stdout), timeline(&replayed.stdout));
    assert!(timeline(&out.stdout).len() > 20);
}

#[test]
fn check_json_output() {
    let dir = workdir("check-json");
    let out = lockcheck_in(&dir, &["check", SMALL, "--json", "-o", "k.json"]);
    assert_eq!(out.code, 1);
    let j = json(&out);
    assert_eq!(j["verdict"], "violated");
    assert_eq!(j["oracle"], "me-resource");
    assert_eq!(j["mode"], "exhaustive");
    assert_eq!(j["trace_file"], "k.json");
    assert_eq!(j["replay_command"], "lockcheck replay k.json");
    let stats = &j["statistics"];
    for k in [
        "states",
        "unique_states",
        "max_depth",
        "states_per_second",
        "virtual_time_ms",
        "wall_ms",
    ] {
        assert!(stats[k].is_u64(), "{k}");
    }
    assert_eq!(stats["virtual_time_ms"], 17_003);
    assert!(j["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["fault"] == true));
    let replay = json(&lockcheck_in(&dir, &["replay", "k.json", "--json"]));
    assert_eq!(replay["reproduced"], true);
    assert_eq!(replay["timeline"], j["timeline"]);
}

#[test]
fn check_safe_scenario_exits_zero() {
    let dir = workdir("safe");
    let out = lockcheck_in(&dir, &["check", "fencing-prevents-damage"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.contains("verdict: no violation found"));
    assert!(out.stdout.contains("outcome: complete"));
    assert!(!out.stdout.contains("hint:"), "{}", out.stdout);
    let j = json(&lockcheck_in(
        &dir,
        &["check", "fencing-prevents-damage", "--json"],
    ));
    assert_eq!(j["verdict"], "no_violation");
    assert!(j.get("trace_file").is_none());
}

#[test]
fn a_limit_before_a_verdict_exits_three() {
    let dir = workdir("limit");
    let out = lockcheck_in(
        &dir,
        &["check", "seed-000-single-node", "--max-states", "100"],
    );
    assert_eq!(out.code, 3, "{}", out.stdout);
    assert!(out.stdout.contains("NO VERDICT: the state limit"));
    // The hint says how far the search got, as the statistics line does, and what bounds it.
    let stats = (out.stdout.lines())
        .find(|l| l.starts_with("statistics:"))
        .expect("a statistics line");
    let field = |name: &str| {
        let rest = &stats[stats.find(name).expect("the field") + name.len()..];
        rest.split(',').next().unwrap_or_default().to_string()
    };
    let (depth, covered) = (field("depth "), field("virtual time covered "));
    let hint = out.stdout.lines().find(|l| l.starts_with("hint:"));
    assert_eq!(
        hint,
        Some(format!(
            "hint: the search got {covered} into virtual time (depth {depth}); a bound \
             (`--max-virtual-time`, `--max-depth`) gives a complete verdict on less of the \
             space, and `--stats` shows which choices multiply the states"
        ))
        .as_deref(),
        "{}",
        out.stdout
    );
    let j = json(&lockcheck_in(
        &dir,
        &[
            "check",
            "seed-000-single-node",
            "--max-states",
            "100",
            "--json",
        ],
    ));
    assert_eq!(j["verdict"], "limit_reached");
    assert_eq!(j["limit"], "state limit");
    let out = lockcheck_in(
        &dir,
        &["check", "seed-000-single-node", "--memory-limit", "1KiB"],
    );
    assert_eq!(out.code, 3, "{}", out.stdout);
    let out = lockcheck_in(
        &dir,
        &["check", "seed-000-single-node", "--time-limit", "1ms"],
    );
    assert_eq!(out.code, 3, "{}", out.stdout);
    assert!(out.stdout.contains("wall-time limit"), "{}", out.stdout);
}

#[test]
fn random_mode() {
    let dir = workdir("random");
    let out = lockcheck_in(
        &dir,
        &["check", SMALL, "--random", "--seeds", "20", "--json"],
    );
    let j = json(&out);
    assert_eq!(j["mode"], "random");
    assert_eq!(out.code, 1);
    assert!(j["statistics"]["runs"].as_u64().unwrap() >= 1);
    // --seeds without --random is a usage error.
    assert_bad_input(
        &lockcheck_in(&dir, &["check", SMALL, "--seeds", "3"]),
        &["--random"],
    );
}

#[test]
fn scenario_files_in_toml() {
    let dir = workdir("toml");
    let out = lockcheck_in(&dir, &["check", &repo("scenarios/pause-past-lease.toml")]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("VIOLATION of me-resource"));
    let out = lockcheck_in(&dir, &["check", &repo("scenarios/seed-003.toml"), "--json"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let j = json(&out);
    assert_eq!(j["oracle"], "me-resource");
    assert_eq!(j["scenario"], "seed-003-incident-file");
    // Its trace replays with the scenario saved inside it.
    let replay = lockcheck_in(
        &dir,
        &[
            "replay",
            "lockcheck-traces/seed-003-incident-file.trace.json",
        ],
    );
    assert_eq!(replay.code, 1, "{}{}", replay.stdout, replay.stderr);
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    std::fs::write(dir.join(name), text).unwrap();
    name.to_string()
}

fn edited(from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(repo("scenarios/pause-past-lease.toml")).unwrap();
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1)
}

#[test]
fn bad_scenario_files_name_file_line_and_field() {
    let dir = workdir("bad-scenarios");
    let cases: Vec<(String, Vec<&str>)> = vec![
        (
            edited("ttl_ms = \"10s\"", "ttl_ms = \"10 parsecs\""),
            vec![
                "bad.toml:17:",
                "field `clients[0].protocol.ttl_ms`",
                "unknown unit",
            ],
        ),
        (
            edited("uses_account = true", "uses_acount = true"),
            vec![
                "bad.toml:24:",
                "field `clients[0].workload.uses_acount`",
                "unknown field",
            ],
        ),
        (
            edited("release = \"owner_checked\"", "release = \"owner_chekced\""),
            vec![
                "bad.toml:18:",
                "clients[0].protocol.release",
                "unknown variant",
            ],
        ),
        (
            edited("node = \"redis\"", "node = \"redsi\""),
            vec![
                "bad.toml:16:",
                "field `clients[0].protocol.node`",
                "no process named `redsi`",
            ],
        ),
        (
            edited("durations_ms = [\"15s\"]", "durations_ms = [-5]"),
            vec!["bad.toml:47:", "faults.pauses[0].durations_ms", "negative"],
        ),
        (edited("[account]", "[account"), vec!["bad.toml:40:"]),
        (
            edited("name = \"pause-past-lease\"\n", ""),
            vec!["bad.toml", "missing field `name`"],
        ),
        (
            edited("process = \"client-1\"", "process = \"client-9\""),
            vec!["bad.toml:46:", "faults.pauses[0].process", "client-9"],
        ),
    ];
    for (text, expected) in cases {
        write(&dir, "bad.toml", &text);
        let out = lockcheck_in(&dir, &["check", "bad.toml"]);
        assert_bad_input(&out, &expected);
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
        let j = json(&lockcheck_in(&dir, &["check", "bad.toml", "--json"]));
        assert_eq!(j["error"]["file"], "bad.toml");
    }
    // JSON scenario files too.
    write(&dir, "bad.json", "{\"name\": 3}");
    assert_bad_input(
        &lockcheck_in(&dir, &["check", "bad.json"]),
        &["bad.json:1:", "name"],
    );
    // Not a name nor a file.
    assert_bad_input(
        &lockcheck_in(&dir, &["check", "no-such-scenario"]),
        &["no built-in scenario and no file named `no-such-scenario`"],
    );
}

#[test]
fn usage_errors_exit_two() {
    let dir = workdir("usage");
    // No command: the help, on stderr, and exit 2.
    let out = lockcheck_in(&dir, &[]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("Usage: lockcheck"));
    assert_bad_input(&lockcheck_in(&dir, &["check"]), &["<SCENARIO>"]);
    assert_bad_input(&lockcheck_in(&dir, &["frobnicate"]), &["frobnicate"]);
    assert_bad_input(
        &lockcheck_in(&dir, &["check", SMALL, "--time-limit", "soon"]),
        &["soon"],
    );
    assert_bad_input(
        &lockcheck_in(&dir, &["sweep", SMALL, "--vary", "ttl"]),
        &["ttl"],
    );
    assert_bad_input(
        &lockcheck_in(&dir, &["sweep", SMALL, "--vary", "no.such.field=1s..2s"]),
        &["no.such.field"],
    );
}

#[test]
fn bad_traces_are_refused_with_a_reason() {
    let dir = workdir("bad-traces");
    assert_eq!(
        lockcheck_in(&dir, &["check", SMALL, "-o", "good.json"]).code,
        1
    );
    let good = std::fs::read_to_string(dir.join("good.json")).unwrap();
    write(&dir, "garbage.json", "this is not json");
    assert_bad_input(
        &lockcheck_in(&dir, &["replay", "garbage.json"]),
        &["garbage.json:1:", "not a lockcheck trace"],
    );
    write(&dir, "other.json", "{\"hello\": 1}");
    assert_bad_input(
        &lockcheck_in(&dir, &["replay", "other.json"]),
        &["not a lockcheck trace"],
    );
    write(
        &dir,
        "old.json",
        &good.replace(
            "\"lockcheck_trace_format\": 1",
            "\"lockcheck_trace_format\": 0",
        ),
    );
    assert_bad_input(
        &lockcheck_in(&dir, &["replay", "old.json"]),
        &["old.json", "format 0 is not supported"],
    );
    write(
        &dir,
        "version.json",
        &good.replace(
            &format!("\"lockcheck_version\": \"{}\"", env!("CARGO_PKG_VERSION")),
            "\"lockcheck_version\": \"0.0.1\"",
        ),
    );
    assert_bad_input(
        &lockcheck_in(&dir, &["replay", "version.json"]),
        &["written by lockcheck 0.0.1"],
    );
    // Another scenario, or the same one configured differently.
    assert_bad_input(
        &lockcheck_in(
            &dir,
            &[
                "replay",
                "good.json",
                "--scenario",
                "fencing-prevents-damage",
            ],
        ),
        &[
            "recorded for model `kleppmann-pause-past-lease`",
            "another scenario",
        ],
    );
    write(
        &dir,
        "tampered.json",
        &good.replacen("\"ttl_ms\": 10000", "\"ttl_ms\": 9000", 1),
    );
    assert_bad_input(
        &lockcheck_in(&dir, &["replay", "tampered.json"]),
        &["configuration"],
    );
    // A step the model does not offer.
    write(
        &dir,
        "steps.json",
        &good.replacen("pause client-1 for 15000 ms", "pause client-1 for 1 ms", 1),
    );
    assert_bad_input(
        &lockcheck_in(&dir, &["replay", "steps.json"]),
        &["does not replay"],
    );
    assert_bad_input(
        &lockcheck_in(&dir, &["replay", "missing.json"]),
        &["missing.json", "no such file"],
    );
    for cmd in ["shrink", "explain"] {
        assert_bad_input(
            &lockcheck_in(&dir, &[cmd, "garbage.json"]),
            &["not a lockcheck trace"],
        );
    }
}

#[test]
fn shrink_writes_a_smaller_trace_that_still_fails() {
    let dir = workdir("shrink");
    // A run with a fault to spare: the incident, found by random walks (not shortest).
    let out = lockcheck_in(
        &dir,
        &["check", SMALL, "--random", "--seeds", "20", "-o", "r.json"],
    );
    assert_eq!(out.code, 1);
    let out = lockcheck_in(&dir, &["shrink", "r.json", "-o", "small.json"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("still violates me-resource"));
    assert!(out
        .stdout
        .contains("replay it with: lockcheck replay small.json"));
    let j = json(&lockcheck_in(
        &dir,
        &["shrink", "r.json", "-o", "small.json", "--json"],
    ));
    assert!(j["steps_after"].as_u64() <= j["steps_before"].as_u64());
    let replay = lockcheck_in(&dir, &["replay", "small.json"]);
    assert_eq!(replay.code, 1);
    assert!(replay.stdout.contains("reproduced"));
}

#[test]
fn sweep_prints_a_table_and_draws_a_heat_map() {
    let dir = workdir("sweep");
    let out = lockcheck_in(
        &dir,
        &[
            "sweep",
            SMALL,
            "--vary",
            "ttl=4s..12s:4s",
            "--vary",
            "pause=0s..16s:8s",
            "--svg",
            "map.svg",
            "--html",
            "map.html",
        ],
    );
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("over 9 points"));
    assert!(out.stdout.contains("safe") && out.stdout.contains("VIOLATED"));
    let svg = std::fs::read_to_string(dir.join("map.svg")).unwrap();
    with_svg(&svg, |doc| {
        assert_eq!(with_class(&doc, "cell").len(), 9);
        assert!(!with_class(&doc, "safe").is_empty());
        assert!(!with_class(&doc, "violated").is_empty());
        assert!(doc.descendants().any(|n| n.text() == Some("ttl")));
        assert!(doc.descendants().any(|n| n.text() == Some("pause")));
    });
    let html = std::fs::read_to_string(dir.join("map.html")).unwrap();
    assert!(html.contains("<table>") && html.contains("<svg"));
    let j = json(&lockcheck_in(
        &dir,
        &["sweep", SMALL, "--vary", "pause=0s,16s", "--json"],
    ));
    let cells = j["cells"].as_array().unwrap();
    assert_eq!(cells[0]["verdict"], "safe");
    assert_eq!(cells[1]["verdict"], "violated");
    // All safe: exit 0.
    let out = lockcheck_in(&dir, &["sweep", SMALL, "--vary", "pause=0s..2s:1s"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
}

#[test]
fn boundary_finds_where_the_verdict_flips() {
    let dir = workdir("boundary");
    let out = lockcheck_in(&dir, &["boundary", SMALL, "--vary", "pause=0s..20s"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("the smallest pause that breaks this configuration is 9.108 s"),
        "{}",
        out.stdout
    );
    let j = json(&lockcheck_in(
        &dir,
        &["boundary", SMALL, "--vary", "pause=0s..20s", "--json"],
    ));
    assert_eq!(j["flip"]["at_ms"], 9_108);
    assert_eq!(j["flip"]["below_ms"], 9_107);
    assert_bad_input(
        &lockcheck_in(&dir, &["boundary", SMALL, "--vary", "pause=3s,3s"]),
        &["two different values"],
    );
    // A list in any order is the range from its least to its greatest value.
    let j = json(&lockcheck_in(
        &dir,
        &["boundary", SMALL, "--vary", "pause=20s,0s", "--json"],
    ));
    assert_eq!(j["flip"]["at_ms"], 9_108);
    let out = lockcheck_in(&dir, &["boundary", SMALL, "--vary", "pause=0s..2s"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("does not flip"));
}
