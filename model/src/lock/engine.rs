//! The contract between a lock client's business logic and a lock protocol.
//!
//! A protocol *engine* manages one lock for one client: it is told to `acquire` and to
//! `release`, it sees the replies to its own requests, its own timers and pushed pub/sub
//! messages, and it answers with [`LockEvent`]s: acquired (with a validity deadline and a
//! fencing token when the protocol has them), gave up, released, or lost (a watchdog's stop
//! event). It talks to the world only through [`LockIo`], which tags its requests and timers
//! with the lock's index so that the client can route replies back.
//!
//! Engines keep request tags and counters small and bounded (they are part of the state, and
//! a counter that grows forever makes the state space infinite), and hash local times
//! relative to the clock readings they are given.

use crate::msg::{ClientTimer, LockTimer, Msg, Timer};
use crate::node::RedisContext;
use crate::redis::{Command, Reply};
use lockcheck_sim::world::{LocalNow, ProcessId};
use lockcheck_sim::FpHasher;
use std::fmt::Debug;
use std::hash::Hash;

/// Which of a process's clocks a deadline is measured on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockKind {
    Wall,
    Monotonic,
}

impl ClockKind {
    pub fn read(self, now: LocalNow) -> i64 {
        match self {
            ClockKind::Wall => now.wall_ms,
            ClockKind::Monotonic => now.mono_ms,
        }
    }
}

/// An optional duration printed as a required one was (the value alone; `None` only when
/// there is none), so that a parameter made optional keeps the `Debug` text, and with it
/// the model hash, of every world that sets it.
pub(crate) struct OptionalMs(pub Option<u64>);

impl std::fmt::Debug for OptionalMs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(ms) => ms.fmt(f),
            None => f.write_str("None"),
        }
    }
}

/// What the business code can know of its lock, and so until when it believes it holds it.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Belief {
    /// It sees the lock's validity (an expiration, a lease) and believes until that passes on
    /// its clock.
    #[default]
    Validity,
    /// It sees only an abort signal (node-redlock 5's `using()` routine): it believes until
    /// the signal is aborted, whatever the clock says.
    UntilAborted,
}

/// A local deadline: the client believes it holds the lock until this reading of its clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Deadline {
    pub clock: ClockKind,
    pub at_ms: i64,
}

impl Deadline {
    pub fn passed(&self, now: LocalNow) -> bool {
        self.clock.read(now) >= self.at_ms
    }
}

/// What an engine tells the client.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LockEvent {
    /// The lock is held, until `valid_until` if the protocol computes a validity, with a
    /// fencing `token` if the protocol hands one out.
    Acquired {
        valid_until: Option<Deadline>,
        token: Option<u64>,
    },
    /// Acquisition failed for good (acquire timeout, `tryLock` wait over).
    GaveUp,
    /// The release finished (successfully or not: the client goes on either way).
    Released,
    /// The engine knows the lock is lost (seed 000's watchdog stop event).
    Lost,
    /// The business code's extension took effect, the lock valid until `valid_until` if
    /// the protocol computes a validity.
    Extended { valid_until: Option<Deadline> },
    /// The extension failed: the lock is no longer this owner's (redis-py's
    /// `LockNotOwnedError`), the request timed out, or the protocol has no extension.
    NotExtended,
}

/// How the business code extends a lock it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extension {
    /// Back to the protocol's TTL (redis-py's `reacquire()`, redsync's `Extend()`).
    Ttl,
    /// This much more than the TTL left (redis-py's `extend(t)`).
    By(u64),
    /// The TTL becomes this (redis-py's `extend(t, replace_ttl=True)`).
    To(u64),
}

/// An engine's window on the world, for one lock of one client.
pub struct LockIo<'a> {
    pub ctx: &'a mut RedisContext,
    /// The lock's slot in the client's workload.
    pub lock: u8,
    /// The lock's key.
    pub key: &'a [u8],
    /// The value identifying this client as the holder (unique per client).
    pub owner: &'a [u8],
    /// The token the client's lock object holds for this lock, which a release or an
    /// extension presents: the owner, unless threads share the object without thread-local
    /// storage (redis-py's `thread_local=False`; see [`super::lock_object`]). `None`: a
    /// release cleared it, and the object raises before sending anything.
    pub token: Option<&'a [u8]>,
    /// For an acquire being started, the business code's bound on the wait (`tryLock(T)`,
    /// `blocking_timeout`), which replaces the protocol's own acquire timeout; `None`
    /// otherwise.
    pub within_ms: Option<u64>,
}

