//! A Redis node as a sans-IO actor: keyspace, clients, replication, persistence, failover.
//!
//! The idea: the keyspace ([`crate::redis::Keyspace`]) is a pure value and a command is a
//! step on it at one instant of the node's own wall clock; this actor adds everything that
//! needs time, connections or other processes:
//! - clients' requests and replies, `SUBSCRIBE` and `PUBLISH` delivery, blocking `WAIT`,
//!   `min-replicas-to-write` ([`clients`]);
//! - asynchronous replication: a master applies a write, replies, and streams it (TTLs as
//!   absolute deadlines) to its replicas, which apply it later; a gap in the stream makes a
//!   replica ask for a full resynchronisation ([`replication`]);
//! - Sentinel's reconfiguration (`REPLICAOF`, with configuration epochs): a promoted replica
//!   becomes a master; an old master that hears of the new one becomes its replica and its
//!   own unreplicated writes are replaced by the new master's dataset ([`replication`]);
//! - persistence: none, AOF `everysec` or AOF `always`, what each keeps after a process
//!   crash or a power loss, and a disk stall that holds back `everysec`'s fsyncs
//!   ([`persistence`]).
//!
//! A node *stall* (seed 003's 200 ms large-key deletion) is the kernel's pause fault applied
//! to a node: it answers nothing meanwhile, and what arrived is served after.

pub mod clients;
pub mod persistence;
pub mod replication;

pub use persistence::Persistence;

use crate::fault::RedisFault;
use crate::msg::{Msg, Timer};
use crate::redis::Keyspace;
use lockcheck_sim::world::{Actor, Context, CrashKind, LocalNow, ProcessId};
use lockcheck_sim::FpHasher;
use std::hash::{Hash, Hasher};

/// The handler context of a Redis world.
pub(crate) type RedisContext = Context<Msg, Timer>;

/// A node's configuration.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct RedisNode {
    /// The master this node replicates when it starts (`None`: it starts as a master).
    pub replica_of: Option<ProcessId>,
    pub persistence: Persistence,
    /// `min-replicas-to-write` (0: off).
    pub min_replicas_to_write: u32,
    /// `min-replicas-max-lag`, in ms: a replica whose last acknowledgement is older is not good.
    pub min_replicas_max_lag_ms: u64,
    /// A replica also acknowledges its offset this often (`REPLCONF ACK`, every second in
    /// Redis); besides, it acknowledges every batch it applies.
    pub repl_ack_every_ms: Option<u64>,
    /// Remember, after each client's every command, the replication offset its next `WAIT`
    /// waits for (Redis's `c->woff`). Off where no client sends `WAIT`: the offsets could
    /// not be read, and those worlds keep their state spaces.
    pub records_wait_offsets: bool,
}

impl std::fmt::Debug for RedisNode {
    /// Without `WAIT` offsets a node prints as before they were recorded, so those worlds
    /// keep their model hashes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("RedisNode");
        d.field("replica_of", &self.replica_of)
            .field("persistence", &self.persistence)
            .field("min_replicas_to_write", &self.min_replicas_to_write)
            .field("min_replicas_max_lag_ms", &self.min_replicas_max_lag_ms)
            .field("repl_ack_every_ms", &self.repl_ack_every_ms);
        if self.records_wait_offsets {
            d.field("records_wait_offsets", &true);
        }
        d.finish()
    }
}

impl RedisNode {
    /// A master without persistence or replica requirements.
    pub fn master() -> Self {
        RedisNode {
            replica_of: None,
            persistence: Persistence::None,
            min_replicas_to_write: 0,
            min_replicas_max_lag_ms: 10_000,
            repl_ack_every_ms: None,
            records_wait_offsets: true,
        }
    }

    /// A replica of `master`.
    pub fn replica_of(master: ProcessId) -> Self {
        RedisNode {
            replica_of: Some(master),
            ..Self::master()
        }
    }

    pub fn with_persistence(mut self, persistence: Persistence) -> Self {
        self.persistence = persistence;
        self
    }
}

/// What a node is right now.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Master { replicas: Vec<ReplicaLink> },
    Replica { master: ProcessId },
}

