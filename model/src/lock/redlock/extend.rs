//! The business code's `extend L` on Redlock, in the three forms the libraries have
//! ([`ExtendRules`]). Each attempt runs the owner-checked extension (`if GET == value then
//! reset the TTL`, 1 if so) on the nodes as an acquire asks them, and holds until the new
//! validity under the protocol's attempt rules (where it counts from, whether it is
//! checked, when an attempt is decided).
//!
//! - redsync v4's `Extend()` (`mutex.go`, `ExtendContext`, at v4.17.0): `start`, the touch
//!   script (`PEXPIRE expiry`) everywhere at once; below a quorum it fails, with one
//!   `until = now + expiry - (now - start) - drift` checked against `now`. One attempt, no
//!   look at the old expiration, and a failed extension deletes nothing.
//! - node-redlock v4's `extend(lock, ttl)` (`redlock.js` at v4.2.0, 294-315 and `_lock`,
//!   347-445): it refuses a lock whose `expiration < Date.now()` ("the lock has already
//!   expired"); else it is `_lock` with the extend script (`SET key value PX ttl` where the
//!   key is still the value): each attempt checked from its own `start`, and after each
//!   failed one `lock.unlock()` deletes the key on every server before the retry delay, so
//!   one failed attempt gives the lock up and the retries find nothing to extend.
//! - node-redlock v5's `extend(existing, duration)` (`src/index.ts` at v5.0.0-beta.2,
//!   369-411): `start = Date.now()`, the same refusal of an expired lock, then `_execute`
//!   (retries without undoing anything); the new expiration `start + duration - drift`,
//!   never compared with the clock. A failed extension leaves the old lock as it was.
//!
//! The model runs the owner-checked `PEXPIRE` for node-redlock's `SET ... PX` as well: on
//! a string key holding the value both leave the value and set the TTL.
//!
//! Only an engine without a watchdog or automatic extension extends when asked (the loader
//! refuses `extend` for the others), so a renewal sweep under way on such an engine is the
//! caller's.

use super::sweep::Kind;
use super::{Phase, Redlock, RedlockState, ValidityFrom, Watch};
use crate::lock::engine::{Deadline, Extension, LockEvent, LockIo};
use crate::msg::LockTimer;

/// How the caller's extension goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtendRules {
    /// Refuse at once when the lock's expiration, as the client believes it, has passed
    /// (node-redlock: `lock.expiration < Date.now()`).
    pub checks_expiration: bool,
    /// As many attempts and retry delays as an acquire (node-redlock); else one (redsync).
    pub retries: bool,
    /// Delete the key on every node after each failed attempt (node-redlock 4's `_lock`).
    pub unlocks_after_failure: bool,
    /// Set the key again where it is gone (redsync's `WithSetNXOnExtend`: the extension runs
    /// `touchWithSetNXScript`, `SET NX` where the key is missing), for every extension and
    /// renewal.
    pub sets_nx: bool,
}

impl ExtendRules {
    /// redsync v4's `Extend`, and the default.
    pub const REDSYNC: ExtendRules = ExtendRules {
        checks_expiration: false,
        retries: false,
        unlocks_after_failure: false,
        sets_nx: false,
    };

    /// node-redlock v4.2.0's `extend`.
    pub const NODE_REDLOCK_4: ExtendRules = ExtendRules {
        checks_expiration: true,
        retries: true,
        unlocks_after_failure: true,
        sets_nx: false,
    };

    /// node-redlock v5.0.0-beta.2's `extend`.
    pub const NODE_REDLOCK_5: ExtendRules = ExtendRules {
        checks_expiration: true,
        retries: true,
        unlocks_after_failure: false,
        sets_nx: false,
    };

    pub fn is_redsync(&self) -> bool {
        *self == ExtendRules::REDSYNC
    }
}

impl Default for ExtendRules {
    fn default() -> Self {
        ExtendRules::REDSYNC
    }
}

impl Redlock {
    /// Whether the engine keeps the lock's expiration as the client believes it: an
    /// extension reads it.
    pub(super) fn keeps_expiration(&self) -> bool {
        self.auto_extension.is_some() || self.extend.checks_expiration
    }

    /// The client now believes the lock valid until `at_ms` (engine clock).
    pub(super) fn believe_until(&self, state: &mut RedlockState, at_ms: i64) {
        if self.keeps_expiration() {
            state.valid_until_ms = at_ms;
        }
    }

    /// Starts the extension: `NotExtended` at once without a hold whose watch is off (a
    /// watchdog's or an automatic extension's never is), for a form Redlock's libraries do
    /// not have (`by` or `to` a duration), or for an expired lock when the rules check it.
    pub(super) fn begin_caller_extension(
        &self,
        state: &mut RedlockState,
        how: Extension,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        let idle = matches!(
            state.phase,
            Phase::Holding {
                watch: Watch::Off,
                ..
            }
        );
        let now = self.clock.read(io.now());
        let expired = self.extend.checks_expiration && state.valid_until_ms < now;
        if !idle || how != Extension::Ttl || expired {
            return Some(LockEvent::NotExtended);
        }
        state.failed_attempts = 0;
        if self.rules.validity_from == ValidityFrom::FirstAttempt {
            state.first_started_ms = now;
        }
        self.extension_attempt(state, io);
        None
    }

    /// An attempt of the caller's extension is over: extended until the new validity, or
    /// its failure undone, retried or reported.
    pub(super) fn caller_extension_over(
        &self,
        state: &mut RedlockState,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        let Phase::Holding { watch, .. } = &mut state.phase else {
            return None;
        };
        let Watch::Renewing(sweep) = std::mem::replace(watch, Watch::Off) else {
            return None;
        };
        let now = self.clock.read(io.now());
        if let Some(at_ms) = self.holds_until(state, &sweep, now) {
            state.failed_attempts = 0;
            self.believe_until(state, at_ms);
            return Some(LockEvent::Extended {
                valid_until: Some(Deadline {
                    clock: self.clock,
                    at_ms,
                }),
            });
        }
        if !self.extend.unlocks_after_failure {
            return self.retry_caller_extension(state, io);
        }
        let undo = self.begin(&mut state.parities, Kind::Release, io);
        if let Phase::Holding { watch, .. } = &mut state.phase {
            *watch = Watch::Undoing(undo);
        }
        None
    }

    /// A failed attempt of the caller's extension is behind (and undone where the rules
    /// undo it): wait the retry delay if attempts are left, else report the failure.
    pub(super) fn retry_caller_extension(
        &self,
        state: &mut RedlockState,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        let left = self.another_attempt(state);
        let Phase::Holding { watch, .. } = &mut state.phase else {
            return None;
        };
        if self.extend.retries && left {
            *watch = Watch::Retrying;
            io.set_timer_among(LockTimer::Retry, self.retry_ms.clone());
            return None;
        }
        *watch = Watch::Off;
        state.failed_attempts = 0;
        Some(LockEvent::NotExtended)
    }
}
