//! lockcheck's scenarios on madsim: a scenario's world run under a seed, and the checks a
//! `#[madsim::test]` makes of it.

use crate::report::RunReport;
use crate::run::{run, RunOptions};
use lockcheck::scenario::build::ScenarioError;
use lockcheck::scenario::Scenario;
use std::ops::Range;
use std::sync::Arc;

/// A scenario's run bounds: as many steps as one of its kernel random walks may take, and
/// its virtual-time bound.
pub fn options(scenario: &Scenario) -> RunOptions {
    RunOptions {
        max_steps: scenario.explore.random_max_steps,
        max_virtual_time_ms: scenario.explore.max_virtual_time_ms,
        fault_per_mille: None,
    }
}

/// Runs `scenario` once on the current madsim runtime.
pub async fn run_scenario(scenario: &Scenario) -> Result<RunReport, ScenarioError> {
    let world = Arc::new(scenario.build()?);
    Ok(run(world, options(scenario)).await)
}

/// Runs `scenario` once in a madsim runtime of its own with `seed`: the run a
/// `#[madsim::test]` of it makes under `MADSIM_TEST_SEED=seed`. Like madsim's test runner,
/// it gives the runtime a fresh thread, so that nothing a thread keeps from earlier runs (the
/// keys of std's hash maps) can change this one.
pub fn run_seed(scenario: &Scenario, seed: u64) -> Result<RunReport, ScenarioError> {
    let world = Arc::new(scenario.build()?);
    let options = options(scenario);
    let report = std::thread::spawn(move || {
        let runtime =
            madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
        runtime.block_on(run(world, options))
    })
    .join()
    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    Ok(report)
}

/// What a range of seeds found.
#[derive(Debug)]
pub struct Search {
    /// Seeds run (up to and including the first violation).
    pub runs: u64,
    /// The first run with a violation.
    pub violation: Option<RunReport>,
    /// `sometimes` properties some run witnessed.
    pub witnessed: Vec<String>,
    /// `sometimes` properties no run witnessed.
    pub not_witnessed: Vec<String>,
}

/// Runs `scenario` under each seed of `seeds` until one finds a violation.
pub fn search(scenario: &Scenario, seeds: Range<u64>) -> Result<Search, ScenarioError> {
    let mut found = Search {
        runs: 0,
        violation: None,
        witnessed: Vec::new(),
        not_witnessed: Vec::new(),
    };
    for seed in seeds {
        let report = run_seed(scenario, seed)?;
        found.runs += 1;
        for w in &report.witnessed {
            if !found.witnessed.contains(w) {
                found.witnessed.push(w.clone());
            }
        }
        if found.runs == 1 {
            found.not_witnessed = report.not_witnessed.clone();
        }
        found.not_witnessed.retain(|w| !found.witnessed.contains(w));
        if report.violation.is_some() {
            found.violation = Some(report);
            break;
        }
    }
    Ok(found)
}

/// The command that replays `seed` of test `test` in this crate's test target `target`.
pub fn replay_command(target: &str, test: &str, seed: u64) -> String {
    format!(
        "cd madsim && MADSIM_TEST_SEED={seed} MADSIM_TEST_NUM=1 cargo test --test {target} -- {test} --exact --nocapture"
    )
}

/// For a `#[madsim::test]`: runs `scenario` once under the test's seed and panics if any of
/// its oracles is violated, with the report and the command that replays the run. A scenario
/// known to break its lock makes this panic with "violates `<oracle>`".
pub async fn assert_safe(scenario: &Scenario, target: &str, test: &str) -> RunReport {
    let report = run_scenario(scenario)
        .await
        .unwrap_or_else(|e| panic!("scenario `{}` does not build: {e}", scenario.name));
    if let Some(v) = &report.violation {
        panic!(
            "scenario `{}` violates `{}` under madsim seed {}\nreplay: {}\n\n{report}",
            scenario.name,
            v.property,
            report.seed,
            replay_command(target, test, report.seed)
        );
    }
    report
}
