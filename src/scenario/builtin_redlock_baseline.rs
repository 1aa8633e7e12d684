//! The Redlock that its authors call safe, as a user would configure it: two clients
//! contending for one lock on five independent masters, every node asked at once, clocks
//! within ±0.4 % (inside the 1 % drift factor), a 10 s TTL, a 5 s job, a 50 ms retry.
//! Without faults, and with one pause and one clock step in its envelope.
//!
//! The clocks are the worst case the envelope allows for safety and the same for every
//! process of a kind: both clients 0.4 % slow (their validity lasts longer in true time),
//! every node 0.4 % fast (the keys expire sooner): 0.8 % apart, inside the factor.
//!
//! One-way delays are 1 ms. With delays of 1 or 2 ms the delay of every message is a choice
//! fixed when it is sent, and a breadth-first search of the fault-free world passes
//! 1,000,000 states at depth 29 (the first 2 ms of virtual time) with partial-order
//! reduction on; [`BASELINE_DELAYS_MS`] is the one place to widen once a delay is chosen
//! lazily.

use super::builtin_redlock::{plain_redlock, REDLOCK_NODES};
use super::kit::{base, client, node, walks};
use super::*;
use lockcheck_model::lock::redlock::Dispatch;

/// The one-way delays of every link.
pub const BASELINE_DELAYS_MS: &[u64] = &[1];
/// Clients' clock rate: 0.4 % slow.
const CLIENT_DRIFT_PPM: i64 = -4_000;
/// Nodes' clock rate: 0.4 % fast.
const NODE_DRIFT_PPM: i64 = 4_000;

/// The baseline Redlock: multiplexed, TTL 10 s, retry 50 ms, two clients from time 0 with a
/// 5 s job, no faults.
fn baseline(name: &str, description: &str) -> Scenario {
    let mut protocol = plain_redlock(10_000, 50);
    if let ProtocolSpec::Redlock { dispatch, .. } = &mut protocol {
        *dispatch = Dispatch::Multiplexed;
    }
    let contender = |name: &str| {
        let mut c = client(name, protocol.clone(), &[5_000], 0);
        c.clock.drift_ppm = CLIENT_DRIFT_PPM;
        c
    };
    let mut nodes: Vec<NodeSpec> = REDLOCK_NODES.iter().map(|n| node(n)).collect();
    for n in &mut nodes {
        n.clock.drift_ppm = NODE_DRIFT_PPM;
    }
    Scenario {
        name: name.into(),
        description: description.into(),
        nodes,
        clients: vec![contender("p1"), contender("p2")],
        network: NetworkSpec {
            delays_ms: BASELINE_DELAYS_MS.to_vec(),
            ..NetworkSpec::default()
        },
        oracles: vec![OracleSpec::MeLock, OracleSpec::EveryClientDone],
        // Both clients finish after about 10 s of virtual time (one 5 s job, then the
        // other's): a walk of 20,000 steps covers the whole run, so every walk can witness
        // `every-client-done`; the exhaustive search covers every run.
        explore: ExploreSpec {
            random_max_steps: 20_000,
            ..walks(50)
        },
        ..base()
    }
}

/// No faults: whatever the delays and the order of same-instant events, one client holds
/// the lock at a time and both finish their job.
pub fn redlock_baseline_safe() -> Scenario {
    baseline(
        "redlock-baseline-safe",
        "two Redlock clients, five nodes asked at once, clocks within 0.4 %, TTL 10 s, job 5 s, no faults: one holder at a time, both finish",
    )
}

/// The baseline with one 15 s pause of `p1` (longer than the TTL) and one 10 s forward jump
/// of `redis-1`'s clock (a whole TTL) in its envelope, each at any moment. Two clients that
/// start together split the five votes, and a 3-2 split leaves the winner a bare quorum:
/// when one of its three nodes jumps a TTL ahead, its key expires there at once, and the
/// loser's next attempt (50 ms later) wins that node and its own two. Two holders, without
/// the pause (which, whenever it comes, only ends beliefs early: a belief ends by the
/// client's own clock). Kleppmann's clock jump needs no partition here; the contention
/// makes the bare quorum.
pub fn redlock_pause_and_clock_step() -> Scenario {
    let mut s = baseline(
        "redlock-pause-and-clock-step",
        "the baseline Redlock with one 15 s client pause and one 10 s node clock jump in its envelope: a split vote leaves a bare quorum, the jump on one of its nodes gives two holders",
    );
    s.faults = FaultsSpec {
        pauses: vec![PauseSpec {
            process: "p1".into(),
            durations_ms: vec![15_000],
            when: Default::default(),
        }],
        max_pauses: 1,
        clock_steps: vec![ClockStepSpec {
            process: "redis-1".into(),
            deltas_ms: vec![10_000],
            when: Default::default(),
        }],
        max_clock_steps: 1,
        ..FaultsSpec::default()
    };
    s.oracles = vec![OracleSpec::MeLock, OracleSpec::PauseWhileHolding];
    s.expect = ExpectedVerdict::Violated {
        oracle: "me-lock".into(),
    };
    s
}
