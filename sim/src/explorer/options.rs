//! What a search is told: how far to go, when to stop, which reductions it may use, and
//! the outside world it may consult (a wall clock, a memory gauge, an interrupt flag, a
//! progress display), all passed in, since the kernel reads no clock of its own.

use super::{Reductions, WorkerTrials};
use crate::checker::Judged;
use crate::limits::MemoryGauge;
use crate::report::Stats;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A source of elapsed wall time. `sim` never reads the system clock itself: the caller
/// passes one (the `lockcheck` crate has a `std::time` implementation; tests use fakes).
pub trait WallClock: Send + Sync {
    /// Milliseconds since the exploration started.
    fn elapsed_ms(&self) -> u64;
}

/// Called now and then with the statistics so far (for progress bars).
pub type ProgressHook = Box<dyn FnMut(&Stats) + Send>;

/// How far to search and when to stop.
pub struct Options {
    /// Stop at the first violation (true) or explore everything and report all properties.
    pub stop_at_first_violation: bool,
    /// Without `stop_at_first_violation`: stop as soon as every property is settled (each
    /// `always` or bounded-liveness property violated, each `sometimes` witnessed), since
    /// searching further cannot change a verdict or a first counterexample.
    pub stop_when_all_settled: bool,
    /// Explore at most this many unique states: the first state beyond them ends the search
    /// (named outcome `LimitReached(States)`) unexplored and uncounted, so a limited search
    /// reports exactly this many, and a space of exactly this many states is complete.
    pub max_states: Option<u64>,
    /// Do not expand states at this depth (bounded search; walks end there).
    pub max_depth: Option<u32>,
    /// Do not expand states whose virtual time exceeds this.
    pub max_virtual_time_ms: Option<u64>,
    /// Stop when memory reaches this many bytes: the resident memory `memory_gauge` reads
    /// (with the growth of the visited set due before the next reading), or without a gauge
    /// the explorer's estimate of its own tables. Checked at a pace that keeps up with the
    /// growth seen (`limits::Pacer`).
    pub max_memory_bytes: Option<u64>,
    /// The process's resident memory, for `max_memory_bytes` and `Stats::peak_memory_bytes`.
    pub memory_gauge: Option<Arc<dyn MemoryGauge>>,
    /// Stop after this much wall time (needs `wall_clock`).
    pub time_limit_ms: Option<u64>,
    pub wall_clock: Option<Arc<dyn WallClock>>,
    pub progress: Option<ProgressHook>,
    /// Once this flag is set (by a signal handler, say), the search stops before the next
    /// expansion with outcome `Interrupted` and the statistics so far.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Pre-size the visited set for this many states.
    pub expected_states: usize,
    /// Which reductions exhaustive search may use (all off by default).
    pub reductions: Reductions,
    /// Which of the model's properties are evaluated (all by default).
    pub judged: Judged,
    /// Threads for [`explore_parallel`] (1 by default); `explore` runs on the caller's.
    pub threads: usize,
    /// Where threads only prepare expansions (partial-order reduction, the value
    /// abstraction), use them only while they make the search faster, as measured on
    /// `wall_clock` by these trials (`explorer::tuner`; by default
    /// `WorkerTrials::default()`). `None`: they prepare every expansion.
    pub worker_trials: Option<WorkerTrials>,
    /// Compare 128-bit fingerprints instead of 64-bit ones, where the model computes them
    /// (`explorer::width`; off by default).
    pub wide_fingerprints: bool,
    /// Hash compaction: store 32 bits of each state's 64-bit fingerprint in a table sized
    /// once for `max_states` (or `expected_states` without a state limit), and whole
    /// fingerprints beyond it (`visited::compact`; off by default). About 5 bytes a state
    /// instead of 11 to 21, for a chance of omitting a state that the report estimates
    /// (`Report::collision_probability`). Exhaustive search only; it compares 64 bits and
    /// no more, so `wide_fingerprints` is ignored under it.
    pub hash_compaction: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            stop_at_first_violation: true,
            stop_when_all_settled: false,
            max_states: None,
            max_depth: None,
            max_virtual_time_ms: None,
            max_memory_bytes: None,
            memory_gauge: None,
            time_limit_ms: None,
            wall_clock: None,
            progress: None,
            interrupt: None,
            expected_states: 0,
            reductions: Reductions::none(),
            judged: Judged::All,
            threads: 1,
            worker_trials: Some(WorkerTrials::default()),
            wide_fingerprints: false,
            hash_compaction: false,
        }
    }
}

impl Options {
    /// Whether the interrupt flag is set (one relaxed load).
    pub(crate) fn interrupted(&self) -> bool {
        (self.interrupt.as_ref()).is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    /// The states a compact visited set is sized for, under hash compaction (split among
    /// `shards` sets, each given a little more than its share).
    pub(crate) fn compact_plan(&self, shards: usize) -> Option<usize> {
        self.hash_compaction.then(|| {
            let planned = self
                .max_states
                .map_or(self.expected_states, |m| m.saturating_add(1) as usize);
            let share = planned.div_ceil(shards.max(1));
            if shards > 1 {
                share + share / 32 + 1024
            } else {
                share
            }
        })
    }
}
