//! lockcheck-model: Redis nodes, lock-client protocols, watchdogs, the deadlock detector and
//! the protected resource, as sans-IO actors for the `lockcheck-sim` world.
//!
//! The models arrive with their own issues; for now this crate only re-exports the kernel
//! so that the layering `lockcheck` -> `lockcheck-model` -> `lockcheck-sim` is in place.

pub use lockcheck_sim as sim;

pub mod redis;
