//! Property tests that fail quietly and can be rerun: [`for_all`] draws cases from a
//! proptest strategy, one seeded runner per case, and checks each with assertions that
//! return a [`Failure`] instead of panicking, so that shrinking prints nothing. Once the
//! smallest failing case is found it is checked again, and only then is its timeline
//! printed and its trace saved: one message, one trace per failure.
//!
//! Case `k` is drawn from seed `k`, so runs are the same everywhere. `LOCKCHECK_SEEDS=N`
//! sets how many cases (default 32; CI can run deeper); `LOCKCHECK_SEED=S` runs the case of
//! seed `S` alone, as the failure message says. A failing seed is appended to
//! `proptest-regressions/<name>.seeds` (relative to the working directory, the crate's
//! folder under `cargo test`; `LOCKCHECK_REGRESSIONS` names another folder) and tried first
//! from then on.

use super::CheckedScenario;
use crate::scenario::{FaultsSpec, Scenario};
use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use std::path::PathBuf;

/// Cases a property runs without `LOCKCHECK_SEEDS`.
pub const DEFAULT_CASES: u64 = 32;

/// Shrinking steps tried on a failing case at most.
const MAX_SHRINK_ITERS: u32 = 1_024;

/// Why a case failed, and the run to report if the failure came from a check.
pub struct Failure {
    pub reason: String,
    run: Option<Box<CheckedScenario>>,
}

impl Failure {
    /// A failure of the test's own making (no run to report).
    pub fn new(reason: impl Into<String>) -> Self {
        Failure {
            reason: reason.into(),
            run: None,
        }
    }

    pub(super) fn of(run: CheckedScenario, reason: String) -> Self {
        Failure {
            reason,
            run: Some(Box::new(run)),
        }
    }
}

/// Checks `property` on cases drawn from `strategy`; panics once, with the smallest failing
/// case's parameters, timeline, saved trace and the command that reruns it.
#[track_caller]
pub fn for_all<S: Strategy>(
    name: &str,
    strategy: S,
    property: impl Fn(S::Value) -> Result<(), Failure>,
) {
    for seed in seeds(name) {
        let mut runner = TestRunner::new_with_rng(one_case(), rng(seed));
        let result = runner.run(&strategy, |value| {
            property(value).map_err(|f| TestCaseError::fail(f.reason))
        });
        let value = match result {
            Ok(()) => continue,
            Err(TestError::Fail(_, value)) => value,
            Err(TestError::Abort(why)) => panic!("property `{name}`, seed {seed}: {why}"),
        };
        let Err(failure) = property(value) else {
            panic!("property `{name}`, seed {seed}: the smallest case failed, then passed when checked again (is the test deterministic?)");
        };
        let recorded = record(name, seed);
        panic!("{}", message(name, seed, &failure, recorded));
    }
}

fn one_case() -> Config {
    Config {
        cases: 1,
        failure_persistence: None,
        max_shrink_iters: MAX_SHRINK_ITERS,
        ..Config::default()
    }
}

fn rng(seed: u64) -> TestRng {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// A whole number from the environment variable `var`, if set; panics naming it if not.
fn env_number(var: &str) -> Option<u64> {
    let text = std::env::var(var).ok()?;
    match text.trim().parse() {
        Ok(n) => Some(n),
        Err(_) => panic!("{var} must be a whole number, got `{text}`"),
    }
}

fn regressions_file(name: &str) -> PathBuf {
    let dir = std::env::var_os("LOCKCHECK_REGRESSIONS").unwrap_or("proptest-regressions".into());
    PathBuf::from(dir).join(format!("{name}.seeds"))
}

/// The seeds to run: `LOCKCHECK_SEED` alone, else the recorded failures first and then
/// `0..LOCKCHECK_SEEDS`.
fn seeds(name: &str) -> Vec<u64> {
    if let Some(seed) = env_number("LOCKCHECK_SEED") {
        return vec![seed];
    }
    let mut seeds: Vec<u64> = std::fs::read_to_string(regressions_file(name))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split('#').next()?.trim().parse().ok())
        .collect();
    seeds.extend(0..env_number("LOCKCHECK_SEEDS").unwrap_or(DEFAULT_CASES));
    seeds
}

/// Appends `seed` to the property's regressions file unless it is there; returns the file
/// when the seed is recorded in it.
fn record(name: &str, seed: u64) -> Option<PathBuf> {
    let file = regressions_file(name);
    let known = std::fs::read_to_string(&file).unwrap_or_default();
    let line = format!("{seed}");
    if known
        .lines()
        .any(|l| l.split('#').next().map(str::trim) == Some(&line))
    {
        return Some(file);
    }
    std::fs::create_dir_all(file.parent()?).ok()?;
    let header = if known.is_empty() {
        "# Seeds of failing cases, tried first by lockcheck::testing::for_all. Check it in.\n"
    } else {
        ""
    };
    crate::atomic_write::write_whole(&file, format!("{known}{header}{line}\n")).ok()?;
    Some(file)
}

fn message(name: &str, seed: u64, failure: &Failure, recorded: Option<PathBuf>) -> String {
    let mut msg = format!("property `{name}` failed; smallest case (seed {seed}):\n");
    let rerun = format!("rerun this case: LOCKCHECK_SEED={seed} cargo test {name}\n");
    match &failure.run {
        Some(run) => {
            msg.push_str(&parameters(&run.scenario));
            msg.push_str(&run.failure(&failure.reason));
        }
        None => msg.push_str(&format!("{}\n", failure.reason)),
    }
    msg.push_str(&rerun);
    if let Some(file) = recorded {
        msg.push_str(&format!(
            "the seed is recorded in {} and tried first from now on\n",
            file.display()
        ));
    }
    msg
}

/// The scenario in a few lines: its description and its fault envelope.
pub fn parameters(scenario: &Scenario) -> String {
    let mut s = format!("  {}\n", scenario.description);
    let f = &scenario.faults;
    let faults = faults_line(f);
    if !faults.is_empty() {
        s.push_str(&format!("  faults: {faults}\n"));
    }
    s
}

fn faults_line(f: &FaultsSpec) -> String {
    let mut parts = Vec::new();
    for p in &f.pauses {
        parts.push(format!("pause {} {:?} ms", p.process, p.durations_ms));
    }
    if f.max_pauses > 0 {
        parts.push(format!("at most {} pauses", f.max_pauses));
    }
    for c in &f.crashes {
        let restart: Vec<String> = c
            .restart_after_ms
            .iter()
            .map(|r| r.map_or("never".into(), |ms| format!("{ms} ms")))
            .collect();
        let kind = if c.power_loss { "power loss" } else { "crash" };
        parts.push(format!(
            "{kind} {} (restart after {})",
            c.process,
            restart.join(" or ")
        ));
    }
    if f.max_crashes > 0 {
        parts.push(format!("at most {} crashes", f.max_crashes));
    }
    for c in &f.clock_steps {
        parts.push(format!("clock step {} {:?} ms", c.process, c.deltas_ms));
    }
    if f.max_clock_steps > 0 {
        parts.push(format!("at most {} clock steps", f.max_clock_steps));
    }
    for p in &f.partitions {
        parts.push(format!("partition {}", p.name));
    }
    if f.max_partitions > 0 {
        parts.push(format!("at most {} partitions", f.max_partitions));
    }
    parts.join(", ")
}
