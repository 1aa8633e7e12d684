//! A lock client: business code that runs rounds of "acquire the locks in order, read the
//! resource, work, debit, release in reverse order" through one lock protocol.
//!
//! It is what the oracles judge: [`LockClient::believed_locks`] says which locks the client
//! believes it holds now (from a successful acquire until it starts releasing, or until its
//! validity deadline passes on its own clock, for protocols that compute one). A watchdog's
//! stop event ([`LockEvent::Lost`]) ends the belief only if the business code checks it.

use super::engine::{split_request_id, Deadline, LockEvent, LockIo};
use super::on_fail::OnFail;
use super::protocol::{EngineState, Protocol};
use crate::msg::{ClientTimer, Msg, ResourceOp, ResourceReply, Timer};
use crate::node::RedisContext;
use lockcheck_sim::world::{Actor, LocalNow, ProcessId};
use lockcheck_sim::FpHasher;
use std::hash::{Hash, Hasher};

/// What the business code does.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Workload {
    /// Lock keys, acquired in this order and released in reverse.
    pub locks: Vec<Vec<u8>>,
    pub rounds: u32,
    pub start_after_ms: u64,
    /// How long the work inside the critical section takes: one of these (a choice).
    pub work_ms: Vec<u64>,
    /// The protected resource: read it before the work, debit it after (round `r` is
    /// business operation `r`, the same for every client, as when a job is redelivered).
    pub resource: Option<ProcessId>,
    pub amount: i64,
    /// Whether the business code checks the watchdog's stop event before writing.
    pub checks_stop_event: bool,
    /// What it does when it fails to get a lock.
    pub on_fail: OnFail,
}

/// As derived, `on_fail` only when it is not the default: the text of a workload without
/// it (which a world's model hash is made of) is what it always was.
impl std::fmt::Debug for Workload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Workload");
        d.field("locks", &self.locks)
            .field("rounds", &self.rounds)
            .field("start_after_ms", &self.start_after_ms)
            .field("work_ms", &self.work_ms)
            .field("resource", &self.resource)
            .field("amount", &self.amount)
            .field("checks_stop_event", &self.checks_stop_event);
        if self.on_fail != OnFail::default() {
            d.field("on_fail", &self.on_fail);
        }
        d.finish()
    }
}

/// Where fencing tokens come from, besides the protocol itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Fencing {
    /// No token, or the protocol's own (the fenced single-node acquire).
    Protocol,
    /// A linearizable counter outside Redis, asked after the locks are acquired.
    Service(ProcessId),
}

/// A lock client's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LockClient {
    pub protocol: Protocol,
    pub workload: Workload,
    pub fencing: Fencing,
    /// The value that identifies this client as a holder (unique per client).
    pub owner: Vec<u8>,
}

/// What the business code is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Idle,
    /// Acquiring lock `i` (all before it are held).
    Acquiring(u8),
    FetchingToken,
    Reading,
    Working,
    Writing,
    /// Releasing lock `i` (all after it are released).
    Releasing(u8),
    Done,
}

/// A lock the client believes it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Held {
    pub valid_until: Option<Deadline>,
    pub token: Option<u64>,
}

/// A lock client's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClientState {
    pub phase: Phase,
    pub round: u32,
    pub engines: Vec<EngineState>,
    pub held: Vec<Option<Held>>,
    /// A token from the token service, this round.
    pub service_token: Option<u64>,
    /// What the resource said before the work: (balance, version, done).
    pub read: Option<(i64, u32, bool)>,
    /// The watchdog's stop event fired this round.
    pub stop_event: bool,
    /// Rounds that gave up acquiring.
    pub gave_up: u32,
}

impl LockClient {
    /// The locks (by index into the workload) this client believes it holds at `now`.
    pub fn believed_locks(&self, state: &ClientState, now: LocalNow) -> Vec<usize> {
        (0..state.held.len())
            .filter(|&i| self.believes(state, i, now))
            .collect()
    }

