//! The actions of a world: events that are due, choices the network needs, and faults.

use super::actor::{Actor, CrashKind, NoFault, ProcessId};
use std::sync::Arc;

/// The actions of a world of actors `A`.
pub type ActionOf<A> = WorldAction<<A as Actor>::Msg, <A as Actor>::Timer, <A as Actor>::Fault>;

/// One enabled choice in a world. `F` is the actors' own fault type ([`super::Actor::Fault`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WorldAction<M, T, F = NoFault> {
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
    /// A fault of a process's own actor, applied by [`super::Actor::on_fault`].
    ActorFault { process: ProcessId, fault: F },
}

impl<M, T, F> WorldAction<M, T, F> {
    pub fn is_fault(&self) -> bool {
        matches!(
            self,
            WorldAction::Lose
                | WorldAction::Pause { .. }
                | WorldAction::Crash { .. }
                | WorldAction::Partition { .. }
                | WorldAction::ClockStep { .. }
                | WorldAction::ActorFault { .. }
        )
    }
}
