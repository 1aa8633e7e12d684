//! From a scenario to a world: names resolved to process ids, every reference checked.
//!
//! Processes are laid out in a fixed order: Redis nodes, Sentinel, the account, the token
//! service, the clients, then shared deadlock detectors. Any reference to a missing name, a duplicate name or an
//! impossible value is a [`ScenarioError`] naming the field, never a panic.

use super::fault_when::{Anchors, FaultWhen};
use super::{ClientSpec, ExploreSpec, FaultsSpec, NodeSpec, PersistenceDe, Scenario};
use crate::oracles::RedisWorld;
use crate::text::clip;
use lockcheck_model::fault::RedisFault;
use lockcheck_model::lock::{Fencing, LockClient, Workload};
use lockcheck_model::node::RedisNode;
use lockcheck_model::process::Process;
use lockcheck_model::resource::{Account, TokenService};
use lockcheck_model::sentinel::Sentinel;
use lockcheck_sim::world::{
    CrashKind, FaultEnvelope, FaultRule, LinkSpec, Network, PartitionFault, ProcessId, ProcessSpec,
    World,
};
use std::fmt;

/// A scenario that cannot be built, with the field at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Path of the field, e.g. `clients[1].protocol.node`.
    pub field: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ScenarioError {}

pub(super) fn error(field: impl Into<String>, message: impl Into<String>) -> ScenarioError {
    ScenarioError {
        field: field.into(),
        message: message.into(),
    }
}

/// Process names and ids of a scenario being built.
pub(super) struct Names(Vec<String>);

impl Names {
    pub(super) fn id(&self, name: &str, field: &str) -> Result<ProcessId, ScenarioError> {
        self.0
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| error(field, format!("no process named `{name}`")))
    }
}

impl Scenario {
    /// The world this scenario describes.
    pub fn build(&self) -> Result<RedisWorld, ScenarioError> {
        self.check_values()?;
        let names = self.names()?;
        let mut processes = Vec::new();
        for (i, node) in self.nodes.iter().enumerate() {
            processes.push(spec(
                &node.name,
                self.node(node, i, &names)?,
                node.clock,
                i,
                "nodes",
            )?);
        }
        if let Some(s) = &self.sentinel {
            processes.extend(self.sentinels(s, &names)?);
        }
        if let Some(a) = &self.account {
            let account = Account {
                initial_balance: a.initial_balance,
                fencing: a.fencing,
                unique_biz_id: a.unique_biz_id,
                conditional_debit: a.conditional_debit,
            };
            processes.push(plain("account", Process::Account(account)));
        }
        if self.token_service {
            processes.push(plain("tokens", Process::Tokens(TokenService)));
        }
        self.check_services()?;
        self.check_threads()?;
        for (i, c) in self.clients.iter().enumerate() {
            let client = self.client(c, i, &names)?;
            let process = self.client_process(i, client, &names)?;
            processes.push(spec(&c.name, process, c.clock, i, "clients")?);
        }
        processes.extend(self.detector_processes(&names)?);
        let clients: Vec<&str> = self.clients.iter().map(|c| c.name.as_str()).collect();
        let (envelope, anchors) = self.faults.envelope(&names, &self.nodes, &clients)?;
        let envelope = self.with_shared_fates(envelope, &names)?;
        let world = World::new(self.name.clone(), processes)
            .with_network(self.with_in_process_links(self.network(&names)?, &names)?)
            .with_faults(envelope)
            .with_resume_order(self.faults.resume_order);
        let world = anchors
            .list
            .into_iter()
            .fold(world, |w, (_, a)| w.with_anchor(a));
        Ok(self
            .oracles
            .iter()
            .fold(world, |w, o| w.with_property(o.definition().property)))
    }

    /// Every process name, in process-id order; duplicates refused.
    fn names(&self) -> Result<Names, ScenarioError> {
        let mut names: Vec<String> = self.nodes.iter().map(|n| n.name.clone()).collect();
        if let Some(s) = &self.sentinel {
            names.extend(s.names());
        }
        if self.account.is_some() {
            names.push("account".into());
        }
        if self.token_service {
            names.push("tokens".into());
        }
        names.extend(self.clients.iter().map(|c| c.name.clone()));
        names.extend(self.detector_names());
        for (i, name) in names.iter().enumerate() {
            if names[..i].contains(name) {
                return Err(error("name", format!("two processes are named `{name}`")));
            }
        }
        if self.clients.is_empty() {
            return Err(error(
                "clients",
                "a scenario needs at least one lock client",
            ));
        }
        Ok(Names(names))
    }

