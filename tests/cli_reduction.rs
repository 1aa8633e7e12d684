//! `check --stats`, `--no-reduction` and `--no-partial-order`: the branching table and the
//! reductions line say what the search did, and switching the reduction off gives the same
//! verdict from at least as many states.

mod common;

use common::{lockcheck_within, workdir};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

fn check_json(name: &str, extra: &[&str]) -> Value {
    let dir = workdir(name);
    let mut args = vec!["check", "seed-003-incident", "--json", "--stats"];
    args.extend_from_slice(extra);
    let out = lockcheck_within(&dir, &args, Duration::from_secs(120));
    assert_eq!(out.code, 1, "{}", out.stderr);
    serde_json::from_str(&out.stdout).expect("one JSON object")
}

#[test]
fn stats_show_branching_by_kind_and_what_the_reduction_saved() {
    let reduced = check_json("stats-reduced", &[]);
    let full = check_json("stats-full", &["--no-reduction"]);
    assert_eq!(reduced["reductions"]["partial_order"]["status"], "on");
    assert_eq!(full["reductions"]["partial_order"]["status"], "off");
    assert_eq!(reduced["verdict"], full["verdict"]);
    assert_eq!(reduced["oracle"], full["oracle"]);
    let events = |j: &Value, key: &str| j["branching"]["event_order"][key].as_u64().unwrap();
    // Without reduction every offered action is expanded; with it, fewer.
    assert_eq!(events(&full, "offered"), events(&full, "expanded"));
    assert!(events(&reduced, "expanded") < events(&reduced, "offered"));
    assert!(
        reduced["reductions"]["partial_order"]["reduced_states"]
            .as_u64()
            .unwrap()
            > 0
    );
    // Faults are offered at every step of this scenario's envelope.
    assert!(
        full["branching"]["fault"]["choice_points"]
            .as_u64()
            .unwrap()
            > 0
    );
    let unique = |j: &Value| j["statistics"]["unique_states"].as_u64().unwrap();
    assert!(unique(&reduced) <= unique(&full));
}

#[test]
fn the_reductions_line_says_why_partial_order_is_off() {
    let dir = workdir("stats-liveness");
    let out = lockcheck_within(
        &dir,
        &["check", "single-node-holder-crash", "--no-partial-order"],
        Duration::from_secs(120),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("reductions: partial order off"),
        "{}",
        out.stdout
    );
    check_says(
        &dir,
        &["check", "single-node-holder-crash"],
        "reductions: partial order not applicable: property liveness does not declare what it observes",
    );
}

/// Runs `lockcheck args` in `dir` and requires `line` in what it prints.
fn check_says(dir: &Path, args: &[&str], line: &str) {
    let out = lockcheck_within(dir, args, Duration::from_secs(120));
    assert!(out.stdout.contains(line), "{}", out.stdout);
}

#[test]
fn the_reductions_say_why_symmetry_did_not_run_and_no_symmetry_switches_it_off() {
    let asked = check_json("stats-symmetry", &[]);
    let symmetry = &asked["reductions"]["symmetry"];
    assert_eq!(symmetry["status"], "unavailable");
    assert_eq!(symmetry["reason"], "no two processes are configured alike");
    let off = check_json("stats-no-symmetry", &["--no-symmetry"]);
    assert_eq!(off["reductions"]["symmetry"]["status"], "off");
    assert_eq!(off["reductions"]["partial_order"]["status"], "on");
    assert_eq!(asked["verdict"], off["verdict"]);
    // Seed 000's Redlock asks its nodes one after another: their order matters.
    let dir = workdir("stats-symmetry-text");
    check_says(
        &dir,
        &["check", "seed-000-redlock-majority-failure", "--max-states", "1000"],
        "reductions: symmetry not applicable: the configuration of p1 tells redis-1 from redis-2 (it names them in an order that matters)",
    );
    // The split vote asks every node at once: the three nodes are interchangeable.
    check_says(
        &dir,
        &["check", "redlock-split-vote", "--max-states", "1000"],
        "reductions: symmetry on: {redis-1, redis-2, redis-3}: ",
    );
}

#[test]
fn the_dead_values_line_says_what_was_merged_and_no_dead_values_switches_it_off() {
    let asked = check_json("stats-dead-values", &[]);
    let dead = &asked["reductions"]["dead_values"];
    assert_eq!(dead["status"], "on");
    assert!(dead["states_met"].as_u64().unwrap() >= dead["stored"].as_u64().unwrap());
    let off = check_json("stats-no-dead-values", &["--no-dead-values"]);
    assert_eq!(off["reductions"]["dead_values"]["status"], "off");
    assert_eq!(off["reductions"]["partial_order"]["status"], "on");
    let none = check_json("stats-no-reduction-dead-values", &["--no-reduction"]);
    assert_eq!(none["reductions"]["dead_values"]["status"], "off");
    assert_eq!(asked["verdict"], off["verdict"]);
}

/// `--stats` counts the states where a resumed process's overdue timer could overtake an
/// earlier one (`resume_order`), and a world whose overdue timers fire in due order has none.
#[test]
fn stats_count_the_resume_order_choices() {
    let stats = |name: &str, code: i32| {
        let dir = workdir(&format!("stats-{name}"));
        let args = ["check", name, "--json", "--stats"];
        let out = lockcheck_within(&dir, &args, Duration::from_secs(120));
        assert_eq!(out.code, code, "{}", out.stderr);
        let j: Value = serde_json::from_str(&out.stdout).expect("one JSON object");
        j["branching"]["resume_order"].clone()
    };
    let any = stats("node-redlock-5-using-write-before-abort", 1);
    assert!(any["choice_points"].as_u64().unwrap() >= 1, "{any}");
    assert!(any["offered"].as_u64().unwrap() >= 1, "{any}");
    let due = stats("node-redlock-5-using-abort-before-write", 0);
    assert!(due.is_null(), "{due}");
}
