//! What a search is told, grouped by concern: when to stop and what to judge, how far to go
//! (limits), which reductions it may use, how many threads it may use, how it stores
//! states, and the outside world it may consult (hooks: a wall clock, a memory gauge, an
//! interrupt flag, a progress display), all passed in, since the kernel reads no clock of
//! its own. What actually runs is decided from these and from the model by
//! [`Plan::decide`](crate::Plan::decide), before the search starts.

use crate::limits::MemoryGauge;
use crate::model::{Model, Property};
use crate::stats::Stats;
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

/// How a search is to run.
#[derive(Default)]
pub struct Options {
    /// When the search stops (by default at the first violation).
    pub stop: Stop,
    /// Which of the model's properties are evaluated (all by default).
    pub judged: Judged,
    /// How far to search, and the resources it may use (none by default).
    pub limits: Limits,
    /// Which reductions exhaustive search may use (all off by default).
    pub reductions: Reductions,
    /// How many threads, and how the search decides whether they pay.
    pub parallelism: Parallelism,
    /// How visited states are stored.
    pub storage: Storage,
    /// What the search may consult or call outside itself.
    pub hooks: Hooks,
    /// Keep the fault coverage (`Report::fault_coverage`): which of the model's fault
    /// rules the explored runs used, and when. Off by default: it looks at every action
    /// expanded.
    pub fault_coverage: bool,
}

/// Which of the model's properties a search evaluates and reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Judged {
    /// Every property (searches, walks, replay).
    #[default]
    All,
    /// Only the property of this name (the shrinker follows one violation).
    Only(String),
    /// None (scripted runs, which only want the path).
    Nothing,
    /// Every property but these, settled already (later walks of a parallel search).
    AllBut(Vec<String>),
}

impl Judged {
    pub(crate) fn select<M: Model>(&self, mut properties: Vec<Property<M>>) -> Vec<Property<M>> {
        match self {
            Judged::All => {}
            Judged::Only(name) => properties.retain(|p| p.name == *name),
            Judged::Nothing => properties.clear(),
            Judged::AllBut(settled) => properties.retain(|p| !settled.contains(&p.name)),
        }
        properties
    }
}

/// When a search stops before its space is done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stop {
    /// At the first violation of any property.
    #[default]
    AtFirstViolation,
    /// Once every property is settled (each `always` or bounded-liveness property
    /// violated, each `sometimes` witnessed), since searching further cannot change a
    /// verdict or a first counterexample.
    WhenAllSettled,
    /// Never: the whole space is explored and every property reported.
    Never,
}

/// How far a search goes and what it may use; each limit ends it with a named outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Explore at most this many unique states: the first state beyond them ends the search
    /// (named outcome `LimitReached(States)`) unexplored and uncounted, so a limited search
    /// reports exactly this many, and a space of exactly this many states is complete.
    pub max_states: Option<u64>,
    /// Do not expand states at this depth (bounded search; walks end there).
    pub max_depth: Option<u32>,
    /// Do not expand states whose virtual time exceeds this.
    pub max_virtual_time_ms: Option<u64>,
    /// Stop when memory reaches this many bytes: the resident memory the memory gauge reads
    /// (with the growth of the visited set due before the next reading), or without a gauge
    /// the explorer's estimate of its own tables. Checked at a pace that keeps up with the
    /// growth seen (`limits::Pacer`).
    pub max_memory_bytes: Option<u64>,
    /// Stop after this much wall time (needs a wall clock among the hooks).
    pub time_limit_ms: Option<u64>,
}

impl Limits {
    /// At most `max_states` unique states, and no other limit.
    pub fn states(max_states: u64) -> Self {
        Limits {
            max_states: Some(max_states),
            ..Limits::default()
        }
    }
}

/// Which reductions exhaustive search may use; the plan says which of them apply
/// ([`crate::Plan`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reductions {
    /// Partial-order reduction (persistent sets with the cycle proviso).
    pub partial_order: bool,
    /// Symmetry reduction (states deduplicated as their class's representative).
    pub symmetry: bool,
    /// The dead-values reduction (values the model declares dead left out of the keys).
    pub dead_values: bool,
}

impl Reductions {
    /// Every reduction the kernel has.
    pub fn all() -> Self {
        Reductions {
            partial_order: true,
            symmetry: true,
            dead_values: true,
        }
    }

    /// No reduction: the full state space.
    pub fn none() -> Self {
        Reductions::default()
    }
}

