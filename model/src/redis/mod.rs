//! One Redis node's keyspace and command execution, as a pure deterministic function.
//!
//! The idea: a node's data is a value ([`Keyspace`]) and a command is a step on it
//! ([`Keyspace::execute`]) at one instant of the node's wall clock, giving the client's
//! [`Reply`], the writes owed to replicas and the messages to publish. Nothing here does I/O,
//! reads a clock or keeps connections: the node actor around it owns time, subscriptions,
//! replication links and `WAIT`. Everything the model answers is what a real Redis 7.0 answers
//! for the same arguments, error texts included; the tests in `model/tests/` run random
//! command sequences against a real `redis-server` and compare reply for reply.
//!
//! - [`reply`]: the RESP2 reply.
//! - [`keyspace`]: keys, values, absolute deadlines, lazy expiry, master and replica views.
//! - [`command`] and [`parse`]: the typed commands and how an argument vector becomes one;
//!   [`collection_command`]: the list and sorted-set commands lock scripts use.
//! - [`exec`]: running a command, replication in Redis 7 form (TTLs as `PXAT` deadlines).
//! - [`scripts`]: the lock scripts (owner-checked release and renewal, Redisson's acquire,
//!   release, renewal and force-unlock, a fenced acquire), each one atomic step.
//! - [`args`]: arguments read as the C server reads them, and its error texts.
//!
//! Known differences from a real server, each tested: commands outside the model's table
//! (`PING`, `HDEL`…) are answered as unknown commands; `EVAL` runs only the lock scripts; an
//! empty request is answered (Redis skips it); `PUBLISH` answers 0 receivers (the node knows
//! its subscribers); sorted-set scores are integers, and lists and sorted sets have only the
//! forms lock scripts use (`LPOP` without a count, `ZADD` and `ZRANGE` without options); hashes always keep insertion order (Redis does only while a hash is small,
//! at most 128 fields of at most 64 bytes).

pub mod args;
pub mod collection_command;
pub mod command;
pub mod exec;
pub mod fair_scripts;
mod fair_sources;
pub mod keyspace;
pub mod parse;
pub mod reply;
mod script_calls;
pub mod scripts;

pub use command::{Command, CommandName, ExpireCondition, Set, SetCondition, SetExpiry};
pub use exec::Executed;
pub use fair_scripts::{FairKind, FairScript};
pub use keyspace::{Fields, KeyEntry, Keyspace, Role, Value};
pub use reply::Reply;
pub use scripts::{Eval, LockScript, ScriptKind, UNLOCK_MESSAGE};
