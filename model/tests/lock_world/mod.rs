//! Worlds of lock clients over Redis masters, for lock-protocol tests: five masters
//! `redis-1..5` (processes 0-4), two clients `client-1` and `client-2` (5, 6) and an account
//! (7) that the clients may read and debit.

#![allow(dead_code)]

pub mod redlock;

use crate::world::{RedisWorld, State};
use lockcheck_model::lock::{ClientState, Fencing, LockClient, Protocol, Workload};
use lockcheck_model::node::RedisNode;
use lockcheck_model::process::{Process, ProcessState};
use lockcheck_model::resource::{Account, AccountState};
use lockcheck_sim::world::{ClockSpec, ProcessId, ProcessSpec, World};

pub const NODES: [ProcessId; 5] = [0, 1, 2, 3, 4];
pub const CLIENT_1: ProcessId = 5;
pub const CLIENT_2: ProcessId = 6;
pub const ACCOUNT: ProcessId = 7;
pub const CLIENTS: [ProcessId; 2] = [CLIENT_1, CLIENT_2];

/// One round on lock `lock`, starting after `start_after_ms`, working one of `work_ms`.
pub fn job(start_after_ms: u64, work_ms: &[u64]) -> Workload {
    Workload {
        locks: vec![b"lock".to_vec()],
        rounds: 1,
        start_after_ms,
        work_ms: work_ms.to_vec(),
        steps: lockcheck_model::lock::Steps::InOrder,
        resource: None,
        amount: 10,
        checks_stop_event: false,
        on_fail: Default::default(),
        lock_object_peers: Vec::new(),
    }
}

/// The same job, reading the account before the work and debiting it after.
pub fn paying_job(start_after_ms: u64, work_ms: &[u64]) -> Workload {
    Workload {
        resource: Some(ACCOUNT),
        ..job(start_after_ms, work_ms)
    }
}

/// A job that never runs (a world with one active client).
pub fn no_job() -> Workload {
    Workload {
        rounds: 0,
        ..job(0, &[1])
    }
}

/// Five masters, two clients speaking `protocol` with these workloads, and an account
/// without defences; perfect clocks and 1 ms links.
pub fn lock_world(protocol: Protocol, jobs: [Workload; 2]) -> RedisWorld {
    let [job_1, job_2] = jobs;
    let mut processes: Vec<(String, Process)> = NODES
        .iter()
        .map(|i| {
            (
                format!("redis-{}", i + 1),
                Process::Redis(RedisNode::master()),
            )
        })
        .collect();
    for (name, workload) in [("client-1", job_1), ("client-2", job_2)] {
        let client = LockClient {
            protocol: protocol.clone(),
            workload,
            fencing: Fencing::Protocol,
            owner: name.as_bytes().to_vec(),
        };
        processes.push((name.to_string(), Process::Client(client)));
    }
    let account = Account {
        initial_balance: 100,
        fencing: false,
        unique_biz_id: false,
        conditional_debit: false,
    };
    processes.push(("account".to_string(), Process::Account(account)));
    World::new(
        "lock-world",
        processes
            .into_iter()
            .map(|(name, actor)| ProcessSpec {
                name,
                actor,
                clock: ClockSpec::default(),
            })
            .collect(),
    )
}

pub fn lock_client(world: &RedisWorld, p: ProcessId) -> &LockClient {
    match &world.processes[p].actor {
        Process::Client(c) => c,
        other => panic!("process {p} is no lock client: {other:?}"),
    }
}

pub fn client_state(state: &State, p: ProcessId) -> &ClientState {
    state
        .actor(p)
        .and_then(ProcessState::as_client)
        .expect("a running lock client")
}

pub fn account(state: &State) -> &AccountState {
    state
        .actor(ACCOUNT)
        .and_then(ProcessState::as_account)
        .expect("a running account")
}

/// Whether client `p` believes it holds the lock now (on its own clock).
pub fn believes(world: &RedisWorld, state: &State, p: ProcessId) -> bool {
    state
        .actor(p)
        .and_then(ProcessState::as_client)
        .is_some_and(|s| {
            !lock_client(world, p)
                .believed_locks(s, world.local_now(state, p))
                .is_empty()
        })
}

/// The ME-lock oracle's violation: both clients believe they hold the lock.
pub fn both_believe(world: &RedisWorld, state: &State) -> bool {
    CLIENTS.iter().all(|&p| believes(world, state, p))
}