    /// Whether this client believes at `now` that it holds lock `i` (by index into the
    /// workload).
    pub fn believes(&self, state: &ClientState, i: usize, now: LocalNow) -> bool {
        state.held[i].is_some_and(|h| !h.valid_until.is_some_and(|d| d.passed(now)))
    }

    /// Renewals that failed so far, over all locks.
    pub fn failed_renewals(&self, state: &ClientState) -> u32 {
        state
            .engines
            .iter()
            .map(|e| self.protocol.failed_renewals(e))
            .sum()
    }

    /// What this client's state holds about process `other` (a Redlock sweep's slot for a
    /// node), naming no process: see `Actor::hash_knowledge_of`.
    pub fn hash_knowledge_of(
        &self,
        state: &ClientState,
        other: ProcessId,
        now: LocalNow,
        h: &mut FpHasher,
    ) {
        if let Protocol::Redlock(redlock) = &self.protocol {
            for e in &state.engines {
                if let EngineState::Redlock(s) = e {
                    redlock.hash_knowledge_of(s, other, now.mono_ms, h);
                }
            }
        }
    }

    /// A deadlock detector's cooperative abort: if the client is acquiring, it stops
    /// believing it holds this round's locks, releases them (the one being acquired too, in
    /// case the grant is on its way) in reverse order, and counts the round as given up.
    pub fn abort(&self, state: &mut ClientState, ctx: &mut RedisContext) {
        if let Phase::Acquiring(i) = state.phase {
            state.gave_up += 1;
            state.held.iter_mut().for_each(|h| *h = None);
            self.release(state, i, ctx);
        }
    }

    fn io<'a>(&'a self, ctx: &'a mut RedisContext, lock: u8) -> LockIo<'a> {
        LockIo {
            ctx,
            lock,
            key: &self.workload.locks[lock as usize],
            owner: &self.owner,
        }
    }

    fn start_round(&self, state: &mut ClientState, ctx: &mut RedisContext) {
        if state.round >= self.workload.rounds {
            state.phase = Phase::Done;
            return;
        }
        state.stop_event = false;
        state.service_token = None;
        state.read = None;
        self.acquire(state, 0, ctx);
    }

    fn acquire(&self, state: &mut ClientState, i: u8, ctx: &mut RedisContext) {
        state.phase = Phase::Acquiring(i);
        let mut io = self.io(ctx, i);
        self.protocol
            .acquire(&mut state.engines[i as usize], &mut io);
    }

    fn all_acquired(&self, state: &mut ClientState, ctx: &mut RedisContext) {
        match self.fencing {
            Fencing::Service(service) => {
                state.phase = Phase::FetchingToken;
                ctx.send(service, Msg::NextToken);
            }
            Fencing::Protocol => self.begin_work(state, ctx),
        }
    }

    fn begin_work(&self, state: &mut ClientState, ctx: &mut RedisContext) {
        match self.workload.resource {
            Some(resource) => {
                state.phase = Phase::Reading;
                let op = ResourceOp::Read {
                    biz_id: state.round,
                    token: self.token(state),
                };
                ctx.send(resource, Msg::Resource(op));
            }
            None => self.work(state, ctx),
        }
    }

    fn work(&self, state: &mut ClientState, ctx: &mut RedisContext) {
        state.phase = Phase::Working;
        let timer = Timer::Client(ClientTimer::Work);
        ctx.set_timer_among(timer, self.workload.work_ms.clone());
    }

