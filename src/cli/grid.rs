//! What `sweep` and `boundary` share: the check of a scenario at one point of its parameters.
//!
//! Every point is a full check under the command's limits. A point that reaches a limit has
//! no verdict (a grey cell; a bisection that meets one stops and says where). An interrupt
//! stops the grid at the point it reaches: a sweep reports the points done, a bisection the
//! interval it had narrowed the flip to, and the command exits with the interrupt's code.

use super::search::{run_check, Limits};
use super::vary;
use lockcheck::check::{Checked, Mode};
use lockcheck::report::heatmap::Verdict;
use lockcheck::scenario::Scenario;
use lockcheck::InputError;
use lockcheck_sim::Outcome;

/// What the check at one point found.
pub(super) enum Found {
    /// A verdict, or `Unknown` when a limit came first; the oracle violated; unique states.
    Verdict(Verdict, Option<String>, u64),
    /// An interrupt ended the check before a verdict.
    Interrupted,
}

/// The check of `scenario` at one point, and the check itself (its counterexample).
pub(super) fn point_checked(
    scenario: &Scenario,
    mode: Mode,
    limits: &Limits,
) -> Result<(Found, Checked), InputError> {
    let checked = run_check(scenario, mode, limits, true, false)?;
    let found = found(&checked);
    Ok((found, checked))
}

fn found(checked: &Checked) -> Found {
    let states = checked.report.stats.unique_states;
    match (checked.violated(), checked.report.outcome) {
        (Some(o), _) => Found::Verdict(Verdict::Violated, Some(o.to_string()), states),
        (None, Outcome::Interrupted) => Found::Interrupted,
        (None, Outcome::LimitReached(_)) => Found::Verdict(Verdict::Unknown, None, states),
        (None, _) => Found::Verdict(Verdict::Safe, None, states),
    }
}

pub(super) fn with_values(
    base: &Scenario,
    vary: &[vary::Vary],
    values: &[u64],
) -> Result<Scenario, InputError> {
    let mut s = base.clone();
    for (v, x) in vary.iter().zip(values) {
        s = vary::apply(&s, &v.name, *x)?;
    }
    Ok(s)
}
