//! Lock clients: business code over a lock protocol, and the protocols themselves.
//!
//! The idea: a protocol is an [`Engine`] that manages one lock for one client
//! and reports acquired / gave up / released / lost; the [`LockClient`]
//! actor runs the workload (rounds of steps: acquire, read the resource, work, debit, release;
//! [`steps`]) over one engine per slot, and records what the client *believes*, which the oracles judge.
//!
//! - [`single`]: `SET NX PX` on one node, owner-checked or plain-`DEL` release, optional
//!   fenced acquire;
//! - [`redlock`]: Redlock as seed 000 writes it and as the Redis documentation specifies it,
//!   with seed 000's watchdog;
//! - [`redisson`]: Redisson's RLock with its watchdog, both renewal generations;
//! - [`service`] and [`detector`]: seed 000's lock service with its in-process deadlock
//!   detector, wait-edge keys, and a shared detector process.

pub mod client;
pub(crate) mod client_event;
pub mod detector;
pub mod engine;
pub mod on_fail;
pub mod protocol;
pub mod redisson;
pub mod redlock;
pub mod refused;
pub mod service;
pub mod single;
pub mod steps;

pub use client::{ClientState, Fencing, Held, LockClient, Phase, Workload};
pub use client_event::ClientEvent;
pub use engine::{ClockKind, Deadline, Engine, LockEvent, LockIo};
pub use on_fail::OnFail;
pub use protocol::{EngineState, Protocol};
pub use refused::OnRefused;
pub use steps::{NamedStep, Steps, WorkloadStep};
