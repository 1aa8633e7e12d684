//! Redlock's attempt rules in worlds of Redis masters and two clients: node-redlock 5's
//! ([`AttemptRules::NODE_REDLOCK_5`]) against the seed's, one rule at a time: deciding at
//! the first quorum either way (and never on a tie), deleting a failed attempt's keys only
//! after the last attempt, counting the validity from the first attempt, and returning a
//! lock whose validity is already over.

mod lock_world;
mod world;

use lock_world::redlock::{engine_phase, first, held, small};
use lock_world::*;
use lockcheck_model::lock::redlock::{AttemptRules, Dispatch, Phase, Redlock, Undo};
use lockcheck_model::lock::{ClockKind, Deadline, Protocol};
use lockcheck_sim::world::{LinkSpec, Network};
use world::{run, RedisWorld};

/// Client-1 alone on five multiplexed nodes under `rules`, starting at 5 ms; the links to
/// the last two nodes take 20 ms each way.
fn slow_minority(rules: AttemptRules) -> RedisWorld {
    let redlock = Redlock {
        rules,
        node_timeout_ms: None,
        ..small(Dispatch::Multiplexed)
    };
    let mut network = Network::uniform(LinkSpec::fixed(1));
    for &node in &NODES[3..] {
        network = network.with_link(CLIENT_1, node, LinkSpec::fixed(20));
        network = network.with_link(node, CLIENT_1, LinkSpec::fixed(20));
    }
    lock_world(Protocol::Redlock(redlock), [job(5, &[10]), no_job()]).with_network(network)
}

#[test]
fn deciding_early_takes_the_lock_at_the_first_quorum() {
    let acquired_at = |rules| {
        let path = run(&slow_minority(rules), &[], 500);
        first(&path, |s| held(s, CLIENT_1).is_some())
            .expect("client-1 acquires")
            .now_ms
    };
    // Three answers after 2 ms make a quorum; every answer takes 40.
    assert_eq!(acquired_at(AttemptRules::NODE_REDLOCK_5), 5 + 2);
    assert_eq!(acquired_at(AttemptRules::SEED), 5 + 40);
}

/// Two clients starting at once on the first four nodes; each reaches two of them first
/// (its links to the other two take 2 ms, the rest 1 ms), so every attempt splits 2 to 2.
fn split_on_four(rules: AttemptRules) -> RedisWorld {
    let redlock = Redlock {
        nodes: NODES[..4].to_vec(),
        rules,
        node_timeout_ms: None,
        acquire_timeout_ms: None,
        max_attempts: Some(3),
        ..small(Dispatch::Multiplexed)
    };
    let mut network = Network::uniform(LinkSpec::fixed(1));
    for (client, far) in [(CLIENT_1, &NODES[2..4]), (CLIENT_2, &NODES[..2])] {
        for &node in far {
            network = network.with_link(client, node, LinkSpec::fixed(2));
        }
    }
    lock_world(Protocol::Redlock(redlock), [job(0, &[10]), job(0, &[10])]).with_network(network)
}

#[test]
fn a_tie_is_never_decided_deciding_early_and_both_clients_wait_for_ever() {
    let path = run(&split_on_four(AttemptRules::NODE_REDLOCK_5), &[], 2_000);
    let end = path.last_state();
    for p in CLIENTS {
        assert!(
            matches!(engine_phase(end, p), Phase::Acquiring { .. }),
            "{p}: {:?}",
            engine_phase(end, p)
        );
        assert_eq!(client_state(end, p).gave_up, 0);
    }
    // Deciding once every node answered, a tie is a failed attempt: both retry, split
    // again (their delays are equal) and give up after their three attempts.
    let path = run(&split_on_four(AttemptRules::SEED), &[], 2_000);
    for p in CLIENTS {
        assert_eq!(client_state(path.last_state(), p).gave_up, 1);
    }
}

/// Client-1 reaches three nodes first, client-2 the other two; client-2 may try twice.
fn split_three_two(undo: Undo) -> RedisWorld {
    let redlock = Redlock {
        rules: AttemptRules {
            undo,
            ..AttemptRules::SEED
        },
        max_attempts: Some(2),
        ..small(Dispatch::Multiplexed)
    };
    let mut network = Network::uniform(LinkSpec::fixed(1));
    for &node in &NODES[..3] {
        network = network.with_link(CLIENT_2, node, LinkSpec::fixed(2));
    }
    for &node in &NODES[3..] {
        network = network.with_link(CLIENT_1, node, LinkSpec::fixed(2));
    }
    lock_world(Protocol::Redlock(redlock), [job(0, &[60]), job(0, &[10])]).with_network(network)
}