    fn work_done(&self, state: &mut ClientState, ctx: &mut RedisContext) {
        let aborted = state.stop_event && self.workload.checks_stop_event;
        match (self.workload.resource, state.read) {
            (Some(resource), Some((balance, version, false))) if !aborted => {
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
            _ => self.release_all(state, ctx),
        }
    }

    /// The fencing token of this round: the service's, else the newest lock's.
    fn token(&self, state: &ClientState) -> Option<u64> {
        state.service_token.or_else(|| {
            state
                .held
                .iter()
                .rev()
                .find_map(|h| h.and_then(|h| h.token))
        })
    }

    fn release_all(&self, state: &mut ClientState, ctx: &mut RedisContext) {
        state.held.iter_mut().for_each(|h| *h = None);
        let last = self.workload.locks.len() as u8 - 1;
        self.release(state, last, ctx);
    }

    fn release(&self, state: &mut ClientState, i: u8, ctx: &mut RedisContext) {
        state.phase = Phase::Releasing(i);
        let mut io = self.io(ctx, i);
        self.protocol
            .release(&mut state.engines[i as usize], &mut io);
    }

    fn round_over(&self, state: &mut ClientState, ctx: &mut RedisContext) {
        state.round += 1;
        state.phase = Phase::Idle;
        ctx.set_timer(Timer::Client(ClientTimer::Start), 0);
    }

    /// What the business code does once acquiring lock `i` failed (see [`OnFail`]).
    fn after_failed_acquire(&self, state: &mut ClientState, i: u8, ctx: &mut RedisContext) {
        match (self.workload.on_fail, i) {
            (OnFail::EndRound, 0) => self.round_over(state, ctx),
            (OnFail::EndRound, _) => {
                state.held.iter_mut().for_each(|h| *h = None);
                self.release(state, i - 1, ctx);
            }
            (OnFail::Proceed, _) if (i as usize) + 1 < self.workload.locks.len() => {
                self.acquire(state, i + 1, ctx)
            }
            (OnFail::Proceed, _) => self.all_acquired(state, ctx),
            (OnFail::Unlock, _) => {
                state.held.iter_mut().for_each(|h| *h = None);
                self.release(state, i, ctx);
            }
        }
    }

    /// Reacts to what lock `i`'s engine reports.
    fn on_event(&self, state: &mut ClientState, i: u8, event: LockEvent, ctx: &mut RedisContext) {
        match (event, state.phase) {
            (LockEvent::Acquired { valid_until, token }, Phase::Acquiring(j)) if i == j => {
                state.held[i as usize] = Some(Held { valid_until, token });
                if (i as usize) + 1 < self.workload.locks.len() {
                    self.acquire(state, i + 1, ctx);
                } else {
                    self.all_acquired(state, ctx);
                }
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
            (LockEvent::Released, Phase::Releasing(j)) if i == j => match i {
                0 => self.round_over(state, ctx),
                _ => self.release(state, i - 1, ctx),
            },
            (LockEvent::Lost, _) => {
                state.stop_event = true;
                if self.workload.checks_stop_event {
                    state.held[i as usize] = None;
                }
            }
            _ => {}
        }
    }

    fn on_resource(&self, state: &mut ClientState, reply: ResourceReply, ctx: &mut RedisContext) {
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
                self.work(state, ctx);
            }
            (ResourceReply::Debited(_), Phase::Writing) => self.release_all(state, ctx),
            _ => {}
        }
    }
}

impl Actor for LockClient {
    type Msg = Msg;
    type Timer = Timer;
    type State = ClientState;
    type Fault = lockcheck_sim::world::NoFault;

    fn on_start(&self, ctx: &mut RedisContext) -> ClientState {
        assert!(
            !self.workload.locks.is_empty(),
            "a lock client needs a lock"
        );
        ctx.set_timer(
            Timer::Client(ClientTimer::Start),
            self.workload.start_after_ms,
        );
        let n = self.workload.locks.len();
        ClientState {
            phase: Phase::Idle,
            round: 0,
            engines: (0..n).map(|_| self.protocol.init()).collect(),
            held: vec![None; n],
            service_token: None,
            read: None,
            stop_event: false,
            gave_up: 0,
        }
    }

