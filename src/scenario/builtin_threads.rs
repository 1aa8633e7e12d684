//! Built-ins of threads that share one redis-py `Lock` object.
//!
//! redis-py's docstring tells the story (`redis/lock.py`, `Lock.__init__`, at v5.3.1):
//! thread-1 acquires with a 5 s timeout and has not finished when the key expires;
//! thread-2, blocked in `acquire()` on the same `Lock` instance, takes the lock and stores
//! its token. When thread-1 finishes and calls `release()`, a token kept in thread-local
//! storage (the default) is still thread-1's, and the release deletes nothing; a shared
//! token (`thread_local=False`) is thread-2's, and the release deletes thread-2's lock, so
//! a third client takes it while thread-2 is still working. Here the damage is a job debited
//! twice.

use super::kit::{account, base, node, pause_at, stepper};
use super::*;
use serde_json::json;

/// Two threads of `worker` on one `Lock` object with `thread_local` as given, and a
/// client of another process; one account. thread-1 holds the lock 6 s with a 5 s
/// timeout and touches no account; thread-2 (from 1 s) and client-3 (from 5.5 s) each
/// read the account, work and debit job 0 under the lock.
fn shared_lock_object(name: &str, description: &str, thread_local: bool) -> Scenario {
    let redis_py = |thread_local: bool| {
        ProtocolSpec::library(
            "redis-py",
            "8.2",
            json!({ "node": "redis", "ttl_ms": 5_000, "thread_local": thread_local }),
        )
    };
    let thread = |n: &str, start, steps: &[&str]| ClientSpec {
        process: Some("worker".into()),
        lock_object: Some("job_lock".into()),
        ..stepper(n, redis_py(thread_local), start, steps)
    };
    let debit = |work: &'static str| {
        [
            "acquire job_lock",
            "read",
            work,
            "debit",
            "release job_lock",
        ]
    };
    Scenario {
        name: name.into(),
        description: description.into(),
        nodes: vec![node("redis")],
        clients: vec![
            thread(
                "thread-1",
                0,
                &["acquire job_lock", "work 6s", "release job_lock"],
            ),
            thread("thread-2", 1_000, &debit("work 5s")),
            stepper("client-3", redis_py(true), 5_500, &debit("work 1s")),
        ],
        account: Some(account(false, false, false)),
        oracles: vec![OracleSpec::MeResource],
        ..base()
    }
}

/// `thread_local=False`: thread-1's late release deletes thread-2's lock; client-3 takes
/// it and debits job 0 while thread-2, which read it undone, debits it too.
pub fn redis_py_shared_token_releases_another_thread_s_lock() -> Scenario {
    Scenario {
        expect: ExpectedVerdict::Violated {
            oracle: "me-resource".into(),
        },
        ..shared_lock_object(
            "redis-py-shared-token-releases-another-thread-s-lock",
            "two threads share one redis-py Lock with thread_local=False: thread-1's lock expires, thread-2 takes it and stores its token, thread-1's release presents that token and deletes thread-2's lock, and another client debits the job thread-2 is about to debit",
            false,
        )
    }
}

/// redis-py's default `thread_local=True`: thread-1's release presents its own token and
/// deletes nothing; client-3 waits for thread-2 and finds the job done.
pub fn redis_py_thread_local_token_keeps_the_lock() -> Scenario {
    Scenario {
        expect: ExpectedVerdict::Safe,
        ..shared_lock_object(
            "redis-py-thread-local-token-keeps-the-lock",
            "the same two threads with redis-py's default thread_local=True: thread-1's late release presents its own token and deletes nothing, so the other client waits for thread-2 and finds the job done",
            true,
        )
    }
}

/// A worker thread holds the lock for 12 s with a 5 s timeout while a renewer thread of
/// the same process calls `reacquire()` every 2 s through the same `Lock` (which needs
/// `thread_local=False`), and a client of another process waits for the lock. A GC pause
/// of the worker's process at 3 s stops the renewer too: the key expires at 7 s, the other
/// client takes it and debits the job, and the worker, resumed at 10 s, debits it again.
/// Paused alone, the worker would be safe: its renewer would keep the key alive.
pub fn redis_py_renewer_thread_paused_with_its_process() -> Scenario {
    let redis_py = |thread_local: bool| {
        ProtocolSpec::library(
            "redis-py",
            "8.2",
            json!({ "node": "redis", "ttl_ms": 5_000, "thread_local": thread_local }),
        )
    };
    let thread = |n: &str, steps: &[&str]| ClientSpec {
        process: Some("app".into()),
        lock_object: Some("job_lock".into()),
        ..stepper(n, redis_py(false), 0, steps)
    };
    let renew = ["work 2s", "extend job_lock"].repeat(6);
    Scenario {
        name: "redis-py-renewer-thread-paused-with-its-process".into(),
        description: "a renewer thread reacquires the worker's redis-py lock every 2 s through one Lock with thread_local=False; a 7 s GC pause of their process stops both, the key expires, another client takes the lock and debits the job, and the resumed worker debits it again".into(),
        nodes: vec![node("redis")],
        clients: vec![
            thread("worker", &["acquire job_lock", "read", "work 12s", "debit", "release job_lock"]),
            thread("renewer", &renew),
            stepper(
                "client-3",
                redis_py(true),
                1_000,
                &["acquire job_lock", "read", "work 1s", "debit", "release job_lock"],
            ),
        ],
        account: Some(account(false, false, false)),
        faults: pause_at("worker", 7_000, 3_000),
        oracles: vec![OracleSpec::MeResource],
        expect: ExpectedVerdict::Violated {
            oracle: "me-resource".into(),
        },
        ..base()
    }
}

pub fn all() -> Vec<Scenario> {
    vec![
        redis_py_shared_token_releases_another_thread_s_lock(),
        redis_py_thread_local_token_keeps_the_lock(),
        redis_py_renewer_thread_paused_with_its_process(),
    ]
}
