//! lockcheck: a deterministic simulation model checker for distributed locks on Redis.
//!
//! This crate is the user-facing layer over the kernel ([`sim`]) and the models ([`model`]).
//! What a user of the library needs is re-exported here:
//!
//! - scenarios: [`Scenario`] (the data a scenario file holds), the built-ins ([`builtin`])
//!   and the world-building kit ([`kit`]) to build worlds of one's own in Rust;
//! - checking: [`check()`] and [`check_with`] search a scenario's world and return a
//!   [`Checked`] report; [`testing`] wraps them for property tests (with proptest
//!   strategies for parameters and fault envelopes);
//! - oracles: [`oracles`], the safety and liveness properties checked on [`RedisWorld`];
//! - traces: [`SavedTrace`], [`save_violation`] and [`load_trace`] write and read a
//!   violation's path for `lockcheck replay`;
//! - reports: [`report`] draws a run as a text timeline or a swimlane chart, a sweep as a
//!   heat map.
//!
//! The crate also holds what touches the real world: the system wall clock that bounds a
//! search's wall time, the process's resident memory that bounds its memory, and the
//! signal handlers that interrupt it. The command line is private to the `lockcheck`
//! binary; it uses only what this crate makes public.

pub mod atomic_write;
pub mod check;
pub mod coverage;
pub mod expectation;
pub(crate) mod input_error;
pub mod interrupt;
pub mod memory;
pub mod oracles;
pub mod report;
pub mod reproduce;
pub mod saved;
pub mod scenario;
pub mod shard;
#[cfg(feature = "proptest")]
pub mod testing;
pub mod text;
pub mod wait_for;
pub mod wall_clock;

pub use check::{check, check_with, Checked, Mode};
pub use input_error::InputError;
pub use lockcheck_model as model;
pub use lockcheck_sim as sim;
pub use oracles::RedisWorld;
pub use saved::{load_trace, save_violation, SavedTrace};
pub use scenario::{builtin, kit, Scenario};
pub use wall_clock::SystemWallClock;

/// The README's Rust examples, compiled (and their `main` run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;

/// The Rust examples of the guide's page on the API, compiled as doctests (the madsim one,
/// which needs `--cfg madsim`, is marked `ignore`).
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/rust.md")]
struct GuideRustExamples;
