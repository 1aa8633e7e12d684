//! lockcheck-sim: the deterministic simulation kernel of lockcheck.
//!
//! The idea: a distributed system is a *model*, a transition system whose every
//! nondeterministic decision is an enabled action. The [`World`](world::World) turns a set of
//! sans-IO actors (processes with their own clocks) plus a network and a fault envelope into
//! such a model: virtual time in integer milliseconds, message delays chosen from sets, pauses,
//! partitions, crashes and clock steps as faults. The explorer searches any model with one
//! expansion and one admission of states: [`explore`] with a pluggable [`Frontier`]
//! (depth-first, breadth-first, seeded random walks, replay of a recorded [`Trace`],
//! shrinking, scripts, shards) on the caller's thread, and [`explore_parallel`] and
//! [`explore_walks`] on several threads with the same results. What runs is decided
//! before a search starts, as a [`Plan`] the report carries. Properties are `always`,
//! `sometimes`, `eventually_within` and `leads_to_within`.
//!
//! Nothing here reads the system clock, uses ambient randomness or iterates a `HashMap`:
//! the same model and seed give the same run, byte for byte, on any number of threads.

mod branching;
#[cfg(feature = "census")]
pub mod census;
mod checker;
mod chooser;
mod coverage;
pub mod dbm;
mod explorer;
mod fingerprint;
mod frontier;
mod limits;
mod model;
mod options;
mod path_log;
mod plan;
mod prng;
mod report;
mod script;
mod shrink;
mod stats;
mod trace;
mod visited;
pub mod world;

pub use branching::{Branching, ChoiceKind, KindCount};
pub use checker::{Checker, Hit, Obligations};
pub use chooser::{
    Chooser, RandomChooser, Recording, ReplayChooser, ReplayMismatch, FAULT_RATES_PER_MILLE,
};
pub use coverage::{FaultCoverage, RuleCoverage, RulesUsed};
pub use explorer::{
    bfs_order, choice_path, explore, explore_parallel, explore_shard, explore_walks, try_explore,
    union_len, ShardPlan, ShardReport, Split, ThreadSafe,
};
pub use fingerprint::{
    collision_probability, fingerprint_of, from_lanes, lane_a, lane_b, Fingerprint, FpHasher,
    Lanes, TimeShift,
};
pub use frontier::{
    BreadthFirst, DepthFirst, Frontier, Pending, RunStart, Walk, DEFAULT_WALK_STEPS,
};
pub use limits::{MemoryGauge, MIN_INTERVAL};
pub use model::{
    Claim, Condition, Model, Observation, Observes, ProcessCondition, Property, PropertyKind,
    Sight, Visibility,
};
pub use options::{
    Hooks, Judged, Limits, Options, Parallelism, ProgressHook, Reductions, Stop, Storage,
    WallClock, WorkerTrials,
};
pub use plan::{DeadValues, Engine, PartialOrder, Plan, Strategy, Symmetry, Table, Width};
pub use prng::Prng;
pub use report::{Limit, Outcome, Path, PropertyReport, Report, Status, Step};
pub use script::{run_script, ScriptError, ScriptedFault};
pub use shrink::{score as shrink_score, shrink, ShrinkOptions};
pub use stats::Stats;
pub use trace::{
    follow_labels, replay, replay_checked, Replay, Trace, TraceError, TraceStep, FORMAT_VERSION,
    TOOL_VERSION,
};
pub use visited::{Compaction, VisitedSet};
