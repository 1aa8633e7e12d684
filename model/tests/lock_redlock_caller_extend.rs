//! The caller's `extend L` on Redlock, as each library runs it (module `redlock::extend`):
//! redsync's single attempt, node-redlock 4's attempts that unlock every node after each
//! failure, node-redlock 5's attempts without undo and with the validity unchecked; and
//! node-redlock's refusal of a lock whose expiration passed.

mod lock_world;
mod world;

use lock_world::redlock::{first, held, renewal_requests, small, validities};
use lock_world::*;
use lockcheck_model::lock::engine::Extension;
use lockcheck_model::lock::redlock::{AttemptRules, Dispatch, ExtendRules, Redlock};
use lockcheck_model::lock::{Phase as ClientPhase, Protocol, Steps, Workload, WorkloadStep};
use lockcheck_sim::world::{FaultEnvelope, ProcessId};
use world::{run, RedisWorld, State};

/// The three forms: redsync's rules, node-redlock 4's, node-redlock 5's.
const FORMS: [(&str, AttemptRules, ExtendRules); 3] = [
    ("redsync", AttemptRules::SEED, ExtendRules::REDSYNC),
    (
        "node-redlock 4",
        AttemptRules::SEED,
        ExtendRules::NODE_REDLOCK_4,
    ),
    (
        "node-redlock 5",
        AttemptRules::NODE_REDLOCK_5,
        ExtendRules::NODE_REDLOCK_5,
    ),
];

/// Client-1 acquires a 100 ms lock on five masters (valid until 97 ms after the attempt
/// began), works 50 ms, extends, works 50 ms and releases; three attempts 10 ms apart, no
/// request timeout. Client-1 may pause 200 ms once, and the clocks of three nodes may jump
/// 1 s ahead.
fn world(rules: AttemptRules, extend: ExtendRules) -> RedisWorld {
    let redlock = Redlock {
        rules,
        extend,
        node_timeout_ms: None,
        acquire_timeout_ms: None,
        max_attempts: Some(3),
        ..small(Dispatch::Multiplexed)
    };
    let steps = vec![
        WorkloadStep::Acquire {
            slot: 0,
            within_ms: None,
        },
        WorkloadStep::Work { ms: vec![50] },
        WorkloadStep::Extend {
            slot: 0,
            how: Extension::Ttl,
        },
        WorkloadStep::Work { ms: vec![50] },
        WorkloadStep::Release { slot: 0 },
    ];
    let extender = Workload {
        steps: Steps::Listed(vec![steps]),
        ..job(0, &[50])
    };
    let mut envelope = FaultEnvelope::none().pause(CLIENT_1, &[200], 1);
    for &node in &NODES[2..] {
        envelope = envelope.clock_step(node, &[1_000], 1);
    }
    lock_world(Protocol::Redlock(redlock), [extender, no_job()]).with_faults(envelope)
}

/// Whether node `n` still has client-1's key in `s`.
fn has_key(s: &State, n: ProcessId) -> bool {
    s.actor(n)
        .and_then(|a| a.as_redis())
        .is_some_and(|node| node.keyspace.entries().any(|(k, _)| k == b"lock"))
}

/// Whether client-1 is in its extension step.
fn extending(s: &State) -> bool {
    matches!(client_state(s, CLIENT_1).phase, ClientPhase::Extending(_))
}

/// How many owner-checked deletes from client-1 are in flight in `s`.
fn deletes(s: &State) -> usize {
    s.in_flight
        .iter()
        .filter(|m| m.from == CLIENT_1 && format!("{:?}", m.msg).contains("CompareAndDelete"))
        .count()
}

/// The time of the first state where the round is over (client-1 holds nothing and has
/// given up its extension).
fn round_over_ms(path: &lockcheck_sim::Path<RedisWorld>) -> u64 {
    first(path, |s| {
        s.now_ms > 3 && held(s, CLIENT_1).is_none() && client_state(s, CLIENT_1).step == 0
    })
    .map_or(u64::MAX, |s| s.now_ms)
}

