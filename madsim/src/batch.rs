//! Several runs of one world in one madsim runtime, each on nodes of its own.
//!
//! A run of a lock scenario takes well under a millisecond of real time, less than it takes
//! to set up a madsim runtime; so a test runs a batch of runs per seed. The seed decides the
//! whole batch: `MADSIM_TEST_SEED` replays it, and the run that failed fails again, at the
//! same place in the batch.

use crate::report::RunReport;
use crate::run::{run_in_runtime, HostedActor, RunOptions};
use crate::wire::MAX_RUNS_PER_RUNTIME;
use lockcheck_sim::world::World;
use std::sync::Arc;

/// When a batch stops before its last run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Until {
    /// At the first run that violates any property.
    AnyViolation,
    /// At the first run that violates this property (runs violating others are kept too).
    Violation(String),
}

/// What a batch of runs found.
#[derive(Clone, Debug)]
pub struct Batch {
    /// madsim's seed, which replays the batch.
    pub seed: u64,
    /// Runs made.
    pub runs: u32,
    /// Handlers run, over all runs.
    pub steps: u64,
    /// For each property some run violated, the first run that did, in the order found.
    pub violations: Vec<RunReport>,
    /// `sometimes` properties some run witnessed.
    pub witnessed: Vec<String>,
    /// `sometimes` properties no run witnessed.
    pub not_witnessed: Vec<String>,
}

impl Batch {
    /// The first run that violated any property.
    pub fn first_violation(&self) -> Option<&RunReport> {
        self.violations.first()
    }

    /// The first run that violated `property`.
    pub fn violation_of(&self, property: &str) -> Option<&RunReport> {
        self.violations
            .iter()
            .find(|r| r.violated() == Some(property))
    }

    /// The properties violated, in the order found.
    pub fn violated(&self) -> Vec<&str> {
        self.violations
            .iter()
            .filter_map(|r| r.violated())
            .collect()
    }
}

/// Runs `world` up to `runs` times in the current runtime, stopping as `until` says.
pub async fn run_batch<A: HostedActor>(
    world: Arc<World<A>>,
    options: RunOptions,
    runs: u32,
    until: Until,
) -> Batch {
    let mut batch = Batch {
        seed: madsim::runtime::Handle::current().seed(),
        runs: 0,
        steps: 0,
        violations: Vec::new(),
        witnessed: Vec::new(),
        not_witnessed: Vec::new(),
    };
    for_each_run(world, options, runs, |report| {
        batch.runs += 1;
        batch.steps += u64::from(report.steps);
        for w in &report.witnessed {
            if !batch.witnessed.contains(w) {
                batch.witnessed.push(w.clone());
            }
        }
        if report.run == 0 {
            batch.not_witnessed = report.not_witnessed.clone();
        }
        batch.not_witnessed.retain(|w| !batch.witnessed.contains(w));
        let Some(property) = report.violated().map(str::to_string) else {
            return true;
        };
        if batch.violation_of(&property).is_none() {
            batch.violations.push(report);
        }
        match &until {
            Until::AnyViolation => false,
            Until::Violation(wanted) => *wanted != property,
        }
    })
    .await;
    batch
}

/// Runs `world` up to `runs` times in the current runtime, handing each run's report to
/// `each`, which says whether to go on.
pub async fn for_each_run<A: HostedActor>(
    world: Arc<World<A>>,
    options: RunOptions,
    runs: u32,
    mut each: impl FnMut(RunReport) -> bool,
) {
    assert!(
        (1..=MAX_RUNS_PER_RUNTIME).contains(&runs),
        "a batch has 1 to {MAX_RUNS_PER_RUNTIME} runs"
    );
    for index in 0..runs {
        if !each(run_in_runtime(world.clone(), options, index).await) {
            break;
        }
    }
}
