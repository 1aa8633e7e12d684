//! Checking a scenario: build its world, explore it, and say what was found.
//!
//! Exhaustive mode searches breadth-first (a violation comes with a shortest path) within
//! the scenario's bounds, on `Options::threads` threads with the same results; random mode
//! runs the scenario's number of seeded walks, on as many threads with the same results. The
//! verdict is the first violated oracle, if any; `sometimes` witnesses that never happened
//! make a safe verdict *hollow*, which callers must treat as a failure of the scenario.

use crate::expectation::VerdictComparison;
use crate::oracles::RedisWorld;
use crate::scenario::{build::ScenarioError, ExpectedVerdict, Scenario};
use lockcheck_sim::{explore_parallel, explore_walks, Options, Path, Report};
use lockcheck_sim::{Limits, Outcome};

/// How to search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Exhaustive,
    /// Seeded random walks, seeds `first..first + count`.
    Random {
        first: u64,
        count: u64,
    },
}

/// A scenario's world and the report of one search.
pub struct Checked {
    pub world: RedisWorld,
    pub report: Report<RedisWorld>,
}

impl Checked {
    /// The oracle that fired first, if any.
    pub fn violated(&self) -> Option<&str> {
        self.report.first_violation().map(|(name, _)| name)
    }

    /// Every violated oracle with its counterexample, in the scenario's order (more than one
    /// when the search went on after the first violation, or several broke at one state).
    pub fn violations(&self) -> Vec<(&str, &Path<RedisWorld>)> {
        self.report
            .properties
            .iter()
            .filter_map(|p| {
                p.status
                    .path()
                    .filter(|_| p.status.is_violated())
                    .map(|path| (p.name.as_str(), path))
            })
            .collect()
    }

    /// Whether the outcome is the one the scenario expects, as `check` decides it
    /// ([`VerdictComparison`]): a safe verdict must come from a search not cut short by a
    /// limit or a signal and must not be hollow (every witness happened); an expected
    /// violation is met when that oracle is violated. A scenario that states no
    /// expectation is never as expected.
    pub fn as_expected(&self, expected: &ExpectedVerdict) -> bool {
        VerdictComparison::of(self, expected).matches()
    }
}

/// Checks `scenario` in `mode`, keeping the fault coverage ([`Checked::fault_coverage`]).
pub fn check(scenario: &Scenario, mode: Mode) -> Result<Checked, ScenarioError> {
    let options = Options {
        fault_coverage: true,
        ..scenario.explore.options()
    };
    check_with(scenario, mode, options)
}

/// Checks `scenario` in `mode` with explicit kernel options (`options.fault_coverage` asks
/// for the fault coverage).
pub fn check_with(
    scenario: &Scenario,
    mode: Mode,
    options: Options,
) -> Result<Checked, ScenarioError> {
    let world = scenario
        .build()?
        .with_wide_fingerprints(options.storage.wide_fingerprints);
    let report = match mode {
        Mode::Exhaustive => explore_parallel(&world, options),
        Mode::Random { first, count } => {
            let seeds = first..first.saturating_add(count);
            let options = Options {
                limits: Limits {
                    max_states: None,
                    ..options.limits
                },
                ..options
            };
            explore_walks(&world, seeds, scenario.explore.random_max_steps, options)
        }
    };
    Ok(Checked { world, report })
}

/// How a search ended, in one word, as `--json` and shard files write it.
pub fn outcome_word(o: &Outcome) -> &'static str {
    match o {
        Outcome::Complete => "complete",
        Outcome::Bounded { .. } => "bounded",
        Outcome::RunsDone { .. } => "runs_done",
        Outcome::StoppedAtViolation => "stopped_at_violation",
        Outcome::AllSettled => "all_settled",
        Outcome::LimitReached(_) => "limit_reached",
        Outcome::Interrupted => "interrupted",
    }
}
