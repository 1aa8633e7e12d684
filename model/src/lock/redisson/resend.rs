//! Redisson's own re-sends of a command (`RedisExecutor` at redisson-3.17.7), so one call can
//! run its script on the server more than once.
//!
//! The idea: Redisson writes a command and waits `timeout` (3 s) for the reply; with no
//! reply and re-sends left (`attempt < retryAttempts`, 3), it cancels that attempt (a late
//! reply to it is ignored), waits `retryInterval` (1.5 s) and writes the command again
//! (`scheduleResponseTimeout`, 335-391, `isResendAllowed`, 393-397: every command but the
//! blocking ones and `NO_RETRY`, which holds no `EVAL`). A connection that fails (refused)
//! is retried the same way, `retryInterval` after the attempt began
//! (`scheduleRetryTimeout`, 224-304), and fails the call at once on the last attempt
//! (150-162). With 3 attempts the call fails 16.5 s after the first write when the server
//! never answers: 4 writes, each waited for 3 s, 1.5 s apart. The code that called waits
//! all along: it sees one answer, or one failure at the end.
//!
//! Modelled for scripts to one server (a batch with `WAIT` and `SUBSCRIBE`, which goes
//! through the pub/sub connection, are written once); a refused connection is retried
//! `retryInterval` after the refusal arrives (a round trip later than Redisson's timer,
//! which starts at the write).

use super::{Redisson, RedissonPhase, RedissonState, Servers, Watchdog, SUBSCRIBE};
use crate::lock::engine::LockIo;
use crate::msg::LockTimer;
use crate::redis::Command;

/// Redisson's retry settings (`Config`'s `retryAttempts` and `retryInterval`; its `timeout`
/// is the engine's `request_timeout_ms`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Retries {
    /// `retryAttempts`: how many times a command is written again.
    pub attempts: u8,
    /// `retryInterval`: the wait before each new write, in ms.
    pub interval_ms: u64,
}

impl Retries {
    /// Written once, failed at its first timeout or refusal.
    pub const NONE: Retries = Retries {
        attempts: 0,
        interval_ms: 0,
    };
    /// Redisson's defaults (`BaseConfig` 55-59 at redisson-3.17.7): 3 attempts, 1.5 s apart.
    pub const REDISSON: Retries = Retries {
        attempts: 3,
        interval_ms: 1_500,
    };
}

/// A command Redisson may write again.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Resend {
    /// The tag of its latest write.
    pub tag: u16,
    /// Writes after the first, so far.
    pub attempt: u8,
    /// Waiting out `retryInterval` (the `Resend` timer runs).
    pub waiting: bool,
    pub command: Command,
}

impl Redisson {
    /// Whether a request of `kind` is written again when it gets no answer.
    pub(super) fn resends(&self, kind: u16) -> bool {
        self.retries.attempts > 0 && self.servers == Servers::Single && kind != SUBSCRIBE
    }

    /// Books `command`, just written as `tag`.
    pub(super) fn book(state: &mut RedissonState, tag: u16, command: &Command) {
        state.resends.push(Resend {
            tag,
            attempt: 0,
            waiting: false,
            command: command.clone(),
        });
    }

    /// Request `tag` got its answer: nothing more to write, and a write waiting for its
    /// interval (a late answer to an earlier write) is not written again.
    pub(super) fn answered(state: &mut RedissonState, tag: u16, io: &mut LockIo) {
        if state.resends.iter().any(|r| r.tag == tag && r.waiting) {
            io.cancel_timer(LockTimer::Resend(tag));
        }
        state.resends.retain(|r| r.tag != tag);
    }

    /// Request `tag` timed out or was refused. Whether Redisson goes on with it: a write
    /// waiting for its interval already (a refusal of an earlier write), or a new wait when
    /// attempts are left; otherwise it is forgotten and the call fails.
    pub(super) fn retry_later(&self, state: &mut RedissonState, tag: u16, io: &mut LockIo) -> bool {
        let Some(i) = state.resends.iter().position(|r| r.tag == tag) else {
            return false;
        };
        let r = &mut state.resends[i];
        if r.waiting {
            return true;
        }
        if r.attempt >= self.retries.attempts {
            state.resends.remove(i);
            return false;
        }
        r.waiting = true;
        io.set_timer(LockTimer::Resend(tag), self.retries.interval_ms);
        true
    }

    /// `retryInterval` is over: request `tag` is written again under a new tag, which its
    /// place in the phase or the watchdog takes, so that a late reply to the earlier write
    /// is ignored.
    pub(super) fn resend(&self, state: &mut RedissonState, tag: u16, io: &mut LockIo) {
        let Some(i) = state.resends.iter().position(|r| r.tag == tag && r.waiting) else {
            return;
        };
        let new = Self::next_tag(state, tag & !(super::TAG_SEQS as u16 - 1));
        retag(state, tag, new);
        let r = &mut state.resends[i];
        r.tag = new;
        r.attempt += 1;
        r.waiting = false;
        io.request(state.master, new, r.command.clone());
        io.set_timer(LockTimer::RequestTimeout(new), self.request_timeout_ms);
    }
}

/// The phase or watchdog that waits for request `old` waits for `new` instead.
fn retag(state: &mut RedissonState, old: u16, new: u16) {
    match &mut state.phase {
        RedissonPhase::Acquiring { tag, .. }
        | RedissonPhase::Subscribing { tag }
        | RedissonPhase::Releasing { tag }
        | RedissonPhase::Undoing { tag }
        | RedissonPhase::Connecting { tag }
            if *tag == old =>
        {
            *tag = new
        }
        _ => {}
    }
    if state.watchdog == (Watchdog::Renewing { tag: old }) {
        state.watchdog = Watchdog::Renewing { tag: new };
    }
}
