//! Built-in scenarios of what the business code does with its locks: holder identities
//! shared between tasks of one thread.

use super::kit::{base, client, node};
use super::*;

/// The workload built-ins.
pub fn all() -> Vec<Scenario> {
    vec![redisson_shared_thread(), redisson_own_threads()]
}

/// Two tasks of one Redisson process run on the same thread (an event loop, a pooled
/// executor), so both present the owner `uuid:threadId` (`app-1:pool-1`). Redisson's lock
/// is re-entrant: the acquire script finds the field of the owner already there and raises
/// its hold count, so the second task "acquires" the lock the first holds. No fault is
/// needed: two holders.
pub fn redisson_shared_thread() -> Scenario {
    let task = |name: &str, start| ClientSpec {
        process: Some("app-1".into()),
        thread: Some("pool-1".into()),
        ..client(name, ProtocolSpec::redisson_lock("redis"), &[5_000], start)
    };
    Scenario {
        name: "redisson-shared-thread".into(),
        description: "two tasks of one Redisson process on one thread share the owner uuid:thread-id: the re-entrant acquire lets the second take the lock the first holds".into(),
        nodes: vec![node("redis")],
        clients: vec![task("task-a", 0), task("task-b", 100)],
        oracles: vec![OracleSpec::MeLock],
        expect: ExpectedVerdict::Violated {
            oracle: "me-lock".into(),
        },
        ..base()
    }
}

/// The same two tasks on threads of their own (`app-1:pool-1` and `app-1:pool-2`): the
/// second waits.
pub fn redisson_own_threads() -> Scenario {
    let mut s = redisson_shared_thread();
    s.name = "redisson-own-threads".into();
    s.description =
        "the same two tasks on a thread each (owners app-1:pool-1 and app-1:pool-2): the second waits for the first, one holder at a time".into();
    s.clients[1].thread = Some("pool-2".into());
    s.expect = ExpectedVerdict::Safe;
    s
}
