//! Redisson's `RLock` (`getLock(name)`): the `redisson` protocol kind, whose model reads
//! `RedissonLock.java` and `RedissonBaseLock.java` at tag redisson-3.17.7 (seed 003's
//! version). Two generations differ in the watchdog: up to 3.43 a renewal that fails
//! with an error stops the renewals for good; from 3.44 the watchdog logs it and renews
//! again at the next tick. `lock()` with the 30 s `lockWatchdogTimeout`, a 3 s `timeout`,
//! no lease and no wait time are the defaults; `lease_ms` and `wait_ms` are
//! `lock(leaseTime)` and `tryLock(waitTime, ...)`.
//!
//! The holder is `getLockName(threadId)`, `id + ":" + threadId` (`RedissonBaseLock.java`,
//! `id` the connection manager's UUID): clients with a `process` present
//! `process:thread`, so two tasks on one `thread` of one process are one holder, for whom
//! the lock is re-entrant, and threads of their own are holders of their own.
//!
//! The 3.17 profile covers 3.17.2 to 3.17.7: 3.17.0 and 3.17.1 count a thread's watchdog
//! entry wrongly (fixed in 3.17.2, 6ca90567c). The 3.44 profile is 3.44.x, where the
//! renewal error no longer stops the watchdog (597d604a3, `RenewalTask.run`).
//!
//! Both profiles write a script again when it gets no answer within `timeout` or its
//! connection is refused: `retry_attempts = 3`, `retry_interval_ms = 1500` (`BaseConfig`
//! 55-59 at redisson-3.17.7: `timeout` 3000, `retryAttempts` 3, `retryInterval` 1500;
//! `RedisExecutor.scheduleResponseTimeout`, 335-391, and `isResendAllowed`, 393-397, which
//! excludes no `EVAL`; the same in 3.44.0). So a call runs its script up to four times and
//! fails 16.5 s after its first write when nothing answers; with replicas the batch with
//! `WAIT` is written once (not modelled).
//!
//! With replicas (`servers`), both profiles keep `none_synced = "fail"`: 3.17.7's
//! `evalWriteAsync` throws "None of slaves were synced" with no clean-up, and 3.44's
//! `CommandAsyncService.handleNoSync` would unlock but matches the message with `equals`
//! against the shorter text while `syncedEval` throws it with a hint appended, so it never
//! does (3.20 to 3.24 and from 3.47 do unlock: `unlock_and_fail`).

use super::{derives_nothing, Profile, ProtocolSpec};
use lockcheck_model::lock::redisson::{Generation, Retries};

pub(crate) const V3_17: Profile = Profile {
    library: "redisson",
    versions: "3.17.2 to 3.17.7",
    source: "redisson/redisson: RedissonLock.java, RedissonBaseLock.java at redisson-3.17.7",
    first: [3, 17, 2],
    last: [3, 17, 7],
    summary: "RLock: a hash with a re-entry count, the 30 s watchdog renewing every 10 s, stopping for good after a renewal error",
    defaults: up_to_3_43,
    required: &[],
    derive: derives_nothing,
};

pub(crate) const V3_44: Profile = Profile {
    library: "redisson",
    versions: "3.44",
    source: "redisson/redisson: RenewalTask.java as changed by 597d604a3 (in 3.44)",
    first: [3, 44, 0],
    last: [3, 44, u32::MAX],
    summary:
        "RLock as in 3.17, but the watchdog renews again at the next tick after a renewal error",
    defaults: from_3_44,
    required: &[],
    derive: derives_nothing,
};

fn up_to_3_43() -> ProtocolSpec {
    with_generation(Generation::UpTo3_43)
}

fn from_3_44() -> ProtocolSpec {
    with_generation(Generation::From3_44)
}

fn with_generation(generation: Generation) -> ProtocolSpec {
    match ProtocolSpec::redisson_lock("") {
        ProtocolSpec::Redisson {
            node,
            lease_ms,
            watchdog_timeout_ms,
            wait_ms,
            request_timeout_ms,
            servers,
            retry_interval_ms,
            ..
        } => ProtocolSpec::Redisson {
            node,
            lease_ms,
            watchdog_timeout_ms,
            wait_ms,
            generation,
            request_timeout_ms,
            servers,
            fair: None,
            retry_attempts: Retries::REDISSON.attempts,
            retry_interval_ms,
        },
        _ => unreachable!("redisson_lock is a Redisson spec"),
    }
}
