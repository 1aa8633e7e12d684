//! Seed 000's watchdog (§3.2): after acquiring, wait `validity * 0.3`, renew on every node
//! with the owner-checked compare-and-pexpire script (up to 3 tries per node), and repeat;
//! if fewer than a quorum renewed, set the stop event ([`LockEvent::Lost`]) and stop.
//!
//! The seed's loop is `while not stop: wait(interval); renew every node; if renewed <
//! quorum: stop.set(); break`, with the interval computed once from the acquisition's
//! validity. It runs on the process's timer, so a process pause freezes it (the kernel does
//! that). A successful round is reported as [`LockEvent::Acquired`] with the renewed
//! validity, `start of the round + ttl - drift` on the engine's clock (the same formula as an
//! acquisition), which the client takes as a renewal.
//!
//! What counts as "renewed" is a parameter ([`RenewCount`]): the seed's code counts a node
//! as renewed as soon as the script call returns without an exception, whatever it returned
//! (0 when the key is gone or someone else's), so as written it never notices a lost lock,
//! only unreachable nodes.

use super::sweep::{Elapsed, Kind, NodeSweep};
use super::{Phase, Redlock, RedlockState};
use crate::lock::engine::{LockEvent, LockIo};
use crate::msg::LockTimer;
use crate::redis::Reply;
use lockcheck_sim::FpHasher;
use std::hash::{Hash, Hasher};

/// The watchdog's parameters (seed 000: 300 ‰, 3 tries, 1 s, [`RenewCount::AnyAnswer`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Watchdog {
    /// The renewal interval as a share of the acquisition's validity, in ‰ (seed: 0.3).
    pub interval_permille: u16,
    /// Tries per node and round when a try fails with an error or a timeout (at most 4).
    pub tries: u8,
    /// A renewal try without an answer after this long counts as failed (seed: 1 s).
    pub timeout_ms: u64,
    pub counts: RenewCount,
}

/// Which answers count as a renewed node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RenewCount {
    /// The seed's code as written: any answer that is not an error, 0 included.
    AnyAnswer,
    /// Only a script that really extended the lock (answered 1), as the seed intends.
    Extended,
}

/// Where the watchdog is while the lock is held.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Watch {
    /// No watchdog configured.
    Off,
    /// Waiting for the next round (the `Renew` timer runs).
    Sleeping,
    /// A renewal round (an extension's attempt) is under way.
    Renewing(NodeSweep),
    /// Between two attempts of an extension (the `Retry` timer runs).
    Retrying,
    /// A failed attempt of the caller's extension is being undone: the key is deleted on
    /// every node (node-redlock 4).
    Undoing(NodeSweep),
    /// The stop event was set: no more renewals.
    Stopped,
}

/// Failed renewal rounds are counted up to this (the count is part of the state).
pub(super) const FAILED_RENEWALS_CAP: u8 = 3;

impl Watchdog {
    /// Seed 000's watchdog, as its code is written.
    pub fn seed_000() -> Self {
        Watchdog {
            interval_permille: 300,
            tries: 3,
            timeout_ms: 1_000,
            counts: RenewCount::AnyAnswer,
        }
    }

    /// Whether `reply` to the renewal script counts as a renewed node.
    pub(super) fn counts_as_renewed(&self, reply: &Reply) -> bool {
        match self.counts {
            RenewCount::AnyAnswer => true,
            RenewCount::Extended => *reply == Reply::Integer(1),
        }
    }
}

impl Watch {
    pub(super) fn hash_relative(
        &self,
        elapsed_ms: impl Fn(&NodeSweep) -> Elapsed,
        mono_now_ms: i64,
        h: &mut FpHasher,
    ) {
        match self {
            Watch::Renewing(sweep) => {
                h.write_u8(2);
                sweep.hash_relative(elapsed_ms(sweep), mono_now_ms, h);
            }
            Watch::Off => h.write_u8(0),
            Watch::Sleeping => h.write_u8(1),
            Watch::Stopped => h.write_u8(3),
            Watch::Retrying => h.write_u8(4),
            Watch::Undoing(sweep) => {
                h.write_u8(5);
                sweep.hash_relative(elapsed_ms(sweep), mono_now_ms, h);
            }
        }
    }
}

impl Redlock {
    /// Starts the watchdog after an acquisition with `validity_ms`: the interval and the
    /// first state of the watch.
    pub(super) fn start_watch(&self, validity_ms: i64, io: &mut LockIo) -> (u64, Watch) {
        let Some(dog) = &self.watchdog else {
            return (0, Watch::Off);
        };
        let interval =
            (validity_ms.max(0) as u64 * u64::from(dog.interval_permille) / 1_000).max(1);
        io.set_timer(LockTimer::Renew, interval);
        (interval, Watch::Sleeping)
    }

    /// The `Renew` timer fired: start a renewal round.
    pub(super) fn on_renew_tick(&self, state: &mut RedlockState, io: &mut LockIo) {
        if let Phase::Holding {
            watch: watch @ Watch::Sleeping,
            ..
        } = &mut state.phase
        {
            let sweep = self.begin(&mut state.parities, Kind::Renew, io);
            *watch = Watch::Renewing(sweep);
        }
    }

    /// A renewal round is over: report the renewed validity and sleep again, or set the stop
    /// event and stop.
    pub(super) fn renewal_over(
        &self,
        state: &mut RedlockState,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        let Phase::Holding {
            interval_ms,
            watch: watch @ Watch::Renewing(_),
        } = &mut state.phase
        else {
            return None;
        };
        let Watch::Renewing(sweep) = std::mem::replace(watch, Watch::Stopped) else {
            unreachable!("matched above");
        };
        if usize::from(sweep.extended) < self.quorum() {
            state.failed_renewals = (state.failed_renewals + 1).min(FAILED_RENEWALS_CAP);
        }
        if sweep.ok_count() < self.quorum() {
            return Some(LockEvent::Lost);
        }
        *watch = Watch::Sleeping;
        io.set_timer(LockTimer::Renew, *interval_ms);
        let now = self.clock.read(io.now());
        let validity = self.validity_ms(now - sweep.started_ms);
        Some(self.held_until(now + validity))
    }

    /// Stops the watchdog (the business code is done with the lock).
    pub(super) fn stop_watch(&self, state: &mut RedlockState, io: &mut LockIo) {
        if let Phase::Holding { watch, .. } = &mut state.phase {
            *watch = Watch::Stopped;
        }
        io.cancel_timer(LockTimer::Renew);
    }
}
