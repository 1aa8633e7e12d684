//! The true wait-for graph, and the oracles that judge deadlock detectors against it.
//!
//! The idea: the checker sees everything a detector cannot. At every step it computes the
//! wait-for graph from the clients' states and Redis: `Pi -> Pj` when client `Pi` is acquiring
//! a lock whose key, on its protocol's first node and by that node's clock, holds `Pj`'s
//! owner value (`Pj != Pi`). A cycle in it is a deadlock. A detector's report (a cycle of
//! processes, kept in its state for the instant it is made) is then judged:
//!
//! - **false positive** (`always`): a reported cycle is not a cycle of the true graph at
//!   report time;
//! - **false negative** (`leads_to_within`): a true cycle lasts longer than the bound without
//!   any report;
//! - **deadlock liveness** (`leads_to_within`): a true cycle is not gone within the bound (by
//!   a detector, an acquire timeout, a TTL or anything else);
//! - **ME-lock** ([`crate::oracles::me_lock`]) judges what a resolution does to exclusion.
//!
//! Witnesses (`sometimes`): a deadlock formed; a detector reported.

use crate::oracles::{clients, RedisState, RedisWorld};
use lockcheck_model::lock::detector::petgraph::algo::tarjan_scc;
use lockcheck_model::lock::detector::HolderGraph;
use lockcheck_model::lock::Phase;
use lockcheck_model::process::ProcessState;
use lockcheck_sim::world::ProcessId;
use lockcheck_sim::Property;

/// The true wait-for graph of `state`.
pub fn true_graph(world: &RedisWorld, state: &RedisState) -> HolderGraph {
    let owners: Vec<(ProcessId, &[u8])> = clients(world)
        .map(|(p, c)| (p, c.owner.as_slice()))
        .collect();
    let mut graph = HolderGraph::default();
    for (p, c) in clients(world) {
        graph.add_node(p);
        let Some(s) = state.actor(p).and_then(ProcessState::as_client) else {
            continue;
        };
        let Phase::Acquiring(i) = s.phase else {
            continue;
        };
        let key = &c.workload.locks[i as usize];
        let Some(value) = stored_value(world, state, c.protocol.nodes()[0], key) else {
            continue;
        };
        let holder = owners.iter().find(|(_, o)| *o == value.as_slice());
        if let Some(&(q, _)) = holder.filter(|(q, _)| *q != p) {
            graph.add_edge(p, q, ());
        }
    }
    graph
}

/// The string stored at `key` on `node`, live by the node's clock.
fn stored_value(
    world: &RedisWorld,
    state: &RedisState,
    node: ProcessId,
    key: &[u8],
) -> Option<Vec<u8>> {
    let redis = state.actor(node).and_then(ProcessState::as_redis)?;
    let wall_ms = world.local_now(state, node).wall_ms;
    match &redis.keyspace.peek(key, wall_ms)?.value {
        lockcheck_model::redis::Value::String(v) => Some(v.clone()),
        _ => None,
    }
}

/// Whether the true wait-for graph has a cycle (a deadlock).
pub fn deadlocked(world: &RedisWorld, state: &RedisState) -> bool {
    let graph = true_graph(world, state);
    tarjan_scc(&graph).iter().any(|scc| scc.len() > 1)
}

/// The cycles reported at this instant, by in-process and shared detectors.
pub fn reports(state: &RedisState) -> Vec<&[ProcessId]> {
    state
        .procs
        .iter()
        .filter_map(|p| p.actor_state())
        .filter_map(|s| match s {
            ProcessState::Service(s) => s.report.as_deref(),
            ProcessState::Detector(d) => d.report.as_deref(),
            _ => None,
        })
        .collect()
}

/// Whether `cycle` (holders in order, closing back to the first) is a cycle of `graph`.
pub fn is_cycle_of(graph: &HolderGraph, cycle: &[ProcessId]) -> bool {
    !cycle.is_empty()
        && (0..cycle.len()).all(|k| graph.contains_edge(cycle[k], cycle[(k + 1) % cycle.len()]))
}

/// Whether some report names a cycle the true graph does not have.
pub(crate) fn false_report(world: &RedisWorld, state: &RedisState) -> bool {
    let reports = reports(state);
    if reports.is_empty() {
        return false;
    }
    let graph = true_graph(world, state);
    reports.iter().any(|cycle| !is_cycle_of(&graph, cycle))
}

/// False positive: every report names a true cycle at report time.
pub(crate) fn false_positive(name: &str) -> Property<RedisWorld> {
    Property::always(name, |w, s| !false_report(w, s))
}

/// False negative: a deadlock is reported (or gone) within `bound_ms`.
pub(crate) fn false_negative(name: &str, bound_ms: u64) -> Property<RedisWorld> {
    Property::leads_to_within(name, bound_ms, deadlocked, |w, s| {
        !deadlocked(w, s) || !reports(s).is_empty()
    })
}

/// Liveness of a deadlock: it is gone within `bound_ms`.
pub(crate) fn deadlock_liveness(name: &str, bound_ms: u64) -> Property<RedisWorld> {
    Property::leads_to_within(name, bound_ms, deadlocked, |w, s| !deadlocked(w, s))
}

/// Witness: a deadlock formed.
pub(crate) fn deadlock_formed(name: &str) -> Property<RedisWorld> {
    Property::sometimes(name, deadlocked)
}

/// Witness: a detector reported a cycle.
pub(crate) fn detector_reported(name: &str) -> Property<RedisWorld> {
    Property::sometimes(name, |_, s| !reports(s).is_empty())
}
