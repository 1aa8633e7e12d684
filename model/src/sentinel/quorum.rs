//! Several Sentinels: a master is objectively down when `quorum` of them (this one included)
//! see it down, and a failover needs a leader that a majority of all Sentinels voted for,
//! read from Redis's `sentinel.c` (7.0):
//!
//! - every tick while this Sentinel sees the master down (SDOWN) it asks each peer
//!   `SENTINEL is-master-down-by-addr` ([`Msg::IsMasterDown`]); a peer answers with its own
//!   view of that master ([`Msg::MasterDownReply`]), which counts for five ticks
//!   (`SENTINEL_ASK_PERIOD * 5`);
//! - with `quorum` agreeing (ODOWN) and no election of its own, nor a vote for another, in
//!   the last `election_retry_ms` (Redis: twice `failover-timeout`), it starts one after a
//!   desynchronising delay (Redis: a random 0 to 1 s, `SENTINEL_MAX_DESYNC`; here a choice of
//!   0 or 500 ms): a new epoch, a vote for itself, and a request for the peers' votes; a
//!   peer votes for the first candidate of an epoch higher than any it voted in
//!   (`sentinelVoteLeader`), and then waits as long before an election of its own. Two
//!   candidates at once split the vote and try again `election_retry_ms` later, so a world
//!   where that can repeat needs a bound on its virtual time;
//! - with `max(quorum, majority)` votes it promotes the best replica in that epoch (the
//!   choice of [`Sentinel::fail_over`]);
//! - the others learn the new configuration from the promoted node itself: a node that
//!   answers a ping as master in a higher epoch is the master (Redis spreads it in hello
//!   messages through the instances, which a partition stops alike).
//!
//! Not modelled: `failover-timeout` aborting a failover under way, and the leader's
//! `SLAVEOF` to the other replicas being sent in parallel (`parallel-syncs`).

use super::{Sentinel, SentinelState};
use crate::msg::{Msg, Timer};
use crate::node::RedisContext;
use lockcheck_sim::world::ProcessId;
use lockcheck_sim::FpHasher;
use std::hash::Hash;

/// An opinion of a peer counts this many ticks (Redis: `SENTINEL_ASK_PERIOD * 5`).
const OPINION_TICKS: i64 = 5;
/// The delays an election may start after (Redis: random below `SENTINEL_MAX_DESYNC`, 1 s).
const DESYNC_MS: [u64; 2] = [0, 500];

impl Sentinel {
    /// Sentinels a failover needs: `max(quorum, majority)`, this one included.
    fn votes_needed(&self) -> usize {
        let all = self.peers.len() + 1;
        (self.quorum as usize).max(all / 2 + 1)
    }

    fn opinion_valid_ms(&self) -> i64 {
        OPINION_TICKS * self.ping_every_ms as i64
    }

    /// A tick of a Sentinel with peers: ask them while the master seems down, start an
    /// election at ODOWN, and fail over once elected.
    pub(super) fn quorum_tick(&self, state: &mut SentinelState, now: i64, ctx: &mut RedisContext) {
        let valid = self.opinion_valid_ms();
        state.down_said.retain(|(_, at)| now - at <= valid);
        if state.election.is_some() && now >= state.next_election_mono_ms {
            state.election = None; // lost: not elected in time
        }
        if self.answered_recently(state, state.master, now) {
            return;
        }
        let agree = 1 + state.down_said.len();
        if agree >= self.quorum as usize
            && state.election.is_none()
            && now >= state.next_election_mono_ms
        {
            state.next_election_mono_ms = now + self.election_retry_ms as i64;
            ctx.set_timer_among(Timer::SentinelElection, DESYNC_MS.to_vec());
        }
        self.ask_peers(state, ctx);
        self.fail_over_if_elected(state, now, ctx);
    }

