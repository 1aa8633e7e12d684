//! Where a Redlock engine is: its phase (an attempt, the deletion after a failed one, the
//! retry delay, holding with its watch, the release) and what it keeps across phases.

use super::sweep::{Kind, NodeSweep};
use super::watchdog::Watch;

/// Where a Redlock engine is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Idle,
    /// An attempt; `expired`: the acquire timeout passed meanwhile.
    Acquiring {
        sweep: NodeSweep,
        expired: bool,
    },
    /// A failed attempt's keys are being deleted on every node.
    Undoing {
        sweep: NodeSweep,
        expired: bool,
    },
    /// The retry delay runs.
    Waiting {
        expired: bool,
    },
    /// Acquired; the watchdog renews every `interval_ms` (if there is one).
    Holding {
        interval_ms: u64,
        watch: Watch,
    },
    Releasing {
        sweep: NodeSweep,
    },
}

/// A Redlock engine's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RedlockState {
    pub phase: Phase,
    /// The parity of the next sweep of each kind.
    pub(super) parities: Parities,
    /// Renewal rounds in which fewer than a quorum of nodes really extended the lock
    /// (whatever the watchdog made of it), capped at 3.
    pub(super) failed_renewals: u8,
    /// Failed attempts of the acquire under way, counted only when attempts are limited.
    pub(super) failed_attempts: u16,
    /// When the acquire (or extension) under way began, on the engine's clock;
    /// kept only when the validity counts from the first attempt (else 0).
    pub(super) first_started_ms: i64,
    /// The lock's expiration on the engine's clock, as the client believes it; kept only
    /// where an extension reads it (`Redlock::keeps_expiration`), else 0.
    pub(super) valid_until_ms: i64,
}

/// One parity bit per sweep kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct Parities(u8);

impl Parities {
    /// The parity for a new sweep of `kind` (flipping it for the one after).
    pub(super) fn take(&mut self, kind: Kind) -> bool {
        let bit = 1 << kind as u8;
        self.0 ^= bit;
        self.0 & bit == 0
    }
}

impl Phase {
    /// The sweep under way, if any.
    pub(super) fn sweep(&self) -> Option<&NodeSweep> {
        match self {
            Phase::Acquiring { sweep, .. }
            | Phase::Undoing { sweep, .. }
            | Phase::Releasing { sweep }
            | Phase::Holding {
                watch: Watch::Renewing(sweep) | Watch::Undoing(sweep),
                ..
            } => Some(sweep),
            _ => None,
        }
    }

    /// The sweep under way, if any.
    pub(super) fn sweep_mut(&mut self) -> Option<&mut NodeSweep> {
        match self {
            Phase::Acquiring { sweep, .. }
            | Phase::Undoing { sweep, .. }
            | Phase::Releasing { sweep }
            | Phase::Holding {
                watch: Watch::Renewing(sweep) | Watch::Undoing(sweep),
                ..
            } => Some(sweep),
            _ => None,
        }
    }
}