    fn node(&self, n: &NodeSpec, i: usize, names: &Names) -> Result<Process, ScenarioError> {
        let mut node = RedisNode::master().with_persistence(n.persistence.into());
        if let Some(master) = &n.replica_of {
            let field = format!("nodes[{i}].replica_of");
            let m = names.id(master, &field)?;
            if m >= self.nodes.len() || m == i {
                return Err(error(
                    field,
                    format!("`{master}` is not another Redis node"),
                ));
            }
            node.replica_of = Some(m);
        }
        node.min_replicas_to_write = n.min_replicas_to_write;
        node.repl_ack_every_ms = n.repl_ack_every_ms;
        node.min_replicas_max_lag_ms = n.min_replicas_max_lag_ms;
        node.records_wait_offsets = self.some_client_sends_wait();
        Ok(Process::Redis(node))
    }

    /// The Sentinel processes: one, or `count` peers that vote.
    fn sentinels(
        &self,
        s: &super::SentinelSpec,
        names: &Names,
    ) -> Result<Vec<ProcessSpec<Process>>, ScenarioError> {
        let master = names.id(&s.master, "sentinel.master")?;
        if s.count == 0 {
            return Err(error("sentinel.count", "must be greater than 0"));
        }
        let quorum = s.quorum.unwrap_or(s.count / 2 + 1);
        if quorum == 0 || quorum > s.count {
            return Err(error(
                "sentinel.quorum",
                format!("must be between 1 and the {} Sentinels", s.count),
            ));
        }
        let sentinel_names = s.names();
        let ids: Vec<ProcessId> = sentinel_names
            .iter()
            .map(|n| names.id(n, "sentinel"))
            .collect::<Result<_, _>>()?;
        Ok(sentinel_names
            .into_iter()
            .zip(&ids)
            .map(|(name, &me)| {
                let nodes = (0..self.nodes.len()).collect();
                let sentinel = Sentinel {
                    priorities: self.nodes.iter().map(|n| n.replica_priority).collect(),
                    peers: ids.iter().copied().filter(|&p| p != me).collect(),
                    quorum,
                    election_retry_ms: 2 * s.failover_timeout_ms,
                    ..Sentinel::new(nodes, master, s.ping_every_ms.max(1), s.down_after_ms)
                };
                plain(&name, Process::Sentinel(sentinel))
            })
            .collect())
    }

    /// Whether a client follows its lock scripts with `WAIT` (Redisson with replicas).
    fn some_client_sends_wait(&self) -> bool {
        self.clients.iter().any(|c| {
            matches!(
                c.protocol.resolved(),
                super::ProtocolSpec::Redisson { servers, .. } if servers.mode != super::ServersMode::Single
            )
        })
    }

    fn client(&self, c: &ClientSpec, i: usize, names: &Names) -> Result<LockClient, ScenarioError> {
        let field = |f: &str| format!("clients[{i}].{f}");
        let w = &c.workload;
        let plan = super::steps::plan(w, i)?;
        match &c.owner {
            Some(o) if o.trim().is_empty() => {
                return Err(error(field("owner"), "an owner identity cannot be empty"))
            }
            Some(_) if self.detection.is_some() => {
                return Err(error(
                    field("owner"),
                    "deadlock detection tells waiters apart by owner: shared owners are not supported with [detection]",
                ))
            }
            _ => {}
        }
        let account_field = match w.steps.is_empty() && w.round_steps.is_empty() {
            true => "workload.uses_account",
            false => "workload.steps",
        };
        let resource = match (plan.uses_account, &self.account) {
            (false, _) => None,
            (true, Some(_)) => Some(names.id("account", &field(account_field))?),
            (true, None) => return Err(error(field(account_field), "the scenario has no account")),
        };
        let fencing = match (c.token_service_fencing, self.token_service) {
            (false, _) => Fencing::Protocol,
            (true, true) => Fencing::Service(names.id("tokens", &field("token_service_fencing"))?),
            (true, false) => {
                return Err(error(
                    field("token_service_fencing"),
                    "the scenario has no token service",
                ))
            }
        };
        let protocol = self.protocol(&c.protocol, &field("protocol"), names)?;
        super::steps::check_extends(&plan, &protocol)?;
        let lock_object_peers = self.lock_object_peers(i, names)?;
        if let Some((at, step)) = plan
            .first_unheld_extend
            .as_ref()
            .filter(|_| lock_object_peers.is_empty())
        {
            return Err(error(
                at.as_str(),
                format!(
                    "`{step}`: the round does not hold `{}` here (only a thread sharing a `lock_object` with `thread_local = false` extends a lock another thread acquired)",
                    step.split_whitespace().nth(1).unwrap_or_default()
                ),
            ));
        }
        Ok(LockClient {
            protocol,
            workload: Workload {
                locks: plan.locks,
                rounds: plan.rounds,
                start_after_ms: w.start_after_ms,
                work_ms: w.work_ms.clone(),
                steps: plan.steps,
                resource,
                amount: w.amount,
                checks_stop_event: w.checks_stop_event,
                on_fail: w.on_fail.into(),
                lock_object_peers,
            },
            fencing,
            owner: c.holder_identity().into_bytes(),
        })
    }

