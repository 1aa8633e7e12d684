//! Built-in deadlock-detector scenarios: seed 000's detector as written and as intended, and
//! the variants a user would compare (a shared graph of wait-edge keys in Redis, atomic or
//! separate reads, a confirmation pass, report-only / victim abort / force-release, one or
//! two detectors), each judged against the true wait-for graph.
//!
//! The world is seed 000's incident: three processes over `order_lock_001`,
//! `inventory_lock_sku_5678` and `payment_lock_tx_9012`, each taking one lock and then the
//! next one round the circle, with the seed's lock service parameters (retry every 500 ms,
//! acquire timeout 10 s) on one Redis node (the detector does not depend on Redlock).

use super::detection::{
    DetectionSpec, DetectorSpec, LocalDetectorSpec, ServiceSpec, WaitEdgesSpec,
};
use super::kit;
use super::*;
use lockcheck_model::lock::detector::{Reads, Resolution, WaitRecord, SEED_MAX_CHAIN};

/// Every built-in detector scenario.
pub fn all() -> Vec<Scenario> {
    vec![
        seed_000_detector_self_cycle(),
        seed_000_detector_breaks_exclusion(),
        seed_000_detector_as_intended(),
        shared_detector_aborts_victim(),
        phantom_cycle_separate_reads(),
        phantom_cycle_atomic_snapshot(),
        phantom_cycle_confirmed(),
        lost_wait_edge(),
        ttl_expiry_breaks_deadlock(),
        force_release_breaks_exclusion(),
        force_release_fenced(),
        force_release_with_abort(),
        two_detectors_double_release(),
        two_detectors_owner_checked(),
        two_detectors_abort_victim(),
    ]
}

const ORDER: &str = "order_lock_001";
const INVENTORY: &str = "inventory_lock_sku_5678";
const PAYMENT: &str = "payment_lock_tx_9012";

/// The seed's lock service on one node: `SET NX PX`, retry after 500 ms, give up after
/// `acquire_timeout_ms`, owner-checked release.
fn protocol(ttl_ms: u64, acquire_timeout_ms: Option<u64>) -> ProtocolSpec {
    ProtocolSpec::SingleNode {
        node: "redis".into(),
        ttl_ms: Some(ttl_ms),
        release: Release::OwnerChecked,
        retry_ms: vec![500],
        acquire_timeout_ms,
        give_up_check: GiveUpCheck::AtDeadline,
        max_attempts: None,
        request_timeout_ms: Some(1_000),
        fencing_counter: None,
        via_sentinel: false,
        thread_local: true,
        on_refused: Default::default(),
    }
}

/// P1 takes the order lock then the inventory lock, P2 inventory then payment, P3 payment
/// then order: seed 000's three-process cycle.
fn seed_clients(protocol: ProtocolSpec) -> Vec<ClientSpec> {
    let client = |name: &str, locks: [&str; 2]| {
        let mut c = kit::client(name, protocol.clone(), &[100], 0);
        c.workload.locks = locks.iter().map(|l| l.to_string()).collect();
        c
    };
    vec![
        client("P1", [ORDER, INVENTORY]),
        client("P2", [INVENTORY, PAYMENT]),
        client("P3", [PAYMENT, ORDER]),
    ]
}

fn world(name: &str, description: &str, clients: Vec<ClientSpec>) -> Scenario {
    Scenario {
        name: name.into(),
        description: description.into(),
        nodes: vec![kit::node("redis")],
        clients,
        oracles: Vec::new(),
        ..kit::base()
    }
}

/// Random search for a safe verdict: fewer, shorter walks (detectors tick forever, so every
/// walk runs to its step bound).
fn short_walks(s: &mut Scenario) {
    s.explore.random_seeds = 100;
    s.explore.random_max_steps = 300;
}

fn violated(oracle: &str) -> ExpectedVerdict {
    ExpectedVerdict::Violated {
        oracle: oracle.into(),
    }
}

/// Seed 000's in-process detector in every process.
fn local_detection(wait_record: WaitRecord) -> DetectionSpec {
    DetectionSpec {
        services: ["P1", "P2", "P3"]
            .iter()
            .map(|c| ServiceSpec {
                client: c.to_string(),
                local_detector: Some(LocalDetectorSpec {
                    max_chain: SEED_MAX_CHAIN,
                    wait_record,
                }),
                wait_edges: None,
            })
            .collect(),
        detectors: Vec::new(),
    }
}

