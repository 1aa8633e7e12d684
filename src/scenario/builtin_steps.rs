//! Built-in scenarios of workloads written as steps: a read and a debit under different
//! locks, and under one; a re-entrant acquire on Redisson, which counts it, and on
//! `SET NX`, which waits on itself; `try-acquire L within T` per round; redis-py's
//! `extend` in the middle of a job, its `LockNotOwnedError` handled or swallowed.

use super::kit::{account, base, node, pause, single_node, stepper};
use super::*;

/// Two order handlers, the second 10 ms after the first, each running `steps` on one
/// single-node lock server, over one account, messages taking 1 or 3 ms: ME-lock and
/// ME-resource.
fn two_handlers(name: &str, steps: &[&str]) -> Scenario {
    let handler = |n: &str, start| stepper(n, single_node("redis", 10_000), start, steps);
    Scenario {
        name: name.into(),
        nodes: vec![node("redis")],
        clients: vec![handler("handler-1", 0), handler("handler-2", 10)],
        account: Some(account(false, false, false)),
        network: NetworkSpec {
            delays_ms: vec![1, 3],
            ..NetworkSpec::default()
        },
        oracles: vec![OracleSpec::MeLock, OracleSpec::MeResource],
        ..base()
    }
}

/// "Unlock inventory, then lock payment": each handler reads the account under the
/// inventory lock, lets it go, works 50 ms (a call to the payment gateway) and debits
/// under the payment lock. Each lock has one
/// holder at a time, yet both handlers read before either debits: the order is debited
/// twice. No fault is needed.
pub fn read_and_debit_under_different_locks() -> Scenario {
    let mut s = two_handlers(
        "steps-read-and-debit-under-different-locks",
        &[
            "acquire inventory",
            "read",
            "release inventory",
            "work 10ms | 50ms",
            "acquire payment",
            "debit",
            "release payment",
        ],
    );
    s.description = "each handler reads under the inventory lock, releases it, then debits under the payment lock: every lock has one holder at a time, yet both read before either debits and the order is debited twice".into();
    s.expect = ExpectedVerdict::Violated {
        oracle: "me-resource".into(),
    };
    s
}

/// The same handlers keep the inventory lock until the debit is written: the second reads
/// only after the first debited, sees the order done and skips it.
pub fn read_and_debit_under_one_lock() -> Scenario {
    let mut s = two_handlers(
        "steps-read-and-debit-under-one-lock",
        &[
            "acquire inventory",
            "read",
            "work 10ms | 50ms",
            "acquire payment",
            "debit",
            "release payment",
            "release inventory",
        ],
    );
    s.description = "the same handlers hold the inventory lock until the debit is written: the second reads after the first debited, sees the order done, and skips it".into();
    s.expect = ExpectedVerdict::Safe;
    s
}

/// The re-entrant round: take `order`, read, take it again (a nested call), work, give the
/// inner hold back, debit, give the outer back.
const REENTRANT: [&str; 7] = [
    "acquire order",
    "read",
    "acquire order",
    "work 50ms",
    "release order",
    "debit",
    "release order",
];

/// Two handlers on Redisson, each taking its lock again inside its critical section.
/// Redisson's acquire script raises the owner's hold count and its unlock lowers it, so
/// the inner release leaves the lock held until the outer one: the other handler waits,
/// within a second.
pub fn reentrant_redisson() -> Scenario {
    let handler =
        |n: &str, start| stepper(n, ProtocolSpec::redisson_lock("redis"), start, &REENTRANT);
    Scenario {
        name: "steps-reentrant-redisson".into(),
        description: "two handlers on Redisson take their lock again inside the critical section: the hold count keeps it held until the outer release, and the other waits less than a second".into(),
        nodes: vec![node("redis")],
        clients: vec![handler("handler-1", 0), handler("handler-2", 10)],
        account: Some(account(false, false, false)),
        oracles: vec![
            OracleSpec::MeLock,
            OracleSpec::MeResource,
            OracleSpec::NoStarvation { bound_ms: 1_000 },
        ],
        expect: ExpectedVerdict::Safe,
        ..base()
    }
}

