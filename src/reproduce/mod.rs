//! `reproduce`: a counterexample played against real `redis-server` processes, so that a
//! violation found in the model is seen to happen on real Redis.
//!
//! The idea: the replayer is every client and the client-side network, so only the nodes
//! (and Sentinel) need to be real. The planner turns the trace's path into timed actions
//! (`plan.rs`) on the servers a world needs (`topology.rs`); the supervisor starts one real
//! server per node, replicas and Sentinel behind proxies that a partition cuts (`proxy.rs`,
//! `sentinel.rs`), and kills every one by PID at the end (`server.rs`); one connection per
//! client and server keeps the plan's order (`conns.rs`); the executor sends the model's own commands at their (scaled) times,
//! pauses, crashes, restarts and steps the clocks of real servers, and compares every real
//! reply with the model's (`run.rs`, `matcher.rs`); the recorded oracle is judged on the
//! history the real replies make (`observed.rs`); and slack analysis (`slack.rs`) turns a
//! run that could not hold the timing a step needed into INCONCLUSIVE rather than a false
//! NOT REPRODUCED (`verdict.rs`), after stretching the steps the model ran just past a
//! deadline (`stretch.rs`). Time runs `speed` times faster for the replayer and the
//! servers alike through a small preloaded clock library (`clock.rs`, `clock_shim.c`).

pub mod clock;
pub mod conns;
pub mod library;
pub mod matcher;
pub mod observed;
pub mod plan;
pub mod proxy;
pub mod report;
pub mod resp;
pub mod run;
pub mod sentinel;
pub mod server;
pub mod slack;
pub mod stretch;
pub mod topology;
pub mod verdict;
pub mod witness_file;

use crate::oracles::RedisWorld;
use lockcheck_sim::Path;
pub use run::RunOptions;
pub use server::ServerOptions;
use verdict::{decide, StepRecord, Verdict};

/// Whether a signal has asked the process to stop (the flag every search holds too).
pub fn interrupted() -> bool {
    crate::interrupt::flag().load(std::sync::atomic::Ordering::Relaxed)
}

/// The fastest speed: Sentinel's TILT and the servers' real-time waits set the ceiling.
pub const MAX_SPEED: f64 = 10.0;

/// Why a reproduction could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReproduceError {
    /// True for what the user hands in or must install (exit 2); false for a machine that
    /// would not run the topology (exit 3).
    pub bad_input: bool,
    pub message: String,
}

impl ReproduceError {
    /// A missing or wrong `redis-server`, a trace with no real mechanism: exit 2.
    pub fn bad_environment(message: String) -> Self {
        ReproduceError {
            bad_input: true,
            message,
        }
    }

    /// A port taken, a server that does not come up: exit 3.
    pub fn environment(message: String) -> Self {
        ReproduceError {
            bad_input: false,
            message,
        }
    }
}

/// One run's result.
pub struct RunResult {
    pub records: Vec<StepRecord>,
    pub verdict: Verdict,
    /// The worst lateness of any step, virtual ms.
    pub worst_late_ms: f64,
    /// Every server PID the run started.
    pub pids: Vec<u32>,
}

/// All runs of a reproduction.
pub struct Reproduction {
    pub redis_version: String,
    pub speed: f64,
    pub property: String,
    pub runs: Vec<RunResult>,
}

impl Reproduction {
    /// One verdict for all runs: a divergence wins (Redis answered otherwise); else any
    /// run that reproduced; else any inconclusive one; else NOT REPRODUCED.
    pub fn verdict(&self) -> &Verdict {
        overall(self.runs.iter().map(|r| &r.verdict).collect())
    }

    /// How many runs reproduced.
    pub fn reproduced(&self) -> usize {
        self.runs
            .iter()
            .filter(|r| r.verdict == Verdict::Reproduced)
            .count()
    }
}

/// One verdict for several runs: a divergence wins (Redis or the library answered
/// otherwise); else any run that reproduced; else any inconclusive one; else NOT REPRODUCED.
pub fn overall(verdicts: Vec<&Verdict>) -> &Verdict {
    let find = |f: fn(&Verdict) -> bool| verdicts.iter().copied().find(|v| f(v));
    find(|v| matches!(v, Verdict::Diverged { .. }))
        .or_else(|| find(|v| *v == Verdict::Reproduced))
        .or_else(|| find(|v| matches!(v, Verdict::Inconclusive { .. })))
        .unwrap_or(&Verdict::NotReproduced)
}

/// What every reproduction checks first: the speed, the server's version, and a plan of
/// `path` that real processes can play.
pub(crate) fn checked_plan(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    options: &RunOptions,
) -> Result<(String, plan::Plan), ReproduceError> {
    if !(1.0..=MAX_SPEED).contains(&options.speed) {
        return Err(ReproduceError::bad_environment(format!(
            "--speed {} is out of range: 1 to {MAX_SPEED}",
            options.speed
        )));
    }
    let redis_version = server::version(&options.server.program)?;
    let plan =
        plan::plan(world, path).map_err(|u| ReproduceError::bad_environment(u.to_string()))?;
    Ok((redis_version, plan))
}

/// Plays `path` of `world` (a counterexample of `property`, or a witness of it when it is a
/// `sometimes` property; the model's run shows that if `model_happened`) `repeat` times
/// against real servers.
pub fn reproduce(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    property: &str,
    model_happened: bool,
    repeat: usize,
    options: &RunOptions,
) -> Result<Reproduction, ReproduceError> {
    let (redis_version, mut plan) = checked_plan(world, path, options)?;
    let slack = slack::slack(world, path, &mut plan, options.speed);
    let mut runs = Vec::new();
    for _ in 0..repeat.max(1) {
        let run = run::run_once(&plan, &slack, options)?;
        let observed = observed::judge(world, path, &run.replies, property, model_happened);
        let verdict = decide(&run.records, run.stopped.as_deref(), &observed);
        let worst_late_ms = run
            .records
            .iter()
            .filter(|r| r.real_ms.is_some())
            .map(|r| r.late_ms)
            .fold(0.0, f64::max);
        runs.push(RunResult {
            records: run.records,
            verdict,
            worst_late_ms,
            pids: run.pids,
        });
        if interrupted() {
            break;
        }
    }
    Ok(Reproduction {
        redis_version,
        speed: options.speed,
        property: property.to_string(),
        runs,
    })
}
