//! A scenario changed with `--set` is a new scenario: its name ends in `+set`, its
//! description (and so the chart's subtitle) opens with the settings, and its trace goes to
//! a file of its own, leaving the built-in's trace file alone. (That its `[expect]` no
//! longer applies is `cli_expectation`'s.)

mod common;

use common::{json, lockcheck_within, workdir};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

const BUILT_IN: &str = "kleppmann-pause-past-lease";

#[test]
fn check_names_and_describes_a_changed_scenario() {
    let dir = workdir("set-identity");
    let args = [
        "check",
        BUILT_IN,
        "--set",
        "ttl=5s",
        "--set",
        "faults.pauses[0].durations_ms=9s",
    ];
    let out = lockcheck_within(&dir, &args, LIMIT);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let mut lines = out.stdout.lines();
    assert_eq!(
        lines.next(),
        Some("scenario: kleppmann-pause-past-lease+set")
    );
    let description = lines.next().unwrap();
    assert!(
        description.starts_with(
            "  changed with --set: ttl = 5s, faults.pauses[0].durations_ms = 9s; from kleppmann-pause-past-lease: "
        ),
        "{description}"
    );
    // The trace has a file of its own; the built-in's is not written.
    let traces = dir.join("lockcheck-traces");
    let own = traces.join("kleppmann-pause-past-lease_set.trace.json");
    assert!(own.exists(), "{}", out.stdout);
    assert!(!traces
        .join("kleppmann-pause-past-lease.trace.json")
        .exists());
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&own).unwrap()).unwrap();
    assert_eq!(saved["scenario"]["name"], "kleppmann-pause-past-lease+set");
    assert!(
        saved["scenario"].get("expect").is_none(),
        "{}",
        saved["scenario"]
    );

    let mut json_args = vec!["--json"];
    json_args.extend(args);
    let j = json(&lockcheck_within(&dir, &json_args, LIMIT));
    assert_eq!(j["scenario"], "kleppmann-pause-past-lease+set");

    // The chart of that trace says what was changed: the name as its title, the settings
    // first in its subtitle.
    let chart = dir.join("chart.html");
    let own = own.display().to_string();
    let drawn = lockcheck_within(
        &dir,
        &["explain", &own, "-o", chart.to_str().unwrap()],
        LIMIT,
    );
    assert_eq!(drawn.code, 0, "{}", drawn.stderr);
    let html = std::fs::read_to_string(&chart).unwrap();
    assert!(
        html.contains("<title>kleppmann-pause-past-lease+set</title>"),
        "{}",
        &html[..html.len().min(600)]
    );
    assert!(
        html.contains("changed with --set: ttl = 5s, faults.pauses[0].durations_ms = 9s"),
        "the subtitle names the settings"
    );
}

#[test]
fn an_unchanged_scenario_keeps_its_name_and_file() {
    let dir = workdir("set-none");
    let out = lockcheck_within(&dir, &["check", BUILT_IN], LIMIT);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.starts_with(&format!("scenario: {BUILT_IN}\n")));
    assert!(dir
        .join("lockcheck-traces")
        .join(format!("{BUILT_IN}.trace.json"))
        .exists());
}

#[test]
fn sweep_and_boundary_name_the_changed_scenario() {
    let dir = workdir("set-grid");
    let j = json(&lockcheck_within(
        &dir,
        &[
            "--json",
            "sweep",
            BUILT_IN,
            "--set",
            "ttl=5s",
            "--vary",
            "pause=1s,9s",
        ],
        LIMIT,
    ));
    assert_eq!(j["scenario"], "kleppmann-pause-past-lease+set");
    assert_eq!(j["cells"][1]["verdict"], "violated", "{j}");
    let trace = j["cells"][1]["trace"].as_str().unwrap();
    assert!(
        trace.contains("kleppmann-pause-past-lease_set-pause=9s"),
        "{trace}"
    );
    let out = lockcheck_within(
        &dir,
        &[
            "boundary",
            BUILT_IN,
            "--set",
            "ttl=5s",
            "--vary",
            "pause=0s..9s",
        ],
        LIMIT,
    );
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("kleppmann-pause-past-lease+set: the smallest pause that breaks"),
        "{}",
        out.stdout
    );
}