fn seed_world(name: &str, description: &str, wait_record: WaitRecord) -> Scenario {
    let mut s = world(
        name,
        description,
        seed_clients(protocol(30_000, Some(10_000))),
    );
    s.detection = Some(local_detection(wait_record));
    s
}

/// Seed 000's detector as written: `register_wait` is never undone on acquire, so at the
/// second `acquire` the process's own records hold `P -> order_lock -> P`, a self-cycle.
pub fn seed_000_detector_self_cycle() -> Scenario {
    let mut s = seed_world(
        "seed-000-detector-self-cycle",
        "seed 000's in-process detector as written: a nested acquire reports the caller's own lock as a cycle",
        WaitRecord::AsWritten,
    );
    s.oracles = vec![OracleSpec::DetectorFalsePositive];
    s.expect = violated("detector-false-positive");
    s
}

/// The same, judged by ME-lock: the "recovery" deletes the caller's outer lock without
/// telling it, and the process that waits for that lock takes it.
pub fn seed_000_detector_breaks_exclusion() -> Scenario {
    let mut s = seed_world(
        "seed-000-detector-breaks-exclusion",
        "seed 000's detector force-releases the caller's own outer lock without telling it: two holders",
        WaitRecord::AsWritten,
    );
    s.oracles = vec![OracleSpec::MeLock];
    s.expect = violated("me-lock");
    s
}

/// Seed 000's detector with the wait registration dropped on acquire (as presumably
/// intended): per-process records never contain another process's holder, so the real
/// three-process cycle is never reported; only the 10 s acquire timeout ends it.
pub fn seed_000_detector_as_intended() -> Scenario {
    let mut s = seed_world(
        "seed-000-detector-as-intended",
        "seed 000's detector with the self-cycle fixed: per-process records never see the three-process cycle",
        WaitRecord::DroppedOnAcquire,
    );
    s.oracles = vec![
        OracleSpec::DetectorFalseNegative { bound_ms: 5_000 },
        OracleSpec::DetectorFalsePositive,
        OracleSpec::MeLock,
    ];
    s.expect = violated("detector-false-negative");
    s
}

/// Every process writes wait-edge keys (TTL 1.5 s, refreshed at every 500 ms attempt).
fn shared_detection(detectors: Vec<DetectorSpec>) -> DetectionSpec {
    DetectionSpec {
        services: ["P1", "P2", "P3"]
            .iter()
            .map(|c| ServiceSpec {
                client: c.to_string(),
                local_detector: None,
                wait_edges: Some(WaitEdgesSpec {
                    node: "redis".into(),
                    ttl_ms: 1_500,
                }),
            })
            .collect(),
        detectors,
    }
}

fn detector(name: &str, reads: Reads, confirm: bool, resolution: Resolution) -> DetectorSpec {
    DetectorSpec {
        name: name.into(),
        node: "redis".into(),
        interval_ms: 1_000,
        start_after_ms: 0,
        reads,
        confirm,
        resolution,
        max_chain: SEED_MAX_CHAIN,
        request_timeout_ms: 1_000,
    }
}

/// A shared-detector world: no acquire timeout and a long TTL, so a deadlock lasts until a
/// detector resolves it.
fn shared_world(name: &str, description: &str, detectors: Vec<DetectorSpec>) -> Scenario {
    let mut s = world(name, description, seed_clients(protocol(30_000, None)));
    s.detection = Some(shared_detection(detectors));
    s
}

/// The shared graph read atomically; the victim is told and backs off: every deadlock is
/// reported and resolved, no report is false, exclusion holds.
pub fn shared_detector_aborts_victim() -> Scenario {
    let mut s = shared_world(
        "shared-detector-aborts-victim",
        "shared wait-edge keys read with one MGET, the victim aborts cooperatively: safe",
        vec![detector(
            "detector",
            Reads::Atomic,
            false,
            Resolution::AbortVictim,
        )],
    );
    s.oracles = vec![
        OracleSpec::DetectorFalsePositive,
        OracleSpec::DetectorFalseNegative { bound_ms: 2_500 },
        OracleSpec::DeadlockLiveness { bound_ms: 2_500 },
        OracleSpec::MeLock,
        OracleSpec::DeadlockFormed,
        OracleSpec::DetectorReported,
    ];
    short_walks(&mut s);
    s
}

