//! Seed 003's review and its closing questions, each answered by built-ins: two misuses
//! found in review (`tryLock()`'s result ignored; `unlock()` in `finally` after a failed
//! acquire), a five-minute job with the watchdog or with a long explicit lease (under a GC
//! longer than the watchdog's lease, and under the holder's crash), `tryLock(waitTime,
//! leaseTime)` with the wait longer than the lease, and what keeps a third-party call from
//! running twice when no unique index is possible (fencing tokens the callee checks, an
//! idempotency key).

use super::builtin_redisson::seed_003_incident;
use super::kit::{account, base, client, crash_for_good, node, single_node};
use super::*;

/// Redisson 3.17 on `redis`: `lease_ms` (none: the watchdog) and `tryLock`'s `wait_ms`.
fn redisson(lease_ms: Option<u64>, wait_ms: Option<u64>) -> ProtocolSpec {
    ProtocolSpec::Redisson {
        node: "redis".into(),
        lease_ms,
        watchdog_timeout_ms: 30_000,
        wait_ms,
        generation: Generation::UpTo3_43,
        request_timeout_ms: 3_000,
        servers: Default::default(),
        fair: None,
        retry_attempts: 0,
        retry_interval_ms: 1_500,
    }
}

/// Two instances debiting one account under `protocol`: instance-a starts at once with a
/// job of `work_a_ms`, instance-b 100 ms later with a 1 s job.
fn two_instances(name: &str, protocol: ProtocolSpec, work_a_ms: u64) -> Scenario {
    let instance = |n: &str, work_ms, start| {
        let mut c = client(n, protocol.clone(), &[work_ms], start);
        c.workload.uses_account = true;
        c
    };
    Scenario {
        name: name.into(),
        nodes: vec![node("redis")],
        clients: vec![
            instance("instance-a", work_a_ms, 0),
            instance("instance-b", 1_000, 100),
        ],
        account: Some(account(false, false, false)),
        oracles: vec![OracleSpec::MeResource],
        ..base()
    }
}

/// Misuse two: `tryLock(3, SECONDS)` with its result ignored. instance-a holds the lock
/// for its 5 s job; instance-b's wait runs out after 3 s and it debits anyway.
pub fn trylock_result_ignored() -> Scenario {
    let mut s = two_instances(
        "seed-003-trylock-result-ignored",
        redisson(None, Some(3_000)),
        5_000,
    );
    s.description = "tryLock(3 s) whose result is ignored: the wait runs out while the other instance holds the lock, the work runs anyway, the same debit is applied twice".into();
    s.clients[1].workload.on_fail = OnFailSpec::Proceed;
    s.expect = ExpectedVerdict::Violated {
        oracle: "me-resource".into(),
    };
    s
}

/// The same with the result checked: the round ends without the debit.
pub fn trylock_result_checked() -> Scenario {
    let mut s = trylock_result_ignored();
    s.name = "seed-003-trylock-result-checked".into();
    s.description = "the same tryLock(3 s) with its result checked: the instance that did not get the lock does not debit".into();
    s.clients[1].workload.on_fail = OnFailSpec::EndRound;
    s.expect = ExpectedVerdict::Safe;
    s
}

/// Misuse one: `lock()` inside `try` with `unlock()` in `finally`, after the acquire failed.
/// With Redisson the unlock script checks the owner: it deletes nothing (the caller sees
/// an `IllegalMonitorStateException` that masks the first error), and instance-b's second
/// round waits again.
pub fn unlock_in_finally() -> Scenario {
    let mut s = trylock_result_checked();
    s.name = "seed-003-unlock-in-finally".into();
    s.description = "unlock() in finally after a failed acquire, on Redisson: the unlock script checks the owner and deletes nothing; the lock holds".into();
    s.clients[1].workload.on_fail = OnFailSpec::Unlock;
    s.clients[1].workload.rounds = 2;
    s.oracles = vec![OracleSpec::MeLock, OracleSpec::MeResource];
    s
}

/// The same `finally` on a hand-written lock released with a plain `DEL`: the failed
/// instance deletes the holder's key, and its next round takes the lock while the holder
/// still works.
pub fn unlock_in_finally_plain_del() -> Scenario {
    let mut protocol = single_node("redis", 30_000);
    if let ProtocolSpec::SingleNode {
        release,
        acquire_timeout_ms,
        ..
    } = &mut protocol
    {
        *release = Release::PlainDel;
        *acquire_timeout_ms = Some(3_000);
    }
    let mut s = two_instances("single-node-unlock-in-finally", protocol, 5_000);
    s.description = "unlock() in finally after a failed acquire, on a lock released with a plain DEL: it deletes the holder's key, the next round takes the lock while the holder works".into();
    s.clients[1].workload.on_fail = OnFailSpec::Unlock;
    s.clients[1].workload.rounds = 2;
    s.oracles = vec![OracleSpec::MeLock, OracleSpec::MeResource];
    s.expect = ExpectedVerdict::Violated {
        oracle: "me-lock".into(),
    };
    s
}

/// Question one: a five-minute job (instance-a), with the watchdog (`lease_ms` none) or an
/// explicit lease, under `faults`, judged by `oracles`.
fn five_minute_job(
    name: &str,
    lease_ms: Option<u64>,
    faults: FaultsSpec,
    oracles: Vec<OracleSpec>,
) -> Scenario {
    let mut s = two_instances(name, redisson(lease_ms, None), 300_000);
    s.faults = faults;
    s.oracles = oracles;
    s
}

fn gc_of_35_s() -> FaultsSpec {
    super::kit::pause("instance-a", &[35_000], 1)
}

