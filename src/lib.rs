//! lockcheck: a deterministic simulation model checker for distributed locks on Redis.

pub use lockcheck_model as model;
pub use lockcheck_sim as sim;
