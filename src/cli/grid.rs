//! `sweep` and `boundary`: one scenario checked at many values of its parameters, as a grid
//! with a table and a heat map, or bisected to the value where the verdict flips.
//!
//! Every point is a full check under the command's limits. A point that reaches a limit has
//! no verdict (a grey cell; a bisection that meets one stops and says where). An interrupt
//! stops the grid at the point it reaches: a sweep reports the points done, a bisection the
//! interval it had narrowed the flip to, and the command exits with the interrupt's code.

use super::input::{load_scenario, InputError};
use super::search::{run_check, Limits};
use super::{human, sweep, BoundaryArgs, Output, SweepArgs};
use super::{EXIT_LIMIT, EXIT_OK, EXIT_VIOLATION};
use crate::check::Mode;
use crate::interrupt;
use crate::report::heatmap::{Cell, Sweep, Verdict};
use crate::scenario::{duration, Scenario};
use lockcheck_sim::Outcome;
use serde_json::json;
use std::io::IsTerminal;
use std::path::PathBuf;

/// What the check at one point found.
enum Found {
    /// A verdict, or `Unknown` when a limit came first; the oracle violated; unique states.
    Verdict(Verdict, Option<String>, u64),
    /// An interrupt ended the check before a verdict.
    Interrupted,
}

/// The check of `scenario` at one point.
fn point(scenario: &Scenario, mode: Mode, limits: &Limits) -> Result<Found, InputError> {
    let checked = run_check(scenario, mode, limits, true)?;
    let states = checked.report.stats.unique_states;
    Ok(match (checked.violated(), checked.report.outcome) {
        (Some(o), _) => Found::Verdict(Verdict::Violated, Some(o.to_string()), states),
        (None, Outcome::Interrupted) => Found::Interrupted,
        (None, Outcome::LimitReached(_)) => Found::Verdict(Verdict::Unknown, None, states),
        (None, _) => Found::Verdict(Verdict::Safe, None, states),
    })
}

fn with_values(
    base: &Scenario,
    vary: &[sweep::Vary],
    values: &[u64],
) -> Result<Scenario, InputError> {
    let mut s = base.clone();
    for (v, x) in vary.iter().zip(values) {
        s = sweep::apply(&s, &v.name, *x)?;
    }
    Ok(s)
}

fn write_file(path: &PathBuf, text: &str) -> Result<(), InputError> {
    std::fs::write(path, text).map_err(|e| InputError {
        file: Some(path.display().to_string()),
        ..InputError::new(format!("cannot write: {e}"))
    })
}

pub(super) fn cmd_sweep(a: &SweepArgs, json_out: bool) -> Result<Output, InputError> {
    let base = load_scenario(&a.scenario)?;
    if a.vary.len() > 3 {
        return Err(InputError::new("give at most three --vary parameters"));
    }
    let mode = if a.random {
        Mode::Random {
            first: 0,
            count: a.seeds.unwrap_or(base.explore.random_seeds),
        }
    } else {
        Mode::Exhaustive
    };
    let points = sweep::grid(&a.vary);
    // Every point is checked once its scenario is known to build.
    let scenarios: Vec<Scenario> = points
        .iter()
        .map(|p| with_values(&base, &a.vary, p))
        .collect::<Result<_, _>>()?;
    let cells = check_grid(&points, &scenarios, mode, &a.limits, json_out)?;
    let sw = Sweep {
        scenario: base.name.clone(),
        params: a
            .vary
            .iter()
            .map(|v| (v.name.clone(), v.values.clone()))
            .collect(),
        cells,
    };
    if let Some(p) = &a.svg {
        write_file(p, &sw.svg())?;
    }
    if let Some(p) = &a.html {
        write_file(p, &sw.html())?;
    }
    Ok(sweep_output(a, &sw, points.len()))
}