/// Two processes taking the order and inventory locks in opposite orders, retrying every
/// 2 ms and giving up after 10 ms, watched by a detector that reads continuously: a real
/// cycle that the acquire timeouts break while the detector is still reading (or while its
/// answer is on the way) is reported after it is gone.
fn stale_world(
    name: &str,
    description: &str,
    reads: Reads,
    confirm: bool,
    three: bool,
) -> Scenario {
    let mut protocol = protocol(30_000, Some(if three { 20 } else { 10 }));
    if let ProtocolSpec::SingleNode { retry_ms, .. } = &mut protocol {
        *retry_ms = vec![2];
    }
    let mut clients = seed_clients(protocol);
    let mut detection = shared_detection(vec![DetectorSpec {
        interval_ms: 1,
        ..detector("detector", reads, confirm, Resolution::ReportOnly)
    }]);
    if !three {
        clients.truncate(2);
        clients[1].workload.locks = vec![INVENTORY.into(), ORDER.into()];
        detection.services.truncate(2);
    }
    let mut s = world(name, description, clients);
    s.detection = Some(detection);
    s.oracles = vec![OracleSpec::DetectorFalsePositive];
    s.expect = violated("detector-false-positive");
    s
}

pub fn phantom_cycle_separate_reads() -> Scenario {
    stale_world(
        "phantom-cycle-separate-reads",
        "a detector reading keys one GET at a time reports a cycle that acquire timeouts broke before the report",
        Reads::Separate,
        false,
        true,
    )
}

pub fn phantom_cycle_atomic_snapshot() -> Scenario {
    stale_world(
        "stale-cycle-atomic-snapshot",
        "one MGET gives a consistent snapshot, stale once the answer arrives: the timeouts broke the cycle meanwhile",
        Reads::Atomic,
        false,
        false,
    )
}

pub fn phantom_cycle_confirmed() -> Scenario {
    stale_world(
        "stale-cycle-confirmed",
        "two MGETs, acting only on a cycle both find: the confirmed cycle is still gone by the time it is reported",
        Reads::Atomic,
        true,
        false,
    )
}

/// A waiter's wait-edge key is lost: a GC pause stops it from refreshing the key (TTL
/// 600 ms, refreshed at every 500 ms attempt), the key expires, and the detector cannot see
/// a deadlock that is still there.
pub fn lost_wait_edge() -> Scenario {
    let mut s = shared_world(
        "lost-wait-edge",
        "a paused waiter's wait-edge key expires: a real deadlock goes unreported longer than the bound",
        vec![detector(
            "detector",
            Reads::Atomic,
            false,
            Resolution::ReportOnly,
        )],
    );
    if let Some(d) = &mut s.detection {
        for service in &mut d.services {
            if let Some(e) = &mut service.wait_edges {
                e.ttl_ms = 600;
            }
        }
    }
    s.faults = FaultsSpec {
        pauses: vec![PauseSpec {
            process: "P1".into(),
            durations_ms: vec![1_500],
            when: Default::default(),
        }],
        max_pauses: 1,
        ..FaultsSpec::default()
    };
    s.oracles = vec![OracleSpec::DetectorFalseNegative { bound_ms: 1_500 }];
    s.expect = violated("detector-false-negative");
    s
}

/// No detector, no acquire timeout, a 5 s TTL: the deadlock "resolves" itself when a lock
/// expires under a holder that still believes it holds it.
pub fn ttl_expiry_breaks_deadlock() -> Scenario {
    let mut s = world(
        "ttl-expiry-breaks-deadlock",
        "without a detector a 5 s TTL ends the deadlock by letting a waiter take a lock its holder still believes it holds",
        seed_clients(protocol(5_000, None)),
    );
    s.oracles = vec![OracleSpec::MeLock, OracleSpec::DeadlockFormed];
    s.expect = violated("me-lock");
    s
}

/// A shared detector that force-releases with a plain `DEL` and does not tell the victim.
pub fn force_release_breaks_exclusion() -> Scenario {
    let mut s = shared_world(
        "force-release-breaks-exclusion",
        "a shared detector resolves a real deadlock by deleting the victim's lock without telling it: two holders",
        vec![detector(
            "detector",
            Reads::Atomic,
            false,
            Resolution::ForceDel,
        )],
    );
    s.oracles = vec![OracleSpec::MeLock, OracleSpec::DetectorFalsePositive];
    s.expect = violated("me-lock");
    s
}

