//! Redisson's `RLock` (seed 003: Redisson 3.17.7), for one lock of one client thread.
//!
//! The idea: the lock is a Redis hash `{ "<uuid>:<threadId>": count }` and every step on it is
//! one of Redisson's Lua scripts ([`LockScript`](crate::redis::LockScript)); the client is the Java code around them:
//! - **acquire** (`lock()` / `tryLock(wait, lease)`): the acquire script; nil means acquired,
//!   an integer is the lock's PTTL. Then, as `RedissonLock#lock`: `SUBSCRIBE
//!   redisson_lock__channel:{key}`, try again, and while refused wait on the entry's latch for
//!   an unlock message *or* the PTTL (expiry publishes nothing), whichever comes first, and
//!   try again. The latch is a semaphore: an unlock message that arrives while an attempt is
//!   in flight is kept as a permit and makes the next wait return at once. `tryLock` measures
//!   its wait on the wall clock (`System.currentTimeMillis`), checks it after every step and
//!   waits at most what is left; past it, [`LockEvent::GaveUp`]. An error or a timeout of a
//!   request leaves `lock()` as an exception: also `GaveUp`.
//! - **lease**: `lock()` without a lease takes the watchdog's lease (`lockWatchdogTimeout`, 30 s)
//!   and starts the watchdog; an explicit lease has no watchdog at all.
//! - **watchdog** (`renewExpiration`): `lease / 3` after the acquire reply, and again `lease /
//!   3` after each renewal's reply, on the process's own timer (a pause freezes it), the renew
//!   script runs. 1: schedule the next; 0 (the field is gone): stop, silently — the holder is
//!   never told and keeps believing (seed 003's incident); an error or no reply within the
//!   request timeout: up to 3.43 stop for good ("only a log line, no compensation"), from 3.44
//!   try again at the next tick.
//! - **release**: the release script (it deletes the hash and publishes the unlock message
//!   when the count reaches 0); whatever the answer (nil is Java's
//!   `IllegalMonitorStateException`), the release is over and the watchdog stops.
//!
//! - **servers** (`servers.rs`): one server, or a master with replicas where every lock script
//!   is followed by `WAIT` and "None of slaves were synced" fails the call; under Sentinel the
//!   master is asked for at the first acquire and every `scanInterval`.
//!
//! The client believes from the acquire until it releases: no validity deadline. Request tags
//! are a request kind plus a 2-bit sequence number, so a late answer (to a timed-out request)
//! is told apart from the current one; the state holds no counter that grows without bound.

mod fair;
mod names;
mod params;
mod resend;
mod servers;
mod watchdog;

pub use fair::FairLock;
pub use resend::{Resend, Retries};
pub use servers::{NoneSynced, ReplicaSync, Servers, NONE_SYNCED};

use super::engine::{Engine, LockEvent, LockIo};
use crate::msg::{LockTimer, Msg};
use crate::redis::{Command, Reply, UNLOCK_MESSAGE};
use lockcheck_sim::world::{LocalNow, ProcessId};
use lockcheck_sim::FpHasher;
use std::hash::{Hash, Hasher};

/// How long the lock is leased.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lease {
    /// `lock()` / `tryLock(wait)`: the watchdog's lease, renewed every third of it.
    Watchdog,
    /// `lock(lease)` / `tryLock(wait, lease)`: this many ms, never renewed.
    Explicit(u64),
}

/// What the watchdog does when a renewal fails with an error or times out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Generation {
    /// Up to 3.43 (seed 003's 3.17.7): log and stop renewing for good.
    UpTo3_43,
    /// From 3.44: log and renew again at the next tick.
    From3_44,
}