/// A master's view of one replica.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReplicaLink {
    pub replica: ProcessId,
    /// Offset it last acknowledged.
    pub acked: u64,
    /// When (master's monotonic clock) it last acknowledged.
    pub last_ack_mono_ms: i64,
}

/// A client blocked in `WAIT`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BlockedWait {
    pub client: ProcessId,
    pub id: u32,
    /// The client's last write: replicas must acknowledge at least this offset.
    pub offset: u64,
    pub replicas: i64,
}

/// A node's dynamic state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeState {
    pub keyspace: Keyspace,
    pub role: Role,
    /// Identity of the replication stream this node serves or follows.
    pub repl_id: u32,
    /// Replication offset: writes propagated (master) or applied (replica).
    pub offset: u64,
    /// Highest Sentinel configuration epoch seen.
    pub epoch: u64,
    /// `(client, channel)` subscriptions, sorted.
    pub subscriptions: Vec<(ProcessId, Vec<u8>)>,
    pub waits: Vec<BlockedWait>,
    /// `(client, master offset after its last command)`, for `WAIT`.
    pub client_offsets: Vec<(ProcessId, u64)>,
    /// AOF `everysec`: the dataset as of the last fsync.
    pub fsynced: Option<Keyspace>,
    /// A disk stall ([`RedisFault::DiskStall`]): no fsync completes before this reading of
    /// the node's monotonic clock.
    pub fsync_stalled_until_mono_ms: Option<i64>,
}

impl NodeState {
    pub fn is_master(&self) -> bool {
        matches!(self.role, Role::Master { .. })
    }

    /// Keeps the content hashes of the keyspace and the fsynced copy (see
    /// [`Keyspace::seal`]): every handler ends with it, so hashing the node as time passes
    /// reads deadlines only.
    fn seal(&mut self) {
        self.keyspace.seal();
        if let Some(fsynced) = &mut self.fsynced {
            fsynced.seal();
        }
    }
}

impl Actor for RedisNode {
    type Msg = Msg;
    type Timer = Timer;
    type State = NodeState;
    type Fault = RedisFault;

    fn on_start(&self, ctx: &mut RedisContext) -> NodeState {
        let role = match self.replica_of {
            Some(master) => Role::Replica { master },
            None => Role::Master {
                replicas: Vec::new(),
            },
        };
        let state = NodeState {
            keyspace: Keyspace::default(),
            role,
            repl_id: 0,
            offset: 0,
            epoch: 0,
            subscriptions: Vec::new(),
            waits: Vec::new(),
            client_offsets: Vec::new(),
            fsynced: None,
            fsync_stalled_until_mono_ms: None,
        };
        self.boot(&state, ctx);
        state
    }

    fn on_message(&self, state: &mut NodeState, from: ProcessId, msg: Msg, ctx: &mut RedisContext) {
        self.on_message_lent(state, from, &msg, ctx)
    }

    /// Every message is handled in place: a command is executed by reference, and only what
    /// the node keeps (subscribed channels, a replication message) is copied.
    fn on_message_lent(
        &self,
        state: &mut NodeState,
        from: ProcessId,
        msg: &Msg,
        ctx: &mut RedisContext,
    ) {
        match msg {
            Msg::Request { id, command } => self.on_request(state, from, *id, command, ctx),
            Msg::Ping => ctx.send(
                from,
                Msg::Pong {
                    is_master: state.is_master(),
                    offset: state.offset,
                    epoch: state.epoch,
                },
            ),
            Msg::ReplicaOf { master, epoch } => self.on_replica_of(state, *master, *epoch, ctx),
            other => self.on_replication(state, from, other.clone(), ctx),
        }
        state.seal();
    }

    fn on_timer(&self, state: &mut NodeState, timer: Timer, ctx: &mut RedisContext) {
        match timer {
            Timer::Fsync => self.on_fsync(state, ctx),
            Timer::ReplAckTick => self.on_ack_tick(state, ctx),
            Timer::WaitTimeout { client, id } => self.on_wait_timeout(state, client, id, ctx),
            other => panic!("a Redis node sets no {other:?} timer"),
        }
        state.seal();
    }

    fn on_crash(&self, state: &NodeState, kind: CrashKind) -> Option<NodeState> {
        let mut survivor = self.survivor(state, kind);
        survivor.seal();
        Some(survivor)
    }