    fn network(&self, names: &Names) -> Result<Network, ScenarioError> {
        let n = &self.network;
        let link = |delays: &[u64], field: &str| {
            if delays.is_empty() {
                return Err(error(field, "give at least one delay"));
            }
            let mut link = LinkSpec::choice(delays.iter().copied());
            link.fifo = !n.reordering;
            link.lossy = n.lossy;
            Ok(link)
        };
        let mut network = Network::uniform(link(&n.delays_ms, "network.delays_ms")?);
        for (i, o) in n.links.iter().enumerate() {
            let field = format!("network.links[{i}]");
            let a = names.id(&o.between[0], &format!("{field}.between"))?;
            let b = names.id(&o.between[1], &format!("{field}.between"))?;
            let spec = link(&o.delays_ms, &format!("{field}.delays_ms"))?;
            network = if o.one_way {
                network.with_link(a, b, spec)
            } else {
                network.with_both(a, b, spec)
            };
        }
        Ok(network)
    }
}

pub(super) fn positive(v: u64, field: &str) -> Result<u64, ScenarioError> {
    if v == 0 {
        return Err(error(field, "must be greater than 0"));
    }
    Ok(v)
}

fn spec(
    name: &str,
    actor: Process,
    clock: super::ClockSpecDe,
    i: usize,
    list: &str,
) -> Result<ProcessSpec<Process>, ScenarioError> {
    if clock.drift_ppm.unsigned_abs() >= 1_000_000 {
        return Err(error(
            format!("{list}[{i}].clock.drift_ppm"),
            "a rate error must stay within ±999,999 ppm",
        ));
    }
    Ok(ProcessSpec {
        name: name.to_string(),
        actor,
        clock: clock.spec(),
    })
}

fn plain(name: &str, actor: Process) -> ProcessSpec<Process> {
    ProcessSpec {
        name: name.to_string(),
        actor,
        clock: Default::default(),
    }
}

impl FaultsSpec {
    /// The kernel's envelope, and the anchors its windows count from.
    fn envelope(
        &self,
        names: &Names,
        nodes: &[NodeSpec],
        clients: &[&str],
    ) -> Result<(FaultEnvelope<RedisFault>, Anchors), ScenarioError> {
        let mut f = self.rules(names, nodes)?;
        let mut anchors = Anchors::default();
        let whens = (listed(
            FaultRule::Pause,
            "pauses",
            self.pauses.iter().map(|p| &p.when),
        ))
        .chain(listed(
            FaultRule::Partition,
            "partitions",
            self.partitions.iter().map(|p| &p.when),
        ))
        .chain(listed(
            FaultRule::Crash,
            "crashes",
            self.crashes.iter().map(|c| &c.when),
        ))
        .chain(listed(
            FaultRule::ClockStep,
            "clock_steps",
            self.clock_steps.iter().map(|c| &c.when),
        ))
        .chain(listed(
            FaultRule::ActorFault,
            "disk_stalls",
            self.disk_stalls.iter().map(|d| &d.when),
        ));
        for (rule, field, when) in whens {
            if let Some(window) = anchors.window(when, &field, names, clients)? {
                f = f.window(rule, window);
            }
        }
        if self.max_per_process == Some(0) {
            return Err(error(
                "faults.max_per_process",
                "a cap of 0 allows no fault at all: set the budgets (`max_pauses` and the others) to 0 instead",
            ));
        }
        Ok((f.spaced(self.min_gap_ms, self.max_per_process), anchors))
    }

