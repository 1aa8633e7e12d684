//! The actions of a world: events that are due, choices the network needs, and faults.

use super::actor::{CrashKind, ProcessId};
use std::sync::Arc;

/// One enabled choice in a world.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WorldAction<M, T> {
    /// Deliver a due message (the head of its link when the link is FIFO).
    Deliver {
        from: ProcessId,
        to: ProcessId,
        /// The message in flight itself, shared (see [`super::network::InFlight::msg`]).
        msg: Arc<M>,
    },
    /// Fire a running process's earliest due timer.
    Fire { process: ProcessId, timer: T },
    /// Advance virtual time to the next due event (only when nothing is due now).
    Advance,
    /// Give the oldest unrouted message this delay.
    Route { delay_ms: u64 },
    /// Lose the oldest unrouted message (lossy links, within the loss budget).
    Lose,
    /// Give the oldest undecided timer this duration.
    TimerDuration { after_ms: u64 },
    /// Freeze a process for a while.
    Pause {
        process: ProcessId,
        duration_ms: u64,
    },
    /// Crash a process; it restarts after the given time, or never.
    Crash {
        process: ProcessId,
        kind: CrashKind,
        restart_after_ms: Option<u64>,
    },
    /// Cut the links of the envelope's partition `index` for a while, or for good.
    Partition {
        index: usize,
        duration_ms: Option<u64>,
    },
    /// Step a process's wall clock.
    ClockStep { process: ProcessId, delta_ms: i64 },
}

impl<M, T> WorldAction<M, T> {
    pub fn is_fault(&self) -> bool {
        matches!(
            self,
            WorldAction::Lose
                | WorldAction::Pause { .. }
                | WorldAction::Crash { .. }
                | WorldAction::Partition { .. }
                | WorldAction::ClockStep { .. }
        )
    }
}