/// The watchdog under a 35 s GC: the frozen watchdog lets the 30 s lease run out, the other
/// instance debits, and the holder writes after it resumes.
pub fn five_minute_job_watchdog_gc() -> Scenario {
    let mut s = five_minute_job(
        "redisson-five-minute-job-watchdog-gc",
        None,
        gc_of_35_s(),
        vec![OracleSpec::MeResource, OracleSpec::PauseWhileHolding],
    );
    s.description = "a five-minute job with the watchdog and a 35 s GC: the frozen watchdog lets the 30 s lease run out, the same debit is applied twice".into();
    s.expect = ExpectedVerdict::Violated {
        oracle: "me-resource".into(),
    };
    s
}

/// A ten-minute explicit lease under the same GC: the lease outlasts the job and the GC.
pub fn five_minute_job_lease_gc() -> Scenario {
    let mut s = five_minute_job(
        "redisson-five-minute-job-lease-gc",
        Some(600_000),
        gc_of_35_s(),
        vec![OracleSpec::MeResource, OracleSpec::PauseWhileHolding],
    );
    s.description = "a five-minute job with a ten-minute lease and the same 35 s GC: the lease outlasts the job and the GC, no duplicate debit".into();
    s.expect = ExpectedVerdict::Safe;
    s
}

/// The watchdog when the holder crashes for good: the lock expires 30 s after the last
/// renewal, so the other instance gets it within a minute.
pub fn five_minute_job_watchdog_crash() -> Scenario {
    let mut s = five_minute_job(
        "redisson-five-minute-job-watchdog-crash",
        None,
        crash_for_good("instance-a"),
        vec![
            OracleSpec::Liveness { bound_ms: 60_000 },
            OracleSpec::HolderCrashed,
        ],
    );
    s.description = "a five-minute job with the watchdog, the holder crashes for good: the lease runs out 30 s after the last renewal, the lock is free within a minute".into();
    s.expect = ExpectedVerdict::Safe;
    s
}

/// The ten-minute lease when the holder crashes for good: nobody gets the lock for up to
/// ten minutes.
pub fn five_minute_job_lease_crash() -> Scenario {
    let mut s = five_minute_job(
        "redisson-five-minute-job-lease-crash",
        Some(600_000),
        crash_for_good("instance-a"),
        vec![
            OracleSpec::Liveness { bound_ms: 60_000 },
            OracleSpec::HolderCrashed,
        ],
    );
    s.description = "a five-minute job with a ten-minute lease, the holder crashes for good: the lock stays taken for up to ten minutes".into();
    s.expect = ExpectedVerdict::Violated {
        oracle: "liveness".into(),
    };
    s
}

/// Question two: `tryLock(10 s, 3 s)` for a 5 s job. The lease runs out while the holder
/// still works, and the waiter, whose wait outlasts the lease, takes the lock then.
pub fn wait_longer_than_lease() -> Scenario {
    let protocol = redisson(Some(3_000), Some(10_000));
    let mut s = two_instances("redisson-wait-longer-than-lease", protocol, 5_000);
    s.description = "tryLock(wait 10 s, lease 3 s) for a 5 s job: the lease runs out mid-job and the waiter, still waiting, takes the lock; the same debit is applied twice".into();
    s.expect = ExpectedVerdict::Violated {
        oracle: "me-resource".into(),
    };
    s
}

/// `tryLock(10 s, 8 s)` for the same job: a lease longer than the job.
pub fn lease_longer_than_job() -> Scenario {
    let protocol = redisson(Some(8_000), Some(10_000));
    let mut s = two_instances("redisson-lease-longer-than-job", protocol, 5_000);
    s.description = "tryLock(wait 10 s, lease 8 s) for a 5 s job: the lease outlasts the job, the waiter gets the lock after the release".into();
    s.expect = ExpectedVerdict::Safe;
    s
}

/// Question three, no unique index possible: the callee checks fencing tokens from a
/// linearizable counter, asked after the lock is acquired. Seed 003's incident still breaks
/// the lock; the stale holder's write is refused.
pub fn seed_003_fenced_by_callee() -> Scenario {
    let mut s = seed_003_incident();
    s.name = "seed-003-fenced-by-callee".into();
    s.description = "seed 003's incident with fencing tokens from a token service, checked by the account: the stale holder's debit is refused".into();
    s.token_service = true;
    s.clients
        .iter_mut()
        .for_each(|c| c.token_service_fencing = true);
    s.account = Some(account(true, false, false));
    s.oracles = vec![OracleSpec::MeResource, OracleSpec::RenewalFailed];
    s.expect = ExpectedVerdict::Safe;
    s
}

/// The same with an idempotency key instead: the callee applies one debit per business
/// operation.
pub fn seed_003_idempotency_key() -> Scenario {
    let mut s = seed_003_incident();
    s.name = "seed-003-idempotency-key".into();
    s.description = "seed 003's incident with an idempotency key (one debit per business operation): the second debit of the same operation is refused".into();
    s.account = Some(account(false, true, false));
    s.oracles = vec![OracleSpec::MeResource, OracleSpec::RenewalFailed];
    s.expect = ExpectedVerdict::Safe;
    s
}

/// Every built-in of this file.
pub fn all() -> Vec<Scenario> {
    vec![
        trylock_result_ignored(),
        trylock_result_checked(),
        unlock_in_finally(),
        unlock_in_finally_plain_del(),
        five_minute_job_watchdog_gc(),
        five_minute_job_lease_gc(),
        five_minute_job_watchdog_crash(),
        five_minute_job_lease_crash(),
        wait_longer_than_lease(),
        lease_longer_than_job(),
        seed_003_fenced_by_callee(),
        seed_003_idempotency_key(),
    ]
}
