//! Asynchronous replication and Sentinel's reconfiguration.
//!
//! A master numbers its propagated writes (`offset`) within a stream (`repl_id`) and sends
//! each batch, as it happens, to every replica it knows. A replica applies a batch only if it
//! continues exactly where its copy ends (same stream, `prev_offset` equal to its offset);
//! otherwise its copy has a gap (a partition dropped a batch, the master restarted) and it
//! asks for a full resynchronisation, receiving the master's whole dataset. Replicas never
//! expire keys themselves; they apply the master's `DEL`s. A replica acknowledges each batch
//! and, if configured, periodically.
//!
//! `REPLICAOF NO ONE` (from Sentinel, in a newer configuration epoch) turns a replica into a
//! master of a new stream. `REPLICAOF m` turns any node, an old master included, into a
//! replica of `m`: it asks `m` for a full sync, and what it had that `m` lacks is lost.

use super::{NodeState, RedisContext, RedisNode, ReplicaLink, Role};
use crate::msg::{Msg, Timer};
use crate::redis::{Command, Reply};
use lockcheck_sim::world::ProcessId;

impl RedisNode {
    /// Streams a master's writes to its replicas.
    pub(super) fn propagate(
        &self,
        state: &mut NodeState,
        commands: Vec<Command>,
        ctx: &mut RedisContext,
    ) {
        let prev_offset = state.offset;
        state.offset += commands.len() as u64;
        let Role::Master { replicas } = &state.role else {
            unreachable!("only masters propagate")
        };
        for link in replicas {
            ctx.send(
                link.replica,
                Msg::Replicate {
                    repl_id: state.repl_id,
                    prev_offset,
                    offset: state.offset,
                    commands: commands.clone(),
                },
            );
        }
    }

    pub(super) fn on_replication(
        &self,
        state: &mut NodeState,
        from: ProcessId,
        msg: Msg,
        ctx: &mut RedisContext,
    ) {
        match msg {
            Msg::Replicate {
                repl_id,
                prev_offset,
                offset,
                commands,
            } => self.on_replicate(state, from, repl_id, prev_offset, offset, commands, ctx),
            Msg::FullSync {
                repl_id,
                offset,
                keyspace,
            } => {
                if state.role == (Role::Replica { master: from }) {
                    state.keyspace = keyspace;
                    state.repl_id = repl_id;
                    state.offset = offset;
                    ctx.send(from, Msg::ReplAck { repl_id, offset });
                }
            }
            Msg::SyncRequest => self.serve_full_sync(state, from, ctx),
            Msg::ReplAck { repl_id, offset } => self.on_ack(state, from, repl_id, offset, ctx),
            Msg::Response { .. } | Msg::Published { .. } | Msg::Pong { .. } => {}
            other => panic!("a Redis node does not handle {other:?}"),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn on_replicate(
        &self,
        state: &mut NodeState,
        from: ProcessId,
        repl_id: u32,
        prev_offset: u64,
        offset: u64,
        commands: Vec<Command>,
        ctx: &mut RedisContext,
    ) {
        if state.role != (Role::Replica { master: from }) {
            return;
        }
        if repl_id != state.repl_id || prev_offset != state.offset {
            ctx.send(from, Msg::SyncRequest);
            return;
        }
        for command in &commands {
            state.keyspace.apply_replicated(command, ctx.wall_ms());
        }
        state.offset = offset;
        ctx.send(from, Msg::ReplAck { repl_id, offset });
    }

    fn serve_full_sync(&self, state: &mut NodeState, replica: ProcessId, ctx: &mut RedisContext) {
        let Role::Master { replicas } = &mut state.role else {
            return;
        };
        if let Err(at) = replicas.binary_search_by_key(&replica, |l| l.replica) {
            replicas.insert(
                at,
                ReplicaLink {
                    replica,
                    acked: 0,
                    last_ack_mono_ms: ctx.mono_ms(),
                },
            );
        }
        ctx.send(
            replica,
            Msg::FullSync {
                repl_id: state.repl_id,
                offset: state.offset,
                keyspace: state.keyspace.clone(),
            },
        );
    }

    fn on_ack(
        &self,
        state: &mut NodeState,
        replica: ProcessId,
        repl_id: u32,
        offset: u64,
        ctx: &mut RedisContext,
    ) {
        if !state.is_master() {
            return;
        }
        if repl_id != state.repl_id {
            // The replica follows an older stream of ours (we restarted or were promoted).
            return self.serve_full_sync(state, replica, ctx);
        }
        let Role::Master { replicas } = &mut state.role else {
            unreachable!()
        };
        let link = match replicas.binary_search_by_key(&replica, |l| l.replica) {
            Ok(i) => &mut replicas[i],
            Err(at) => {
                replicas.insert(
                    at,
                    ReplicaLink {
                        replica,
                        acked: 0,
                        last_ack_mono_ms: 0,
                    },
                );
                &mut replicas[at]
            }
        };
        link.acked = link.acked.max(offset);
        link.last_ack_mono_ms = ctx.mono_ms();
        self.release_waits(state, ctx);
    }

    pub(super) fn on_ack_tick(&self, state: &mut NodeState, ctx: &mut RedisContext) {
        if let (Role::Replica { master }, Some(every)) = (&state.role, self.repl_ack_every_ms) {
            ctx.send(
                *master,
                Msg::ReplAck {
                    repl_id: state.repl_id,
                    offset: state.offset,
                },
            );
            ctx.set_timer(Timer::ReplAckTick, every);
        }
    }

    pub(super) fn on_replica_of(
        &self,
        state: &mut NodeState,
        master: Option<ProcessId>,
        epoch: u64,
        ctx: &mut RedisContext,
    ) {
        if epoch < state.epoch {
            return;
        }
        state.epoch = epoch;
        match master {
            None if !state.is_master() => {
                state.role = Role::Master {
                    replicas: Vec::new(),
                };
                state.repl_id += 1;
                ctx.cancel_timer(Timer::ReplAckTick);
            }
            Some(m) if state.role != (Role::Replica { master: m }) => {
                for w in std::mem::take(&mut state.waits) {
                    ctx.cancel_timer(Timer::WaitTimeout {
                        client: w.client,
                        id: w.id,
                    });
                    let error = Reply::Error("UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)".into());
                    ctx.send(
                        w.client,
                        Msg::Response {
                            id: w.id,
                            reply: error,
                        },
                    );
                }
                state.role = Role::Replica { master: m };
                ctx.send(m, Msg::SyncRequest);
                if let Some(every) = self.repl_ack_every_ms {
                    ctx.set_timer(Timer::ReplAckTick, every);
                }
            }
            _ => {}
        }
    }
}