/// Parameters of a Redisson `RLock` client.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Redisson {
    /// The Redis master the client talks to.
    pub node: ProcessId,
    pub lease: Lease,
    /// `lockWatchdogTimeout`: the lease under a watchdog (30 s in Redisson).
    pub watchdog_timeout_ms: u64,
    /// `tryLock`'s wait time (`None`: `lock()`, wait for ever).
    pub wait_ms: Option<u64>,
    pub generation: Generation,
    /// A request without an answer after this long fails (Redisson's `timeout`, 3 s, stands
    /// here for the whole time until the command future fails; resends are not modelled).
    pub request_timeout_ms: u64,
    /// One server, a master with replicas, or a master found through Sentinel.
    pub servers: Servers,
    /// `getFairLock`: waiters queue and are woken in order (module `fair`).
    pub fair: Option<FairLock>,
    /// `retryAttempts` and `retryInterval`: a command without an answer is written again
    /// (module `resend`).
    pub retries: Retries,
}

/// Where the acquisition, holding or release stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RedissonPhase {
    Idle,
    /// The acquire script `tag` is in flight; `looping` once subscribed (the `while` loop).
    Acquiring {
        tag: u16,
        looping: bool,
    },
    /// The `SUBSCRIBE` `tag` is in flight.
    Subscribing {
        tag: u16,
    },
    /// On the latch: an unlock message or the `WaitTtl` timer ends the wait.
    Waiting,
    Holding,
    /// The release script `tag` is in flight.
    Releasing {
        tag: u16,
    },
    /// An acquire failed for want of a synced replica; its unlock script `tag` is in flight
    /// ([`NoneSynced::UnlockAndFail`]), and then the acquire gives up.
    Undoing {
        tag: u16,
    },
    /// Under Sentinel, the first acquire waits for Sentinel to name the master (request
    /// `tag`: its timeout).
    Connecting {
        tag: u16,
    },
}

/// The watchdog of the lock held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Watchdog {
    Off,
    /// The `Renew` timer runs.
    Ticking,
    /// The renew script `tag` is in flight.
    Renewing {
        tag: u16,
    },
}

/// A Redisson engine's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RedissonState {
    pub phase: RedissonPhase,
    /// `tryLock`: the wall-clock reading at which the wait is over.
    pub wait_until: Option<i64>,
    /// Unlock messages the latch holds (saturating at [`PERMIT_CAP`]).
    pub permits: u8,
    /// Subscribed to the unlock channel (the client stays subscribed).
    pub subscribed: bool,
    pub watchdog: Watchdog,
    /// Renewals answered 0, with an error, or not in time while the client held the lock (not
    /// while releasing: a renewal that crosses the release finds the field gone by design);
    /// saturating at [`FAILED_CAP`].
    pub failed_renewals: u8,
    /// The sequence number of the next request tag (mod [`TAG_SEQS`]).
    pub seq: u8,
    /// The requests Redisson may write again (module `resend`).
    pub resends: Vec<Resend>,
    /// The master requests go to: `node`, or Sentinel's last answer.
    pub master: ProcessId,
    /// `availableSlaves`: the replicas the next `WAIT` asks for.
    pub replicas: u8,
    /// The batch whose `WAIT` is still out: its script's tag, and the script's reply once
    /// it came (held until the `WAIT` answers).
    pub batch: Option<(u16, Option<Reply>)>,
    /// The Sentinel scan runs.
    pub scanning: bool,
}

/// The latch keeps at most this many unlock messages (each only makes one wait return at once).
pub const PERMIT_CAP: u8 = 2;
/// Failed renewals are counted up to this many (enough for `sometimes` witnesses).
pub const FAILED_CAP: u8 = 3;
/// Request tags cycle through this many sequence numbers (one counter for all kinds).
pub const TAG_SEQS: u8 = 4;
/// Redisson's thread id in the hash field (one business thread per client).
pub(crate) const THREAD_ID: &[u8] = b"1";

const ACQUIRE: u16 = 0x100;
const SUBSCRIBE: u16 = 0x200;
const RELEASE: u16 = 0x300;
const RENEW: u16 = 0x400;
const CONNECT: u16 = 0x500;

impl Redisson {
    /// `lock()` on `node` as Redisson ships it: watchdog lease 30 s, request timeout 3 s, the
    /// 3.17 generation.
    pub fn lock(node: ProcessId) -> Self {
        Redisson {
            node,
            lease: Lease::Watchdog,
            watchdog_timeout_ms: 30_000,
            wait_ms: None,
            generation: Generation::UpTo3_43,
            request_timeout_ms: 3_000,
            servers: Servers::Single,
            fair: None,
            retries: Retries::NONE,
        }
    }