    fn on_message(
        &self,
        state: &mut ClientState,
        from: ProcessId,
        msg: Msg,
        ctx: &mut RedisContext,
    ) {
        match msg {
            Msg::Response { id, reply } => {
                let (i, tag) = split_request_id(id);
                let mut io = self.io(ctx, i);
                let event = self.protocol.on_reply(
                    &mut state.engines[i as usize],
                    from,
                    tag,
                    reply,
                    &mut io,
                );
                if let Some(event) = event {
                    self.on_event(state, i, event, ctx);
                }
            }
            Msg::Published { channel, message } => {
                for i in 0..self.workload.locks.len() as u8 {
                    let mut io = self.io(ctx, i);
                    let engine = &mut state.engines[i as usize];
                    if let Some(event) = self
                        .protocol
                        .on_published(engine, &channel, &message, &mut io)
                    {
                        self.on_event(state, i, event, ctx);
                    }
                }
            }
            Msg::Token(token) if state.phase == Phase::FetchingToken => {
                state.service_token = Some(token);
                self.begin_work(state, ctx);
            }
            Msg::ResourceReply(reply) => self.on_resource(state, reply, ctx),
            other => {
                // Anything else belongs to the engine of the lock being worked on.
                let i = match state.phase {
                    Phase::Acquiring(i) | Phase::Releasing(i) => i,
                    _ => 0,
                };
                let mut io = self.io(ctx, i);
                let engine = &mut state.engines[i as usize];
                if let Some(event) = self.protocol.on_other(engine, from, other, &mut io) {
                    self.on_event(state, i, event, ctx);
                }
            }
        }
    }

    fn on_timer(&self, state: &mut ClientState, timer: Timer, ctx: &mut RedisContext) {
        match timer {
            Timer::Client(ClientTimer::Start) => self.start_round(state, ctx),
            Timer::Client(ClientTimer::Work) => self.work_done(state, ctx),
            Timer::Client(ClientTimer::Lock { lock, timer }) => {
                let mut io = self.io(ctx, lock);
                let engine = &mut state.engines[lock as usize];
                if let Some(event) = self.protocol.on_timer(engine, timer, &mut io) {
                    self.on_event(state, lock, event, ctx);
                }
            }
            other => panic!("a lock client sets no {other:?} timer"),
        }
    }

    fn hash_state(&self, state: &ClientState, now: LocalNow, h: &mut FpHasher) {
        (state.phase, state.round, &state.service_token, &state.read).hash(h);
        self.hash_common(state, now, h, |e, now, h| {
            self.protocol.hash_state(e, now, h)
        });
    }

    /// Done, a client never starts another round, so what it read and the token it was
    /// given are dead: only `begin_work` and `work_done` read them, and neither runs again
    /// (the work timer is set in `Working` and fired before any release; a start timer
    /// finds the rounds over). Its engines are hashed as finished engines.
    fn has_dead_values(&self, state: &ClientState) -> bool {
        state.phase == Phase::Done
    }

    fn hash_live_state(&self, state: &ClientState, now: LocalNow, h: &mut FpHasher) {
        (state.phase, state.round).hash(h);
        self.hash_common(state, now, h, |e, now, h| {
            self.protocol.hash_finished_state(e, now, h)
        });
    }
}

impl LockClient {
    /// The fingerprint parts every hash of a client's state has: stop event, rounds given
    /// up, each engine (by `hash_engine`) and what the client believes it holds.
    fn hash_common(
        &self,
        state: &ClientState,
        now: LocalNow,
        h: &mut FpHasher,
        hash_engine: impl Fn(&EngineState, LocalNow, &mut FpHasher),
    ) {
        (state.stop_event, state.gave_up).hash(h);
        for (engine, held) in state.engines.iter().zip(&state.held) {
            hash_engine(engine, now, h);
            match held {
                None => h.write_u8(0),
                Some(held) => {
                    h.write_u8(1);
                    held.token.hash(h);
                    held.valid_until
                        .map(|d| (d.clock, (d.at_ms - d.clock.read(now)).max(0)))
                        .hash(h);
                }
            }
        }
    }
}
