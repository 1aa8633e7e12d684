//! Built-in scenarios of timed fault schedules (`FaultWhen`, `min_gap_ms`,
//! `max_per_process`): seed 003's "Full GC dense period", four Full GCs within 20 s of the
//! first grant, as its write-up describes it, with and without the Redis stall, and the
//! same GCs kept apart or back to back.

use super::builtin_redisson::seed_003_incident;
use super::*;

/// Within 20 s from 5 s after `instance-a` first holds the lock: the window the GCs and the
/// stall of these scenarios share (the watchdog renews 10 s after the grant).
fn dense_period() -> FaultWhen {
    FaultWhen {
        after: Some("instance-a acquires".into()),
        from_ms: Some(5_000),
        to_ms: Some(25_000),
        ..FaultWhen::default()
    }
}

/// Seed 003's incident with its dense period: up to four Full GCs of instance-a, each
/// 2.5 s or 3.6 s (its longest), at least 1 s apart, and a 200 ms Redis stall, all within
/// the 20 s window. A GC that outlasts the 3 s command timeout while a renewal's answer
/// waits, or the stall and a shorter GC together, turn a renewal into a timeout: the 3.17
/// watchdog stops for good and the same debit is applied twice.
pub fn seed_003_dense_gc() -> Scenario {
    let incident = seed_003_incident();
    let gc = PauseSpec {
        process: "instance-a".into(),
        durations_ms: vec![2_500, 3_600],
        when: dense_period(),
    };
    let stall = PauseSpec {
        process: "redis".into(),
        durations_ms: vec![200],
        when: dense_period(),
    };
    Scenario {
        name: "seed-003-dense-gc".into(),
        description: "seed 003's Full GC dense period: four GCs within 20 s, at least 1 s apart, and a 200 ms Redis stall; a renewal times out, the same debit is applied twice".into(),
        faults: FaultsSpec {
            pauses: vec![stall, gc],
            max_pauses: 5,
            min_gap_ms: 1_000,
            max_per_process: Some(4),
            ..FaultsSpec::default()
        },
        ..incident
    }
}

/// The dense period without the stall and with GCs of at most 2.9 s, still at least 1 s
/// apart: each renewal's answer is read in the gap before the next GC, before its 3 s
/// timeout, so no renewal fails and the lease never runs out.
pub fn seed_003_dense_gc_spaced() -> Scenario {
    let mut s = seed_003_dense_gc();
    s.name = "seed-003-dense-gc-spaced".into();
    s.description = "four Full GCs of at most 2.9 s within 20 s, at least 1 s apart, no Redis stall: every renewal is answered in time, no duplicate debit".into();
    s.faults.pauses.retain(|p| p.process != "redis");
    s.faults.pauses[0].durations_ms = vec![2_500, 2_900];
    s.faults.max_pauses = 4;
    s.oracles = vec![OracleSpec::MeResource, OracleSpec::PauseWhileHolding];
    s.expect = ExpectedVerdict::Safe;
    s
}

/// The same GCs with no gap between them: two back to back freeze the client for 5 s while
/// a renewal's answer waits, the 3 s timeout fires first on resume, and the debit is
/// applied twice. The gap is what kept the previous scenario safe.
pub fn seed_003_dense_gc_back_to_back() -> Scenario {
    let mut s = seed_003_dense_gc_spaced();
    s.name = "seed-003-dense-gc-back-to-back".into();
    s.description = "the same four Full GCs of at most 2.9 s with no gap between them: two back to back outlast the 3 s command timeout, the same debit is applied twice".into();
    s.faults.min_gap_ms = 0;
    s.oracles = vec![
        OracleSpec::MeResource,
        OracleSpec::RenewalFailed,
        OracleSpec::PauseWhileHolding,
    ];
    s.expect = ExpectedVerdict::Violated {
        oracle: "me-resource".into(),
    };
    s
}

/// Every built-in of this file.
pub fn all() -> Vec<Scenario> {
    vec![
        seed_003_dense_gc(),
        seed_003_dense_gc_spaced(),
        seed_003_dense_gc_back_to_back(),
    ]
}
