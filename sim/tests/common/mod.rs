//! The lease world: a key-value actor that grants leases with a TTL, and clients that
//! acquire, work and release. Small enough to reason about by hand, rich enough to prove
//! the kernel end to end: the mutual-exclusion violation appears exactly when a client's
//! pause plus its work reaches the TTL.

#![allow(dead_code)]

use lockcheck_sim::world::{
    Actor, ClockSpec, Context, FaultEnvelope, LinkSpec, LocalNow, Network, ProcessId, ProcessSpec,
    Renaming, World,
};
use lockcheck_sim::{FpHasher, Property};
use std::hash::Hash;

pub const KV: ProcessId = 0;
pub const CLIENT_1: ProcessId = 1;
pub const CLIENT_2: ProcessId = 2;

#[derive(Clone, Debug)]
pub enum Node {
    /// Grants one lease at a time, for `ttl_ms` of its own wall clock.
    Kv { ttl_ms: u64 },
    /// Acquires (retrying when told how long the lease has left), works, releases.
    Client { work_ms: u64 },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Acquire,
    Granted,
    Denied { remaining_ms: u64 },
    Release,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Timer {
    WorkDone,
    Retry,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Requesting,
    Waiting,
    Holding,
    Done,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NodeState {
    /// The current lease: holder and deadline on the kv's wall clock.
    Kv {
        lease: Option<(ProcessId, i64)>,
    },
    Client {
        phase: Phase,
    },
}

impl Actor for Node {
    type Msg = Msg;
    type Timer = Timer;
    type State = NodeState;
    type Fault = lockcheck_sim::world::NoFault;

    fn on_start(&self, ctx: &mut Context<Msg, Timer>) -> NodeState {
        match self {
            Node::Kv { .. } => NodeState::Kv { lease: None },
            Node::Client { .. } => {
                ctx.send(KV, Msg::Acquire);
                NodeState::Client {
                    phase: Phase::Requesting,
                }
            }
        }
    }

    fn on_message(
        &self,
        state: &mut NodeState,
        from: ProcessId,
        msg: Msg,
        ctx: &mut Context<Msg, Timer>,
    ) {
        match (self, state, msg) {
            (Node::Kv { ttl_ms }, NodeState::Kv { lease }, Msg::Acquire) => {
                let now = ctx.wall_ms();
                match *lease {
                    Some((_, deadline)) if now < deadline => ctx.send(
                        from,
                        Msg::Denied {
                            remaining_ms: (deadline - now) as u64,
                        },
                    ),
                    _ => {
                        *lease = Some((from, now + *ttl_ms as i64));
                        ctx.send(from, Msg::Granted);
                    }
                }
            }
            (Node::Kv { .. }, NodeState::Kv { lease }, Msg::Release) => {
                if lease.is_some_and(|(holder, _)| holder == from) {
                    *lease = None;
                }
            }
            (Node::Client { work_ms }, NodeState::Client { phase }, Msg::Granted) => {
                *phase = Phase::Holding;
                ctx.set_timer(Timer::WorkDone, *work_ms);
            }
            (Node::Client { .. }, NodeState::Client { phase }, Msg::Denied { remaining_ms }) => {
                *phase = Phase::Waiting;
                ctx.set_timer(Timer::Retry, remaining_ms);
            }
            (node, state, msg) => panic!("{node:?} in {state:?} got unexpected {msg:?}"),
        }
    }

    fn on_timer(&self, state: &mut NodeState, timer: Timer, ctx: &mut Context<Msg, Timer>) {
        let NodeState::Client { phase } = state else {
            panic!("the kv sets no timers")
        };
        match timer {
            Timer::Retry => {
                *phase = Phase::Requesting;
                ctx.send(KV, Msg::Acquire);
            }
            Timer::WorkDone => {
                *phase = Phase::Done;
                ctx.send(KV, Msg::Release);
            }
        }
    }

    /// The configurations hold no process id (the kv is always process 0).
    fn renamed(&self, _r: &Renaming) -> Result<Self, String> {
        Ok(self.clone())
    }

    fn same_config(&self, other: &Self) -> bool {
        match (self, other) {
            (Node::Kv { ttl_ms: a }, Node::Kv { ttl_ms: b }) => a == b,
            (Node::Client { work_ms: a }, Node::Client { work_ms: b }) => a == b,
            _ => false,
        }
    }

    /// The kv's lease names its holder.
    fn rename_state(&self, state: &NodeState, r: &Renaming) -> Option<NodeState> {
        match state {
            NodeState::Kv {
                lease: Some((holder, deadline)),
            } if r.of(*holder) != *holder => Some(NodeState::Kv {
                lease: Some((r.of(*holder), *deadline)),
            }),
            _ => None,
        }
    }

    fn hash_state(&self, state: &NodeState, now: LocalNow, h: &mut FpHasher) {
        match state {
            // A lease is hashed by its time left; an expired lease is the same as none.
            NodeState::Kv { lease } => lease
                .filter(|(_, deadline)| *deadline > now.wall_ms)
                .map(|(holder, deadline)| (holder, deadline - now.wall_ms))
                .hash(h),
            NodeState::Client { phase } => phase.hash(h),
        }
    }
}

/// Parameters of a lease world.
#[derive(Clone, Debug)]
pub struct Lease {
    pub ttl_ms: u64,
    pub work_ms: u64,
    /// Pause durations client-1 may suffer (none: no pauses).
    pub pauses_ms: Vec<u64>,
    pub max_pauses: u32,
    /// Network delay choices for every link.
    pub delays_ms: Vec<u64>,
}

impl Lease {
    pub fn new(ttl_ms: u64, work_ms: u64, pause_ms: u64) -> Self {
        Lease {
            ttl_ms,
            work_ms,
            pauses_ms: vec![pause_ms],
            max_pauses: 1,
            delays_ms: vec![0],
        }
    }

    pub fn world(&self) -> World<Node> {
        let process = |name: &str, actor: Node| ProcessSpec {
            name: name.to_string(),
            actor,
            clock: ClockSpec::default(),
        };
        let faults = if self.pauses_ms.is_empty() {
            FaultEnvelope::none()
        } else {
            FaultEnvelope::none().pause(CLIENT_1, &self.pauses_ms, self.max_pauses)
        };
        World::new(
            "lease-world",
            vec![
                process(
                    "kv",
                    Node::Kv {
                        ttl_ms: self.ttl_ms,
                    },
                ),
                process(
                    "client-1",
                    Node::Client {
                        work_ms: self.work_ms,
                    },
                ),
                process(
                    "client-2",
                    Node::Client {
                        work_ms: self.work_ms,
                    },
                ),
            ],
        )
        .with_network(Network::uniform(LinkSpec::choice(self.delays_ms.clone())))
        .with_faults(faults)
        .with_property(Property::always("mutual-exclusion", |_, s| holders(s) <= 1))
        .with_property(Property::sometimes(
            "pause-while-holding",
            |_, s: &State| s.is_paused(CLIENT_1) && phase(s, CLIENT_1) == Some(Phase::Holding),
        ))
    }
}

pub type State = lockcheck_sim::world::StateOf<Node>;

pub fn phase(s: &State, p: ProcessId) -> Option<Phase> {
    match s.actor(p) {
        Some(NodeState::Client { phase }) => Some(*phase),
        _ => None,
    }
}

pub fn holders(s: &State) -> usize {
    [CLIENT_1, CLIENT_2]
        .iter()
        .filter(|&&c| phase(s, c) == Some(Phase::Holding))
        .count()
}
