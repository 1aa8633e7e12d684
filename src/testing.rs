//! lockcheck in your own tests: build a scenario in code (or load a file), check it, and
//! assert on the verdict. A failed assertion panics with the counterexample's timeline, the
//! path of its saved trace and the one command that replays it. Proptest strategies for
//! scenario parameters and fault envelopes make the same checks property tests.
//!
//! ```no_run
//! use lockcheck::testing::{self, single_node_lock};
//!
//! let mut scenario = single_node_lock("my-lock", 10_000, 1_000, 15_000);
//! scenario.account.as_mut().unwrap().fencing = true;
//! for c in &mut scenario.clients {
//!     if let lockcheck::scenario::ProtocolSpec::SingleNode { fencing_counter, .. } = &mut c.protocol {
//!         *fencing_counter = Some("my-lock:token".into());
//!     }
//! }
//! testing::check(&scenario).assert_no_violation();
//! ```
//!
//! Property tests: [`for_all`] runs a property over a strategy's cases quietly (no output
//! while shrinking), then reports the smallest failing case once, with its parameters,
//! timeline, one saved trace and the command that reruns it; `LOCKCHECK_SEEDS` sets the
//! number of cases and `LOCKCHECK_SEED` reruns one.
//!
//! ```no_run
//! use lockcheck::testing::{self, single_node_scenario};
//!
//! testing::for_all("short_pauses_are_harmless", single_node_scenario(), |(p, s)| {
//!     if p.pause_ms + p.work_ms >= p.ttl_ms {
//!         return Ok(()); // not this property's concern
//!     }
//!     testing::check(&s).no_violation()
//! });
//! ```
//!
//! This module is behind the `proptest` cargo feature, on by default, so that a user's
//! tests get the strategies without adding proptest themselves; turn default features off
//! to drop the dependency.

use crate::check::{check_with, Checked, Mode};
use crate::expectation::{has_verdict, limit_hint, VerdictComparison};
use crate::report::timeline;
use crate::saved::{save_violation_in_trace_dir, SavedViolation};
pub use crate::scenario::file::{load_scenario, scenario_from_toml};
use crate::scenario::kit;
use crate::scenario::*;
pub use crate::InputError;
use crate::SystemWallClock;
use lockcheck_sim::{Outcome, Stop, Trace};
use proptest::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

mod property;
pub use property::{for_all, parameters, Failure, DEFAULT_CASES};

/// A checked scenario.
pub struct CheckedScenario {
    pub scenario: Scenario,
    pub checked: Checked,
    /// How it was searched (to search again with every oracle).
    mode: Mode,
}

/// Checks `scenario` exhaustively (breadth-first, within its `explore` bounds).
///
/// Panics with the field at fault if the scenario does not build.
pub fn check(scenario: &Scenario) -> CheckedScenario {
    run(scenario, Mode::Exhaustive)
}

/// Checks `scenario` with `seeds` seeded random walks.
pub fn check_random(scenario: &Scenario, seeds: u64) -> CheckedScenario {
    run(
        scenario,
        Mode::Random {
            first: 0,
            count: seeds,
        },
    )
}

fn run(scenario: &Scenario, mode: Mode) -> CheckedScenario {
    run_until(scenario, mode, Stop::AtFirstViolation)
}

fn run_until(scenario: &Scenario, mode: Mode, stop: Stop) -> CheckedScenario {
    let mut options = scenario.explore.options();
    options.stop = stop;
    options.hooks.wall_clock = Some(Arc::new(SystemWallClock::start()));
    match check_with(scenario, mode, options) {
        Ok(checked) => CheckedScenario {
            scenario: scenario.clone(),
            checked,
            mode,
        },
        Err(e) => panic!("scenario `{}` does not build: {e}", scenario.name),
    }
}

pub use crate::saved::trace_dir;

impl CheckedScenario {
    /// The oracle that fired first, if any.
    pub fn violated(&self) -> Option<&str> {
        self.checked.violated()
    }

    /// Whether a resource limit ended the search before a verdict.
    pub fn limit_reached(&self) -> bool {
        matches!(self.checked.report.outcome, Outcome::LimitReached(_))
    }