/// How many of the last two nodes hold a key while client-2 first waits to retry.
fn keys_left_while_waiting(world: &RedisWorld) -> usize {
    let path = run(world, &[], 500);
    let waiting = first(&path, |s| {
        matches!(engine_phase(s, CLIENT_2), Phase::Waiting { .. })
    })
    .expect("client-2 waits to retry");
    NODES[3..]
        .iter()
        .map(|&n| world::node(waiting, n).keyspace.stored_len())
        .sum()
}

#[test]
fn undoing_after_the_last_attempt_leaves_a_failed_attempts_keys_until_then() {
    assert_eq!(
        keys_left_while_waiting(&split_three_two(Undo::EachFailure)),
        0
    );
    assert_eq!(
        keys_left_while_waiting(&split_three_two(Undo::AfterLast)),
        2
    );
    // After the last attempt the keys are deleted all the same, before giving up.
    let path = run(&split_three_two(Undo::AfterLast), &[], 500);
    let gave_up = first(&path, |s| client_state(s, CLIENT_2).gave_up == 1).expect("gives up");
    let left: usize = NODES[3..]
        .iter()
        .map(|&n| world::node(gave_up, n).keyspace.stored_len())
        .sum();
    assert_eq!(left, 0);
}

/// Client-2 holds the lock from 0 to about 20 ms; client-1 asks from 1 ms on, every 10 ms,
/// with a TTL of `ttl_ms`, every link to it taking `delay_ms`.
fn late_acquire(rules: AttemptRules, ttl_ms: u64, delay_ms: u64) -> (u64, Deadline) {
    let redlock = Redlock {
        ttl_ms,
        rules,
        node_timeout_ms: None,
        acquire_timeout_ms: Some(200),
        ..small(Dispatch::Multiplexed)
    };
    let mut network = Network::uniform(LinkSpec::fixed(1));
    for &node in &NODES {
        network = network.with_link(CLIENT_1, node, LinkSpec::fixed(delay_ms));
        network = network.with_link(node, CLIENT_1, LinkSpec::fixed(delay_ms));
    }
    let world =
        lock_world(Protocol::Redlock(redlock), [job(1, &[1]), job(0, &[18])]).with_network(network);
    let path = run(&world, &[], 1_000);
    let holding = first(&path, |s| held(s, CLIENT_1).is_some()).expect("client-1 acquires");
    let deadline = held(holding, CLIENT_1).unwrap().valid_until.unwrap();
    assert_eq!(deadline.clock, ClockKind::Monotonic);
    (holding.now_ms, deadline)
}

fn validity_left(got: (u64, Deadline)) -> i64 {
    got.1.at_ms - got.0 as i64
}

#[test]
fn the_validity_counts_from_the_first_attempt_and_is_not_checked_with_node_redlock_5() {
    // TTL 1 s, drift 12 ms; client-2's keys are deleted at 21 ms. Each attempt takes 2 ms,
    // and so does deleting after one: the seed's client tries at 1, 15 and 29 ms (attempt,
    // undo, 10 ms delay), node-redlock 5's at 1, 13 and 25 (no undo in between).
    let (t, seed) = late_acquire(AttemptRules::SEED, 1_000, 1);
    assert_eq!(t, 31);
    assert_eq!(seed.at_ms, 29 + 1_000 - 12);
    let (t5, v5) = late_acquire(AttemptRules::NODE_REDLOCK_5, 1_000, 1);
    assert_eq!(t5, 27);
    // From the first attempt, at 1 ms: the retries ate into it.
    assert_eq!(v5.at_ms, 1 + 1_000 - 12);
    // TTL 30 ms and 10 ms links: an attempt takes 20 ms, and 30 - 20 - 3 leaves 7 ms. From
    // the first attempt nothing is left by the time a later one succeeds, and node-redlock 5
    // reports the lock anyway, already expired.
    let expired = late_acquire(AttemptRules::NODE_REDLOCK_5, 30, 10);
    assert!(validity_left(expired) < 0, "{expired:?}");
    assert_eq!(expired.1.at_ms, 1 + 30 - 3);
    // Checking the validity, a quorum with none left is a failure; deciding early is
    // node-redlock 5's alone, so here it is the seed's rule with the validity unchecked.
    let unchecked = AttemptRules {
        checks_validity: false,
        ..AttemptRules::SEED
    };
    let from_attempt = late_acquire(unchecked, 30, 10);
    assert_eq!(validity_left(from_attempt), 7);
}
