//! Limits looked at inside one step of a search: while an expansion computes its successors
//! and while they are admitted.
//!
//! The idea: the search looks at its limits between expansions, at a pace counted in
//! expansions (`limits::Pacer`), which keeps up with ordinary searches at a cost too small to
//! measure. But one expansion may offer a great many choices (thousands of fault rules, a
//! long list of values), and admitting a successor may cost much (thousands of oracles), so
//! a few expansions can outlast any limit. So every [`EVERY`] successors computed or
//! admitted, the search also asks its [`Watch`]: the interrupt flag (one load), the wall
//! clock against the time limit (one reading), and, at most every [`MEMORY_EVERY_MS`] of wall
//! time, the memory gauge against the memory limit. When one of them says stop, the step is
//! abandoned and the search ends with that outcome and its statistics so far: a limit may
//! end a search at any point, never change what it found before.

use crate::limits::MemoryGauge;
use crate::options::{Options, WallClock};
use crate::report::{Limit, Outcome};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Successors computed or admitted between two looks.
pub(super) const EVERY: usize = 64;

/// Successors admitted between two looks when each is judged by `properties` properties:
/// [`EVERY`] shared out among them (at least one), since admitting a successor evaluates
/// every property (ten thousand oracles make one admission cost milliseconds).
pub(super) fn admitted_between_looks(properties: usize) -> usize {
    (EVERY / properties.max(1)).max(1)
}

/// Wall time between two readings of the memory gauge inside a step.
pub(super) const MEMORY_EVERY_MS: u64 = 10;

/// What a step of a search looks at; any thread may hold it.
#[derive(Default)]
pub(super) struct Watch {
    interrupt: Option<Arc<AtomicBool>>,
    clock: Option<Arc<dyn WallClock>>,
    time_limit_ms: Option<u64>,
    gauge: Option<Arc<dyn MemoryGauge>>,
    memory_limit_bytes: Option<u64>,
    /// When the gauge may be read next, in ms of the clock.
    next_memory_ms: AtomicU64,
}

impl Watch {
    /// What a search under `options` looks at.
    pub(super) fn of(options: &Options) -> Self {
        let hooks = &options.hooks;
        Watch {
            interrupt: hooks.interrupt.clone(),
            clock: hooks.wall_clock.clone(),
            time_limit_ms: options.limits.time_limit_ms,
            gauge: hooks.memory_gauge.clone(),
            memory_limit_bytes: options.limits.max_memory_bytes,
            next_memory_ms: AtomicU64::new(0),
        }
    }

    /// What ends the search now, if anything: an interrupt, the time limit passed, or the
    /// memory limit reached.
    pub(super) fn says_stop(&self) -> Option<Stopped> {
        if (self.interrupt.as_ref()).is_some_and(|flag| flag.load(Ordering::Relaxed)) {
            return Some(Stopped::Interrupted);
        }
        if self.time_limit_ms.is_none() && self.memory_limit_bytes.is_none() {
            return None;
        }
        let now_ms = self.clock.as_ref()?.elapsed_ms();
        if self.time_limit_ms.is_some_and(|limit| now_ms >= limit) {
            return Some(Stopped::WallTime);
        }
        let (Some(gauge), Some(limit)) = (&self.gauge, self.memory_limit_bytes) else {
            return None;
        };
        if now_ms < self.next_memory_ms.load(Ordering::Relaxed) {
            return None;
        }
        self.next_memory_ms
            .store(now_ms + MEMORY_EVERY_MS, Ordering::Relaxed);
        (gauge.resident_bytes()? >= limit).then_some(Stopped::Memory)
    }
}

/// What stopped a step (one byte, since an expansion carries it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stopped {
    Interrupted,
    WallTime,
    Memory,
}

impl Stopped {
    /// The outcome of a search stopped so.
    pub(super) fn outcome(self) -> Outcome {
        match self {
            Stopped::Interrupted => Outcome::Interrupted,
            Stopped::WallTime => Outcome::LimitReached(Limit::WallTime),
            Stopped::Memory => Outcome::LimitReached(Limit::Memory),
        }
    }
}