    /// The desynchronising delay is over: the election starts, in a new epoch.
    pub(super) fn start_election(&self, state: &mut SentinelState, ctx: &mut RedisContext) {
        let now = ctx.mono_ms();
        if self.answered_recently(state, state.master, now) {
            return;
        }
        state.current_epoch += 1;
        state.voted = Some((state.current_epoch, ctx.me()));
        state.election = Some((state.current_epoch, vec![ctx.me()]));
        state.next_election_mono_ms = now + self.election_retry_ms as i64;
        self.ask_peers(state, ctx);
    }

    /// Asks every peer whether the master is down, and for its vote in a running election.
    fn ask_peers(&self, state: &SentinelState, ctx: &mut RedisContext) {
        let candidate = state.election.as_ref().map(|(epoch, _)| *epoch);
        for &peer in &self.peers {
            ctx.send(
                peer,
                Msg::IsMasterDown {
                    master: state.master,
                    epoch: candidate.unwrap_or(state.current_epoch),
                    candidate: candidate.is_some(),
                },
            );
        }
    }

    fn fail_over_if_elected(&self, state: &mut SentinelState, now: i64, ctx: &mut RedisContext) {
        let Some((epoch, votes)) = &state.election else {
            return;
        };
        if votes.len() >= self.votes_needed() {
            let epoch = *epoch;
            state.election = None;
            self.fail_over(state, now, epoch, ctx);
        }
    }

    /// A peer asks whether `master` is down, and for a vote if it is a candidate.
    pub(super) fn on_is_master_down(
        &self,
        state: &mut SentinelState,
        from: ProcessId,
        (master, epoch, candidate): (ProcessId, u64, bool),
        ctx: &mut RedisContext,
    ) {
        let now = ctx.mono_ms();
        let down = master == state.master && !self.answered_recently(state, master, now);
        let mut vote = None;
        if candidate {
            state.current_epoch = state.current_epoch.max(epoch);
            if state
                .voted
                .is_none_or(|(voted_epoch, _)| voted_epoch < epoch)
            {
                state.voted = Some((epoch, from));
                state.next_election_mono_ms = now + self.election_retry_ms as i64;
                if from != ctx.me() {
                    ctx.cancel_timer(Timer::SentinelElection);
                }
            }
            vote = state.voted.filter(|(e, _)| *e == epoch).map(|(_, p)| p);
        }
        ctx.send(from, Msg::MasterDownReply { down, vote, epoch });
    }

    /// A peer's opinion of the master, and its vote.
    pub(super) fn on_master_down_reply(
        &self,
        state: &mut SentinelState,
        from: ProcessId,
        (down, vote, epoch): (bool, Option<ProcessId>, u64),
        ctx: &mut RedisContext,
    ) {
        let now = ctx.mono_ms();
        state.down_said.retain(|(p, _)| *p != from);
        if down {
            let at = state.down_said.partition_point(|(p, _)| *p < from);
            state.down_said.insert(at, (from, now));
        }
        if let Some((e, votes)) = &mut state.election {
            if *e == epoch && vote == Some(ctx.me()) && !votes.contains(&from) {
                votes.push(from);
                votes.sort_unstable();
            }
        }
        self.fail_over_if_elected(state, now, ctx);
    }

    /// The quorum state, times relative to `now` and capped where they stop mattering.
    pub(super) fn hash_quorum_state(&self, state: &SentinelState, now: i64, h: &mut FpHasher) {
        (state.current_epoch, state.voted, &state.election).hash(h);
        for (peer, at) in &state.down_said {
            peer.hash(h);
            h.write_time_since(now - at, i64::MAX);
        }
        h.write_time_left(state.next_election_mono_ms.saturating_sub(now), 0);
    }

    /// A node answered a ping as master in a higher configuration epoch than this
    /// Sentinel's: another Sentinel promoted it.
    pub(super) fn adopt_newer_master(
        &self,
        state: &mut SentinelState,
        node: ProcessId,
        epoch: u64,
    ) {
        if self.peers.is_empty() || epoch <= state.epoch {
            return;
        }
        state.master = node;
        state.epoch = epoch;
        state.current_epoch = state.current_epoch.max(epoch);
        state.election = None;
        state.down_said.clear();
    }
}
