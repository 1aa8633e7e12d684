//! World-building helpers: the pieces every built-in scenario is made of, for building a
//! world of your own in Rust.
//!
//! A [`Scenario`] is plain data (the same fields a scenario file has). Start from [`base`]
//! (no faults, default network and bounds, mutual exclusion checked), add nodes with
//! [`node`], clients with [`client`] and a protocol such as [`single_node`], faults such as
//! [`pause`], and check it:
//!
//! ```
//! use lockcheck::scenario::kit::{base, client, node, pause, single_node};
//! use lockcheck::scenario::{ExpectedVerdict, OracleSpec, Scenario};
//!
//! // Two clients of one Redis node with a 10 s lease; the first pauses for 15 s while
//! // holding, so the second acquires while the first still believes it holds.
//! let world = Scenario {
//!     name: "my-pause-past-lease".into(),
//!     nodes: vec![node("redis")],
//!     clients: vec![
//!         client("a", single_node("redis", 10_000), &[1_000], 0),
//!         client("b", single_node("redis", 10_000), &[1_000], 100),
//!     ],
//!     faults: pause("a", &[15_000], 1),
//!     oracles: vec![OracleSpec::MeLock],
//!     expect: ExpectedVerdict::Violated { oracle: "me-lock".into() },
//!     ..base()
//! };
//! lockcheck::testing::check(&world).assert_violated("me-lock");
//! ```
//!
//! The built-in scenarios ([`builtin`](super::builtin)) are written with these helpers and are worked
//! examples of each fault and protocol.

use super::{
    AccountSpec, ClientSpec, ClockSpecDe, CrashSpec, ExpectedVerdict, ExploreSpec, FaultWhen,
    FaultsSpec, NetworkSpec, NodeSpec, OracleSpec, PartitionSpec, PauseSpec, PersistenceDe,
    ProtocolSpec, Scenario, WorkloadSpec,
};
use lockcheck_model::lock::single::{GiveUpCheck, Release};

/// A scenario with nothing in it but what every scenario shares: no Sentinel, account, token
/// service or detection, the default network, no faults, default exploration bounds. Each
/// built-in fills in its own fields with `..base()`.
pub fn base() -> Scenario {
    Scenario {
        name: String::new(),
        description: String::new(),
        nodes: Vec::new(),
        sentinel: None,
        clients: Vec::new(),
        account: None,
        token_service: false,
        detection: None,
        network: NetworkSpec::default(),
        faults: FaultsSpec::default(),
        explore: ExploreSpec::default(),
        oracles: vec![OracleSpec::MeLock],
        expect: ExpectedVerdict::Safe,
    }
}

/// The default exploration bounds with `count` random walks: for scenarios with few choices,
/// where thousands of walks would repeat the same few runs.
pub fn walks(count: u64) -> ExploreSpec {
    ExploreSpec {
        random_seeds: count,
        ..ExploreSpec::default()
    }
}

/// The protected account with a balance of 100 and the given defences.
pub fn account(fencing: bool, unique_biz_id: bool, conditional_debit: bool) -> AccountSpec {
    AccountSpec {
        initial_balance: 100,
        fencing,
        unique_biz_id,
        conditional_debit,
    }
}

/// A Redis node called `name`: a master without persistence, with the default clock and
/// replication settings.
pub fn node(name: &str) -> NodeSpec {
    NodeSpec {
        name: name.into(),
        replica_of: None,
        persistence: PersistenceDe::None,
        clock: ClockSpecDe::default(),
        min_replicas_to_write: 0,
        repl_ack_every_ms: None,
        min_replicas_max_lag_ms: super::default_max_lag_ms(),
        replica_priority: super::default_replica_priority(),
    }
}

/// The single-node lock on `node` with a lease of `ttl_ms`: the owner-checked release, one
/// retry every 2 s until the attempt's deadline, requests answered within 2 s, no fencing.
pub fn single_node(node: &str, ttl_ms: u64) -> ProtocolSpec {
    ProtocolSpec::SingleNode {
        node: node.into(),
        ttl_ms: Some(ttl_ms),
        release: Release::OwnerChecked,
        retry_ms: vec![2_000],
        acquire_timeout_ms: None,
        give_up_check: GiveUpCheck::AtDeadline,
        max_attempts: None,
        request_timeout_ms: Some(2_000),
        fencing_counter: None,
        via_sentinel: false,
        thread_local: true,
        on_refused: Default::default(),
    }
}

