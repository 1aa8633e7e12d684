//! Renaming the process ids a Redis world's actors hold, for symmetry reduction (see
//! `lockcheck_sim::world::symmetry`): what the kernel needs to tell whether two processes
//! are interchangeable and to hash a state as its class's representative.
//!
//! Redis nodes, lock clients, the account and the token service support it. A lock client's
//! configuration is renamed as it is written, except that a Redlock client's nodes asked at
//! once may trade places: the renamed configuration is the same, and its state has the
//! per-node slots of its sweep permuted (`Redlock::renamed_positions`). Two nodes a client
//! asks one after another (seed 000's sequential loop, the local nodes of `LocalFirst`) are
//! never interchangeable, since the protocol depends on their order, and the kernel then
//! names that reason. Sentinel, the scripted client, the lock service and the detector do
//! not support it; a world holding one gets no symmetry among the processes they name.

use crate::lock::protocol::EngineState;
use crate::lock::redlock::Redlock;
use crate::lock::single::SingleState;
use crate::lock::{ClientState, Fencing, LockClient, Protocol};
use crate::msg::{Msg, Timer};
use crate::node::{NodeState, RedisNode, Role};
use crate::process::{Process, ProcessState};
use lockcheck_sim::world::Renaming;

/// `process` with its ids renamed by `r`, or why it cannot be renamed.
pub fn renamed(process: &Process, r: &Renaming) -> Result<Process, String> {
    let unsupported = |kind: &str| Err(format!("a {kind} does not support renaming process ids"));
    Ok(match process {
        Process::Redis(node) => Process::Redis(RedisNode {
            replica_of: node.replica_of.map(|m| r.of(m)),
            ..node.clone()
        }),
        Process::Client(client) if !client.workload.lock_object_peers.is_empty() => {
            return unsupported("thread sharing a lock object")
        }
        Process::Client(client) => Process::Client(renamed_client(client, r)),
        Process::Account(_) | Process::Tokens(_) => process.clone(),
        Process::Sentinel(_) => return unsupported("Sentinel"),
        Process::Scripted(_) => return unsupported("scripted client"),
        Process::Service(_) => return unsupported("lock service"),
        Process::Detector(_) => return unsupported("deadlock detector"),
    })
}

fn renamed_client(client: &LockClient, r: &Renaming) -> LockClient {
    let mut c = client.clone();
    match &mut c.protocol {
        Protocol::SingleNode(e) => {
            e.node = r.of(e.node);
            e.sentinel = e.sentinel.map(|s| r.of(s));
        }
        Protocol::Redlock(e) => {
            if e.renamed_positions(r).is_none() {
                e.nodes.iter_mut().for_each(|n| *n = r.of(*n));
            }
        }
        Protocol::Redisson(e) => e.node = r.of(e.node),
    }
    c.workload.resource = c.workload.resource.map(|p| r.of(p));
    if let Fencing::Service(p) = &mut c.fencing {
        *p = r.of(*p);
    }
    c
}

/// `state` of `process` with its ids renamed by `r`, or `None` when it holds none that `r`
/// moves.
pub fn rename_state(process: &Process, state: &ProcessState, r: &Renaming) -> Option<ProcessState> {
    match (process, state) {
        (_, ProcessState::Redis(node)) => rename_node(node, r).map(ProcessState::Redis),
        (Process::Client(config), ProcessState::Client(client)) => {
            rename_client(config, client, r).map(ProcessState::Client)
        }
        _ => None,
    }
}

fn rename_node(node: &NodeState, r: &Renaming) -> Option<NodeState> {
    let moves = match &node.role {
        Role::Master { replicas } => replicas.iter().any(|l| r.of(l.replica) != l.replica),
        Role::Replica { master } => r.of(*master) != *master,
    } || node.subscriptions.iter().any(|(c, _)| r.of(*c) != *c)
        || node.waits.iter().any(|w| r.of(w.client) != w.client)
        || node.client_offsets.iter().any(|(c, _)| r.of(*c) != *c);
    if !moves {
        return None;
    }
    let mut n = node.clone();
    match &mut n.role {
        Role::Master { replicas } => replicas
            .iter_mut()
            .for_each(|l| l.replica = r.of(l.replica)),
        Role::Replica { master } => *master = r.of(*master),
    }
    // Subscriptions and client offsets are kept sorted by client.
    n.subscriptions.iter_mut().for_each(|(c, _)| *c = r.of(*c));
    n.subscriptions.sort();
    n.waits.iter_mut().for_each(|w| w.client = r.of(w.client));
    n.client_offsets.iter_mut().for_each(|(c, _)| *c = r.of(*c));
    n.client_offsets.sort();
    Some(n)
}

fn rename_client(config: &LockClient, client: &ClientState, r: &Renaming) -> Option<ClientState> {
    if let Protocol::Redlock(redlock) = &config.protocol {
        return rename_redlock_client(redlock, client, r);
    }
    let node_of = |e: &EngineState| match e {
        EngineState::SingleNode(SingleState::Acquiring { node, .. })
        | EngineState::SingleNode(SingleState::Holding { node })
        | EngineState::SingleNode(SingleState::Extending { node }) => Some(*node),
        EngineState::Redisson(s) => Some(s.master),
        _ => None,
    };
    if !client
        .engines
        .iter()
        .filter_map(node_of)
        .any(|n| r.of(n) != n)
    {
        return None;
    }
    let mut c = client.clone();
    for e in &mut c.engines {
        match e {
            EngineState::SingleNode(
                SingleState::Acquiring { node, .. }
                | SingleState::Holding { node }
                | SingleState::Extending { node },
            ) => *node = r.of(*node),
            EngineState::Redisson(s) => s.master = r.of(s.master),
            _ => {}
        }
    }
    Some(c)
}

/// A Redlock client's state with its nodes renamed by `r`: each engine's per-node slots
/// permuted; `None` when that changes nothing (no sweep is under way, or every slot moves
/// onto one that holds the same) or when `r` is no symmetry of the protocol (which the
/// kernel has refused already).
fn rename_redlock_client(
    redlock: &Redlock,
    client: &ClientState,
    r: &Renaming,
) -> Option<ClientState> {
    let moves = |e: &EngineState| matches!(e, EngineState::Redlock(s) if redlock.moved_by(s, r));
    if !client.engines.iter().any(moves) {
        return None;
    }
    let to = redlock.renamed_positions(r)?;
    let mut c = client.clone();
    for e in &mut c.engines {
        if let EngineState::Redlock(state) = e {
            redlock.permute_nodes(state, &to);
        }
    }
    Some(c)
}

/// `msg` with its ids renamed by `r`, or `None` if unchanged.
pub fn rename_msg(msg: &Msg, r: &Renaming) -> Option<Msg> {
    match msg {
        Msg::ReplicaOf {
            master: Some(m),
            epoch,
        } if r.of(*m) != *m => Some(Msg::ReplicaOf {
            master: Some(r.of(*m)),
            epoch: *epoch,
        }),
        Msg::MasterIs {
            master,
            epoch,
            replicas,
        } if r.of(*master) != *master => Some(Msg::MasterIs {
            master: r.of(*master),
            epoch: *epoch,
            replicas: *replicas,
        }),
        _ => None,
    }
}

/// `timer` with its ids renamed by `r`, or `None` if unchanged.
pub fn rename_timer(timer: &Timer, r: &Renaming) -> Option<Timer> {
    match timer {
        Timer::WaitTimeout { client, id } if r.of(*client) != *client => Some(Timer::WaitTimeout {
            client: r.of(*client),
            id: *id,
        }),
        _ => None,
    }
}