/// The same force-release, with fencing tokens the account checks: the lock breaks, the
/// data does not.
pub fn force_release_fenced() -> Scenario {
    let mut s = force_release_breaks_exclusion();
    s.name = "force-release-fenced".into();
    s.description =
        "the same force-release with fencing tokens checked by the account: two holders, no damage"
            .into();
    for c in &mut s.clients {
        c.workload.uses_account = true;
        if let ProtocolSpec::SingleNode {
            fencing_counter, ..
        } = &mut c.protocol
        {
            *fencing_counter = Some("lock:token".into());
        }
    }
    s.account = Some(AccountSpec {
        initial_balance: 100,
        fencing: true,
        unique_biz_id: false,
        conditional_debit: false,
    });
    s.oracles = vec![OracleSpec::MeResource, OracleSpec::LockOverlap];
    s.expect = ExpectedVerdict::Safe;
    short_walks(&mut s);
    s
}

fn two_detectors(name: &str, description: &str, resolution: Resolution) -> Scenario {
    let mut s = shared_world(
        name,
        description,
        vec![
            detector("detector-a", Reads::Atomic, false, resolution),
            DetectorSpec {
                start_after_ms: 500,
                ..detector("detector-b", Reads::Atomic, false, resolution)
            },
        ],
    );
    for c in &mut s.clients {
        c.workload.rounds = 2;
    }
    // The second instance is far from Redis: its snapshot is older when its resolution lands.
    s.network.links = vec![LinkOverride {
        between: ["detector-b".into(), "redis".into()],
        delays_ms: vec![250],
        one_way: false,
    }];
    s.oracles = vec![OracleSpec::MeLock];
    s
}

/// One detector that deletes the victim's lock with a plain `DEL` and tells the victim (both
/// messages take the same 1 ms): the victim stops believing before anyone can take the lock.
pub fn force_release_with_abort() -> Scenario {
    let mut s = shared_world(
        "force-release-with-abort",
        "one detector deletes the victim's lock and tells it to abort: exclusion holds",
        vec![detector(
            "detector",
            Reads::Atomic,
            false,
            Resolution::ForceDelAndAbort,
        )],
    );
    for c in &mut s.clients {
        c.workload.rounds = 2;
    }
    s.oracles = vec![
        OracleSpec::MeLock,
        OracleSpec::DeadlockLiveness { bound_ms: 2_500 },
        OracleSpec::DeadlockFormed,
        OracleSpec::DetectorReported,
    ];
    short_walks(&mut s);
    s
}

/// Two instances of the same detector: the second `DEL`, from a snapshot taken before the
/// first took effect, deletes the lock of whoever took it next.
pub fn two_detectors_double_release() -> Scenario {
    let mut s = two_detectors(
        "two-detectors-double-release",
        "two detector instances both resolve the same cycle (DEL and abort): the second DEL deletes the next holder's lock",
        Resolution::ForceDelAndAbort,
    );
    s.expect = violated("me-lock");
    s
}

/// The same with the owner-checked delete: the owner value names the client, not the grant,
/// so the stale delete removes the victim's *next* grant of the same lock.
pub fn two_detectors_owner_checked() -> Scenario {
    let mut s = two_detectors(
        "two-detectors-owner-checked",
        "the same with the owner-checked delete: the value names the client, not the grant, so the stale delete removes the victim's next grant",
        Resolution::ForceOwnerCheckedAndAbort,
    );
    s.expect = violated("me-lock");
    s
}

/// Two instances that only tell the victim to abort (no delete): a double resolution is
/// harmless to exclusion.
pub fn two_detectors_abort_victim() -> Scenario {
    let mut s = two_detectors(
        "two-detectors-abort-victim",
        "two detector instances that only tell the victim to abort: a double resolution is harmless",
        Resolution::AbortVictim,
    );
    s.oracles.push(OracleSpec::DeadlockFormed);
    s.oracles.push(OracleSpec::DetectorReported);
    s.expect = ExpectedVerdict::Safe;
    short_walks(&mut s);
    s
}
