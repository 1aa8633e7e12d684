//! Clients may share a holder identity (Redisson's `uuid:threadId`: two tasks on one
//! `thread` of one `process`, or one `owner`): Redisson's re-entrant acquire then lets a
//! second task take a lock the first holds. The default stays one identity per client, and a
//! bad owner is refused naming the file, line and field.

mod common;

use common::verdicts::exhaustive;
use common::{assert_bad_input, lockcheck_within, repo, workdir};
use lockcheck::scenario::builtin;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

fn example() -> String {
    std::fs::read_to_string(repo("scenarios/redisson-shared-thread.toml")).unwrap()
}

#[test]
fn a_shared_owner_breaks_exclusion_and_own_owners_keep_it() {
    let shared = exhaustive("redisson-shared-thread");
    assert_eq!(shared.violated(), Some("me-lock"));
    let own = exhaustive("redisson-own-threads");
    assert_eq!(own.violated(), None);
    assert!(own.report.is_exhaustive());
}

#[test]
fn the_example_file_is_the_built_in() {
    let dir = workdir("owner-example");
    let out = lockcheck_within(
        &dir,
        &[
            "check",
            repo("scenarios/redisson-shared-thread.toml")
                .to_str()
                .unwrap(),
        ],
        LIMIT,
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.contains("verdict: VIOLATION of me-lock"));
    assert!(out.stdout.contains("matches expectation"), "{}", out.stdout);
    // task-b on a thread of its own: a holder of its own, safe.
    let text = example().replacen(
        "process = \"app-1\"\nthread = \"pool-1\"\n",
        "process = \"app-1\"\nthread = \"pool-2\"\n",
        1,
    );
    assert_ne!(text, example(), "task-b's thread line moved");
    std::fs::write(dir.join("own.toml"), text).unwrap();
    let out = lockcheck_within(&dir, &["check", "own.toml"], LIMIT);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(out
        .stdout
        .contains("DIFFERS from expectation: expected violation of me-lock, got safe"));
}

#[test]
fn an_empty_owner_is_refused_with_file_line_and_field() {
    let dir = workdir("owner-empty");
    let text = example().replacen(
        "thread = \"pool-1\"               # the thread",
        "owner = \"  \"                    # the identity",
        1,
    );
    std::fs::write(dir.join("bad.toml"), text).unwrap();
    let out = lockcheck_within(&dir, &["check", "bad.toml"], LIMIT);
    assert_bad_input(
        &out,
        &[
            "bad.toml:21:",
            "field `clients[0].owner`",
            "an owner identity cannot be empty",
        ],
    );
}

#[test]
fn an_owner_that_is_not_text_is_refused_with_its_field() {
    let dir = workdir("owner-number");
    let text = example().replacen("thread = \"pool-1\"", "owner = 7", 1);
    std::fs::write(dir.join("bad.toml"), text).unwrap();
    let out = lockcheck_within(&dir, &["check", "bad.toml"], LIMIT);
    assert_bad_input(&out, &["bad.toml:21:", "clients[0].owner", "string"]);
}

#[test]
fn shared_owners_are_refused_with_deadlock_detection() {
    let mut s = builtin::by_name("shared-detector-aborts-victim").unwrap();
    s.clients[1].owner = Some("shared".into());
    let e = s.build().err().expect("refused");
    assert_eq!(e.field, "clients[1].owner");
    assert!(
        e.message.contains("not supported with [detection]"),
        "{}",
        e.message
    );
}