    /// `internalLockLeaseTime`: the lease the scripts set.
    pub fn lease_ms(&self) -> u64 {
        match self.lease {
            Lease::Watchdog => self.watchdog_timeout_ms,
            Lease::Explicit(ms) => ms,
        }
    }

    /// The watchdog's period (`internalLockLeaseTime / 3`, integer division as in Java).
    pub(crate) fn renew_every_ms(&self) -> u64 {
        self.watchdog_timeout_ms / 3
    }

    /// Sends `command` as a new request of `kind`, with a timeout; returns its tag.
    fn send(&self, state: &mut RedissonState, kind: u16, command: Command, io: &mut LockIo) -> u16 {
        let tag = Self::next_tag(state, kind);
        let timeout = match kind {
            SUBSCRIBE => {
                io.request(state.master, tag, command);
                self.time_left(state, io)
                    .map_or(self.request_timeout_ms, |left| {
                        self.request_timeout_ms.min(left.max(0) as u64)
                    })
            }
            _ => {
                if self.resends(kind) {
                    Self::book(state, tag, &command);
                }
                self.send_script(state, tag, command, io)
            }
        };
        io.set_timer(LockTimer::RequestTimeout(tag), timeout);
        tag
    }

    /// A new request tag of `kind` (the sequence number moves on).
    fn next_tag(state: &mut RedissonState, kind: u16) -> u16 {
        let tag = kind | state.seq as u16;
        state.seq = (state.seq + 1) % TAG_SEQS;
        tag
    }

    /// `tryLock`'s time left (`None` under `lock()`).
    fn time_left(&self, state: &RedissonState, io: &LockIo) -> Option<i64> {
        state.wait_until.map(|until| until - io.now().wall_ms)
    }

    fn out_of_time(&self, state: &RedissonState, io: &LockIo) -> bool {
        self.time_left(state, io).is_some_and(|left| left <= 0)
    }

    // --- acquiring ---

    /// One `tryAcquire`: the acquire script.
    fn attempt(&self, state: &mut RedissonState, looping: bool, io: &mut LockIo) {
        let script = self.acquire_script(io);
        let tag = self.send(state, ACQUIRE, Command::Script(script), io);
        state.phase = RedissonPhase::Acquiring { tag, looping };
    }

    /// The answer to an attempt (`None`: it timed out).
    fn on_attempt(
        &self,
        state: &mut RedissonState,
        looping: bool,
        answer: Option<Reply>,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        match answer {
            Some(Reply::Bulk(None)) => Some(self.acquired(state, io)),
            Some(Reply::Integer(ttl)) if looping => self.wait_on_latch(state, ttl, io),
            Some(Reply::Integer(_)) => self.subscribe(state, io),
            Some(Reply::Error(e)) if e == NONE_SYNCED && self.undoes_unsynced() => {
                self.leave_loop(state, RedissonPhase::Idle, io);
                let tag = self.send_release(state, io);
                state.phase = RedissonPhase::Undoing { tag };
                None
            }
            _ => Some(self.give_up(state, io)),
        }
    }

    fn undoes_unsynced(&self) -> bool {
        self.servers
            .sync()
            .is_some_and(|s| s.none_synced == NoneSynced::UnlockAndFail)
    }

    /// First refusal: subscribe to the unlock channel (at once if already subscribed).
    fn subscribe(&self, state: &mut RedissonState, io: &mut LockIo) -> Option<LockEvent> {
        if self.out_of_time(state, io) {
            return Some(self.give_up(state, io));
        }
        if state.subscribed {
            self.attempt(state, true, io);
            return None;
        }
        let channels = vec![self.latch_channel(io)];
        let tag = self.send(state, SUBSCRIBE, Command::Subscribe { channels }, io);
        state.phase = RedissonPhase::Subscribing { tag };
        None
    }

