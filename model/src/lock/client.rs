//! A lock client: business code that runs rounds of steps (acquire a lock, read the
//! resource, work, debit, release; by default all its locks in order, then the rest, then
//! the releases in reverse order) through one lock protocol, with one engine per slot (a
//! lock at a nesting depth: see [`super::steps`]).
//!
//! It is what the oracles judge: [`LockClient::believed_locks`] says which locks the client
//! believes it holds now (from a successful acquire until it starts releasing, or until its
//! validity deadline passes on its own clock, for protocols that compute one). A watchdog's
//! stop event ([`LockEvent::Lost`]) ends the belief only if the business code checks it.

use super::engine::{split_request_id, Belief, Deadline, LockEvent, LockIo};
use super::on_fail::OnFail;
use super::protocol::{EngineState, Protocol};
use super::steps::Steps;
use crate::msg::{ClientTimer, Msg, Timer};
use crate::node::RedisContext;
use lockcheck_sim::world::{Actor, LocalNow, ProcessId};
use lockcheck_sim::FpHasher;
use std::hash::{Hash, Hasher};

mod lock_object;
mod rounds;

pub use lock_object::ObjectToken;

/// What the business code does.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Workload {
    /// The slot table: a lock key per slot. For [`Steps::InOrder`], the locks, acquired in
    /// this order and released in reverse.
    pub locks: Vec<Vec<u8>>,
    pub rounds: u32,
    pub start_after_ms: u64,
    /// [`Steps::InOrder`]'s work inside the critical section: one of these (a choice).
    pub work_ms: Vec<u64>,
    /// The steps of a round.
    pub steps: Steps,
    /// The protected resource: read it before the work, debit it after (round `r` is
    /// business operation `r`, the same for every client, as when a job is redelivered).
    pub resource: Option<ProcessId>,
    pub amount: i64,
    /// Whether the business code checks the watchdog's stop event before writing.
    pub checks_stop_event: bool,
    /// What it does when it fails to get a lock.
    pub on_fail: OnFail,
    /// The other threads of this client's process that share its lock object without
    /// thread-local storage (see `client::lock_object`); empty: the object is its own.
    pub lock_object_peers: Vec<ProcessId>,
}

/// As derived, `on_fail` only when it is not the default and `steps` only when listed: the
/// text of a workload without them (which a world's model hash is made of) is what it
/// always was.
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
        if let Steps::Listed(rounds) = &self.steps {
            d.field("steps", rounds);
        }
        if !self.lock_object_peers.is_empty() {
            d.field("lock_object_peers", &self.lock_object_peers);
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
    /// Acquiring slot `i`.
    Acquiring(u8),
    FetchingToken,
    Reading,
    Working,
    Writing,
    /// Releasing slot `i`.
    Releasing(u8),
    Done,
    /// Extending slot `i` (last, so that the other phases hash as they always did).
    Extending(u8),
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
    /// The step of the round being run; while unwinding, the step that failed.
    pub step: u8,
    /// After a failed acquire or an abort, the slots still to release (the one being
    /// released first) before the round ends, when the round's own steps do not end by
    /// releasing exactly these.
    pub unwinding: Vec<u8>,
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
    /// Per slot, the token its lock object holds, when threads share the object (else
    /// empty: the client's own).
    pub object_tokens: Vec<ObjectToken>,
}

impl LockClient {
    /// The locks (by index into the workload) this client believes it holds at `now`.
    pub fn believed_locks(&self, state: &ClientState, now: LocalNow) -> Vec<usize> {
        (0..state.held.len())
            .filter(|&i| self.believes(state, i, now))
            .collect()
    }

