//! The planner: a trace's path, turned into what the replayer does at which virtual time.
//!
//! The replayer is every client and the client-side network, so a client's pause, clock,
//! timers and lost messages need no action: they are notes. What reaches a real server is a
//! command (`deliver client -> node`, sent at that step's time with the model's own argv), a
//! reply to compare (`deliver node -> client`), or a node fault: a pause (SIGSTOP, then
//! SIGCONT when it ends), a crash (`kill -9`, then a restart on the same directory), a clock
//! step (the node's clock file), a partition between servers for good (their replication
//! proxies cut). Replication runs by itself. A step with no real mechanism yet (Sentinel, a
//! partition between servers that heals, disk faults) is refused before anything starts. A SUBSCRIBE goes
//! on a subscriber connection of its own, where the messages published to the client are read.

use super::sentinel::SentinelSetup;
use super::server::NodeSetup;
use super::topology::{topology, Topology};
use crate::oracles::RedisWorld;
use lockcheck_model::msg::Msg;
use lockcheck_model::node::Persistence;
use lockcheck_model::process::Process;
use lockcheck_model::redis::fair_scripts::FairKind;
use lockcheck_model::redis::scripts::ScriptKind;
use lockcheck_model::redis::{Command, Reply};
use lockcheck_sim::world::{ActionOf, CrashKind, ProcessId, WorldAction};
use lockcheck_sim::Path;
use std::collections::BTreeMap;

/// What the replayer does at one instant.
#[derive(Clone, Debug, PartialEq)]
pub enum RealAction {
    /// Write the command on the connection of (`client`, node `node`): its subscriber
    /// connection for a SUBSCRIBE (as client libraries keep one apart).
    Send {
        client: ProcessId,
        node: usize,
        id: u32,
        argv: Vec<Vec<u8>>,
        subscriber: bool,
    },
    /// Read the reply to request `id` on that connection and compare it with `reply`.
    Expect {
        client: ProcessId,
        node: usize,
        id: u32,
        reply: Reply,
        /// Whether the reply is a remaining time to live (compared within the tolerance).
        ttl_valued: bool,
        subscriber: bool,
    },
    /// Read the next message published to `client`'s subscriber connection and compare it.
    ExpectPush {
        client: ProcessId,
        node: usize,
        push: Reply,
    },
    Pause {
        node: usize,
    },
    Resume {
        node: usize,
    },
    Crash {
        node: usize,
    },
    Restart {
        node: usize,
    },
    ClockStep {
        node: usize,
        delta_ms: i64,
    },
    /// Ask Sentinel (real server `sentinel`) which node is the master.
    AskMaster {
        client: ProcessId,
        sentinel: usize,
    },
    /// Read Sentinel's answer and compare it with `master`, waiting for it within a window.
    ExpectMaster {
        client: ProcessId,
        sentinel: usize,
        master: usize,
    },
    /// Cut the replication links between these nodes for good (their proxies).
    Cut {
        links: Vec<(usize, usize)>,
    },
    /// Nothing real: the model's clients, timers and client-side network.
    Note,
}

impl RealAction {
    /// Whether the action is a client's (a command, an answer, a note) rather than a fault
    /// of a server.
    pub fn is_client_side(&self) -> bool {
        matches!(
            self,
            RealAction::Send { .. }
                | RealAction::Expect { .. }
                | RealAction::ExpectPush { .. }
                | RealAction::Note
        )
    }
}

/// One action of the plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedStep {
    /// The trace step it comes from (1-based).
    pub step: usize,
    pub label: String,
    /// Virtual time of the action (the model's).
    pub at_ms: u64,
    /// How much later it runs than `at_ms` (see `stretch.rs`).
    pub stretch_ms: u64,
    pub action: RealAction,
}

/// A trace, planned.
#[derive(Clone, Debug)]
pub struct Plan {
    pub steps: Vec<PlannedStep>,
    /// The real servers to start, one per node of the world.
    pub nodes: Vec<NodeSetup>,
    /// The real Sentinels; Sentinel j is real server `nodes.len() + j`.
    pub sentinels: Vec<SentinelSetup>,
    /// Node i's process in the world.
    pub node_processes: Vec<ProcessId>,
    /// Whether a node's clock is stepped (the clock library is needed even at x1).
    pub steps_clocks: bool,
}

/// A step the replayer has no real mechanism for.
#[derive(Clone, Debug, PartialEq)]
pub struct Unsupported {
    pub step: usize,
    pub label: String,
    pub why: String,
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "step {} (`{}`) has no real mechanism yet: {}",
            self.step, self.label, self.why
        )
    }
}

