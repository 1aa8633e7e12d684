//! Persistence: what a node keeps across a crash.
//!
//! - `None`: the node restarts empty.
//! - `AofAlways`: every acknowledged write was fsynced before the reply; all survive.
//! - `AofEverySec`: writes reach the OS before the reply and are fsynced once a second. A
//!   process crash keeps them (the OS still has them); a power loss keeps only what the last
//!   fsync saw, losing up to about a second of writes. A disk stall
//!   ([`crate::fault::RedisFault::DiskStall`]) holds fsyncs back while writes are still
//!   acknowledged (Redis's background fsync), so a power loss then loses the stall's writes.
//!
//! Whatever the mode, a key's TTL is an absolute deadline on the node's wall clock, so time
//! keeps counting while the node is down. The role survives (Sentinel rewrites the config
//! file); connections do not: subscriptions, blocked `WAIT`s and replica offsets are gone, and
//! a restarted node serves a new replication stream (`repl_id` + 1).

use super::{NodeState, RedisNode, Role};
use crate::msg::Timer;
use crate::redis::Keyspace;
use lockcheck_sim::world::{CrashKind, LocalNow};

/// How often AOF `everysec` fsyncs.
pub(crate) const FSYNC_EVERY_MS: u64 = 1_000;

/// `appendonly` / `appendfsync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Persistence {
    None,
    AofEverySec,
    AofAlways,
}

impl RedisNode {
    /// The state a crash of `kind` leaves for the restart.
    pub(super) fn survivor(&self, state: &NodeState, kind: CrashKind) -> NodeState {
        let keyspace = match (self.persistence, kind) {
            (Persistence::None, _) => Keyspace::default(),
            (Persistence::AofAlways, _) | (Persistence::AofEverySec, CrashKind::Process) => {
                state.keyspace.clone()
            }
            (Persistence::AofEverySec, CrashKind::PowerLoss) => {
                state.fsynced.clone().unwrap_or_default()
            }
        };
        let role = match &state.role {
            Role::Master { replicas } => Role::Master {
                replicas: replicas
                    .iter()
                    .map(|link| super::ReplicaLink {
                        acked: 0,
                        ..link.clone()
                    })
                    .collect(),
            },
            replica => replica.clone(),
        };
        NodeState {
            fsynced: (self.persistence == Persistence::AofEverySec).then(|| keyspace.clone()),
            keyspace,
            role,
            repl_id: state.repl_id + 1,
            offset: 0,
            epoch: state.epoch,
            subscriptions: Vec::new(),
            waits: Vec::new(),
            client_offsets: Vec::new(),
            fsync_stalled_until_mono_ms: None,
        }
    }

    pub(super) fn on_fsync(&self, state: &mut NodeState, ctx: &mut super::RedisContext) {
        if stall_left_ms(state, ctx.mono_ms()).is_none() {
            state.fsync_stalled_until_mono_ms = None;
            state.fsynced = Some(state.keyspace.clone());
        }
        ctx.set_timer(Timer::Fsync, FSYNC_EVERY_MS);
    }

    /// The disk stops completing fsyncs for `duration_ms` from `now` (a stall under way is
    /// extended, never shortened).
    pub(super) fn stall_disk(&self, state: &mut NodeState, duration_ms: u64, now: LocalNow) {
        let until = now
            .mono_ms
            .saturating_add(i64::try_from(duration_ms).unwrap_or(i64::MAX));
        let longest = state
            .fsync_stalled_until_mono_ms
            .map_or(until, |t| t.max(until));
        state.fsync_stalled_until_mono_ms = Some(longest);
    }
}

/// How long the disk stall under way still lasts at monotonic reading `mono_ms`, if one is.
pub(super) fn stall_left_ms(state: &NodeState, mono_ms: i64) -> Option<i64> {
    state
        .fsync_stalled_until_mono_ms
        .map(|t| t.saturating_sub(mono_ms))
        .filter(|&left| left > 0)
}
