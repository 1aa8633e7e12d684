//! A check's verdict against the scenario's `[expect]`: the two said in the same words, and
//! whether they agree.
//!
//! A stated `safe` is met only by a search that found no violation, ended with a verdict
//! (not cut by a limit or a signal) and witnessed every `sometimes` oracle (a hollow green
//! run does not count). A stated violation is met when that oracle is violated (with
//! `--all-oracles` others may be too). `check` and the testing API both decide with
//! [`VerdictComparison::of`], so a test never passes what the command line would not.
//! Without `[expect]` there is nothing to compare.

use crate::check::Checked;
use crate::oracles::RedisWorld;
use crate::report::seconds;
use crate::scenario::ExpectedVerdict;
use lockcheck_sim::{Outcome, Report};
use serde_json::{json, Value};

/// How a check's verdict compares with what the scenario expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerdictComparison {
    /// The scenario states no expectation.
    Unstated,
    Matches {
        expected: String,
    },
    Differs {
        expected: String,
        got: String,
    },
}

impl VerdictComparison {
    /// Compares `checked` with `expected`.
    pub fn of(checked: &Checked, expected: &ExpectedVerdict) -> VerdictComparison {
        let expected_words = match expected {
            ExpectedVerdict::Unstated => return VerdictComparison::Unstated,
            ExpectedVerdict::Safe => "safe".to_string(),
            ExpectedVerdict::Violated { oracle } => format!("violation of {oracle}"),
        };
        let matches = match expected {
            ExpectedVerdict::Violated { oracle } => {
                checked.violations().iter().any(|(n, _)| n == oracle)
            }
            _ => {
                has_verdict(checked)
                    && checked.violated().is_none()
                    && checked.report.hollow().is_empty()
            }
        };
        if matches {
            VerdictComparison::Matches {
                expected: expected_words,
            }
        } else {
            VerdictComparison::Differs {
                expected: expected_words,
                got: got(checked),
            }
        }
    }

    /// Whether the verdict is the one expected (never when none is stated).
    pub fn matches(&self) -> bool {
        matches!(self, VerdictComparison::Matches { .. })
    }

    /// The line `check` prints (none when no expectation is stated).
    pub fn line(&self) -> Option<String> {
        match self {
            VerdictComparison::Unstated => None,
            VerdictComparison::Matches { expected } => {
                Some(format!("expectation: matches expectation ({expected})\n"))
            }
            VerdictComparison::Differs { expected, got } => Some(format!(
                "expectation: DIFFERS from expectation: expected {expected}, got {got}\n"
            )),
        }
    }

    /// The same in JSON.
    pub fn json(&self) -> Value {
        match self {
            VerdictComparison::Unstated => json!({"status": "unstated"}),
            VerdictComparison::Matches { expected } => {
                json!({"status": "matches", "expected": expected})
            }
            VerdictComparison::Differs { expected, got } => {
                json!({"status": "differs", "expected": expected, "got": got})
            }
        }
    }
}

/// Whether the search ended with a verdict: a violation, or a search not cut short.
pub fn has_verdict(checked: &Checked) -> bool {
    checked.violated().is_some()
        || !matches!(
            checked.report.outcome,
            Outcome::LimitReached(_) | Outcome::Interrupted
        )
}

/// The verdict in the words of an expectation.
fn got(checked: &Checked) -> String {
    let violated: Vec<&str> = checked.violations().iter().map(|(n, _)| *n).collect();
    if !violated.is_empty() {
        return format!("violation of {}", violated.join(", "));
    }
    if !has_verdict(checked) {
        return format!("no verdict ({})", checked.report.outcome);
    }
    let hollow = checked.report.hollow();
    if hollow.is_empty() {
        "safe".to_string()
    } else {
        format!("a hollow safe (never witnessed: {})", hollow.join(", "))
    }
}

/// For an exhaustive search that ran into a limit: how far it got, and the bounds under
/// which a search completes on less of the space (the line `check` prints, and the testing
/// API's failures carry).
pub fn limit_hint(report: &Report<RedisWorld>) -> Option<String> {
    let Outcome::LimitReached(_) = report.outcome else {
        return None;
    };
    let s = &report.stats;
    Some(format!(
        "hint: the search got {} into virtual time (depth {}); a bound \
         (`--max-virtual-time`, `--max-depth`) gives a complete verdict on less of the space, \
         and `--stats` shows which choices multiply the states\n",
        seconds(s.max_virtual_time_ms),
        s.max_depth,
    ))
}