/// How many threads a search may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parallelism {
    /// Threads for [`explore_parallel`](crate::explore_parallel) and
    /// [`explore_walks`](crate::explore_walks) (1 by default); `explore` runs on the
    /// caller's.
    pub threads: usize,
    /// Use the threads only while they make the search faster, as measured on the wall
    /// clock by these trials (`explorer::tuner`; by default `WorkerTrials::default()`).
    /// `None`: the threads take every batch.
    pub worker_trials: Option<WorkerTrials>,
}

impl Default for Parallelism {
    fn default() -> Self {
        Parallelism {
            threads: 1,
            worker_trials: Some(WorkerTrials::default()),
        }
    }
}

/// How the visited set keeps states.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Storage {
    /// Pre-size the visited set for this many states.
    pub expected_states: usize,
    /// Compare 128-bit fingerprints instead of 64-bit ones, where the model computes them
    /// (`plan::Width`; off by default).
    pub wide_fingerprints: bool,
    /// Hash compaction: store 32 bits of each state's 64-bit fingerprint in a table sized
    /// once for `max_states` (or `expected_states` without a state limit), and whole
    /// fingerprints beyond it (`visited::compact`; off by default). About 5 bytes a state
    /// instead of 11 to 21, for a chance of omitting a state that the report estimates
    /// (`Report::collision_probability`). Exhaustive search only; it compares 64 bits and
    /// no more, so `wide_fingerprints` is ignored under it.
    pub hash_compaction: bool,
}

/// How a search tries whether its workers pay, in expansions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkerTrials {
    /// On one thread before the first window.
    pub warmup: u64,
    /// Expansions in one window: the workers are used for a whole window or not at all.
    pub window: u64,
    /// Expansions at the start of a window that are not timed (the workers' batches
    /// coming back or setting out after a switch).
    pub settle: u64,
    /// Every this many windows, the slower way is tried again.
    pub retry_every: u64,
}

impl Default for WorkerTrials {
    fn default() -> Self {
        WorkerTrials {
            warmup: 32_768,
            window: 16_384,
            settle: 2_048,
            retry_every: 16,
        }
    }
}

/// What a search consults or calls outside itself.
#[derive(Default)]
pub struct Hooks {
    /// Elapsed wall time, for the time limit, the threads' trials and `Stats::wall_ms`.
    pub wall_clock: Option<Arc<dyn WallClock>>,
    /// The process's resident memory, for the memory limit and `Stats::peak_memory_bytes`.
    pub memory_gauge: Option<Arc<dyn MemoryGauge>>,
    /// Called at every limit check with the statistics so far.
    pub progress: Option<ProgressHook>,
    /// Once this flag is set (by a signal handler, say), the search stops before the next
    /// expansion with outcome `Interrupted` and the statistics so far.
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl Hooks {
    /// The same clock, gauge and interrupt flag, without the progress display (which
    /// cannot be shared).
    pub fn without_progress(&self) -> Hooks {
        Hooks {
            wall_clock: self.wall_clock.clone(),
            memory_gauge: self.memory_gauge.clone(),
            progress: None,
            interrupt: self.interrupt.clone(),
        }
    }

    /// A search begins: the memory gauge starts measuring its peak anew.
    pub(crate) fn begin(&self) {
        if let Some(gauge) = &self.memory_gauge {
            gauge.start_peak();
        }
    }

    /// Whether the interrupt flag is set (one relaxed load).
    pub(crate) fn interrupted(&self) -> bool {
        (self.interrupt.as_ref()).is_some_and(|flag| flag.load(Ordering::Relaxed))
    }
}

impl Options {
    /// Options that explore the whole space (no stop at a violation) within `limits`.
    pub fn exhaustive(limits: Limits) -> Self {
        Options {
            stop: Stop::Never,
            limits,
            ..Options::default()
        }
    }

    /// Whether the search stops at its first violation.
    pub(crate) fn stops_at_first_violation(&self) -> bool {
        self.stop == Stop::AtFirstViolation
    }

    /// The states a compact visited set is sized for, under hash compaction (split among
    /// `shards` sets, each given a little more than its share).
    pub(crate) fn compact_plan(&self, shards: usize) -> Option<usize> {
        self.storage.hash_compaction.then(|| {
            let planned = (self.limits.max_states).map_or(self.storage.expected_states, |m| {
                m.saturating_add(1) as usize
            });
            let share = planned.div_ceil(shards.max(1));
            if shards > 1 {
                share + share / 32 + 1024
            } else {
                share
            }
        })
    }
}
