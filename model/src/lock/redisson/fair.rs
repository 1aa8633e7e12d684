//! Redisson's fair lock (`RedissonFairLock`, `getFairLock(name)`, read at 3.17.7): the same
//! client loop as `RLock`'s, with the fair-lock scripts (module `redis::fair_scripts`) and
//! one unlock channel per waiter.
//!
//! - Each attempt sends the acquire script with `wait` = `tryLock`'s wait time, or
//!   `threadWaitTime` (5 min by default) under `lock()`, and `now` =
//!   `System.currentTimeMillis()`, the client's wall clock: the queue's timeouts are in the
//!   clients' clocks, so a client whose clock runs ahead takes the others for stale.
//! - A refused client subscribes to `redisson_lock__channel:{name}:<uuid>:<threadId>`, its
//!   own channel: a release wakes the head of the queue only.
//! - The release script wakes the next waiter even when the lock had expired.
//! - `tryLock` out of time runs `acquireFailedAsync`: the client leaves the queue and the
//!   timeouts behind it shrink by `wait`. The model sends it and reports the failure at
//!   once (the Java call waits for its answer; nothing else happens on that thread
//!   meanwhile). Left out: `lock()` interrupted.
//!
//! A queued waiter that dies (a crash, a process that never asks again) stays at the head
//! of the queue until its timeout passes: up to `threadWaitTime` after it queued, nobody
//! else may take the free lock.

use super::{Redisson, RedissonState};
use crate::lock::engine::LockIo;
use crate::redis::{Command, FairScript, LockScript};

/// The fair lock's parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FairLock {
    /// `threadWaitTime`: how long a waiter keeps its place (Redisson: 5 min).
    pub thread_wait_ms: u64,
}

/// A request that leaves the queue (its answer is not waited for).
pub(super) const LEAVE: u16 = 0x600;

impl FairLock {
    /// `getFairLock(name)`: `threadWaitTime` 5 min.
    pub const REDISSON: FairLock = FairLock {
        thread_wait_ms: 300_000,
    };
}

impl Redisson {
    /// The acquire script of this lock (fair or not).
    pub(super) fn acquire_script(&self, io: &LockIo) -> LockScript {
        let (key, field) = (io.key.to_vec(), Self::field(io.owner));
        let lease_ms = self.lease_ms() as i64;
        match self.fair {
            None => LockScript::RedissonAcquire {
                key,
                field,
                lease_ms,
            },
            Some(_) => LockScript::Fair(FairScript::Acquire {
                queue: queue(io.key),
                timeouts: timeouts(io.key),
                key,
                field,
                lease_ms,
                wait_ms: self.queue_wait_ms(io),
                now_ms: io.now().wall_ms,
            }),
        }
    }

    /// The release script of this lock (fair or not).
    pub(super) fn release_script(&self, io: &LockIo) -> LockScript {
        let (key, field) = (io.key.to_vec(), Self::field(io.owner));
        let (channel, lease_ms) = (Self::channel(io.key), self.lease_ms() as i64);
        match self.fair {
            None => LockScript::RedissonRelease {
                key,
                channel,
                field,
                lease_ms,
            },
            Some(_) => LockScript::Fair(FairScript::Release {
                queue: queue(io.key),
                timeouts: timeouts(io.key),
                key,
                channel,
                field,
                lease_ms,
                now_ms: io.now().wall_ms,
            }),
        }
    }

    /// The channel this client's latch listens on: the lock's, or (fair) its own.
    pub(super) fn latch_channel(&self, io: &LockIo) -> Vec<u8> {
        let channel = Self::channel(io.key);
        match self.fair {
            None => channel,
            Some(_) => [channel.as_slice(), b":", &Self::field(io.owner)].concat(),
        }
    }

    /// `tryLock` gave up: a fair lock's waiter leaves the queue.
    pub(super) fn leave_queue(&self, state: &mut RedissonState, io: &mut LockIo) {
        if self.fair.is_none() || state.wait_until.is_none() {
            return;
        }
        let script = FairScript::AcquireFailed {
            queue: queue(io.key),
            timeouts: timeouts(io.key),
            field: Self::field(io.owner),
            wait_ms: self.queue_wait_ms(io),
        };
        self.send(state, LEAVE, Command::Script(LockScript::Fair(script)), io);
    }

    /// `wait` in the scripts: `tryLock`'s wait time (the step's `within`, else the
    /// protocol's), else `threadWaitTime`.
    fn queue_wait_ms(&self, io: &LockIo) -> i64 {
        let thread_wait_ms = self.fair.map_or(0, |f| f.thread_wait_ms);
        io.within_ms.or(self.wait_ms).unwrap_or(thread_wait_ms) as i64
    }
}

/// `redisson_lock_queue:{<key>}`.
fn queue(key: &[u8]) -> Vec<u8> {
    [b"redisson_lock_queue:{", key, b"}"].concat()
}

/// `redisson_lock_timeout:{<key>}`.
fn timeouts(key: &[u8]) -> Vec<u8> {
    [b"redisson_lock_timeout:{", key, b"}"].concat()
}