    /// Why the search has no verdict, if it was cut short (a limit or an interrupt) without
    /// a violation: the outcome, the figures so far and the hint `check` prints.
    fn cut_short(&self) -> Option<String> {
        if has_verdict(&self.checked) {
            return None;
        }
        let report = &self.checked.report;
        let s = &report.stats;
        let mut why = format!(
            "no verdict: {} ({} unique states, depth {}, {} into virtual time)",
            report.outcome,
            s.unique_states,
            s.max_depth,
            crate::report::seconds(s.max_virtual_time_ms)
        );
        if let Some(hint) = limit_hint(report) {
            why.push('\n');
            why.push_str(hint.trim_end());
        }
        Some(why)
    }

    /// This run, or, when it stopped at a violation of another oracle than `oracle`, the
    /// same search gone on until every oracle is settled (so that `oracle` is violated
    /// there if it can be).
    fn settling(&self, oracle: &str) -> Option<CheckedScenario> {
        let stopped = self.checked.report.outcome == Outcome::StoppedAtViolation;
        let found = (self.checked.violations().iter()).any(|(n, _)| *n == oracle);
        (stopped && !found).then(|| run_until(&self.scenario, self.mode, Stop::WhenAllSettled))
    }

    /// The counterexample's timeline, if there is a violation.
    pub fn timeline(&self) -> Option<String> {
        let (oracle, path) = self.checked.report.first_violation()?;
        let entries = timeline::entries(&self.checked.world, path);
        Some(timeline::text(&entries, Some(oracle)))
    }

    /// Saves the counterexample as a trace that `lockcheck replay` reads; returns its path.
    pub fn save_trace(&self) -> Option<PathBuf> {
        self.save_violation().map(|s| s.file)
    }

    /// The counterexample saved in [`trace_dir`], with the command that replays it.
    fn save_violation(&self) -> Option<SavedViolation> {
        let (oracle, path) = self.checked.report.first_violation()?;
        let trace = Trace::from_path(&self.checked.world, path, Some(oracle));
        let name = format!(
            "{}-{}.trace.json",
            self.scenario.name,
            &trace.model_hash[..8]
        );
        save_violation_in_trace_dir(&self.scenario, trace, &name).ok()
    }

    pub(crate) fn failure(&self, what: &str) -> String {
        let mut msg = format!("scenario `{}`: {what}\n", self.scenario.name);
        if let Some(t) = self.timeline() {
            msg.push_str("counterexample:\n");
            msg.push_str(&t);
        }
        if let Some(saved) = self.save_violation() {
            msg.push_str(&saved.note());
        }
        msg
    }

    /// What is wrong if the run must find no violation and get a verdict.
    fn no_violation_problem(&self) -> Option<String> {
        if let Some(o) = self.violated() {
            return Some(format!("{o} VIOLATED"));
        }
        self.cut_short()
    }

    /// What is wrong if the run must violate `oracle` (first or not).
    fn violation_problem(&self, oracle: &str) -> Option<String> {
        if let Some(settled) = self.settling(oracle) {
            return settled.violation_problem(oracle);
        }
        let violated: Vec<&str> = self.checked.violations().iter().map(|(n, _)| *n).collect();
        if violated.contains(&oracle) {
            return None;
        }
        let found = match self.cut_short() {
            Some(why) => why,
            None if violated.is_empty() => "no violation".to_string(),
            None => format!("a violation of {}", violated.join(", ")),
        };
        Some(format!("expected {oracle} to be violated, found {found}"))
    }

    /// What is wrong if the run must give the scenario's own `expect` verdict, as `check`
    /// decides it ([`VerdictComparison`]).
    fn expected_problem(&self) -> Option<String> {
        if let ExpectedVerdict::Violated { oracle } = &self.scenario.expect {
            if let Some(settled) = self.settling(oracle) {
                return settled.expected_problem();
            }
        }
        match VerdictComparison::of(&self.checked, &self.scenario.expect) {
            VerdictComparison::Matches { .. } => None,
            VerdictComparison::Unstated => {
                Some("the scenario states no expected verdict (`[expect]`)".into())
            }
            VerdictComparison::Differs { expected, got } => {
                let mut why = format!("expected {expected}, got {got}");
                if let Some(hint) = limit_hint(&self.checked.report) {
                    why.push('\n');
                    why.push_str(hint.trim_end());
                }
                Some(why)
            }
        }
    }

    /// Panics, with the timeline and the replay command, unless no oracle was violated
    /// and neither a limit nor an interrupt cut the search short (then with the figures so
    /// far and the hint `check` prints).
    #[track_caller]
    pub fn assert_no_violation(&self) -> &Self {
        if let Some(problem) = self.no_violation_problem() {
            panic!("{}", self.failure(&problem));
        }
        self
    }