    fn on_subscribed(
        &self,
        state: &mut RedissonState,
        answer: Option<Reply>,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        match answer {
            Some(reply) if !reply.is_error() => {
                state.subscribed = true;
                if self.out_of_time(state, io) {
                    return Some(self.give_up(state, io));
                }
                self.attempt(state, true, io);
                None
            }
            _ => Some(self.give_up(state, io)),
        }
    }

    /// Refused in the loop: wait for an unlock message, at most `ttl` (and what `tryLock` has
    /// left); a negative `ttl` (no expiry) waits for the message only.
    fn wait_on_latch(
        &self,
        state: &mut RedissonState,
        ttl: i64,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        if self.out_of_time(state, io) {
            return Some(self.give_up(state, io));
        }
        if state.permits > 0 {
            state.permits -= 1;
            self.attempt(state, true, io);
            return None;
        }
        let wait = match self.time_left(state, io) {
            None => (ttl >= 0).then_some(ttl),
            Some(left) if ttl >= 0 && ttl < left => Some(ttl),
            Some(left) => Some(left),
        };
        state.phase = RedissonPhase::Waiting;
        if let Some(ms) = wait {
            io.set_timer(LockTimer::WaitTtl, ms as u64);
        }
        None
    }

    /// The latch returned (a message or the timer): give up if the wait is over, else retry.
    fn woken(&self, state: &mut RedissonState, io: &mut LockIo) -> Option<LockEvent> {
        io.cancel_timer(LockTimer::WaitTtl);
        if self.out_of_time(state, io) {
            return Some(self.give_up(state, io));
        }
        self.attempt(state, true, io);
        None
    }

    fn acquired(&self, state: &mut RedissonState, io: &mut LockIo) -> LockEvent {
        self.leave_loop(state, RedissonPhase::Holding, io);
        if self.lease == Lease::Watchdog {
            self.schedule_renewal(state, io);
        }
        LockEvent::Acquired {
            valid_until: None,
            token: None,
        }
    }

    fn give_up(&self, state: &mut RedissonState, io: &mut LockIo) -> LockEvent {
        self.leave_queue(state, io);
        self.leave_loop(state, RedissonPhase::Idle, io);
        LockEvent::GaveUp
    }

    /// Out of the acquire loop (Redisson unsubscribes its latch entry: permits are gone).
    fn leave_loop(&self, state: &mut RedissonState, phase: RedissonPhase, io: &mut LockIo) {
        io.cancel_timer(LockTimer::WaitTtl);
        state.phase = phase;
        state.wait_until = None;
        state.permits = 0;
    }

    /// Sends the release script; returns its tag.
    fn send_release(&self, state: &mut RedissonState, io: &mut LockIo) -> u16 {
        let script = self.release_script(io);
        self.send(state, RELEASE, Command::Script(script), io)
    }

    // --- answers and timeouts ---

    /// Routes the answer to request `tag` (`None`: it timed out); late answers are dropped.
    fn on_answer(
        &self,
        state: &mut RedissonState,
        tag: u16,
        answer: Option<Reply>,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        if state.watchdog == (Watchdog::Renewing { tag }) {
            self.on_renewal(state, answer, io);
            return None;
        }
        match state.phase {
            RedissonPhase::Acquiring { tag: t, looping } if t == tag => {
                self.on_attempt(state, looping, answer, io)
            }
            RedissonPhase::Subscribing { tag: t } if t == tag => {
                self.on_subscribed(state, answer, io)
            }
            RedissonPhase::Releasing { tag: t } if t == tag => {
                self.stop_watchdog(state, io);
                state.phase = RedissonPhase::Idle;
                Some(LockEvent::Released)
            }
            RedissonPhase::Connecting { tag: t } if t == tag => Some(self.give_up(state, io)),
            RedissonPhase::Undoing { tag: t } if t == tag => {
                state.phase = RedissonPhase::Idle;
                Some(LockEvent::GaveUp)
            }
            _ => None,
        }
    }
}

impl Engine for Redisson {
    type State = RedissonState;

