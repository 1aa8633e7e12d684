//! Built-ins of Redisson's fair lock (`getFairLock`, module `redisson::fair` of the model):
//! a waiter that dies in the queue keeps its place, and the free lock with it, until its
//! timeout (`threadWaitTime`, 5 min, plus the lock's PTTL when it queued) passes; the plain
//! `RLock` in the same world hands the lock on at once.
//!
//! Three services on one Redis node, `lock()` with the watchdog: `a` takes the lock at once
//! and works 2 s; `b` asks at 100 ms and `c` at 200 ms, both queue behind it. `b`'s process
//! crashes for good at 1 s, while it waits. At 2 s `a` releases.
//!
//! The same three without the crash, asked whether they are served in the order they came
//! (`fifo`): the fair lock's queue serves `b` before `c`; the plain `RLock` publishes the
//! release to both, and whichever asks first gets it.

use super::kit::{base, client, node};
use super::*;
use lockcheck_model::lock::redisson::{FairLock, Generation};

/// Redisson's `lock()` with the watchdog on `redis`, fair or plain.
fn redisson(fair: bool) -> ProtocolSpec {
    ProtocolSpec::Redisson {
        node: "redis".into(),
        lease_ms: None,
        watchdog_timeout_ms: 30_000,
        wait_ms: None,
        generation: Generation::UpTo3_43,
        request_timeout_ms: 3_000,
        servers: Default::default(),
        fair: fair.then_some(FairSpec {
            thread_wait_ms: FairLock::REDISSON.thread_wait_ms,
        }),
        retry_attempts: 0,
        retry_interval_ms: 1_500,
    }
}

/// The world, on the fair lock or on the plain `RLock`.
fn dead_waiter(fair: bool) -> Scenario {
    let protocol = redisson(fair);
    let mut faults = super::kit::crash_for_good("b");
    faults.crashes[0].when = FaultWhen {
        at_ms: Some(1_000),
        ..FaultWhen::default()
    };
    Scenario {
        nodes: vec![node("redis")],
        clients: vec![
            client("a", protocol.clone(), &[2_000], 0),
            client("b", protocol.clone(), &[100], 100),
            client("c", protocol, &[100], 200),
        ],
        network: NetworkSpec {
            delays_ms: vec![1],
            ..NetworkSpec::default()
        },
        faults,
        oracles: vec![
            OracleSpec::MeLock,
            OracleSpec::Progress { bound_ms: 10_000 },
        ],
        ..base()
    }
}

/// The fair lock: `a`'s release wakes `b` on `b`'s own channel, `b` is dead, and `c` may not
/// pass it until `b`'s timeout, about 330 s after `b` queued.
pub fn redisson_fair_lock_dead_waiter() -> Scenario {
    Scenario {
        name: "redisson-fair-lock-dead-waiter".into(),
        description: "Redisson's fair lock: a waiter crashes in the queue; the holder's release wakes only that dead waiter, and the live one behind it may not take the free lock until the dead one's place times out (threadWaitTime 5 min plus the lease), far past 10 s".into(),
        expect: ExpectedVerdict::Violated {
            oracle: "progress".into(),
        },
        ..dead_waiter(true)
    }
}

/// The plain `RLock`: the release is published to every waiter, `c` takes the lock at once.
pub fn redisson_lock_dead_waiter() -> Scenario {
    Scenario {
        name: "redisson-lock-dead-waiter".into(),
        description: "the same world on the plain RLock: the release is published on the lock's one channel, the live waiter takes the lock at once; one holder at a time".into(),
        expect: ExpectedVerdict::Safe,
        ..dead_waiter(false)
    }
}

/// `a` holds 2 s, `b` queues at 100 ms and `c` at 200 ms, asked whether they are served in
/// the order they came.
fn queue_of_three(fair: bool) -> Scenario {
    Scenario {
        faults: FaultsSpec::default(),
        oracles: vec![OracleSpec::Fifo, OracleSpec::MeLock],
        ..dead_waiter(fair)
    }
}

/// The fair lock serves its queue in order.
pub fn redisson_fair_lock_first_come_first_served() -> Scenario {
    Scenario {
        name: "redisson-fair-lock-first-come-first-served".into(),
        description: "Redisson's fair lock: b queues before c behind the holder; the release wakes b, and c waits its turn".into(),
        expect: ExpectedVerdict::Safe,
        ..queue_of_three(true)
    }
}

/// The plain `RLock` publishes the release to every waiter: `c` may get the lock first.
pub fn redisson_lock_not_first_come_first_served() -> Scenario {
    Scenario {
        name: "redisson-lock-not-first-come-first-served".into(),
        description: "the same on the plain RLock: the release is published to both waiters, and c, which came later, may take the lock while b still waits".into(),
        expect: ExpectedVerdict::Violated {
            oracle: "fifo".into(),
        },
        ..queue_of_three(false)
    }
}

/// Every built-in of this file.
pub fn all() -> Vec<Scenario> {
    vec![
        redisson_fair_lock_dead_waiter(),
        redisson_lock_dead_waiter(),
        redisson_fair_lock_first_come_first_served(),
        redisson_lock_not_first_come_first_served(),
    ]
}
