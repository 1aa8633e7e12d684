//! Clients' requests: commands, `SUBSCRIBE`/`PUBLISH`, blocking `WAIT`, `min-replicas-to-write`.
//!
//! A command runs on the keyspace at the node's wall-clock instant. A master then owes its
//! replicas the resulting writes (see [`super::replication`]) and remembers the offset after
//! the client's last command (`c->woff`, set after every command, reads included), which is
//! what that client's `WAIT` waits for. Subscriptions live
//! on the node (they are connection state): `PUBLISH` answers the number of subscribers on
//! this node and pushes the message to each.

use super::{BlockedWait, NodeState, RedisContext, RedisNode, Role};
use crate::msg::{Msg, Timer};
use crate::redis::{Command, CommandName, Reply, Role as KeyspaceRole};
use lockcheck_sim::world::ProcessId;

/// Redis's refusal when too few replicas are good.
pub const NOREPLICAS: &str = "NOREPLICAS Not enough good replicas to write.";

impl RedisNode {
    pub(super) fn on_request(
        &self,
        state: &mut NodeState,
        client: ProcessId,
        id: u32,
        command: &Command,
        ctx: &mut RedisContext,
    ) {
        match command {
            Command::Subscribe { channels } => {
                self.subscribe(state, client, id, channels.clone(), ctx)
            }
            Command::Wait {
                replicas,
                timeout_ms,
            } if state.is_master() => self.wait(state, client, id, *replicas, *timeout_ms, ctx),
            command => self.run_command(state, client, id, command, ctx),
        }
    }

    fn run_command(
        &self,
        state: &mut NodeState,
        client: ProcessId,
        id: u32,
        command: &Command,
        ctx: &mut RedisContext,
    ) {
        let writes = command.name().is_write() || matches!(command, Command::Script(_));
        if writes && state.is_master() && !self.enough_good_replicas(state, ctx.mono_ms()) {
            return reply(ctx, client, id, Reply::Error(NOREPLICAS.to_string()));
        }
        let role = match state.role {
            Role::Master { .. } => KeyspaceRole::Master,
            Role::Replica { .. } => KeyspaceRole::Replica,
        };
        let executed = state.keyspace.execute(command, ctx.wall_ms(), role);
        let mut answer = executed.reply;
        let mut receivers = 0;
        for (channel, message) in executed.publish {
            receivers += deliver(state, &channel, &message, ctx);
        }
        if command.name() == CommandName::Publish && !answer.is_error() {
            answer = Reply::Integer(receivers);
        }
        if !executed.propagate.is_empty() && state.is_master() {
            self.propagate(state, executed.propagate, ctx);
        }
        if state.is_master() && self.records_wait_offsets {
            remember_offset(state, client);
        }
        reply(ctx, client, id, answer);
    }

    /// Whether `min-replicas-to-write` allows a write now.
    fn enough_good_replicas(&self, state: &NodeState, mono_ms: i64) -> bool {
        if self.min_replicas_to_write == 0 {
            return true;
        }
        let Role::Master { replicas } = &state.role else {
            return true;
        };
        let max_lag = self.min_replicas_max_lag_ms as i64;
        let good = replicas
            .iter()
            .filter(|l| mono_ms - l.last_ack_mono_ms <= max_lag)
            .count();
        good >= self.min_replicas_to_write as usize
    }

    fn subscribe(
        &self,
        state: &mut NodeState,
        client: ProcessId,
        id: u32,
        channels: Vec<Vec<u8>>,
        ctx: &mut RedisContext,
    ) {
        for channel in channels {
            let entry = (client, channel.clone());
            if let Err(at) = state.subscriptions.binary_search(&entry) {
                state.subscriptions.insert(at, entry);
            }
            let count = state
                .subscriptions
                .iter()
                .filter(|(c, _)| *c == client)
                .count();
            let confirmation = Reply::Array(Some(vec![
                Reply::bulk("subscribe"),
                Reply::bulk(channel),
                Reply::Integer(count as i64),
            ]));
            reply(ctx, client, id, confirmation);
        }
        if state.is_master() && self.records_wait_offsets {
            remember_offset(state, client);
        }
    }

    fn wait(
        &self,
        state: &mut NodeState,
        client: ProcessId,
        id: u32,
        replicas: i64,
        timeout_ms: i64,
        ctx: &mut RedisContext,
    ) {
        let offset = state
            .client_offsets
            .iter()
            .find(|(c, _)| *c == client)
            .map_or(0, |(_, o)| *o);
        let acked = acked_at_least(state, offset);
        if acked >= replicas {
            return reply(ctx, client, id, Reply::Integer(acked));
        }
        state.waits.push(BlockedWait {
            client,
            id,
            offset,
            replicas,
        });
        if timeout_ms > 0 {
            ctx.set_timer(Timer::WaitTimeout { client, id }, timeout_ms as u64);
        }
    }

    /// Answers the blocked `WAIT`s that enough replicas have now acknowledged.
    pub(super) fn release_waits(&self, state: &mut NodeState, ctx: &mut RedisContext) {
        let mut i = 0;
        while i < state.waits.len() {
            let w = &state.waits[i];
            let acked = acked_at_least(state, w.offset);
            if acked >= w.replicas {
                let w = state.waits.remove(i);
                ctx.cancel_timer(Timer::WaitTimeout {
                    client: w.client,
                    id: w.id,
                });
                reply(ctx, w.client, w.id, Reply::Integer(acked));
            } else {
                i += 1;
            }
        }
    }

    pub(super) fn on_wait_timeout(
        &self,
        state: &mut NodeState,
        client: ProcessId,
        id: u32,
        ctx: &mut RedisContext,
    ) {
        if let Some(i) = state
            .waits
            .iter()
            .position(|w| w.client == client && w.id == id)
        {
            let w = state.waits.remove(i);
            let acked = acked_at_least(state, w.offset);
            reply(ctx, client, id, Reply::Integer(acked));
        }
    }
}

/// Replicas that acknowledged at least `offset`.
fn acked_at_least(state: &NodeState, offset: u64) -> i64 {
    match &state.role {
        Role::Master { replicas } => replicas.iter().filter(|l| l.acked >= offset).count() as i64,
        Role::Replica { .. } => 0,
    }
}

/// Redis's `c->woff = server.master_repl_offset` after a command of `client`.
fn remember_offset(state: &mut NodeState, client: ProcessId) {
    let offset = state.offset;
    match state
        .client_offsets
        .binary_search_by_key(&client, |(c, _)| *c)
    {
        Ok(i) => state.client_offsets[i].1 = offset,
        Err(i) => state.client_offsets.insert(i, (client, offset)),
    }
}

/// Pushes a published message to this node's subscribers of `channel`; returns how many.
fn deliver(state: &NodeState, channel: &[u8], message: &[u8], ctx: &mut RedisContext) -> i64 {
    let mut receivers = 0;
    for (client, _) in state.subscriptions.iter().filter(|(_, c)| c == channel) {
        ctx.send(
            *client,
            Msg::Published {
                channel: channel.to_vec(),
                message: message.to_vec(),
            },
        );
        receivers += 1;
    }
    receivers
}

fn reply(ctx: &mut RedisContext, client: ProcessId, id: u32, reply: Reply) {
    ctx.send(client, Msg::Response { id, reply });
}
