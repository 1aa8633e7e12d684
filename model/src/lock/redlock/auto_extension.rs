//! node-redlock 5's `using(resources, duration, routine)`: the lock is extended
//! automatically while the routine runs, read from `src/index.ts` at v5.0.0-beta.2
//! (`using`, 653-744, and `extend`, 369-416).
//!
//! - `queue()` sets a timer at `lock.expiration - Date.now() - automaticExtensionThreshold`
//!   (500 ms; at once if that passed). It runs on the process's timer, so a pause freezes
//!   it.
//! - When it fires, `extend` refuses a lock whose expiration passed (`Cannot extend an
//!   already-expired lock`); else it reads `start = Date.now()` and runs the extend script
//!   (`PX duration` where the key is still the lock's value, 1 if so) on every server, as
//!   many attempts and retry delays as an acquire; a quorum makes the new expiration `start
//!   + duration - drift` (unchecked), and `queue()` runs again.
//! - When every attempt failed, `using` extends again at once while `lock.expiration >
//!   Date.now()`, and otherwise aborts the routine's signal: [`LockEvent::Lost`], the stop
//!   event the business code may check (`checks_stop_event`).
//!
//! The extension's attempts follow the protocol's attempt rules (node-redlock 5's decide at
//! the first quorum either way and count from the extension's `start`). Left out: `using`
//! waiting for an extension in flight before it releases.

use super::sweep::Kind;
use super::watchdog::FAILED_RENEWALS_CAP;
use super::{Phase, Redlock, RedlockState, ValidityFrom, Watch};
use crate::lock::engine::{LockEvent, LockIo};
use crate::msg::LockTimer;

/// The automatic extension's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AutoExtension {
    /// Extend this long before the expiration (node-redlock 5: 500 ms).
    pub threshold_ms: u64,
}

impl Redlock {
    /// After an acquisition or an extension valid until `valid_until_ms` on the engine's
    /// clock: the next extension is due `threshold` before it.
    pub(super) fn queue_extension(
        &self,
        state: &mut RedlockState,
        valid_until_ms: i64,
        io: &mut LockIo,
    ) {
        let Some(ext) = self.auto_extension else {
            return;
        };
        state.valid_until_ms = valid_until_ms;
        let now = self.clock.read(io.now());
        let due_ms = valid_until_ms - now - ext.threshold_ms as i64;
        io.set_timer(LockTimer::Renew, due_ms.max(0) as u64);
        if let Phase::Holding { watch, .. } = &mut state.phase {
            *watch = Watch::Sleeping;
        }
    }

    /// The extension is due (or failed while the lock is still valid): extend, unless the
    /// lock already expired, which aborts the routine.
    pub(super) fn begin_extension(
        &self,
        state: &mut RedlockState,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        let now = self.clock.read(io.now());
        if state.valid_until_ms < now {
            return self.abort(state);
        }
        state.failed_attempts = 0;
        if self.rules.validity_from == ValidityFrom::FirstAttempt {
            state.first_started_ms = now;
        }
        self.extension_attempt(state, io);
        None
    }

    /// One attempt of the extension under way (automatic or the caller's).
    pub(super) fn extension_attempt(&self, state: &mut RedlockState, io: &mut LockIo) {
        let sweep = self.begin(&mut state.parities, Kind::Renew, io);
        if let Phase::Holding { watch, .. } = &mut state.phase {
            *watch = Watch::Renewing(sweep);
        }
    }

    /// The retry delay between two attempts of an extension (automatic or the caller's) is
    /// over.
    pub(super) fn retry_extension(&self, state: &mut RedlockState, io: &mut LockIo) {
        if matches!(
            state.phase,
            Phase::Holding {
                watch: Watch::Retrying,
                ..
            }
        ) {
            self.extension_attempt(state, io);
        }
    }

    /// An attempt of the extension is over: the new expiration, a retry, a new extension
    /// while the lock is valid, or the abort.
    pub(super) fn extension_over(
        &self,
        state: &mut RedlockState,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        let Phase::Holding {
            watch: watch @ Watch::Renewing(_),
            ..
        } = &mut state.phase
        else {
            return None;
        };
        let Watch::Renewing(sweep) = std::mem::replace(watch, Watch::Retrying) else {
            unreachable!("matched above");
        };
        let now = self.clock.read(io.now());
        if let Some(valid_until_ms) = self.holds_until(state, &sweep, now) {
            self.queue_extension(state, valid_until_ms, io);
            return Some(self.held_until(valid_until_ms));
        }
        state.failed_renewals = (state.failed_renewals + 1).min(FAILED_RENEWALS_CAP);
        if self.another_attempt(state) {
            io.set_timer_among(LockTimer::Retry, self.retry_ms.clone());
            return None;
        }
        if state.valid_until_ms > now {
            return self.begin_extension(state, io);
        }
        self.abort(state)
    }

    /// Counts a failed attempt of an extension (automatic or the caller's): whether the
    /// attempts allowed leave another.
    pub(super) fn another_attempt(&self, state: &mut RedlockState) -> bool {
        state.failed_attempts = state.failed_attempts.saturating_add(1);
        self.max_attempts
            .is_none_or(|max| state.failed_attempts < max)
    }

    /// The routine's signal is aborted: no more extensions.
    fn abort(&self, state: &mut RedlockState) -> Option<LockEvent> {
        if let Phase::Holding { watch, .. } = &mut state.phase {
            *watch = Watch::Stopped;
        }
        Some(LockEvent::Lost)
    }
}
