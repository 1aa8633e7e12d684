//! Threads of one process: clients that name the same `process`.
//!
//! The idea: a client is one thread of control with a connection of its own; what threads
//! of one program share is named on the clients. Redisson identifies a holder by its
//! instance's id and the thread's id, so Redisson clients with a `process` present
//! `process:thread` (two tasks on one `thread` are one holder, and its lock is re-entrant
//! for them). redis-py keeps a lock object's token in thread-local storage unless the
//! object is made with `thread_local=False`: then threads of one process that use the same
//! `lock_object` share its token (`lockcheck_model::lock::client::ObjectToken`), and talk
//! through memory: in-process links with no delay, which no partition may cut. Threads of
//! one process read one clock and share one fate: a pause, crash or clock step named on one
//! thread hits them all (`lockcheck_sim::world::FaultEnvelope::shared_fate`).

use super::build::{error, Names, ScenarioError};
use super::{ClientSpec, ProtocolSpec, Scenario};
use lockcheck_sim::world::{FaultEnvelope, LinkSpec, Network, ProcessId};

impl ClientSpec {
    /// The identity this client records as a holder.
    pub fn holder_identity(&self) -> String {
        if let Some(owner) = &self.owner {
            return owner.clone();
        }
        match (&self.process, self.protocol.resolved()) {
            (Some(process), ProtocolSpec::Redisson { .. }) => {
                format!("{process}:{}", self.thread.as_deref().unwrap_or(&self.name))
            }
            _ => self.name.clone(),
        }
    }
}

/// Whether `c`'s lock object keeps its token per thread (redis-py's default).
fn thread_local(c: &ClientSpec) -> bool {
    match c.protocol.resolved() {
        ProtocolSpec::SingleNode { thread_local, .. } => *thread_local,
        _ => true,
    }
}

impl Scenario {
    /// The other threads that share client `i`'s lock object and its token.
    pub(super) fn lock_object_peers(
        &self,
        i: usize,
        names: &Names,
    ) -> Result<Vec<ProcessId>, ScenarioError> {
        let c = &self.clients[i];
        if thread_local(c) || c.lock_object.is_none() {
            return Ok(Vec::new());
        }
        self.clients
            .iter()
            .enumerate()
            .filter(|&(j, d)| j != i && d.process == c.process && d.lock_object == c.lock_object)
            .map(|(j, d)| names.id(&d.name, &format!("clients[{j}].name")))
            .collect()
    }

    /// `envelope` with the threads of each process sharing one fate: a pause, crash or clock
    /// step of one thread is one of the whole process.
    pub(super) fn with_shared_fates<F>(
        &self,
        mut envelope: FaultEnvelope<F>,
        names: &Names,
    ) -> Result<FaultEnvelope<F>, ScenarioError> {
        let mut processes: Vec<&String> = self
            .clients
            .iter()
            .filter_map(|c| c.process.as_ref())
            .collect();
        processes.sort_unstable();
        processes.dedup();
        for process in processes {
            let threads = self
                .clients
                .iter()
                .enumerate()
                .filter(|(_, c)| c.process.as_ref() == Some(process))
                .map(|(i, c)| names.id(&c.name, &format!("clients[{i}].name")))
                .collect::<Result<Vec<_>, _>>()?;
            envelope = envelope.shared_fate(threads);
        }
        Ok(envelope)
    }

    /// `network` with the in-process links between threads that share a lock object.
    pub(super) fn with_in_process_links(
        &self,
        mut network: Network,
        names: &Names,
    ) -> Result<Network, ScenarioError> {
        for i in 0..self.clients.len() {
            let me = names.id(&self.clients[i].name, &format!("clients[{i}].name"))?;
            for peer in self.lock_object_peers(i, names)? {
                network = network.with_link(me, peer, LinkSpec::fixed(0));
            }
        }
        Ok(network)
    }

