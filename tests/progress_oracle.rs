//! The `progress` oracle: whenever a free lock is asked for, some client holds a lock within
//! the bound. Redlock's split vote on an even number of masters livelocks; on an odd number
//! it never does.

mod common;

use common::{assert_bad_input, lockcheck_within, repo, workdir};
use lockcheck::check::{check, Mode};
use lockcheck::scenario::builtin;
use lockcheck::scenario::file::scenario_from_toml;
use std::time::Duration;

#[test]
fn an_odd_number_of_masters_always_elects_a_holder() {
    let s = builtin::by_name("redlock-split-vote-progress").unwrap();
    let checked = check(&s, Mode::Exhaustive).unwrap();
    assert_eq!(checked.violated(), None);
    assert!(checked.report.is_exhaustive());
}

#[test]
fn four_masters_split_two_two_and_nobody_holds_the_free_lock() {
    let s = builtin::by_name("redlock-split-vote-livelock").unwrap();
    let checked = check(&s, Mode::Exhaustive).unwrap();
    let (oracle, path) = checked.report.first_violation().expect("a violation");
    assert_eq!(oracle, "progress");
    // No two holders on the way: it is a livelock, not a broken lock.
    assert!(checked
        .report
        .property("me-lock")
        .is_some_and(|p| !p.status.is_violated()));
    // Both clients retried at least once, and the counterexample ends at the bound.
    let labels = path.labels();
    for client in ["p1", "p2"] {
        let retry = format!("timer {client}: retry");
        assert!(labels.iter().any(|l| l.starts_with(&retry)), "{labels:?}");
    }
}

#[test]
fn the_example_file_is_the_built_in() {
    let text = std::fs::read_to_string(repo("scenarios/redlock-split-vote-livelock.toml")).unwrap();
    let mut file = scenario_from_toml(&text).unwrap();
    let built_in = builtin::by_name("redlock-split-vote-livelock").unwrap();
    file.description = built_in.description.clone();
    assert_eq!(file, built_in);
}

#[test]
fn a_zero_bound_is_refused_with_file_line_and_field() {
    let dir = workdir("progress-zero");
    let text = std::fs::read_to_string(repo("scenarios/redlock-split-vote-livelock.toml"))
        .unwrap()
        .replace("bound_ms = \"300ms\"", "bound_ms = \"0ms\"");
    std::fs::write(dir.join("bad.toml"), text).unwrap();
    let out = lockcheck_within(&dir, &["check", "bad.toml"], Duration::from_secs(60));
    assert_bad_input(
        &out,
        &[
            "bad.toml:53:",
            "field `oracles[1].bound_ms`",
            "must be greater than 0",
        ],
    );
}
