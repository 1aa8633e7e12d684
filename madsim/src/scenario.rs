//! lockcheck's scenarios on madsim: batches of runs under a seed, and the checks a
//! `#[madsim::test]` makes of them.

use crate::batch::{for_each_run, run_batch, Batch, Until};
use crate::report::RunReport;
use crate::run::RunOptions;
use lockcheck::saved::{save_violation, trace_dir, SavedViolation};
use lockcheck::scenario::build::ScenarioError;
use lockcheck::scenario::Scenario;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Built-ins whose violation madsim's random runs are not known to reach: (scenario, oracle,
/// why). The kernel finds these exhaustively and by its own random walks; the madsim suite
/// and the cross-validation both read this one list.
pub const NOT_REACHED: &[(&str, &str, &str)] = &[(
    "redlock-split-vote-livelock",
    "progress",
    "no violation of the bounded `progress` oracle in 20,000 madsim runs of seed 1",
)];

/// A scenario's run bounds: as many steps as one of its kernel random walks may take, and
/// its virtual-time bound.
pub fn options(scenario: &Scenario) -> RunOptions {
    RunOptions {
        max_steps: scenario.explore.random_max_steps,
        max_virtual_time_ms: scenario.explore.max_virtual_time_ms,
        fault_per_mille: None,
    }
}

/// Runs `scenario` up to `runs` times on the current madsim runtime, stopping as `until`
/// says.
pub async fn batch(scenario: &Scenario, runs: u32, until: Until) -> Result<Batch, ScenarioError> {
    let world = Arc::new(scenario.build()?);
    Ok(run_batch(world, options(scenario), runs, until).await)
}

/// Runs the future `make` returns in a madsim runtime of its own with `seed`, as madsim's
/// test runner does under `MADSIM_TEST_SEED=seed`: on a fresh thread, so that nothing a
/// thread keeps from earlier runtimes (the keys of std's hash maps) can change it. A panic
/// comes back as `Err`.
pub fn in_runtime<T, F>(
    seed: u64,
    make: impl FnOnce() -> F + Send + 'static,
) -> std::thread::Result<T>
where
    F: Future<Output = T>,
    T: Send + 'static,
{
    std::thread::spawn(move || {
        let runtime =
            madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
        runtime.block_on(make())
    })
    .join()
}

/// The batch a `#[madsim::test]` calling [`batch`] makes under `MADSIM_TEST_SEED=seed`, in a
/// runtime of its own ([`in_runtime`]).
pub fn batch_with_seed(
    scenario: &Scenario,
    seed: u64,
    runs: u32,
    until: Until,
) -> Result<Batch, ScenarioError> {
    let world = Arc::new(scenario.build()?);
    let options = options(scenario);
    let found = in_runtime(seed, move || run_batch(world, options, runs, until))
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    Ok(found)
}

/// Every run of a batch of `runs` runs of `scenario` under `seed` (in a runtime of its own,
/// as [`batch_with_seed`]), to be looked at one by one.
pub fn runs_with_seed(
    scenario: &Scenario,
    seed: u64,
    runs: u32,
) -> Result<Vec<RunReport>, ScenarioError> {
    let world = Arc::new(scenario.build()?);
    let options = options(scenario);
    let reports = in_runtime(seed, move || async move {
        let mut reports = Vec::new();
        for_each_run(world, options, runs, |r| {
            reports.push(r);
            true
        })
        .await;
        reports
    })
    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    Ok(reports)
}

/// A test of this crate, for the command that replays it.
#[derive(Clone, Copy, Debug)]
pub struct TestName<'a> {
    /// The test target (the file under `tests/`, without `.rs`).
    pub target: &'a str,
    /// The test function.
    pub function: &'a str,
}

impl TestName<'_> {
    /// The command that replays this test under `seed`, from the directory of the crate
    /// under test (which `cargo test` names in `CARGO_MANIFEST_DIR`).
    pub fn replay_command(&self, seed: u64) -> String {
        let cd = std::env::var("CARGO_MANIFEST_DIR")
            .map(|dir| format!("cd {dir} && "))
            .unwrap_or_default();
        format!(
            "{cd}MADSIM_TEST_SEED={seed} MADSIM_TEST_NUM=1 cargo test --test {} -- {} --exact --nocapture",
            self.target, self.function
        )
    }
}