#[test]
fn an_extension_in_time_is_a_new_validity_in_every_form() {
    for (name, rules, extend) in FORMS {
        let path = run(&world(rules, extend), &[], 1_000);
        // Acquired from 0: valid until 97. Extended from 52: valid until 52 + 97.
        assert_eq!(validities(&path.states), [97, 149], "{name}");
    }
}

#[test]
fn a_failed_extension_is_tried_once_retried_or_unlocked_everywhere_by_form() {
    // At 51 ms the clocks of three of the five nodes jump 1 s ahead: the key expires there
    // and every attempt of the extension (from 52) gets a quorum of 0s.
    let steps: Vec<String> = NODES[2..]
        .iter()
        .map(|n| format!("step clock of redis-{} by +1000 ms", n + 1))
        .collect();
    let faults: Vec<(u64, &str)> = steps.iter().map(|l| (51, l.as_str())).collect();
    let mut requests = Vec::new();
    for (name, rules, extend) in FORMS {
        let path = run(&world(rules, extend), &faults, 1_000);
        assert_eq!(validities(&path.states), [97], "{name}: never extended");
        let sent: usize = path
            .states
            .windows(2)
            .map(|w| {
                renewal_requests(&w[1], CLIENT_1).saturating_sub(renewal_requests(&w[0], CLIENT_1))
            })
            .sum();
        let deletes = path
            .states
            .windows(2)
            .filter(|w| extending(&w[0]) && extending(&w[1]))
            .map(|w| deletes(&w[1]).saturating_sub(deletes(&w[0])))
            .sum::<usize>();
        // The keys of the two nodes that did extend, at 60 ms.
        let at_60 = path
            .states
            .iter()
            .find(|s| s.now_ms >= 60)
            .unwrap_or(path.last_state());
        let kept = NODES[..2].iter().filter(|&&n| has_key(at_60, n)).count();
        requests.push((name, sent, deletes, kept, round_over_ms(&path)));
    }
    assert_eq!(
        requests,
        [
            // One attempt of five requests, no undo; the failure at 54 ends the round,
            // whose release has deleted the keys by 60.
            ("redsync", 5, 0, 0, 56),
            // Three attempts (52, 66, 80), each followed by an unlock everywhere: the
            // first one deletes the two keys the extension had just kept.
            ("node-redlock 4", 15, 15, 0, 86),
            // Three attempts (52, 64, 76) and no undo: the keys stay with a fresh TTL
            // until the round's release.
            ("node-redlock 5", 15, 0, 2, 80),
        ]
    );
}

#[test]
fn node_redlock_refuses_an_expired_lock_where_redsync_asks_the_nodes() {
    // A 200 ms pause from 10 ms: the extension is asked at 260, after the expiration (97).
    for (name, rules, extend) in FORMS {
        let path = run(
            &world(rules, extend),
            &[(10, "pause client-1 for 200 ms")],
            1_000,
        );
        let asked = path
            .states
            .iter()
            .any(|s| renewal_requests(s, CLIENT_1) > 0);
        assert_eq!(asked, name == "redsync", "{name}");
        assert_eq!(validities(&path.states), [97], "{name}: never extended");
    }
}

#[test]
fn after_a_pause_during_the_extension_only_node_redlock_5_reports_it_extended() {
    // The extension is sent at 52 and the process pauses at 53 for 200 ms: the answers, a
    // quorum of 1s, are read at 253, when no validity is left (52 + 97 = 149).
    for (name, rules, extend) in FORMS {
        let path = run(
            &world(rules, extend),
            &[(53, "pause client-1 for 200 ms")],
            1_000,
        );
        let expected: &[i64] = match name {
            "node-redlock 5" => &[97, 149],
            _ => &[97],
        };
        assert_eq!(validities(&path.states), expected, "{name}");
        let end = path.last_state();
        let keys = NODES.iter().filter(|&&n| has_key(end, n)).count();
        assert_eq!(keys, 0, "{name}: released or unlocked at the end");
    }
}
