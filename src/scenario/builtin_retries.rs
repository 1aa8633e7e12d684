//! Built-in scenarios of retry policies: a jittered retry delay (a set of delays, each a
//! choice) and an attempt limit (redsync's `tries`, node-redlock's `retryCount`), judged by
//! whether a contender gives up while the holder's job runs (the `no-give-up` oracle).

use super::kit::{base, client, node, single_node};
use super::*;

/// The retry built-ins.
pub fn all() -> Vec<Scenario> {
    vec![
        single_node_attempts_run_out(),
        single_node_retries_outlast_the_job(),
    ]
}

/// Two clients want one single-node lock for a 1 s job; the loser retries after 100 or
/// 200 ms (jitter), at most `max_attempts` attempts in all.
fn contention(name: &str, description: &str, max_attempts: u16) -> Scenario {
    let contender = |name: &str| {
        let mut protocol = single_node("redis", 10_000);
        if let ProtocolSpec::SingleNode {
            retry_ms,
            max_attempts: max,
            ..
        } = &mut protocol
        {
            *retry_ms = vec![100, 200];
            *max = Some(u64::from(max_attempts));
        }
        client(name, protocol, &[1_000], 0)
    };
    Scenario {
        name: name.into(),
        description: description.into(),
        nodes: vec![node("redis")],
        clients: vec![contender("client-1"), contender("client-2")],
        oracles: vec![
            OracleSpec::MeLock,
            OracleSpec::NoGiveUp,
            OracleSpec::EveryClientDone,
        ],
        ..base()
    }
}

/// Three attempts, 100 or 200 ms apart, last at most 400 ms plus the round trips: the loser
/// gives up while the winner's 1 s job runs.
pub fn single_node_attempts_run_out() -> Scenario {
    let mut s = contention(
        "single-node-attempts-run-out",
        "two clients contend for a 1 s job; the loser retries after 100 or 200 ms, 3 attempts at most: it gives up while the winner still holds the lock",
        3,
    );
    s.oracles.retain(|o| *o != OracleSpec::EveryClientDone);
    s.expect = ExpectedVerdict::Violated {
        oracle: "no-give-up".into(),
    };
    s
}

/// Twelve attempts: eleven retries of at least 100 ms each outlast the 1 s job whatever the
/// jitter draws, so both clients finish.
pub fn single_node_retries_outlast_the_job() -> Scenario {
    let mut s = contention(
        "single-node-retries-outlast-the-job",
        "the same contention with 12 attempts: eleven retries of 100 or 200 ms outlast the 1 s job whichever delays are drawn, and both clients finish",
        12,
    );
    s.expect = ExpectedVerdict::Safe;
    s
}