    fn on_restart(&self, survived: Option<NodeState>, ctx: &mut RedisContext) -> NodeState {
        match survived {
            Some(state) => {
                self.boot(&state, ctx);
                state
            }
            None => self.on_start(ctx),
        }
    }

    fn on_fault(&self, state: &mut NodeState, fault: &RedisFault, now: LocalNow) {
        match *fault {
            RedisFault::DiskStall { duration_ms } => self.stall_disk(state, duration_ms, now),
        }
    }

    fn fault_size(&self, fault: &RedisFault) -> u64 {
        fault.size()
    }

    fn describe_fault(&self, fault: &RedisFault) -> String {
        fault.describe()
    }

    fn hash_state(&self, state: &NodeState, now: LocalNow, h: &mut FpHasher) {
        hash_keyspace(&state.keyspace, now.wall_ms, h);
        match &state.role {
            Role::Master { replicas } => {
                h.write_u8(1);
                for link in replicas {
                    (link.replica, link.acked).hash(h);
                    self.hash_lag_class(now.mono_ms - link.last_ack_mono_ms, h);
                }
            }
            Role::Replica { master } => (2u8, *master).hash(h),
        }
        state.repl_id.hash(h);
        if !census_leaves_out_offsets() {
            state.offset.hash(h);
        }
        state.epoch.hash(h);
        (&state.subscriptions, &state.waits, &state.client_offsets).hash(h);
        match &state.fsynced {
            Some(ks) => hash_keyspace(ks, now.wall_ms, h),
            None => h.write_u8(0),
        }
        // Only a stall still under way is hashed (and nothing without one, so that worlds
        // without disk stalls keep their fingerprints).
        if let Some(left_ms) = persistence::stall_left_ms(state, now.mono_ms) {
            h.write_u8(0xd5);
            h.write_time_left(left_ms, 0);
        }
    }
}

impl RedisNode {
    /// Hashes a replica's acknowledgement lag as far as it matters: not at all without
    /// `min-replicas-to-write`, and only up to `min-replicas-max-lag` with it. (Hashing the
    /// raw lag would make every silent moment a new state, and the state space infinite.)
    fn hash_lag_class(&self, lag_ms: i64, h: &mut FpHasher) {
        if self.min_replicas_to_write == 0 {
            h.write_i64(0);
        } else {
            h.write_time_since(lag_ms, self.min_replicas_max_lag_ms as i64 + 1);
        }
    }

    /// What every (re)start does: arm periodic timers, and a replica asks for a full sync.
    fn boot(&self, state: &NodeState, ctx: &mut RedisContext) {
        if self.persistence == Persistence::AofEverySec {
            ctx.set_timer(Timer::Fsync, persistence::FSYNC_EVERY_MS);
        }
        if let Role::Replica { master } = state.role {
            ctx.send(master, Msg::SyncRequest);
            if let Some(every) = self.repl_ack_every_ms {
                ctx.set_timer(Timer::ReplAckTick, every);
            }
        }
    }
}

/// Hashes a keyspace with deadlines relative to the node's wall clock (expired keys as -1):
/// the keys and values as [`Keyspace::content_hash`] (kept between writes, so a node that
/// only sees time pass does not read its keys again), then each key's relative deadline in
/// key order.
pub(crate) fn hash_keyspace(keyspace: &Keyspace, wall_ms: i64, h: &mut FpHasher) {
    h.write_fp(keyspace.content_hash());
    h.write_usize(keyspace.stored_len());
    for (_, entry) in keyspace.entries() {
        match entry.deadline_ms {
            None => h.write_u8(0),
            Some(deadline_ms) => {
                h.write_u8(1);
                h.write_time_left(deadline_ms - wall_ms, -1);
            }
        }
    }
}

/// Whether node fingerprints leave out the replication offset: only in the census's shape
/// mode when it asks so (`lockcheck_sim::census`).
#[inline]
fn census_leaves_out_offsets() -> bool {
    #[cfg(feature = "census")]
    if let Some(mode) = lockcheck_sim::census::shape_mode() {
        return mode.without_replication_offsets;
    }
    false
}