/// Plans `path` of `world`.
pub fn plan(world: &RedisWorld, path: &Path<RedisWorld>) -> Result<Plan, Unsupported> {
    let Topology { nodes, sentinels } = topology(world)?;
    let node_of: BTreeMap<ProcessId, usize> = nodes
        .iter()
        .map(|(p, _)| *p)
        .chain(sentinels.iter().map(|(p, _)| *p))
        .enumerate()
        .map(|(i, p)| (p, i))
        .collect();
    let mut planner = Planner {
        world,
        node_of,
        sentinels_from: nodes.len(),
        requests: BTreeMap::new(),
        later: Vec::new(),
        out: Vec::new(),
    };
    for (i, step) in path.steps.iter().enumerate() {
        let at_ms = path.states[i + 1].now_ms;
        planner.flush_until(at_ms);
        let what = planner.action(&step.action).map_err(|why| Unsupported {
            step: i + 1,
            label: step.label.clone(),
            why,
        })?;
        planner.out.push(PlannedStep {
            step: i + 1,
            label: step.label.clone(),
            at_ms,
            stretch_ms: 0,
            action: what,
        });
        let last = planner.out.len() - 1;
        planner.schedule_end(&step.action, last);
    }
    planner.flush_until(u64::MAX);
    let steps_clocks = planner
        .out
        .iter()
        .any(|s| matches!(s.action, RealAction::ClockStep { .. }));
    Ok(Plan {
        steps: planner.out,
        node_processes: nodes.iter().map(|(p, _)| *p).collect(),
        nodes: nodes.into_iter().map(|(_, n)| n).collect(),
        sentinels: sentinels.into_iter().map(|(_, s)| s).collect(),
        steps_clocks,
    })
}

/// What a request is, as its reply needs it.
#[derive(Clone, Copy, Debug, Default)]
struct RequestKind {
    /// Its reply is a remaining time to live.
    ttl_valued: bool,
    /// It subscribes (sent on the client's subscriber connection).
    subscriber: bool,
}

struct Planner<'a> {
    world: &'a RedisWorld,
    /// Real servers by process: the nodes, then the Sentinels from `sentinels_from` on.
    node_of: BTreeMap<ProcessId, usize>,
    sentinels_from: usize,
    /// What the requests sent are, by (client, node, id).
    requests: BTreeMap<(ProcessId, usize, u32), RequestKind>,
    /// Ends of node faults (resume, restart), in the order they were scheduled.
    later: Vec<PlannedStep>,
    out: Vec<PlannedStep>,
}

