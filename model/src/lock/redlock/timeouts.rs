//! Redlock's request timeouts: each try waiting for an answer has its deadline in its slot,
//! and the engine keeps one timer, `SweepTimeout`, at the earliest of them; when it fires,
//! every try past its deadline fails in that one event.

use super::sweep::{Kind, NodeSweep, TryOutcome, NO_DEADLINE};
use super::{Redlock, RedlockState};
use crate::lock::engine::{LockEvent, LockIo};
use crate::msg::LockTimer;

impl Redlock {
    /// The deadline of a try of a `kind` sweep sent now, on the monotonic clock (the one
    /// timers run on).
    pub(super) fn deadline(&self, kind: Kind, io: &LockIo) -> i64 {
        match self.timeout_ms(kind) {
            None => NO_DEADLINE,
            Some(timeout_ms) => io
                .now()
                .mono_ms
                .saturating_add(timeout_ms.min(i64::MAX as u64) as i64)
                .min(NO_DEADLINE - 1),
        }
    }

    /// Runs `step` and then sets the `SweepTimeout` timer to the earliest deadline of the
    /// sweep it leaves (or cancels it), unless that is where the timer already stood: the
    /// one place the timer is kept, so every step leaves it right. `armed` is the deadline
    /// the timer stands at before `step` (`None` when it just fired).
    pub(super) fn keeping_timer<R>(
        &self,
        state: &mut RedlockState,
        armed: Option<i64>,
        io: &mut LockIo,
        step: impl FnOnce(&mut RedlockState, &mut LockIo) -> R,
    ) -> R {
        let result = step(state, io);
        let next = state.phase.sweep().and_then(NodeSweep::next_deadline);
        if next != armed {
            match next {
                Some(deadline) => {
                    let left = deadline.saturating_sub(io.now().mono_ms).max(0) as u64;
                    io.set_timer(LockTimer::SweepTimeout, left);
                }
                None => io.cancel_timer(LockTimer::SweepTimeout),
            }
        }
        result
    }

    /// The deadline the `SweepTimeout` timer stands at in `state`.
    pub(super) fn armed(state: &RedlockState) -> Option<i64> {
        state.phase.sweep().and_then(NodeSweep::next_deadline)
    }

    /// The `SweepTimeout` timer fired: every try past its deadline failed.
    pub(super) fn time_out(&self, state: &mut RedlockState, io: &mut LockIo) -> Option<LockEvent> {
        let now = io.now().mono_ms;
        let sweep = state.phase.sweep_mut()?;
        for (node, _) in sweep.overdue(now) {
            self.settle_one(sweep, node, (TryOutcome::Error, false), io);
        }
        self.send_due(sweep, io);
        self.progress(state, io)
    }
}
