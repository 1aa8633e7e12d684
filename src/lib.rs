//! lockcheck: a deterministic simulation model checker for distributed locks on Redis.
//!
//! This crate is the user-facing layer. It re-exports the kernel ([`sim`]) and the models
//! ([`model`]), and holds what touches the real world: the system wall clock that bounds a
//! search's wall time, the process's resident memory that bounds its memory, and the
//! signal handlers that interrupt it. Scenarios, oracles, reports and the command line build on it.

pub mod check;
pub mod cli;
pub mod expectation;
pub mod input_error;
pub mod interrupt;
pub mod memory;
pub mod oracles;
pub mod report;
pub mod saved;
pub mod scenario;
pub mod shard;
#[cfg(feature = "proptest")]
pub mod testing;
pub mod text;
pub mod wait_for;
pub mod wall_clock;

pub use input_error::InputError;
pub use lockcheck_model as model;
pub use lockcheck_sim as sim;
pub use wall_clock::SystemWallClock;