/// Checks every point in order until the last or an interrupt.
fn check_grid(
    points: &[Vec<u64>],
    scenarios: &[Scenario],
    mode: Mode,
    limits: &Limits,
    json_out: bool,
) -> Result<Vec<Cell>, InputError> {
    let bar = (!json_out && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(points.len() as u64);
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar
    });
    let mut cells = Vec::new();
    for (values, s) in points.iter().zip(scenarios) {
        let Found::Verdict(verdict, oracle, states) = point(s, mode, limits)? else {
            break;
        };
        cells.push(Cell {
            values_ms: values.clone(),
            verdict,
            oracle,
            states,
        });
        if let Some(b) = &bar {
            b.inc(1);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(cells)
}

fn sweep_output(a: &SweepArgs, sw: &Sweep, total_points: usize) -> Output {
    let count = |v: Verdict| sw.cells.iter().filter(|c| c.verdict == v).count();
    let (safe, bad, unknown) = (
        count(Verdict::Safe),
        count(Verdict::Violated),
        count(Verdict::Unknown),
    );
    let interrupted = sw.cells.len() < total_points;
    let mut text = if interrupted {
        format!(
            "sweep of {}: interrupted by {} after {} of {total_points} points\n{}",
            sw.scenario,
            interrupt::signal_name(),
            sw.cells.len(),
            sw.table()
        )
    } else {
        format!(
            "sweep of {} over {} points\n{}",
            sw.scenario,
            sw.cells.len(),
            sw.table()
        )
    };
    text.push_str(&format!(
        "{safe} safe, {bad} violated, {unknown} without a verdict (limit)\n"
    ));
    for p in [&a.svg, &a.html].into_iter().flatten() {
        text.push_str(&format!("heat map written to {}\n", p.display()));
    }
    let code = if interrupted {
        interrupt::exit_code()
    } else if bad > 0 {
        EXIT_VIOLATION
    } else if unknown > 0 {
        EXIT_LIMIT
    } else {
        EXIT_OK
    };
    let mut j = serde_json::to_value(sw).expect("a sweep serialises");
    j["command"] = json!("sweep");
    j["outcome"] = json!(if interrupted {
        "interrupted"
    } else {
        "complete"
    });
    if interrupted {
        j["signal"] = json!(interrupt::signal_name());
    }
    j["points"] = json!(total_points);
    j["safe"] = json!(safe);
    j["violated"] = json!(bad);
    j["limit_reached"] = json!(unknown);
    Output {
        text,
        json: j,
        code,
    }
}

/// Why a bisection stopped before its answer.
enum Stopped {
    /// A limit came before a verdict at this value.
    Limit(u64),
    Interrupted,
}

/// The bisection's state: the flip lies in `(lo, hi]`; checks made so far.
struct Bisection<'a> {
    base: &'a Scenario,
    name: &'a str,
    limits: &'a Limits,
    checks: usize,
}

impl Bisection<'_> {
    fn verdict_at(
        &mut self,
        x: u64,
    ) -> Result<Result<(Verdict, Option<String>), Stopped>, InputError> {
        self.checks += 1;
        let s = sweep::apply(self.base, self.name, x)?;
        Ok(match point(&s, Mode::Exhaustive, self.limits)? {
            Found::Interrupted => Err(Stopped::Interrupted),
            Found::Verdict(Verdict::Unknown, _, _) => Err(Stopped::Limit(x)),
            Found::Verdict(v, o, _) => Ok((v, o)),
        })
    }

    /// The output of a bisection that stopped with the flip somewhere in `lo..=hi`.
    fn stopped(&self, why: Stopped, lo: u64, hi: u64) -> Output {
        let name = self.name;
        match why {
            Stopped::Limit(x) => {
                let message = format!(
                    "a limit was reached at {name} = {} before a verdict",
                    duration::format(x as i64)
                );
                Output {
                    text: format!("no verdict: {message}\n"),
                    json: json!({"command": "boundary", "verdict": "limit_reached", "message": message}),
                    code: EXIT_LIMIT,
                }
            }
            Stopped::Interrupted => {
                let message = format!(
                    "interrupted by {} in check {}: the verdict flips between {name} = {} and {}, if at all",
                    interrupt::signal_name(),
                    self.checks,
                    human(lo),
                    human(hi)
                );
                Output {
                    text: format!("no verdict: {message}\n"),
                    json: json!({"command": "boundary", "verdict": "interrupted", "outcome": "interrupted",
                        "message": message, "between_ms": [lo, hi], "checks": self.checks}),
                    code: interrupt::exit_code(),
                }
            }
        }
    }
}