    /// The envelope's rules and budgets.
    fn rules(
        &self,
        names: &Names,
        nodes: &[NodeSpec],
    ) -> Result<FaultEnvelope<RedisFault>, ScenarioError> {
        let mut f = FaultEnvelope::none().losses(self.max_losses);
        for (i, p) in self.pauses.iter().enumerate() {
            let id = names.id(&p.process, &format!("faults.pauses[{i}].process"))?;
            f = f.pause(id, &p.durations_ms, 0);
        }
        for (i, p) in self.partitions.iter().enumerate() {
            let side = |s: &[String], which: &str| -> Result<Vec<ProcessId>, ScenarioError> {
                let field = format!("faults.partitions[{i}].{which}");
                s.iter().map(|n| names.id(n, &field)).collect()
            };
            let (a, b) = (side(&p.side_a, "side_a")?, side(&p.side_b, "side_b")?);
            let fault = if p.one_way {
                PartitionFault::one_way(&p.name, &a, &b, p.durations_ms.clone())
            } else {
                PartitionFault::two_way(&p.name, &a, &b, p.durations_ms.clone())
            };
            f = f.partition(fault, 0);
        }
        for (i, c) in self.crashes.iter().enumerate() {
            let id = names.id(&c.process, &format!("faults.crashes[{i}].process"))?;
            let kind = if c.power_loss {
                CrashKind::PowerLoss
            } else {
                CrashKind::Process
            };
            f = f.crash(id, &[kind], &c.restart_after_ms, 0);
        }
        for (i, s) in self.clock_steps.iter().enumerate() {
            let id = names.id(&s.process, &format!("faults.clock_steps[{i}].process"))?;
            f = f.clock_step(id, &s.deltas_ms, 0);
        }
        f.max_pauses = self.max_pauses;
        f.max_partitions = self.max_partitions;
        f.max_crashes = self.max_crashes;
        for (i, s) in self.disk_stalls.iter().enumerate() {
            let field = format!("faults.disk_stalls[{i}].node");
            let id = names.id(&s.node, &field)?;
            let everysec = nodes
                .iter()
                .any(|n| n.name == s.node && n.persistence == PersistenceDe::AofEverysec);
            if !everysec {
                return Err(error(
                    field,
                    format!(
                        "`{}` is not a node with `persistence = \"aof_everysec\"`: a disk stall holds back that mode's background fsyncs",
                        clip(&s.node, 60)
                    ),
                ));
            }
            let stalls = s.durations_ms.iter();
            let faults = stalls.map(|&duration_ms| RedisFault::DiskStall { duration_ms });
            f = f.actor_fault(id, faults.collect(), 0);
        }
        f.max_pauses = self.max_pauses;
        f.max_partitions = self.max_partitions;
        f.max_crashes = self.max_crashes;
        f.max_clock_steps = self.max_clock_steps;
        f.max_actor_faults = self.max_disk_stalls;
        Ok(f)
    }
}

/// Each fault rule of one list with its `when` and the field it is read from.
fn listed<'a>(
    rule: fn(usize) -> FaultRule,
    list: &'static str,
    whens: impl Iterator<Item = &'a FaultWhen>,
) -> impl Iterator<Item = (FaultRule, String, &'a FaultWhen)> {
    whens
        .enumerate()
        .map(move |(i, when)| (rule(i), format!("faults.{list}[{i}].when"), when))
}

impl ExploreSpec {
    /// Kernel options for an exhaustive check.
    pub fn options(&self) -> lockcheck_sim::Options {
        lockcheck_sim::Options {
            reductions: lockcheck_sim::Reductions::all(),
            limits: lockcheck_sim::Limits {
                max_depth: self.max_depth,
                max_states: Some(self.max_states),
                max_virtual_time_ms: self.max_virtual_time_ms,
                ..lockcheck_sim::Limits::default()
            },
            storage: lockcheck_sim::Storage {
                wide_fingerprints: self.fingerprint_bits == 128,
                ..lockcheck_sim::Storage::default()
            },
            ..lockcheck_sim::Options::default()
        }
    }
}