    /// Panics unless `oracle` was violated, first or not: a search that stopped at another
    /// oracle's violation goes on until every oracle is settled.
    #[track_caller]
    pub fn assert_violated(&self, oracle: &str) -> &Self {
        if let Some(problem) = self.violation_problem(oracle) {
            panic!("{}", self.failure(&problem));
        }
        self
    }

    /// Panics unless the scenario's own `expect` verdict was found, as `check` decides it
    /// (a safe verdict needs a search not cut short, with every witness found).
    #[track_caller]
    pub fn assert_expected(&self) -> &Self {
        if let Some(problem) = self.expected_problem() {
            panic!("{}", self.failure(&problem));
        }
        self
    }

    /// For [`for_all`]: a quiet failure unless no oracle was violated and neither a limit
    /// nor an interrupt cut the search short.
    pub fn no_violation(self) -> Result<(), Failure> {
        self.quietly(CheckedScenario::no_violation_problem)
    }

    /// For [`for_all`]: a quiet failure unless `oracle` was violated (first or not).
    pub fn violation_of(self, oracle: &str) -> Result<(), Failure> {
        self.quietly(|run| run.violation_problem(oracle))
    }

    /// For [`for_all`]: a quiet failure unless the scenario's own verdict was found.
    pub fn as_expected(self) -> Result<(), Failure> {
        self.quietly(CheckedScenario::expected_problem)
    }

    fn quietly(self, problem: impl Fn(&CheckedScenario) -> Option<String>) -> Result<(), Failure> {
        match problem(&self) {
            Some(reason) => Err(Failure::of(self, reason)),
            None => Ok(()),
        }
    }
}

/// Two clients of one single-node `SET NX PX` lock with TTL `ttl_ms`, each reading the
/// account, working `work_ms` and debiting it; the first may pause once for `pause_ms`
/// (none if 0). Oracle: ME-resource (add `OracleSpec::MeLock` to `oracles` to ask about the
/// lock itself: it fires first, as two beliefs overlap before the account is damaged). A
/// starting point to adjust in code.
pub fn single_node_lock(name: &str, ttl_ms: u64, work_ms: u64, pause_ms: u64) -> Scenario {
    let client =
        |n: &str, start| kit::client(n, kit::single_node("redis", ttl_ms), &[work_ms], start);
    Scenario {
        name: name.into(),
        description: format!(
            "single-node lock, TTL {ttl_ms} ms, work {work_ms} ms, pause {pause_ms} ms"
        ),
        nodes: vec![kit::node("redis")],
        clients: kit::account_clients(vec![client("client-1", 0), client("client-2", 100)]),
        account: Some(kit::account(false, false, false)),
        faults: if pause_ms > 0 {
            kit::pause("client-1", &[pause_ms], 1)
        } else {
            FaultsSpec::default()
        },
        oracles: vec![OracleSpec::MeResource],
        expect: ExpectedVerdict::Safe,
        ..kit::base()
    }
}

/// Parameters of [`single_node_lock`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockParams {
    pub ttl_ms: u64,
    pub work_ms: u64,
    pub pause_ms: u64,
}

/// A duration in `range` (ms), in whole steps of `step_ms`.
pub fn duration_ms(range: std::ops::RangeInclusive<u64>, step_ms: u64) -> BoxedStrategy<u64> {
    let (lo, hi) = (*range.start(), *range.end());
    let step = step_ms.max(1);
    (0..=(hi - lo) / step)
        .prop_map(move |k| lo + k * step)
        .boxed()
}

/// TTL 1-30 s, work 100 ms-5 s, pause 0-40 s, on a 100 ms grid.
pub fn lock_params() -> impl Strategy<Value = LockParams> {
    (
        duration_ms(1_000..=30_000, 100),
        duration_ms(100..=5_000, 100),
        duration_ms(0..=40_000, 100),
    )
        .prop_map(|(ttl_ms, work_ms, pause_ms)| LockParams {
            ttl_ms,
            work_ms,
            pause_ms,
        })
}

/// A [`single_node_lock`] scenario with parameters from [`lock_params`].
pub fn single_node_scenario() -> impl Strategy<Value = (LockParams, Scenario)> {
    lock_params().prop_map(|p| {
        (
            p,
            single_node_lock("prop-single-node", p.ttl_ms, p.work_ms, p.pause_ms),
        )
    })
}