/// For a `#[madsim::test]`: runs `scenario` `runs` times under the test's seed and panics at
/// the first violation of any of its oracles, with the report and the command that replays
/// it.
pub async fn expect_safe(scenario: &Scenario, runs: u32, test: TestName<'_>) -> Batch {
    let found = built(scenario, batch(scenario, runs, Until::AnyViolation).await);
    if let Some(report) = found.first_violation() {
        panic!(
            "scenario `{}` violates `{}` in run {} of madsim seed {}\nreplay: {}\n{}\n\n{report}",
            scenario.name,
            report.violated().unwrap_or_default(),
            report.run,
            report.seed,
            test.replay_command(report.seed),
            trace_note(scenario, report)
        );
    }
    found
}

/// For a `#[madsim::test]`: runs `scenario` up to `runs` times under the test's seed and
/// panics unless some run violates `oracle`. Prints the run that did, with the command that
/// replays it (runs that violated other oracles first are named too).
pub async fn expect_violation(
    scenario: &Scenario,
    oracle: &str,
    runs: u32,
    test: TestName<'_>,
) -> RunReport {
    let found = built(
        scenario,
        batch(scenario, runs, Until::Violation(oracle.to_string())).await,
    );
    let seed = found.seed;
    let Some(report) = found.violation_of(oracle) else {
        panic!(
            "scenario `{}`: no violation of `{oracle}` in {runs} runs of madsim seed {seed} (violated: {:?})\nreplay: {}",
            scenario.name,
            found.violated(),
            test.replay_command(seed)
        );
    };
    let others: Vec<&str> = found
        .violated()
        .into_iter()
        .filter(|o| *o != oracle)
        .collect();
    let others = if others.is_empty() {
        String::new()
    } else {
        format!(" (earlier runs violated {others:?})")
    };
    println!(
        "found: `{}` violates `{oracle}` in run {} of madsim seed {seed}{others}\nreplay: {}\n{}\n\n{report}",
        scenario.name,
        report.run,
        test.replay_command(seed),
        trace_note(scenario, report)
    );
    report.clone()
}

/// Saves `run` as a trace of `scenario` that `lockcheck replay` and `lockcheck explain`
/// read (they run its steps in lockcheck's own simulator), in the folder where failing
/// tests save traces (`$LOCKCHECK_TRACE_DIR`, else the target directory); returns the file,
/// or why not.
pub fn save_trace(scenario: &Scenario, run: &RunReport) -> Result<PathBuf, String> {
    save_trace_in(&trace_dir(), scenario, run)
}

/// [`save_trace`] into `dir`.
pub fn save_trace_in(dir: &Path, scenario: &Scenario, run: &RunReport) -> Result<PathBuf, String> {
    save_in(dir, scenario, run).map(|saved| saved.file)
}

/// The run's trace saved in `dir`, with the command that replays it.
fn save_in(dir: &Path, scenario: &Scenario, run: &RunReport) -> Result<SavedViolation, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let file = dir.join(format!(
        "{}-madsim-seed-{}-run-{}.trace.json",
        scenario.name, run.seed, run.run
    ));
    save_violation(scenario, run.trace.clone(), &file)
        .map_err(|e| format!("cannot write {}: {e}", file.display()))
}

/// Where the run's trace went, and how to see it in lockcheck's own simulator.
fn trace_note(scenario: &Scenario, run: &RunReport) -> String {
    match save_in(&trace_dir(), scenario, run) {
        Ok(saved) => format!(
            "trace saved to {}\nthe same run in lockcheck's kernel: {} (or explain, for a picture)",
            saved.file.display(),
            saved.replay_command
        ),
        Err(e) => format!("the trace could not be saved: {e}"),
    }
}

fn built(scenario: &Scenario, batch: Result<Batch, ScenarioError>) -> Batch {
    batch.unwrap_or_else(|e| panic!("scenario `{}` does not build: {e}", scenario.name))
}