impl LockIo<'_> {
    /// Sends `command` to `node`; its reply comes back to `Engine::on_reply` with `tag`.
    pub fn request(&mut self, node: ProcessId, tag: u16, command: Command) {
        let id = request_id(self.lock, tag);
        self.ctx.send(node, Msg::Request { id, command });
    }

    /// Sends any message (to Sentinel, to a token service).
    pub fn send(&mut self, to: ProcessId, msg: Msg) {
        self.ctx.send(to, msg);
    }

    pub fn set_timer(&mut self, timer: LockTimer, after_ms: u64) {
        let t = self.wrap(timer);
        self.ctx.set_timer(t, after_ms);
    }

    /// Sets `timer` to one of several durations (a choice the world explores).
    pub fn set_timer_among(
        &mut self,
        timer: LockTimer,
        after_ms: impl Into<std::sync::Arc<[u64]>>,
    ) {
        let t = self.wrap(timer);
        self.ctx.set_timer_among(t, after_ms);
    }

    pub fn cancel_timer(&mut self, timer: LockTimer) {
        let t = self.wrap(timer);
        self.ctx.cancel_timer(t);
    }

    pub fn now(&self) -> LocalNow {
        self.ctx.local_now()
    }

    fn wrap(&self, timer: LockTimer) -> Timer {
        Timer::Client(ClientTimer::Lock {
            lock: self.lock,
            timer,
        })
    }
}

/// The request id of `tag` for lock `lock`.
pub(crate) fn request_id(lock: u8, tag: u16) -> u32 {
    ((lock as u32) << 16) | tag as u32
}

/// The lock index and tag of a request id.
pub(crate) fn split_request_id(id: u32) -> (u8, u16) {
    ((id >> 16) as u8, id as u16)
}

/// A lock protocol's client side, for one lock.
pub trait Engine: Clone + Debug + Hash + Eq {
    type State: Clone + Debug + Hash + Eq;

    /// The state before the first acquisition.
    fn init(&self) -> Self::State;

    /// Start acquiring (the client is not holding it).
    fn acquire(&self, state: &mut Self::State, io: &mut LockIo);

    /// Start releasing (the client held it, or believes so); `Released` now when there is
    /// nothing to send (a lock object whose token another thread's release cleared).
    fn release(&self, state: &mut Self::State, io: &mut LockIo) -> Option<LockEvent>;

    /// Extend the lock the client holds, as the business code asks (`extend L`): an
    /// `Extended` or `NotExtended` event, now or later. The default has no extension.
    fn extend(
        &self,
        _state: &mut Self::State,
        _how: Extension,
        _io: &mut LockIo,
    ) -> Option<LockEvent> {
        Some(LockEvent::NotExtended)
    }

    /// The reply to this engine's request `tag` from `node`.
    fn on_reply(
        &self,
        state: &mut Self::State,
        node: ProcessId,
        tag: u16,
        reply: Reply,
        io: &mut LockIo,
    ) -> Option<LockEvent>;

    /// `node`'s host refused request `tag`'s connection (the node crashed), and the library
    /// raises it (`OnRefused::Fail`). The default takes it as an error reply.
    fn on_refused(
        &self,
        state: &mut Self::State,
        node: ProcessId,
        tag: u16,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        let error = Reply::Error(super::refused::CONNECTION_REFUSED.into());
        self.on_reply(state, node, tag, error, io)
    }

    /// One of this engine's timers fired.
    fn on_timer(
        &self,
        state: &mut Self::State,
        timer: LockTimer,
        io: &mut LockIo,
    ) -> Option<LockEvent>;

    /// A message published on a channel the client subscribed to.
    fn on_published(
        &self,
        _state: &mut Self::State,
        _channel: &[u8],
        _message: &[u8],
        _io: &mut LockIo,
    ) -> Option<LockEvent> {
        None
    }

    /// Another message for this engine (a token, Sentinel's answer).
    fn on_other(
        &self,
        _state: &mut Self::State,
        _from: ProcessId,
        _msg: Msg,
        _io: &mut LockIo,
    ) -> Option<LockEvent> {
        None
    }

    /// Feeds the state into a fingerprint, local times relative to `now`.
    fn hash_state(&self, state: &Self::State, _now: LocalNow, h: &mut FpHasher) {
        state.hash(h);
    }

    /// Value abstraction: feeds what of `state` can still matter once the client has
    /// finished all its rounds (it will never call `acquire` or `release` again) into a
    /// fingerprint. An engine may leave out only what, from then on, no reply, timer or
    /// message can read and no oracle reads. The default hashes everything.
    fn hash_finished_state(&self, state: &Self::State, now: LocalNow, h: &mut FpHasher) {
        self.hash_state(state, now, h);
    }

    /// Renewals that failed so far (for `sometimes` witnesses); 0 for protocols without any.
    fn failed_renewals(&self, _state: &Self::State) -> u32 {
        0
    }
}
