//! A Sentinel-like monitor: pings the nodes, and fails over a master that stops answering.
//!
//! Every `ping_every_ms` it pings every node and checks its view: when the master has not
//! answered for more than `down_after_ms`, it promotes the most up-to-date replica that did
//! answer within that time (highest replication offset, then lowest id) in a new
//! configuration epoch, and tells every other node, the old master included, to replicate
//! it. A replica's `replica-priority` comes first, as in Sentinel's `sentinelSelectSlave`:
//! priority 0 is never promoted, a lower priority wins over a higher offset. Messages lost
//! to a partition are repeated: any node whose answer contradicts the current configuration
//! is told again. A partitioned old master therefore keeps accepting
//! writes until it hears of the new master; then it resynchronises and those writes are
//! lost. One Sentinel alone stands for a Sentinel quorum that agrees; several, each a
//! process that may be cut off or paused, agree on a failover by a quorum and a vote
//! (`quorum.rs`).

mod quorum;

use crate::msg::{Msg, Timer};
use crate::node::RedisContext;
use lockcheck_sim::world::{Actor, LocalNow, ProcessId};
use lockcheck_sim::FpHasher;
use std::hash::Hash;

/// Sentinel's configuration.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Sentinel {
    /// The monitored nodes.
    pub nodes: Vec<ProcessId>,
    pub initial_master: ProcessId,
    pub ping_every_ms: u64,
    /// `down-after-milliseconds`.
    pub down_after_ms: u64,
    /// Each node's `replica-priority`, in the order of `nodes` (Redis's default: 100).
    pub priorities: Vec<u32>,
    /// The other Sentinels monitoring the master (none: this one stands for a quorum).
    pub peers: Vec<ProcessId>,
    /// Sentinels, this one included, that must see the master down before a failover.
    pub quorum: u32,
    /// How long after starting an election this Sentinel waits before another (Redis:
    /// twice `failover-timeout`, 6 minutes by default).
    pub election_retry_ms: u64,
}

/// Redis's default `replica-priority`.
pub const DEFAULT_PRIORITY: u32 = 100;

impl std::fmt::Debug for Sentinel {
    /// Default priorities print as before priorities could be set, so those worlds keep
    /// their model hashes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Sentinel");
        d.field("nodes", &self.nodes)
            .field("initial_master", &self.initial_master)
            .field("ping_every_ms", &self.ping_every_ms)
            .field("down_after_ms", &self.down_after_ms);
        if self.priorities.iter().any(|&p| p != DEFAULT_PRIORITY) {
            d.field("priorities", &self.priorities);
        }
        if !self.peers.is_empty() {
            d.field("peers", &self.peers)
                .field("quorum", &self.quorum)
                .field("election_retry_ms", &self.election_retry_ms);
        }
        d.finish()
    }
}

/// What Sentinel last heard from a node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeSeen {
    pub node: ProcessId,
    /// Sentinel's monotonic time of the node's last answer.
    pub last_pong_mono_ms: i64,
    pub is_master: bool,
    pub offset: u64,
}

/// Sentinel's dynamic state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SentinelState {
    pub master: ProcessId,
    pub epoch: u64,
    pub seen: Vec<NodeSeen>,
    pub failovers: u32,
    /// With peers: the highest epoch seen (`current_epoch`).
    pub current_epoch: u64,
    /// With peers: this Sentinel's last vote, `(epoch, for whom)`.
    pub voted: Option<(u64, ProcessId)>,
    /// With peers: those that said the master is down, and when (sorted by peer).
    pub down_said: Vec<(ProcessId, i64)>,
    /// With peers: the election this Sentinel runs, its epoch and the votes it has.
    pub election: Option<(u64, Vec<ProcessId>)>,
    /// With peers: when it may start its next election (monotonic).
    pub next_election_mono_ms: i64,
}

impl Actor for Sentinel {
    type Msg = Msg;
    type Timer = Timer;
    type State = SentinelState;
    type Fault = lockcheck_sim::world::NoFault;

    fn on_start(&self, ctx: &mut RedisContext) -> SentinelState {
        ctx.set_timer(Timer::SentinelTick, self.ping_every_ms);
        SentinelState {
            master: self.initial_master,
            epoch: 0,
            seen: self
                .nodes
                .iter()
                .map(|&node| NodeSeen {
                    node,
                    last_pong_mono_ms: ctx.mono_ms(),
                    is_master: node == self.initial_master,
                    offset: 0,
                })
                .collect(),
            failovers: 0,
            current_epoch: 0,
            voted: None,
            down_said: Vec::new(),
            election: None,
            next_election_mono_ms: i64::MIN,
        }
    }

