//! The business code's `extend L` on Redlock: redsync v4's `Extend()` (`mutex.go`,
//! `ExtendContext`, at v4.17.0).
//!
//! - It reads `start`, runs the touch script (`if GET == value then PEXPIRE expiry`, the
//!   owner-checked `PEXPIRE` the seed's watchdog sends) on every node at once, and counts
//!   the 1s.
//! - Below a quorum it fails. With a quorum, `until = now + expiry - (now - start) - drift`,
//!   and it succeeds only if `now` is before it: the validity counted from the extension's
//!   start, checked (the protocol's attempt rules say where it counts from and whether it
//!   is checked).
//! - There is no retry, and a failed extension deletes nothing.
//!
//! Only an engine without a watchdog or automatic extension extends when asked (the loader
//! refuses `extend` for the others), so a renewal sweep under way on such an engine is the
//! caller's.

use super::sweep::Kind;
use super::{Phase, Redlock, RedlockState, ValidityFrom, Watch};
use crate::lock::engine::{Deadline, Extension, LockEvent, LockIo};

impl Redlock {
    /// Starts the extension: `NotExtended` at once without a hold whose watch is off (a
    /// watchdog's or an automatic extension's never is), or for a form redsync does not
    /// have (`by` or `to` a duration).
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
        if !idle || how != Extension::Ttl {
            return Some(LockEvent::NotExtended);
        }
        if self.rules.validity_from == ValidityFrom::FirstAttempt {
            state.first_started_ms = self.clock.read(io.now());
        }
        let sweep = self.begin(&mut state.parities, Kind::Renew, io);
        if let Phase::Holding { watch, .. } = &mut state.phase {
            *watch = Watch::Renewing(sweep);
        }
        None
    }

    /// Every node answered or timed out: extended until the new validity, or not.
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
        Some(match self.holds_until(state, &sweep, now) {
            Some(at_ms) => LockEvent::Extended {
                valid_until: Some(Deadline {
                    clock: self.clock,
                    at_ms,
                }),
            },
            None => LockEvent::NotExtended,
        })
    }
}
