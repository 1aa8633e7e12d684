//! lockcheck-madsim: the same sans-IO actors, hosted on madsim, as a second simulator.
//!
//! The idea: two independent simulators that agree on a verdict are much stronger evidence
//! than one. lockcheck's kernel enumerates interleavings over virtual time of its own; madsim
//! runs async Rust deterministically from a seed, with its own scheduler, timers, network
//! and fault primitives, but cannot enumerate and has a single global clock. This driver
//! puts each process of a kernel [`World`](lockcheck_sim::world::World) on a madsim node:
//!
//! - **messages** travel over `madsim::net` (delays from each link's set, held by the
//!   receiver until due);
//! - **timers** are `madsim::time` sleeps, set on the process's own clock (offset, rate
//!   error, steps) over madsim's global clock;
//! - **pauses** are madsim node pause/resume, **crashes** kill/restart, **partitions** link
//!   clogging, **clock steps** a change of the process's clock;
//! - the **oracles** are the world's own properties, judged after every event.
//!
//! A run is decided by madsim's seed, so `MADSIM_TEST_SEED` replays it. The crate builds only
//! with `--cfg madsim`, which its `.cargo/config.toml` sets; the rest of lockcheck never
//! needs the flag.

#[cfg(not(madsim))]
compile_error!(
    "lockcheck-madsim needs `--cfg madsim`: build it from its own directory (madsim/), whose \
     .cargo/config.toml sets the flag, and do not override RUSTFLAGS"
);

mod batch;
mod faults;
mod node;
mod record;
pub mod report;
mod run;
pub mod scenario;
mod timing;
mod transit;
mod wire;

pub use batch::{for_each_run, run_batch, Batch, Until};
pub use report::{Ended, RunReport, Violation};
pub use run::{run, HostedActor, RunOptions, MADSIM_PER_WORLD_MS, MAX_WORLD_MS};
