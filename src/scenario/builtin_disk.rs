//! Built-in scenarios of a node's disk: an AOF `everysec` fsync stall before a power loss,
//! and the same power loss without the stall.
//!
//! The lock is Redlock on one node with seed 000's watchdog (TTL 3 s, renewed every 30 % of
//! the validity, a renewal counted only when it really extended the key) and business code
//! that checks the stop event, so a holder stops believing as soon as a renewal fails. The
//! node fsyncs its AOF once a second and loses power once, coming back 200 ms later.
//! Without a stall the power loss costs at most the last second: a key it loses is noticed
//! by the holder's next renewal long before the other client starts, and a renewal it loses
//! leaves the key in place for longer than the holder takes to notice. With the disk
//! stalled for 10 s before the loss, the key itself was never fsynced: the node comes back
//! empty while the holder works, the other client takes the lock, and until the holder's
//! next renewal there are two holders.

use super::kit::{base, client, node, walks};
use super::*;
use lockcheck_model::lock::redlock::{
    AttemptRules, Dispatch, DriftRounding, ExtendRules, RenewCount,
};

/// Redlock on the one node `redis` with seed 000's watchdog, renewals counted only when
/// they extend the key, requests given up after 300 ms.
fn watched_lock() -> ProtocolSpec {
    ProtocolSpec::Redlock {
        nodes: vec!["redis".into()],
        ttl_ms: 3_000,
        drift_ppm: 10_000,
        drift_extra_ms: 2,
        drift_rounding: DriftRounding::Up,
        clock: ClockKind::Monotonic,
        dispatch: Dispatch::Sequential,
        attempt: AttemptRules::SEED,
        node_timeout_ms: Some(300),
        retry_ms: vec![400],
        acquire_timeout_ms: None,
        max_attempts: None,
        auto_extension: None,
        belief: Default::default(),
        extend: ExtendRules::REDSYNC,
        on_refused: Default::default(),
        watchdog: Some(WatchdogSpec {
            interval_permille: 300,
            tries: 1,
            timeout_ms: 300,
            counts: RenewCount::Extended,
        }),
    }
}

/// One power loss of the node, which restarts 200 ms later.
fn power_loss() -> FaultsSpec {
    FaultsSpec {
        crashes: vec![CrashSpec {
            process: "redis".into(),
            power_loss: true,
            restart_after_ms: vec![Some(200)],
            when: Default::default(),
        }],
        max_crashes: 1,
        ..FaultsSpec::default()
    }
}

/// The node's disk stalls for 10 s (writes still acknowledged), then the power fails:
/// the lock key was never fsynced, the node restarts without it, two holders.
pub fn aof_stall_power_loss() -> Scenario {
    let mut faults = power_loss();
    faults.disk_stalls = vec![DiskStallSpec {
        node: "redis".into(),
        durations_ms: vec![10_000],
        when: Default::default(),
    }];
    faults.max_disk_stalls = 1;
    Scenario {
        name: "aof-stall-power-loss".into(),
        description: "AOF everysec with the disk stalled for 10 s: writes are acknowledged but never fsynced, a power loss brings the node back without the lock key, and a second client takes it while the holder works".into(),
        faults,
        expect: ExpectedVerdict::Violated {
            oracle: "me-lock".into(),
        },
        ..aof_power_loss_noticed()
    }
}

/// The same power loss without a disk stall: at most a second of writes is lost, and the
/// watchdog notices before anyone else can take the lock. Safe.
pub fn aof_power_loss_noticed() -> Scenario {
    let mut node = node("redis");
    node.persistence = PersistenceDe::AofEverysec;
    let mut holder = client("p1", watched_lock(), &[8_000], 0);
    holder.workload.checks_stop_event = true;
    Scenario {
        name: "aof-power-loss-noticed".into(),
        description: "AOF everysec and one power loss without a disk stall: the lost second is noticed by the holder's watchdog before the second client starts, no two holders".into(),
        nodes: vec![node],
        clients: vec![holder, client("p2", watched_lock(), &[1_000], 5_000)],
        faults: power_loss(),
        oracles: vec![OracleSpec::MeLock],
        explore: walks(200),
        expect: ExpectedVerdict::Safe,
        ..base()
    }
}
