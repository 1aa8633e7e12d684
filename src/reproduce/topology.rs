//! The real servers a world needs: one per Redis node (a replica replicates through a
//! proxy; `min-replicas` settings and Sentinel's replica priorities carried over) and one per
//! Sentinel, which monitors the master through a proxy. Several Sentinels (elections between
//! them) and a replication link slower than the rest are refused.

use super::plan::Unsupported;
use super::sentinel::SentinelSetup;
use super::server::NodeSetup;
use crate::oracles::RedisWorld;
use lockcheck_model::process::Process;
use lockcheck_model::sentinel::DEFAULT_PRIORITY;
use lockcheck_sim::world::ProcessId;

/// The real servers of a world, with their processes.
pub struct Topology {
    pub nodes: Vec<(ProcessId, NodeSetup)>,
    pub sentinels: Vec<(ProcessId, SentinelSetup)>,
}

fn refuse(why: String) -> Unsupported {
    Unsupported {
        step: 0,
        label: "the scenario's topology".into(),
        why,
    }
}

/// The topology of `world`.
pub fn topology(world: &RedisWorld) -> Result<Topology, Unsupported> {
    let redis: Vec<ProcessId> = (0..world.processes.len())
        .filter(|&p| matches!(world.processes[p].actor, Process::Redis(_)))
        .collect();
    let index = |p: ProcessId| redis.iter().position(|&r| r == p);
    let mut nodes = redis
        .iter()
        .map(|&p| node_setup(world, p, index).map(|n| (p, n)))
        .collect::<Result<Vec<_>, _>>()?;
    for ((a, b), link) in &world.network.links {
        let slow = link
            .delays_ms
            .iter()
            .any(|&d| d > world.network.default_link.delays_ms[0]);
        if index(*a).is_some() && index(*b).is_some() && slow {
            return Err(refuse(format!(
                "the link {} -> {} is slower than the rest (a replication delay needs a proxy that holds)",
                world.processes[*a].name, world.processes[*b].name
            )));
        }
    }
    let mut sentinels = Vec::new();
    for (p, spec) in world.processes.iter().enumerate() {
        let Process::Sentinel(s) = &spec.actor else {
            continue;
        };
        if !s.peers.is_empty() {
            return Err(refuse(format!(
                "{} has peers: several Sentinels",
                spec.name
            )));
        }
        for (node, priority) in s.nodes.iter().zip(&s.priorities) {
            if let Some(i) = index(*node) {
                nodes[i].1.priority = *priority;
            }
        }
        let master =
            index(s.initial_master).ok_or_else(|| refuse("a master that is not a node".into()))?;
        let replicas = nodes
            .iter()
            .filter(|(_, n)| n.replica_of == Some(master))
            .count();
        sentinels.push((
            p,
            SentinelSetup {
                name: spec.name.clone(),
                master,
                down_after_ms: s.down_after_ms,
                quorum: s.quorum,
                replicas,
            },
        ));
    }
    Ok(Topology { nodes, sentinels })
}

/// Node `p`'s server (`index` gives a node's index from its process).
fn node_setup(
    world: &RedisWorld,
    p: ProcessId,
    index: impl Fn(ProcessId) -> Option<usize>,
) -> Result<NodeSetup, Unsupported> {
    let spec = &world.processes[p];
    let Process::Redis(node) = &spec.actor else {
        unreachable!("a Redis process")
    };
    let lag_ms = node.min_replicas_max_lag_ms;
    if node.min_replicas_to_write > 0 && lag_ms % 1_000 != 0 {
        return Err(refuse(format!(
            "{}: min-replicas-max-lag {lag_ms} ms is not whole seconds",
            spec.name
        )));
    }
    Ok(NodeSetup {
        name: spec.name.clone(),
        persistence: node.persistence,
        replica_of: node.replica_of.and_then(index),
        min_replicas_to_write: node.min_replicas_to_write,
        min_replicas_max_lag_s: lag_ms / 1_000,
        priority: DEFAULT_PRIORITY,
    })
}
