//! Running a round: one step at a time, each started when the one before it is over.
//!
//! A step that waits (an acquire, an extension, a release, a read, the work, a debit) sets
//! the phase and is finished by the event it waits for; the others go straight on. Three
//! rules beyond the steps themselves:
//!
//! - **Fencing tokens.** With a token service, a token is asked before a read, work or
//!   debit step when none was given since the round's last grant.
//! - **Beliefs end where releasing starts.** A run of consecutive release steps is one
//!   release: the client stops believing it holds any of them at the run's start.
//! - **Unwinding.** When an acquire fails and the round ends (see [`OnFail`]), or a
//!   detector aborts the round, the client releases what the round holds, innermost first
//!   (and, for [`OnFail::Unlock`] and an abort, the slot that failed before them), then the
//!   round ends. When the round's own steps end by releasing exactly these, in this order,
//!   the client runs those steps instead: the two go on alike, so the state is the same.

use super::{ClientState, Fencing, Held, LockClient, Phase};
use crate::lock::engine::{LockEvent, LockIo};
use crate::lock::on_fail::OnFail;
use crate::lock::steps::{self, At, Steps};
use crate::msg::{ClientTimer, Msg, ResourceOp, ResourceReply, Timer};
use crate::node::RedisContext;

impl LockClient {
    /// Step `k` of round `round`.
    pub(super) fn at(&self, round: u32, k: usize) -> At<'_> {
        let w = &self.workload;
        match &w.steps {
            Steps::InOrder => steps::in_order(w.locks.len(), w.resource.is_some(), &w.work_ms, k),
            Steps::Listed(rounds) => steps::listed(&rounds[round as usize % rounds.len()], k),
        }
    }

    pub(super) fn io<'a>(&'a self, ctx: &'a mut RedisContext, lock: u8) -> LockIo<'a> {
        LockIo {
            ctx,
            lock,
            key: &self.workload.locks[lock as usize],
            owner: &self.owner,
            token: Some(&self.owner),
            within_ms: None,
        }
    }

    pub(super) fn start_round(&self, state: &mut ClientState, ctx: &mut RedisContext) {
        if state.round >= self.workload.rounds {
            state.phase = Phase::Done;
            return;
        }
        state.stop_event = false;
        state.service_token = None;
        state.read = None;
        self.run(state, 0, ctx);
    }

    /// Starts step `k` of the round.
    fn run(&self, state: &mut ClientState, k: usize, ctx: &mut RedisContext) {
        state.step = k as u8;
        let needs_token =
            matches!(self.fencing, Fencing::Service(_)) && state.service_token.is_none();
        match self.at(state.round, k) {
            At::End => self.round_over(state, ctx),
            At::Acquire { slot, within_ms } => {
                state.phase = Phase::Acquiring(slot);
                let mut io = self.io(ctx, slot);
                io.within_ms = within_ms;
                self.protocol
                    .acquire(&mut state.engines[slot as usize], &mut io);
            }
            At::Release { slot } => {
                let mut j = k;
                while let At::Release { slot: released } = self.at(state.round, j) {
                    state.held[released as usize] = None;
                    j += 1;
                }
                self.release(state, slot, ctx);
            }
            At::Extend { slot, how } => {
                state.phase = Phase::Extending(slot);
                let mut io = self.io(ctx, slot);
                io.token = self.object_token(&state.object_tokens, slot);
                let engine = &mut state.engines[slot as usize];
                if let Some(event) = self.protocol.extend(engine, how, &mut io) {
                    self.on_event(state, slot, event, ctx);
                }
            }
            At::Debit if !self.can_debit(state) => self.run(state, k + 1, ctx),
            At::Read | At::Work { .. } | At::Debit if needs_token => {
                let Fencing::Service(service) = self.fencing else {
                    unreachable!("a token is asked of a token service")
                };
                state.phase = Phase::FetchingToken;
                ctx.send(service, Msg::NextToken);
            }
            At::Read => match self.workload.resource {
                Some(resource) => {
                    state.phase = Phase::Reading;
                    let op = ResourceOp::Read {
                        biz_id: state.round,
                        token: self.token(state),
                    };
                    ctx.send(resource, Msg::Resource(op));
                }
                None => self.run(state, k + 1, ctx),
            },
            At::Work { ms } => {
                state.phase = Phase::Working;
                ctx.set_timer_among(Timer::Client(ClientTimer::Work), ms);
            }
            At::Debit => self.debit(state, ctx),
        }
    }

    /// Whether a debit step writes: the round read the account, the operation was not done
    /// yet, and no stop event the code checks has fired.
    fn can_debit(&self, state: &ClientState) -> bool {
        let aborted = state.stop_event && self.workload.checks_stop_event;
        self.workload.resource.is_some() && matches!(state.read, Some((_, _, false))) && !aborted
    }

    fn debit(&self, state: &mut ClientState, ctx: &mut RedisContext) {
        let (Some(resource), Some((balance, version, _))) = (self.workload.resource, state.read)
        else {
            unreachable!("a debit is written only after a read")
        };
        state.phase = Phase::Writing;
        let op = ResourceOp::Debit {
            biz_id: state.round,
            amount: self.workload.amount,
            read_balance: balance,
            read_version: version,
            token: self.token(state),
        };
        ctx.send(resource, Msg::Resource(op));
    }

    /// The fencing token of this round: the service's, else the newest slot's.
    fn token(&self, state: &ClientState) -> Option<u64> {
        state.service_token.or_else(|| {
            state
                .held
                .iter()
                .rev()
                .find_map(|h| h.and_then(|h| h.token))
        })
    }

    fn release(&self, state: &mut ClientState, slot: u8, ctx: &mut RedisContext) {
        state.phase = Phase::Releasing(slot);
        let mut io = self.io(ctx, slot);
        let token = self.object_token(&state.object_tokens, slot);
        io.token = token;
        let presented = token.is_some();
        let event = self
            .protocol
            .release(&mut state.engines[slot as usize], &mut io);
        if presented {
            self.clear_object_token(state, slot, ctx);
        }
        if let Some(event) = event {
            self.on_event(state, slot, event, ctx);
        }
    }

    fn round_over(&self, state: &mut ClientState, ctx: &mut RedisContext) {
        state.round += 1;
        state.phase = Phase::Idle;
        state.step = 0;
        ctx.set_timer(Timer::Client(ClientTimer::Start), 0);
    }

    /// The slots the round holds before step `k` (acquired and not released), in the
    /// order they were acquired.
    fn open_before(&self, round: u32, k: usize) -> Vec<u8> {
        let mut open = Vec::new();
        for j in 0..k {
            match self.at(round, j) {
                At::Acquire { slot, .. } => open.push(slot),
                At::Release { slot } => open.retain(|&s| s != slot),
                _ => {}
            }
        }
        open
    }

    /// Ends the round from the current step by releasing what it holds, innermost first,
    /// after `failed` (the slot whose acquire failed, when it is released too).
    pub(super) fn unwind(
        &self,
        state: &mut ClientState,
        failed: Option<u8>,
        ctx: &mut RedisContext,
    ) {
        let k = state.step as usize;
        state.held.iter_mut().for_each(|h| *h = None);
        let list: Vec<u8> = failed
            .into_iter()
            .chain(self.open_before(state.round, k).into_iter().rev())
            .collect();
        if let Some(m) = (k + 1..=k + 1 + self.steps_left(state.round, k))
            .find(|&m| self.ends_releasing(state.round, m, &list))
        {
            return self.run(state, m, ctx);
        }
        match list.first() {
            None => self.round_over(state, ctx),
            Some(&first) => {
                state.unwinding = list;
                self.release(state, first, ctx);
            }
        }
    }

    /// How many steps the round has after step `k`.
    fn steps_left(&self, round: u32, k: usize) -> usize {
        (k + 1..)
            .take_while(|&j| self.at(round, j) != At::End)
            .count()
    }

    /// Whether the round's steps from `m` on are releases of `list`, in order, and nothing
    /// else.
    fn ends_releasing(&self, round: u32, m: usize, list: &[u8]) -> bool {
        list.iter()
            .enumerate()
            .all(|(j, &slot)| self.at(round, m + j) == At::Release { slot })
            && self.at(round, m + list.len()) == At::End
    }

    /// What the business code does once acquiring slot `slot` failed (see [`OnFail`]).
    fn after_failed_acquire(&self, state: &mut ClientState, slot: u8, ctx: &mut RedisContext) {
        match self.workload.on_fail {
            OnFail::EndRound => self.unwind(state, None, ctx),
            OnFail::Proceed => self.run(state, state.step as usize + 1, ctx),
            OnFail::Unlock => self.unwind(state, Some(slot), ctx),
        }
    }

    /// What the business code does once extending slot `slot` failed: the exception
    /// (redis-py's `LockNotOwnedError`) ends the round, which releases what it holds; with
    /// [`OnFail::Proceed`] the code catches it and goes on, still believing it holds the lock.
    fn after_failed_extend(&self, state: &mut ClientState, slot: u8, ctx: &mut RedisContext) {
        match self.workload.on_fail {
            OnFail::Proceed => self.run(state, state.step as usize + 1, ctx),
            OnFail::EndRound | OnFail::Unlock => {
                state.held[slot as usize] = None;
                self.unwind(state, None, ctx)
            }
        }
    }

    /// Reacts to what slot `i`'s engine reports.
    pub(super) fn on_event(
        &self,
        state: &mut ClientState,
        i: u8,
        event: LockEvent,
        ctx: &mut RedisContext,
    ) {
        let next = state.step as usize + 1;
        match (event, state.phase) {
            (LockEvent::Acquired { valid_until, token }, Phase::Acquiring(j)) if i == j => {
                state.held[i as usize] = Some(Held { valid_until, token });
                state.service_token = None;
                self.store_object_token(state, i, ctx);
                self.run(state, next, ctx);
            }
            (LockEvent::Acquired { valid_until, .. }, _) => {
                // A renewal extended the validity.
                if let Some(h) = state.held[i as usize].as_mut() {
                    h.valid_until = valid_until;
                }
            }
            (LockEvent::GaveUp, Phase::Acquiring(j)) if i == j => {
                state.gave_up += 1;
                self.after_failed_acquire(state, i, ctx);
            }
            (LockEvent::Released, Phase::Releasing(j)) if i == j => {
                if state.unwinding.is_empty() {
                    return self.run(state, next, ctx);
                }
                state.unwinding.remove(0);
                match state.unwinding.first() {
                    Some(&slot) => self.release(state, slot, ctx),
                    None => self.round_over(state, ctx),
                }
            }
            (LockEvent::Extended { valid_until }, Phase::Extending(j)) if i == j => {
                if let Some(h) = state.held[i as usize].as_mut() {
                    h.valid_until = valid_until;
                }
                self.run(state, next, ctx);
            }
            (LockEvent::NotExtended, Phase::Extending(j)) if i == j => {
                self.after_failed_extend(state, i, ctx)
            }
            (LockEvent::Lost, _) => {
                state.stop_event = true;
                if self.workload.checks_stop_event {
                    state.held[i as usize] = None;
                }
            }
            _ => {}
        }
    }

    pub(super) fn on_token(&self, state: &mut ClientState, token: u64, ctx: &mut RedisContext) {
        if state.phase == Phase::FetchingToken {
            state.service_token = Some(token);
            self.run(state, state.step as usize, ctx);
        }
    }

    pub(super) fn on_work_done(&self, state: &mut ClientState, ctx: &mut RedisContext) {
        if state.phase == Phase::Working {
            self.run(state, state.step as usize + 1, ctx);
        }
    }

    pub(super) fn on_resource(
        &self,
        state: &mut ClientState,
        reply: ResourceReply,
        ctx: &mut RedisContext,
    ) {
        let next = state.step as usize + 1;
        match (reply, state.phase) {
            (
                ResourceReply::Value {
                    balance,
                    version,
                    done,
                },
                Phase::Reading,
            ) => {
                state.read = Some((balance, version, done));
                self.run(state, next, ctx);
            }
            (ResourceReply::Debited(_), Phase::Writing) => self.run(state, next, ctx),
            _ => {}
        }
    }
}