/// `protocol`, a single-node lock, with fencing tokens: its lock script increments the
/// counter key `counter` and hands the value out with the grant. Pair it with
/// [`account`]`(true, ..)`, whose account refuses a token older than one it has seen (a
/// scenario whose account fences with no token source is refused when it is checked).
///
/// # Panics
///
/// On another kind of protocol: only the single-node lock has a fencing counter (a
/// Redlock or Redisson client fences with `ClientSpec::token_service_fencing`).
pub fn fenced(mut protocol: ProtocolSpec, counter: &str) -> ProtocolSpec {
    match &mut protocol {
        ProtocolSpec::SingleNode {
            fencing_counter, ..
        } => *fencing_counter = Some(counter.into()),
        _ => panic!("only a single-node lock has a fencing counter"),
    }
    protocol
}

/// A client called `name` using `protocol` for one round on `order_lock`: it starts after
/// `start_after_ms` and holds the lock for each of `work_ms` (one is chosen per run).
pub fn client(
    name: &str,
    protocol: ProtocolSpec,
    work_ms: &[u64],
    start_after_ms: u64,
) -> ClientSpec {
    ClientSpec {
        name: name.into(),
        protocol,
        workload: WorkloadSpec {
            locks: vec!["order_lock".into()],
            rounds: 1,
            start_after_ms,
            work_ms: work_ms.to_vec(),
            uses_account: false,
            amount: 10,
            checks_stop_event: false,
            on_fail: Default::default(),
            steps: Vec::new(),
            round_steps: Vec::new(),
        },
        token_service_fencing: false,
        clock: ClockSpecDe::default(),
        owner: None,
        process: None,
        thread: None,
        lock_object: None,
    }
}

/// Pauses of `process` (a GC pause or a stopped VM), each lasting one of `durations_ms`, at
/// any moment, at most `max` in a run.
pub fn pause(process: &str, durations_ms: &[u64], max: u32) -> FaultsSpec {
    FaultsSpec {
        pauses: vec![PauseSpec {
            process: process.into(),
            durations_ms: durations_ms.to_vec(),
            when: Default::default(),
        }],
        max_pauses: max,
        ..FaultsSpec::default()
    }
}

/// A client named `name` running one round of `steps` (workload steps as written in a
/// scenario file), starting after `start_after_ms`.
pub fn stepper(
    name: &str,
    protocol: ProtocolSpec,
    start_after_ms: u64,
    steps: &[&str],
) -> ClientSpec {
    let mut c = client(name, protocol, &[], start_after_ms);
    c.workload.locks.clear();
    c.workload.steps = steps.iter().map(|s| s.to_string()).collect();
    c
}

/// One pause of `process` for `duration_ms`, exactly `at_ms` into the run.
pub fn pause_at(process: &str, duration_ms: u64, at_ms: u64) -> FaultsSpec {
    let mut faults = pause(process, &[duration_ms], 1);
    faults.pauses[0].when = FaultWhen {
        at_ms: Some(at_ms),
        ..FaultWhen::default()
    };
    faults
}

/// One process crash of `process`, which never restarts.
pub fn crash_for_good(process: &str) -> FaultsSpec {
    FaultsSpec {
        crashes: vec![CrashSpec {
            process: process.into(),
            power_loss: false,
            restart_after_ms: vec![None],
            when: Default::default(),
        }],
        max_crashes: 1,
        ..FaultsSpec::default()
    }
}

/// One partition `old-master` cutting `side_a` off from `side_b`, at any moment, for good.
pub fn old_master_cut_off(side_a: &[&str], side_b: &[&str]) -> FaultsSpec {
    let names = |side: &[&str]| side.iter().map(|p| p.to_string()).collect();
    FaultsSpec {
        partitions: vec![PartitionSpec {
            name: "old-master".into(),
            side_a: names(side_a),
            side_b: names(side_b),
            one_way: false,
            durations_ms: vec![None],
            when: Default::default(),
        }],
        max_partitions: 1,
        ..FaultsSpec::default()
    }
}

/// `clients`, each made to debit the protected account while it holds the lock.
pub fn account_clients(mut clients: Vec<ClientSpec>) -> Vec<ClientSpec> {
    for c in &mut clients {
        c.workload.uses_account = true;
    }
    clients
}