pub(super) fn cmd_boundary(a: &BoundaryArgs) -> Result<Output, InputError> {
    let base = load_scenario(&a.scenario)?;
    let name = &a.vary.name;
    let (mut lo, mut hi) = match (a.vary.values.iter().min(), a.vary.values.iter().max()) {
        (Some(&lo), Some(&hi)) if lo < hi => (lo, hi),
        _ => {
            return Err(InputError {
                field: Some(name.clone()),
                ..InputError::new(
                    "bisecting needs a range of two different values, e.g. pause=0s..60s",
                )
            })
        }
    };
    let mut b = Bisection {
        base: &base,
        name,
        limits: &a.limits,
        checks: 0,
    };
    let at_lo = match b.verdict_at(lo)? {
        Ok(v) => v,
        Err(why) => return Ok(b.stopped(why, lo, hi)),
    };
    let at_hi = match b.verdict_at(hi)? {
        Ok(v) => v,
        Err(why) => return Ok(b.stopped(why, lo, hi)),
    };
    if at_lo.0 == at_hi.0 {
        return Ok(no_flip(&base, name, (lo, hi), at_lo.0, at_hi.0, b.checks));
    }
    let res = a.resolution.max(1);
    let lo_verdict = at_lo.0;
    while hi - lo > res {
        let mid = lo + (hi - lo) / 2;
        let v = match b.verdict_at(mid)? {
            Ok(v) => v,
            Err(why) => return Ok(b.stopped(why, lo, hi)),
        };
        if v.0 == lo_verdict {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let oracle = if lo_verdict == Verdict::Violated {
        at_lo.1
    } else {
        at_hi.1
    };
    Ok(flip(
        &base,
        name,
        (lo, hi),
        lo_verdict,
        oracle,
        res,
        b.checks,
    ))
}

fn no_flip(
    base: &Scenario,
    name: &str,
    (lo, hi): (u64, u64),
    at_lo: Verdict,
    at_hi: Verdict,
    checks: usize,
) -> Output {
    let text = format!(
        "the verdict does not flip between {name} = {} and {}: {} at both ends\n",
        human(lo),
        human(hi),
        at_lo.word()
    );
    let code = if at_lo == Verdict::Violated {
        EXIT_VIOLATION
    } else {
        EXIT_OK
    };
    let j = json!({"command": "boundary", "scenario": base.name, "parameter": name, "flip": null,
        "verdict_at_from": at_lo, "verdict_at_to": at_hi, "checks": checks});
    Output {
        text,
        json: j,
        code,
    }
}

fn flip(
    base: &Scenario,
    name: &str,
    (lo, hi): (u64, u64),
    lo_verdict: Verdict,
    oracle: Option<String>,
    res: u64,
    checks: usize,
) -> Output {
    let f = human;
    let sentence = if lo_verdict == Verdict::Safe {
        format!(
            "the smallest {name} that breaks this configuration is {} ({} violated); at {} it is safe",
            f(hi),
            oracle.as_deref().unwrap_or("?"),
            f(lo)
        )
    } else {
        format!(
            "the smallest {name} that makes this configuration safe is {}; at {} it breaks ({} violated)",
            f(hi),
            f(lo),
            oracle.as_deref().unwrap_or("?")
        )
    };
    let text = format!("{}: {sentence} ({checks} checks)\n", base.name);
    let j = json!({
        "command": "boundary",
        "scenario": base.name,
        "parameter": name,
        "flip": {"below_ms": lo, "at_ms": hi, "below": lo_verdict, "at": if lo_verdict == Verdict::Safe { Verdict::Violated } else { Verdict::Safe }},
        "oracle": oracle,
        "resolution_ms": res,
        "checks": checks,
        "sentence": sentence,
    });
    Output {
        text,
        json: j,
        code: EXIT_VIOLATION,
    }
}