    /// Refuses what threads of a process cannot be: a thread or a lock object with no
    /// process, a lock object on a protocol without one, a shared token nobody shares,
    /// threads with clocks of their own, a partition between threads, and shared holder
    /// identities with deadlock detection.
    pub(super) fn check_threads(&self) -> Result<(), ScenarioError> {
        for (i, c) in self.clients.iter().enumerate() {
            let field = |f: &str| format!("clients[{i}].{f}");
            for (name, value) in [
                ("process", &c.process),
                ("thread", &c.thread),
                ("lock_object", &c.lock_object),
            ] {
                if value.as_ref().is_some_and(|v| v.trim().is_empty()) {
                    return Err(error(field(name), format!("`{name}` cannot be empty")));
                }
            }
            if c.process.is_none() {
                if c.thread.is_some() {
                    return Err(error(
                        field("thread"),
                        "a thread belongs to a process: give `process` too",
                    ));
                }
                if c.lock_object.is_some() {
                    return Err(error(
                        field("lock_object"),
                        "threads of one process share a lock object: give `process` too",
                    ));
                }
            }
            if c.lock_object.is_some()
                && !matches!(c.protocol.resolved(), ProtocolSpec::SingleNode { .. })
            {
                return Err(error(
                    field("lock_object"),
                    "only the single-node lock (redis-py's `Lock`) keeps its token in the lock object",
                ));
            }
            self.check_shared_object(i)?;
            self.check_one_clock(i)?;
        }
        self.check_partitions_keep_threads_together()?;
        self.check_owners_apart_with_detection()
    }

    fn check_shared_object(&self, i: usize) -> Result<(), ScenarioError> {
        let c = &self.clients[i];
        if thread_local(c) {
            return Ok(());
        }
        let sharing: Vec<&ClientSpec> = self
            .clients
            .iter()
            .filter(|d| {
                d.name != c.name
                    && d.process.is_some()
                    && d.process == c.process
                    && d.lock_object.is_some()
                    && d.lock_object == c.lock_object
            })
            .collect();
        if sharing.is_empty() {
            return Err(error(
                format!("clients[{i}].protocol.thread_local"),
                "`thread_local = false` shares the token only with other threads of the same `process` that use the same `lock_object`: none does",
            ));
        }
        match sharing.iter().find(|d| thread_local(d)) {
            Some(d) => Err(error(
                format!("clients[{i}].protocol.thread_local"),
                format!("one lock object has one `thread_local`: `{}` uses the same object with thread_local = true", d.name),
            )),
            None => Ok(()),
        }
    }

    fn check_one_clock(&self, i: usize) -> Result<(), ScenarioError> {
        let c = &self.clients[i];
        let Some(process) = &c.process else {
            return Ok(());
        };
        match self
            .clients
            .iter()
            .find(|d| d.process.as_ref() == Some(process) && d.clock != c.clock)
        {
            Some(d) => Err(error(
                format!("clients[{i}].clock"),
                format!(
                    "threads of process `{process}` read one clock: `{}` has another",
                    d.name
                ),
            )),
            None => Ok(()),
        }
    }

    fn check_partitions_keep_threads_together(&self) -> Result<(), ScenarioError> {
        let process_of = |name: &str| {
            self.clients
                .iter()
                .find(|c| c.name == name)
                .and_then(|c| c.process.as_ref())
        };
        for (k, p) in self.faults.partitions.iter().enumerate() {
            for a in &p.side_a {
                let Some(process) = process_of(a) else {
                    continue;
                };
                if let Some(b) = p.side_b.iter().find(|b| process_of(b) == Some(process)) {
                    return Err(error(
                        format!("faults.partitions[{k}]"),
                        format!("cuts `{a}` from `{b}`, threads of process `{process}`, which talk through memory"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_owners_apart_with_detection(&self) -> Result<(), ScenarioError> {
        if self.detection.is_none() {
            return Ok(());
        }
        for (i, c) in self.clients.iter().enumerate() {
            let owner = c.holder_identity();
            if let Some(d) = self.clients[..i]
                .iter()
                .find(|d| d.holder_identity() == owner)
            {
                return Err(error(
                    format!("clients[{i}].thread"),
                    format!("deadlock detection tells waiters apart by owner: `{}` and `{}` are one holder `{owner}`", d.name, c.name),
                ));
            }
        }
        Ok(())
    }
}
