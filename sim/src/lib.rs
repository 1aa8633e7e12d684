//! lockcheck-sim: the deterministic simulation kernel of lockcheck.
//!
//! The idea: a distributed system is a *model*, a transition system whose every
//! nondeterministic decision is an enabled action. The [`World`](world::World) turns a set of
//! sans-IO actors (processes with their own clocks) plus a network and a fault envelope into
//! such a model: virtual time in integer milliseconds, message delays chosen from sets, pauses,
//! partitions, crashes and clock steps as faults. One [`explore`] loop searches any model with a
//! pluggable [`Frontier`]: depth-first, breadth-first, seeded random walks, or replay of a
//! recorded [`Trace`]. Properties are `always`, `sometimes` and `eventually within`.
//!
//! Nothing here reads the system clock, uses ambient randomness or iterates a `HashMap`:
//! the same model and seed give the same run, byte for byte.

pub mod bench_model;
pub mod branching;
pub mod checker;
pub mod chooser;
pub mod explorer;
pub mod fingerprint;
pub mod frontier;
pub mod limits;
pub mod model;
pub mod path_log;
pub mod prng;
pub mod property;
pub mod report;
pub mod script;
pub mod shrink;
pub mod trace;
pub mod visited;
pub mod world;

pub use branching::{Branching, ChoiceKind, KindCount};
pub use chooser::{Chooser, RandomChooser, ReplayChooser, ReplayMismatch};
pub use explorer::{explore, Options, PartialOrder, Reductions, Sight, Symmetry, WallClock};
pub use fingerprint::{fingerprint_of, Fingerprint, FpHasher};
pub use frontier::{BreadthFirst, DepthFirst, Entry, Frontier, RunStart, Walk};
pub use limits::MemoryGauge;
pub use model::Model;
pub use prng::Prng;
pub use property::{Expectation, Observation, Observes, Property, PropertyKind, Visibility};
pub use report::{Limit, Outcome, Path, PropertyReport, Report, Stats, Status, Step};
pub use script::{run_script, ScriptError, ScriptedFault};
pub use shrink::{score as shrink_score, shrink, ShrinkOptions};
pub use trace::{replay, replay_checked, Replay, Trace, TraceError, TraceStep};