    /// Whether this client believes at `now` that it holds lock `i` (by index into the
    /// workload): until its validity passes, or, where the business code sees only an abort
    /// signal, until the signal is aborted.
    pub fn believes(&self, state: &ClientState, i: usize, now: LocalNow) -> bool {
        state.held[i].is_some_and(|h| match self.protocol.belief() {
            Belief::Validity => !h.valid_until.is_some_and(|d| d.passed(now)),
            Belief::UntilAborted => !state.stop_event,
        })
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
            self.unwind(state, Some(i), ctx);
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
            step: 0,
            unwinding: Vec::new(),
            engines: (0..n).map(|_| self.protocol.init()).collect(),
            held: vec![None; n],
            service_token: None,
            read: None,
            stop_event: false,
            gave_up: 0,
            object_tokens: self.initial_object_tokens(),
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
            Msg::Refused { id } => {
                let (i, tag) = split_request_id(id);
                let mut io = self.io(ctx, i);
                let engine = &mut state.engines[i as usize];
                if let Some(event) = self.protocol.on_refused(engine, from, tag, &mut io) {
                    self.on_event(state, i, event, ctx);
                }
            }
            Msg::Published { channel, message } => {
                self.to_every_engine(state, ctx, |p, engine, io| {
                    p.on_published(engine, &channel, &message, io)
                })
            }
            // Sentinel's answer concerns every engine that asked (each asks for itself).
            Msg::MasterIs { .. } => self.to_every_engine(state, ctx, |p, engine, io| {
                p.on_other(engine, from, msg.clone(), io)
            }),
            Msg::Token(token) if state.phase == Phase::FetchingToken => {
                self.on_token(state, token, ctx)
            }
            Msg::ResourceReply(reply) => self.on_resource(state, reply, ctx),
            Msg::LockObject { key, token } => self.on_lock_object(state, &key, token),
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
            Timer::Client(ClientTimer::Work) => self.on_work_done(state, ctx),
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
        // Empty unless threads share a lock object, so other worlds hash as they did.
        if self.shares_lock_object() {
            state.object_tokens.hash(h);
        }
        self.hash_position(state, h);
        self.hash_common(state, now, h, |e, now, h| {
            self.protocol.hash_state(e, now, h)
        });
    }

    /// Done, a client never starts another round, so what it read and the token it was
    /// given are dead: only a round's steps read them, and none runs again (the work timer
    /// is set in `Working` and fired before the step after it; a start timer finds the
    /// rounds over), and so is what its lock object holds. Its engines are hashed as
    /// finished engines.
    fn has_dead_values(&self, state: &ClientState) -> bool {
        state.phase == Phase::Done
    }

    fn hash_state_without_dead_values(&self, state: &ClientState, now: LocalNow, h: &mut FpHasher) {
        (state.phase, state.round).hash(h);
        self.hash_position(state, h);
        self.hash_common(state, now, h, |e, now, h| {
            self.protocol.hash_finished_state(e, now, h)
        });
    }
}

impl LockClient {
    /// Hands a message that concerns every lock to each engine in turn (`deliver`), and
    /// acts on the events they answer with.
    fn to_every_engine(
        &self,
        state: &mut ClientState,
        ctx: &mut RedisContext,
        deliver: impl Fn(&Protocol, &mut EngineState, &mut LockIo) -> Option<LockEvent>,
    ) {
        for i in 0..self.workload.locks.len() as u8 {
            let mut io = self.io(ctx, i);
            if let Some(event) = deliver(&self.protocol, &mut state.engines[i as usize], &mut io) {
                self.on_event(state, i, event, ctx);
            }
        }
    }

    /// Where in its round the client is, beyond its phase. The shorthand's step is a
    /// function of the phase (each step has a phase of its own, and an unwinding always
    /// joins the written releases: `rounds::unwind`), so it hashes nothing more, and its
    /// worlds keep the fingerprints they always had.
    fn hash_position(&self, state: &ClientState, h: &mut FpHasher) {
        if let Steps::Listed(_) = self.workload.steps {
            (state.step, &state.unwinding).hash(h);
        }
    }

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
                    match held.valid_until {
                        None => h.write_u8(0),
                        Some(d) => {
                            (1u8, d.clock).hash(h);
                            h.write_time_left(d.at_ms - d.clock.read(now), 0);
                        }
                    }
                }
            }
        }
    }
}