/// The same round on a `SET NX` lock, which is not re-entrant: the nested acquire finds
/// the key its own outer hold wrote and retries until the TTL (10 s) ends that hold. The
/// handler waits on itself longer than a second.
pub fn reentrant_set_nx_waits_on_itself() -> Scenario {
    let handler = |n: &str, start| stepper(n, single_node("redis", 10_000), start, &REENTRANT);
    Scenario {
        name: "steps-reentrant-set-nx-waits-on-itself".into(),
        description: "the same nested acquire on a SET NX lock, which is not re-entrant: the handler finds its own key and retries until the TTL ends its outer hold, waiting on itself for more than a second".into(),
        clients: vec![handler("handler-1", 0)],
        expect: ExpectedVerdict::Violated {
            oracle: "no-starvation".into(),
        },
        ..reentrant_redisson()
    }
}

/// A holder keeps `order` 2 s; a reporter, 100 ms later, gives each round a different
/// wait: its first round tries for 500 ms and gives up (the round ends), its second waits
/// as long as it takes. Both read and debit; what was given up is not done.
pub fn try_acquire_then_wait() -> Scenario {
    let holder = stepper(
        "holder",
        single_node("redis", 10_000),
        0,
        &["acquire order", "read", "work 2s", "debit", "release order"],
    );
    let mut reporter = stepper("reporter", single_node("redis", 10_000), 100, &[]);
    reporter.workload.round_steps = [
        [
            "try-acquire order within 500ms",
            "read",
            "work 10ms",
            "debit",
            "release order",
        ],
        [
            "acquire order",
            "read",
            "work 10ms",
            "debit",
            "release order",
        ],
    ]
    .iter()
    .map(|round| round.iter().map(|s| s.to_string()).collect())
    .collect();
    Scenario {
        name: "steps-try-acquire-then-wait".into(),
        description: "a reporter tries for 500 ms in its first round while the holder works 2 s, gives up and ends the round, then waits in its second: one holder at a time, every debit once".into(),
        nodes: vec![node("redis")],
        clients: vec![holder, reporter],
        account: Some(account(false, false, false)),
        oracles: vec![OracleSpec::MeLock, OracleSpec::MeResource, OracleSpec::NoGiveUp],
        expect: ExpectedVerdict::Violated {
            oracle: "no-give-up".into(),
        },
        ..base()
    }
}

/// Two report workers on a redis-py style lock (`timeout=5`), each reading the account,
/// working 3 s, calling `lock.extend(5)`, working 3 s more and debiting. worker-1 may pause
/// once for 3 s: in its first stretch the key expires before the extension, worker-2 takes
/// the lock, and the extension answers 0 (`LockNotOwnedError`). The exception ends the
/// round: worker-1 releases (its owner-checked release deletes nothing) and does not debit.
pub fn extend_result_checked() -> Scenario {
    let worker = |n: &str, start| {
        stepper(
            n,
            single_node("redis", 5_000),
            start,
            &[
                "acquire report",
                "read",
                "work 3s",
                "extend report by 5s",
                "work 3s",
                "debit",
                "release report",
            ],
        )
    };
    Scenario {
        name: "steps-extend-result-checked".into(),
        description: "redis-py's extend(5) in the middle of a 6 s job on a 5 s lock, a 3 s pause before it: the key has expired and the other worker holds it, the extension raises LockNotOwnedError, and the round ends without the debit".into(),
        nodes: vec![node("redis")],
        clients: vec![worker("worker-1", 0), worker("worker-2", 100)],
        account: Some(account(false, false, false)),
        faults: pause("worker-1", &[3_000], 1),
        oracles: vec![OracleSpec::MeResource],
        expect: ExpectedVerdict::Safe,
        ..base()
    }
}

/// The same workers, the exception caught and ignored (`on_fail = "proceed"`): worker-1
/// goes on believing it holds the lock and debits what it read before the other worker's
/// debit.
pub fn extend_result_ignored() -> Scenario {
    let mut s = extend_result_checked();
    s.name = "steps-extend-result-ignored".into();
    s.description = "the same failed extension with LockNotOwnedError caught and ignored: the worker goes on without the lock and the order is debited twice".into();
    s.clients
        .iter_mut()
        .for_each(|c| c.workload.on_fail = OnFailSpec::Proceed);
    s.expect = ExpectedVerdict::Violated {
        oracle: "me-resource".into(),
    };
    s
}

/// The step built-ins.
pub fn all() -> Vec<Scenario> {
    vec![
        read_and_debit_under_different_locks(),
        read_and_debit_under_one_lock(),
        reentrant_redisson(),
        reentrant_set_nx_waits_on_itself(),
        try_acquire_then_wait(),
        extend_result_checked(),
        extend_result_ignored(),
    ]
}