    fn init(&self) -> RedissonState {
        RedissonState {
            phase: RedissonPhase::Idle,
            wait_until: None,
            permits: 0,
            subscribed: false,
            watchdog: Watchdog::Off,
            failed_renewals: 0,
            seq: 0,
            resends: Vec::new(),
            master: self.node,
            replicas: self.servers.sync().map_or(0, |s| s.replicas),
            batch: None,
            scanning: false,
        }
    }

    fn acquire(&self, state: &mut RedissonState, io: &mut LockIo) {
        state.wait_until = io
            .within_ms
            .or(self.wait_ms)
            .map(|ms| io.now().wall_ms + ms as i64);
        state.permits = 0;
        if !self.connect(state, io) {
            self.attempt(state, false, io);
        }
    }

    fn release(&self, state: &mut RedissonState, io: &mut LockIo) -> Option<LockEvent> {
        self.leave_loop(state, RedissonPhase::Idle, io);
        let tag = self.send_release(state, io);
        state.phase = RedissonPhase::Releasing { tag };
        None
    }

    fn on_reply(
        &self,
        state: &mut RedissonState,
        _node: ProcessId,
        tag: u16,
        reply: Reply,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        let (tag, reply) = self.batch_answer(state, tag, reply)?;
        Self::answered(state, tag, io);
        // A late answer's timeout has fired already: cancelling it is a no-op.
        io.cancel_timer(LockTimer::RequestTimeout(tag));
        self.on_answer(state, tag, Some(reply), io)
    }

    fn on_timer(
        &self,
        state: &mut RedissonState,
        timer: LockTimer,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        match timer {
            LockTimer::RequestTimeout(tag) if self.retry_later(state, tag, io) => None,
            LockTimer::RequestTimeout(tag) => {
                self.forget_batch(state, tag);
                self.on_answer(state, tag, None, io)
            }
            LockTimer::Resend(tag) => {
                self.resend(state, tag, io);
                None
            }
            LockTimer::SentinelScan => {
                self.scan(io);
                None
            }
            LockTimer::WaitTtl if state.phase == RedissonPhase::Waiting => self.woken(state, io),
            LockTimer::Renew if state.watchdog == Watchdog::Ticking => {
                self.renew(state, io);
                None
            }
            _ => None,
        }
    }

    /// A refused connection is retried as a timeout is, else it fails the call at once.
    fn on_refused(
        &self,
        state: &mut RedissonState,
        node: ProcessId,
        tag: u16,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        if self.retry_later(state, tag, io) {
            io.cancel_timer(LockTimer::RequestTimeout(tag));
            return None;
        }
        let error = Reply::Error(crate::lock::refused::CONNECTION_REFUSED.into());
        self.on_reply(state, node, tag, error, io)
    }

    fn on_published(
        &self,
        state: &mut RedissonState,
        channel: &[u8],
        message: &[u8],
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        if message != UNLOCK_MESSAGE || channel != self.latch_channel(io) {
            return None;
        }
        match state.phase {
            RedissonPhase::Waiting => self.woken(state, io),
            RedissonPhase::Acquiring { looping: true, .. } => {
                state.permits = (state.permits + 1).min(PERMIT_CAP);
                None
            }
            _ => None,
        }
    }

    fn on_other(
        &self,
        state: &mut RedissonState,
        _from: ProcessId,
        msg: Msg,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        self.on_master_is(state, &msg, io);
        None
    }

    fn hash_state(&self, state: &RedissonState, now: LocalNow, h: &mut FpHasher) {
        (state.phase, state.permits, state.subscribed, state.watchdog).hash(h);
        (state.failed_renewals, state.seq).hash(h);
        if !state.resends.is_empty() {
            state.resends.hash(h);
        }
        match state.wait_until {
            None => h.write_u8(0),
            Some(until) => {
                h.write_u8(1);
                h.write_time_left(until - now.wall_ms, 0);
            }
        }
        if self.servers != Servers::Single {
            (state.master, state.replicas, &state.batch).hash(h);
            state.scanning.hash(h);
        }
    }

    fn failed_renewals(&self, state: &RedissonState) -> u32 {
        state.failed_renewals as u32
    }
}
