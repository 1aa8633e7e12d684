//! lockcheck-model: Redis nodes, Sentinel and (to come) lock-client protocols, the deadlock
//! detector and the protected resource, as sans-IO actors for the `lockcheck-sim` world.
//!
//! - [`redis`], one node's keyspace and commands as a pure function, checked against a real
//!   `redis-server`;
//! - [`node`], the Redis node actor (clients, replication, failover, persistence);
//! - [`sentinel`], failover;
//! - [`scripted`], a client that sends a fixed script of commands (for tests);
//! - [`msg`] and [`process`], the one message type and the one actor type of a Redis world.

pub mod msg;
pub mod node;
pub mod process;
pub mod redis;
pub mod scripted;
pub mod sentinel;

pub use lockcheck_sim as sim;