impl Planner<'_> {
    fn action(&mut self, action: &ActionOf<Process>) -> Result<RealAction, String> {
        let node = |p: &ProcessId| self.node_of.get(p).copied();
        let of_sentinel = match action {
            WorldAction::Pause { process, .. }
            | WorldAction::Crash { process, .. }
            | WorldAction::ClockStep { process, .. } => {
                node(process).is_some_and(|n| n >= self.sentinels_from)
            }
            _ => false,
        };
        if of_sentinel {
            return Err("a fault of a Sentinel".into());
        }
        Ok(match action {
            WorldAction::Deliver { from, to, msg } => return self.deliver(*from, *to, msg),
            WorldAction::Pause { process, .. } => match node(process) {
                Some(n) => RealAction::Pause { node: n },
                None => RealAction::Note,
            },
            WorldAction::Crash { process, kind, .. } => match node(process) {
                Some(n) => self.crash(*process, n, *kind)?,
                None => RealAction::Note,
            },
            WorldAction::ClockStep { process, delta_ms } => match node(process) {
                Some(n) => RealAction::ClockStep {
                    node: n,
                    delta_ms: *delta_ms,
                },
                None => RealAction::Note,
            },
            WorldAction::Partition { index, duration_ms } => {
                let links: Vec<(usize, usize)> = self.world.faults.partitions[*index]
                    .links
                    .iter()
                    .filter_map(|(a, b)| Some((node(a)?, node(b)?)))
                    .collect();
                match (links.is_empty(), duration_ms) {
                    (true, _) => RealAction::Note,
                    (false, None) => RealAction::Cut { links },
                    (false, Some(_)) => {
                        return Err("a partition between real servers that heals".into())
                    }
                }
            }
            WorldAction::ActorFault { process, .. } if node(process).is_some() => {
                return Err("a fault of the node itself (disk)".into())
            }
            _ => RealAction::Note,
        })
    }

    /// A message: a command to send, a reply or a published message to read, or a note.
    fn deliver(&mut self, from: ProcessId, to: ProcessId, msg: &Msg) -> Result<RealAction, String> {
        let node = |p: &ProcessId| self.node_of.get(p).copied();
        Ok(match (node(&from), node(&to), msg) {
            // A real Sentinel monitors and fails over by itself.
            (Some(a), Some(b), _) if a.max(b) >= self.sentinels_from => RealAction::Note,
            (None, Some(s), Msg::AskMaster) if s >= self.sentinels_from => RealAction::AskMaster {
                client: from,
                sentinel: s,
            },
            (Some(s), None, Msg::MasterIs { master, .. }) if s >= self.sentinels_from => {
                RealAction::ExpectMaster {
                    client: to,
                    sentinel: s,
                    master: node(master).ok_or("a master that is not a node")?,
                }
            }
            // Real replication runs by itself, on links a partition cuts.
            (
                Some(_),
                Some(_),
                Msg::Replicate { .. }
                | Msg::FullSync { .. }
                | Msg::ReplAck { .. }
                | Msg::SyncRequest,
            ) => RealAction::Note,
            (Some(_), Some(_), _) => return Err("a message between two real servers".into()),
            (None, Some(n), Msg::Request { id, command }) => {
                let kind = RequestKind {
                    ttl_valued: ttl_valued(command),
                    subscriber: matches!(command, Command::Subscribe { .. }),
                };
                self.requests.insert((from, n, *id), kind);
                RealAction::Send {
                    client: from,
                    node: n,
                    id: *id,
                    argv: command.to_argv(),
                    subscriber: kind.subscriber,
                }
            }
            (Some(n), None, Msg::Response { id, reply }) => {
                let kind = self
                    .requests
                    .get(&(to, n, *id))
                    .copied()
                    .unwrap_or_default();
                RealAction::Expect {
                    client: to,
                    node: n,
                    id: *id,
                    reply: reply.clone(),
                    ttl_valued: kind.ttl_valued,
                    subscriber: kind.subscriber,
                }
            }
            (Some(n), None, Msg::Published { channel, message }) => RealAction::ExpectPush {
                client: to,
                node: n,
                push: Reply::Array(Some(
                    [b"message".as_slice(), channel, message]
                        .iter()
                        .map(|b| Reply::Bulk(Some(b.to_vec())))
                        .collect(),
                )),
            },
            // A crashed server's refusal: the real request never reached a live server.
            (Some(_), None, Msg::Refused { .. }) => RealAction::Note,
            (Some(_), None, _) | (None, Some(_), _) => {
                return Err("a message other than a command, its reply or a publication".into())
            }
            (None, None, _) => RealAction::Note,
        })
    }

    /// `kill -9` of node `n`, refused for a power loss that loses unsynced writes.
    fn crash(&self, process: ProcessId, n: usize, kind: CrashKind) -> Result<RealAction, String> {
        let everysec = matches!(&self.world.processes[process].actor,
            Process::Redis(r) if r.persistence == Persistence::AofEverySec);
        if kind == CrashKind::PowerLoss && everysec {
            return Err("a power loss under `appendfsync everysec` (unsynced writes lost)".into());
        }
        Ok(RealAction::Crash { node: n })
    }

    /// Schedules the end of a node fault: SIGCONT when a pause ends, a restart after a crash.
    fn schedule_end(&mut self, action: &ActionOf<Process>, index: usize) {
        let start = &self.out[index];
        let (end, after_ms, label) = match (action, &start.action) {
            (
                WorldAction::Pause {
                    duration_ms,
                    process,
                },
                RealAction::Pause { node },
            ) => (
                RealAction::Resume { node: *node },
                *duration_ms,
                format!("(pause of {} ends)", self.world.process_name(*process)),
            ),
            (
                WorldAction::Crash {
                    restart_after_ms: Some(d),
                    process,
                    ..
                },
                RealAction::Crash { node },
            ) => (
                RealAction::Restart { node: *node },
                *d,
                format!("(restart of {})", self.world.process_name(*process)),
            ),
            _ => return,
        };
        self.later.push(PlannedStep {
            step: start.step,
            label,
            at_ms: start.at_ms + after_ms,
            stretch_ms: 0,
            action: end,
        });
    }

    /// Moves the scheduled ends due by `t_ms` into the plan, earliest first.
    fn flush_until(&mut self, t_ms: u64) {
        self.later.sort_by_key(|s| s.at_ms);
        let due = self.later.iter().take_while(|s| s.at_ms <= t_ms).count();
        self.out.extend(self.later.drain(..due));
    }
}

/// Whether `command`'s reply is a remaining time to live.
fn ttl_valued(command: &Command) -> bool {
    match command {
        Command::PTtl { .. } => true,
        Command::Script(s) => matches!(
            s.kind(),
            ScriptKind::RedissonAcquire | ScriptKind::Fair(FairKind::Acquire)
        ),
        _ => false,
    }
}
