//! lockcheck-model: Redis nodes, Sentinel, lock-client protocols, the protected resource,
//! the lock service and the deadlock detector, as sans-IO actors for the `lockcheck-sim`
//! world.
//!
//! - [`redis`], one node's keyspace and commands as a pure function, checked against a real
//!   `redis-server`;
//! - [`node`], the Redis node actor (clients, replication, failover, persistence);
//! - [`sentinel`], failover;
//! - [`scripted`], a client that sends a fixed script of commands (for tests);
//! - [`lock`], lock clients and their protocols (single node, Redlock, Redisson), seed 000's
//!   lock service around a client and the deadlock detector;
//! - [`resource`], the protected account and a linearizable token service;
//! - [`msg`], [`fault`] and [`process`], the one message type, the one fault type of its
//!   own and the one actor type of a Redis world;
//! - [`rename`], the process ids they hold, renamed for symmetry reduction.

pub mod describe;
pub mod fault;
pub mod lock;
pub mod msg;
pub mod node;
pub mod process;
pub mod redis;
pub mod rename;
pub mod resource;
pub mod scripted;
pub mod sentinel;

pub use lockcheck_sim as sim;
