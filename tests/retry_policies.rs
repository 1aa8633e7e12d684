//! Retry policies on Redlock: an attempt limit ends a livelock by giving up, after exactly
//! that many attempts, and a jittered retry (a set of delays) does not rule the livelock out
//! (both contenders may draw the same delay every time).

use lockcheck::check::{check, Mode};
use lockcheck::scenario::{builtin, OracleSpec, ProtocolSpec, Scenario};

/// `redlock-split-vote-livelock` judged by `no-give-up` too, each client's attempts limited
/// to `max_attempts` and its retry delays `retry_ms`.
fn split_votes(max_attempts: Option<u64>, retry_ms: &[u64]) -> Scenario {
    let mut s = builtin::by_name("redlock-split-vote-livelock").unwrap();
    for c in &mut s.clients {
        let ProtocolSpec::Redlock {
            max_attempts: max,
            retry_ms: retry,
            ..
        } = &mut c.protocol
        else {
            panic!("the livelock is Redlock's")
        };
        *max = max_attempts;
        *retry = retry_ms.to_vec();
    }
    s.oracles.push(OracleSpec::NoGiveUp);
    s
}

#[test]
fn an_attempt_limit_gives_up_after_that_many_split_votes() {
    let limited = check(&split_votes(Some(2), &[200]), Mode::Exhaustive).unwrap();
    let (oracle, path) = limited.report.first_violation().expect("a client gives up");
    assert_eq!(oracle, "no-give-up");
    let labels = path.labels();
    let asked_first_node = |client: &str| {
        labels
            .iter()
            .filter(|l| l.starts_with(&format!("deliver {client} -> redis-1: SET")))
            .count()
    };
    let attempts = [asked_first_node("p1"), asked_first_node("p2")];
    assert_eq!(
        attempts.iter().max(),
        Some(&2),
        "the one that gives up made two attempts, neither made more:\n{}",
        labels.join("\n")
    );
    let unlimited = check(&split_votes(None, &[200]), Mode::Exhaustive).unwrap();
    assert_eq!(
        unlimited.violated(),
        Some("progress"),
        "without a limit nobody gives up; the livelock remains"
    );
}

#[test]
fn a_jittered_retry_can_still_split_the_votes_again() {
    let jittered = check(&split_votes(None, &[150, 200, 250]), Mode::Exhaustive).unwrap();
    assert_eq!(jittered.violated(), Some("progress"));
    let (_, path) = jittered.report.first_violation().unwrap();
    let labels = path.labels();
    let draws = |client: &str| -> Vec<&str> {
        let prefix = format!("timer {client}: retry");
        labels
            .iter()
            .filter(|l| l.starts_with(&prefix))
            .filter_map(|l| l.split(" after ").nth(1))
            .collect()
    };
    assert!(!draws("p1").is_empty(), "{}", labels.join("\n"));
    assert_eq!(
        draws("p1"),
        draws("p2"),
        "both drew the same delays, so the votes split again:\n{}",
        labels.join("\n")
    );
}
