//! Saved traces are integrity-checked: a truncated, emptied or edited trace is refused with
//! the reason (exit 2), never replayed as something else, and `replay`, `shrink` and
//! `explain` accept exactly the same files.

mod common;

use common::{assert_bad_input, lockcheck_within, workdir, Out};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

const SMALL: &str = "kleppmann-pause-past-lease";

fn run(dir: &Path, args: &[&str]) -> Out {
    lockcheck_within(dir, args, Duration::from_secs(120))
}

/// A folder with `good.json`, a trace of a violation saved by `check`; and its JSON.
fn good_trace(name: &str) -> (std::path::PathBuf, Value) {
    let dir = workdir(name);
    assert_eq!(run(&dir, &["check", SMALL, "-o", "good.json"]).code, 1);
    let text = std::fs::read_to_string(dir.join("good.json")).unwrap();
    (dir, serde_json::from_str(&text).unwrap())
}

/// `edit` applied to the good trace is refused by every command that reads traces, each
/// naming the same reason.
fn refused_everywhere(name: &str, edit: impl Fn(&mut Value), expected: &[&str]) {
    let (dir, mut trace) = good_trace(name);
    edit(&mut trace);
    std::fs::write(
        dir.join("bad.json"),
        serde_json::to_string_pretty(&trace).unwrap(),
    )
    .unwrap();
    for cmd in ["replay", "shrink", "explain"] {
        let out = run(&dir, &[cmd, "bad.json"]);
        assert_bad_input(&out, expected);
        assert!(
            out.stderr.starts_with("error: bad.json:"),
            "{cmd}: {}",
            out.stderr
        );
    }
}

fn steps(trace: &mut Value) -> &mut Vec<Value> {
    trace["trace"]["steps"].as_array_mut().unwrap()
}

#[test]
fn the_untouched_trace_is_accepted_by_every_command() {
    let (dir, _) = good_trace("trace-good");
    let replayed = run(&dir, &["replay", "good.json"]);
    assert_eq!(replayed.code, 1, "{}", replayed.stderr);
    assert!(replayed
        .stdout
        .contains("VIOLATION of me-resource reproduced"));
    assert_eq!(run(&dir, &["shrink", "good.json"]).code, 1);
    assert_eq!(run(&dir, &["explain", "good.json"]).code, 0);
}

#[test]
fn a_shifted_time_is_refused() {
    refused_everywhere(
        "trace-shifted",
        |t| {
            let at = &mut steps(t)[5]["at_ms"];
            *at = json!(at.as_u64().unwrap() + 1);
        },
        &[
            "the trace is damaged: step 6 (`",
            "but the run reaches it at",
        ],
    );
}

#[test]
fn zeroed_times_are_refused() {
    refused_everywhere(
        "trace-zeroed",
        |t| steps(t).iter_mut().for_each(|s| s["at_ms"] = json!(0)),
        &["the trace is damaged: step 2 (`advance to 1 ms`) is recorded at 0 ms, but the run reaches it at 1 ms"],
    );
}

#[test]
fn another_oracle_of_the_scenario_as_the_property_is_a_witness_or_refused() {
    // Recorded as a `sometimes` oracle, the run is a witness of it (this run pauses a
    // holder): replay and explain take it, shrink refuses it (it keeps a violation).
    let (dir, mut trace) = good_trace("trace-other-oracle");
    trace["trace"]["property"] = json!("pause-while-holding");
    std::fs::write(dir.join("witness.json"), trace.to_string()).unwrap();
    let replayed = run(&dir, &["--json", "replay", "witness.json"]);
    assert_eq!(
        replayed.code, 1,
        "the run still violates me-resource: {}",
        replayed.stderr
    );
    assert_eq!(common::json(&replayed)["witnessed"], true);
    let drawn = run(&dir, &["explain", "witness.json", "-o", "w.svg"]);
    assert_eq!(drawn.code, 0, "{}", drawn.stderr);
    let shrunk = run(&dir, &["shrink", "witness.json", "-o", "s.json"]);
    assert_bad_input(
        &shrunk,
        &["records a witness of pause-while-holding, not a violation"],
    );
    // Cut before the pause, it witnesses nothing: refused everywhere.
    refused_everywhere(
        "trace-other-oracle-cut",
        |t| {
            t["trace"]["property"] = json!("pause-while-holding");
            let pause = (steps(t).iter())
                .position(|s| s["label"].as_str().unwrap().starts_with("pause"))
                .unwrap();
            steps(t).truncate(pause);
        },
        &[
            "records a witness of pause-while-holding, but its",
            "do not reach it",
        ],
    );
}

#[test]
fn a_property_the_scenario_does_not_check_is_refused() {
    refused_everywhere(
        "trace-unknown-oracle",
        |t| t["trace"]["property"] = json!("me-lock"),
        &["records property `me-lock`, which the model does not have (it has me-resource, pause-while-holding)"],
    );
}

#[test]
fn a_trace_without_a_property_is_refused() {
    refused_everywhere(
        "trace-no-property",
        |t| t["trace"]["property"] = Value::Null,
        &["records no property"],
    );
}

#[test]
fn a_truncated_trace_is_refused() {
    refused_everywhere(
        "trace-truncated",
        |t| {
            let s = steps(t);
            s.truncate(s.len() - 3);
        },
        &[
            "records a violation of me-resource, but its",
            "do not violate it",
        ],
    );
}

#[test]
fn an_emptied_trace_is_refused() {
    refused_everywhere(
        "trace-emptied",
        |t| steps(t).clear(),
        &["records a violation of me-resource, but its 0 steps do not violate it"],
    );
}

#[test]
fn a_removed_step_is_refused() {
    refused_everywhere(
        "trace-step-removed",
        |t| {
            steps(t).remove(10);
        },
        &["the trace does not replay: replay diverged at step 11"],
    );
}

#[test]
fn a_file_cut_in_half_is_refused() {
    let (dir, _) = good_trace("trace-cut");
    let text = std::fs::read_to_string(dir.join("good.json")).unwrap();
    std::fs::write(dir.join("bad.json"), &text[..text.len() / 2]).unwrap();
    for cmd in ["replay", "shrink", "explain"] {
        assert_bad_input(
            &run(&dir, &[cmd, "bad.json"]),
            &["bad.json:", "not a lockcheck trace"],
        );
    }
}

#[test]
fn a_field_a_run_does_not_write_is_refused() {
    refused_everywhere(
        "trace-unknown-field",
        |t| t["trace"]["note"] = json!("added"),
        &["field `trace.note`: unknown field `note`"],
    );
    refused_everywhere(
        "trace-unknown-step-field",
        |t| steps(t)[0]["note"] = json!("added"),
        &["field `trace.steps[0].note`: unknown field `note`"],
    );
}

#[test]
fn an_inner_tool_version_other_than_the_wrapper_s_is_refused() {
    refused_everywhere(
        "trace-inner-version",
        |t| t["trace"]["tool_version"] = json!("0.0.1"),
        &["field `trace.tool_version`: `0.0.1` differs from the trace's lockcheck_version"],
    );
}