/// A [`fault_envelope`] with timing: each rule may get a window (an instant, a window from
/// the start, or one counted from a client's first grant), and the envelope a quiet gap
/// and a cap per process; `clients` are the names windows may count from.
pub fn fault_schedule(
    processes: Vec<String>,
    clients: Vec<String>,
    max_pause_ms: u64,
) -> impl Strategy<Value = FaultsSpec> {
    let when = fault_when(clients);
    // One for each rule `fault_envelope` can give: two pauses, a crash, a clock step.
    let whens = prop::collection::vec(when, 4);
    let gap = prop_oneof![Just(0u64), Just(500), Just(2_000)];
    let cap = prop_oneof![Just(None), Just(Some(1u32)), Just(Some(2))];
    (fault_envelope(processes, max_pause_ms), whens, gap, cap).prop_map(
        |(mut faults, whens, min_gap_ms, max_per_process)| {
            let rules = (faults.pauses.iter_mut().map(|p| &mut p.when))
                .chain(faults.crashes.iter_mut().map(|c| &mut c.when))
                .chain(faults.clock_steps.iter_mut().map(|c| &mut c.when));
            for (slot, when) in rules.zip(whens) {
                *slot = when;
            }
            faults.min_gap_ms = min_gap_ms;
            faults.max_per_process = max_per_process;
            faults
        },
    )
}

/// Any time, an instant or a window of up to 3 s within the first 4 s, counted from the
/// start or from one of `clients` acquiring.
fn fault_when(clients: Vec<String>) -> impl Strategy<Value = FaultWhen> {
    let n = clients.len().max(1);
    let after = prop::option::of(0..n)
        .prop_map(move |c| c.and_then(|c| clients.get(c).map(|n| format!("{n} acquires"))));
    let from = duration_ms(0..=4_000, 250);
    let length = prop::option::of(duration_ms(0..=3_000, 250));
    let pinned = any::<bool>();
    prop_oneof![
        Just(FaultWhen::default()),
        (after, from, length, pinned).prop_map(|(after, from, length, pinned)| FaultWhen {
            at_ms: pinned.then_some(from),
            from_ms: (!pinned).then_some(from),
            to_ms: length.filter(|_| !pinned).map(|l| from + l),
            after,
        }),
    ]
}

/// A fault envelope over `processes`: pauses of up to `max_pause_ms` (one or two lengths
/// each), crashes that restart after up to 30 s or never, wall-clock steps of up to ±30 s,
/// each with a budget of 0 to 2.
pub fn fault_envelope(
    processes: Vec<String>,
    max_pause_ms: u64,
) -> impl Strategy<Value = FaultsSpec> {
    let n = processes.len().max(1);
    let pause = (
        0..n,
        prop::collection::vec(duration_ms(1..=max_pause_ms.max(1), 1), 1..=2),
    );
    let crash = (
        0..n,
        any::<bool>(),
        prop::option::of(duration_ms(0..=30_000, 1_000)),
    );
    let step = (0..n, prop::collection::vec(-30_000i64..=30_000, 1..=2));
    (
        prop::collection::vec(pause, 0..=2),
        0u32..=2,
        prop::collection::vec(crash, 0..=1),
        0u32..=1,
        prop::collection::vec(step, 0..=1),
        0u32..=1,
    )
        .prop_map(
            move |(pauses, max_pauses, crashes, max_crashes, steps, max_steps)| {
                let name = |i: usize| processes.get(i).cloned().unwrap_or_default();
                FaultsSpec {
                    pauses: pauses
                        .into_iter()
                        .map(|(p, durations_ms)| PauseSpec {
                            process: name(p),
                            durations_ms,
                            when: Default::default(),
                        })
                        .collect(),
                    max_pauses,
                    crashes: crashes
                        .into_iter()
                        .map(|(p, power_loss, restart)| CrashSpec {
                            process: name(p),
                            power_loss,
                            restart_after_ms: vec![restart],
                            when: Default::default(),
                        })
                        .collect(),
                    max_crashes,
                    clock_steps: steps
                        .into_iter()
                        .map(|(p, deltas_ms)| ClockStepSpec {
                            process: name(p),
                            deltas_ms,
                            when: Default::default(),
                        })
                        .collect(),
                    max_clock_steps: max_steps,
                    ..FaultsSpec::default()
                }
            },
        )
}