    fn on_message(
        &self,
        state: &mut SentinelState,
        from: ProcessId,
        msg: Msg,
        ctx: &mut RedisContext,
    ) {
        match msg {
            Msg::Pong {
                is_master,
                offset,
                epoch,
            } => {
                if let Some(seen) = state.seen.iter_mut().find(|s| s.node == from) {
                    seen.last_pong_mono_ms = ctx.mono_ms();
                    seen.is_master = is_master;
                    seen.offset = offset;
                }
                if is_master {
                    self.adopt_newer_master(state, from, epoch);
                }
            }
            Msg::IsMasterDown {
                master,
                epoch,
                candidate,
            } => self.on_is_master_down(state, from, (master, epoch, candidate), ctx),
            Msg::MasterDownReply { down, vote, epoch } => {
                self.on_master_down_reply(state, from, (down, vote, epoch), ctx)
            }
            Msg::AskMaster => ctx.send(
                from,
                Msg::MasterIs {
                    master: state.master,
                    epoch: state.epoch,
                    replicas: self.replicas_up(state, ctx.mono_ms()),
                },
            ),
            other => panic!("Sentinel does not handle {other:?}"),
        }
    }

    fn on_timer(&self, state: &mut SentinelState, timer: Timer, ctx: &mut RedisContext) {
        if timer == Timer::SentinelElection {
            return self.start_election(state, ctx);
        }
        assert_eq!(timer, Timer::SentinelTick, "Sentinel sets no other timer");
        let now = ctx.mono_ms();
        if !self.peers.is_empty() {
            self.quorum_tick(state, now, ctx);
        } else if !self.answered_recently(state, state.master, now) {
            self.fail_over(state, now, state.epoch + 1, ctx);
        }
        for seen in &state.seen {
            ctx.send(seen.node, Msg::Ping);
            let should_be_master = seen.node == state.master;
            if seen.is_master != should_be_master && state.epoch > 0 {
                let master = (!should_be_master).then_some(state.master);
                ctx.send(
                    seen.node,
                    Msg::ReplicaOf {
                        master,
                        epoch: state.epoch,
                    },
                );
            }
        }
        ctx.set_timer(Timer::SentinelTick, self.ping_every_ms);
    }

    fn hash_state(&self, state: &SentinelState, now: LocalNow, h: &mut FpHasher) {
        (state.master, state.epoch, state.failovers).hash(h);
        for seen in &state.seen {
            // Silence longer than down-after is all alike: it keeps the state space finite.
            let silence_ms = now.mono_ms - seen.last_pong_mono_ms;
            (seen.node, seen.is_master, seen.offset).hash(h);
            h.write_time_since(silence_ms, self.down_after_ms as i64 + 1);
        }
        if !self.peers.is_empty() {
            self.hash_quorum_state(state, now.mono_ms, h);
        }
    }
}

impl Sentinel {
    /// One Sentinel (standing for a quorum that agrees) monitoring `nodes`, every replica at
    /// the default priority, `failover-timeout` at Redis's 3 minutes.
    pub fn new(
        nodes: Vec<ProcessId>,
        initial_master: ProcessId,
        ping_every_ms: u64,
        down_after_ms: u64,
    ) -> Self {
        Sentinel {
            priorities: vec![DEFAULT_PRIORITY; nodes.len()],
            nodes,
            initial_master,
            ping_every_ms,
            down_after_ms,
            peers: Vec::new(),
            quorum: 1,
            election_retry_ms: 360_000,
        }
    }

    /// `node`'s `replica-priority`.
    fn priority(&self, node: ProcessId) -> u32 {
        self.nodes
            .iter()
            .position(|&n| n == node)
            .and_then(|i| self.priorities.get(i).copied())
            .unwrap_or(DEFAULT_PRIORITY)
    }

    /// Replicas that answered within `down-after` (Redisson's `availableSlaves`).
    fn replicas_up(&self, state: &SentinelState, now: i64) -> u8 {
        let up = state
            .seen
            .iter()
            .filter(|s| s.node != state.master && !s.is_master)
            .filter(|s| self.answered_recently(state, s.node, now))
            .count();
        up.min(u8::MAX as usize) as u8
    }

    fn answered_recently(&self, state: &SentinelState, node: ProcessId, now: i64) -> bool {
        state
            .seen
            .iter()
            .find(|s| s.node == node)
            .is_some_and(|s| now - s.last_pong_mono_ms <= self.down_after_ms as i64)
    }

    /// Promotes the best replica in configuration `epoch`, if one is eligible.
    fn fail_over(&self, state: &mut SentinelState, now: i64, epoch: u64, ctx: &mut RedisContext) {
        let best = state
            .seen
            .iter()
            .filter(|s| s.node != state.master && self.answered_recently(state, s.node, now))
            .filter(|s| self.priority(s.node) != 0)
            .min_by_key(|s| (self.priority(s.node), std::cmp::Reverse(s.offset), s.node))
            .map(|s| s.node);
        let Some(promoted) = best else { return };
        state.epoch = epoch;
        state.failovers += 1;
        state.master = promoted;
        for seen in &mut state.seen {
            let master = (seen.node != promoted).then_some(promoted);
            ctx.send(
                seen.node,
                Msg::ReplicaOf {
                    master,
                    epoch: state.epoch,
                },
            );
        }
    }
}
